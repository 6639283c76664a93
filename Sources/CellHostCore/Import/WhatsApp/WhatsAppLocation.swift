/// A location shared in a WhatsApp chat: `location: https://maps.google.com/?q=48.6,-2.02`
/// (Android), `Location: https://maps.google.com/?q=…` (iOS), or
/// `Place name: https://maps.google.com/?q=…` for a named place.
enum WhatsAppLocation {
    /// The location and the link, or nil when `text` is not one line made
    /// of an optional label and a map link with readable coordinates.
    static func parse(_ text: String) -> (location: ImportedMessage.Location, url: String)? {
        guard text.utf8.count <= 4096, !text.contains("\n"),
              let start = starts.compactMap({ text.firstRange(of: $0)?.lowerBound }).min() else { return nil }
        let url = text[start...]
        guard !url.contains(" "), let (latitude, longitude) = coordinates(url) else { return nil }
        var label = text[..<start].trimmingSpacesSubstring
        if !label.isEmpty {
            guard label.hasSuffix(":") else { return nil }
            label = label.dropLast().trimmingSpacesSubstring
        }
        let name = label.isEmpty || genericLabels.contains(label.lowercased()) ? nil : String(label)
        return (ImportedMessage.Location(latitude: latitude, longitude: longitude, name: name), String(url))
    }

    /// How map links start.
    private static let starts = ["https://maps.google.com/", "http://maps.google.com/", "https://www.google.com/maps",
                                 "https://maps.app.goo.gl/", "https://maps.apple.com/"]

    /// Labels that say only "location", in several languages.
    private static let genericLabels: Set<String> = ["location", "live location", "ubicación", "ubicación en tiempo real",
                                                     "standort", "localização", "position", "posizione"]

    /// `lat,lon` after `q=`, `ll=` or `@` in a map link, when both are in range.
    private static func coordinates(_ url: Substring) -> (Double, Double)? {
        for key in ["q=", "ll=", "@"] {
            guard let range = url.firstRange(of: key) else { continue }
            let value = url[range.upperBound...].prefix { "0123456789.,-+".contains($0) }
            let parts = value.split(separator: ",", omittingEmptySubsequences: false)
            guard parts.count >= 2, parts[0].count <= 24, parts[1].count <= 24,
                  let latitude = Double(parts[0]), let longitude = Double(parts[1]),
                  latitude.isFinite, longitude.isFinite, abs(latitude) <= 90, abs(longitude) <= 180 else { continue }
            return (latitude, longitude)
        }
        return nil
    }
}
