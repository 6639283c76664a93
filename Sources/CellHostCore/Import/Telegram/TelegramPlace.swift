/// Telegram's shared locations, venues and contacts.
enum TelegramPlace {
    /// `location_information` (`latitude`, `longitude`) as a location, named
    /// by a venue's `place_name` and `address`; nil when there is none or
    /// its coordinates are not numbers in range.
    static func location(_ node: TelegramNode) -> ImportedMessage.Location? {
        guard let info = node["location_information"], info.isObject,
              let latitude = info["latitude"]?.number, let longitude = info["longitude"]?.number,
              (-90...90).contains(latitude), (-180...180).contains(longitude) else { return nil }
        let names = [node["place_name"]?.nonEmptyString, node["address"]?.nonEmptyString].compactMap { $0 }
        return ImportedMessage.Location(latitude: latitude, longitude: longitude,
                                        name: names.isEmpty ? nil : names.joined(separator: ", "))
    }

    /// `contact_information` as a line of text: "Contact: Ann Lee, +1 555 0100".
    static func contact(_ node: TelegramNode) -> String? {
        guard let info = node["contact_information"], info.isObject else { return nil }
        let name = [info["first_name"]?.nonEmptyString, info["last_name"]?.nonEmptyString].compactMap { $0 }.joined(separator: " ")
        let parts = [name.isEmpty ? nil : name, info["phone_number"]?.nonEmptyString].compactMap { $0 }
        return parts.isEmpty ? "Contact" : "Contact: " + parts.joined(separator: ", ")
    }
}
