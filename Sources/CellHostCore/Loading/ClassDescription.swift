/// A class as a plugin describes it, before it is linked into the runtime:
/// plain data, separable from the library that implements it. Descriptions
/// read in the scanner process or from the plugin cache carry no IMPs
/// (`imp == 0`); the library is opened when the class is first used.
public struct ClassDescription: Sendable, Codable {
    public struct MethodDescription: Sendable, Codable {
        public var selector: String
        public var types: String
        /// The IMP's address in this process; 0 when only described.
        public var imp: UInt
        /// Whether the plugin gave an implementation (a non-NULL IMP), also
        /// when the description came from another process.
        public var implemented: Bool

        public init(selector: String, types: String, imp: UInt) {
            self.selector = selector
            self.types = types
            self.imp = imp
            implemented = imp != 0
        }

        private enum CodingKeys: String, CodingKey { case selector, types, implemented }

        public init(from decoder: Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            selector = try container.decode(String.self, forKey: .selector)
            types = try container.decode(String.self, forKey: .types)
            implemented = try container.decode(Bool.self, forKey: .implemented)
            imp = 0
        }
    }
    public var name: String
    public var superclass: String
    public var messageClasses: [String]
    public var rank: Int32
    public var instanceSize: Int
    public var methods: [MethodDescription]
    /// Where the plugin keeps the class struct in this process (what it
    /// passes to `object_ivars`); 0 when only described.
    public var address: UInt = 0

    private enum CodingKeys: String, CodingKey { case name, superclass, messageClasses, rank, instanceSize, methods }
}

/// Why a class was not accepted.
public struct ClassRejection: Error, CustomStringConvertible, Sendable {
    public var className: String
    public var reason: String
    public var description: String { "class '\(className)' rejected: \(reason)" }
}
