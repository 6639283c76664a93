/// Select Graphic Rendition sequences for styles, at a colour depth.
enum ANSIStyle {
    /// Sender colours: red, green, yellow, blue, magenta, cyan in each depth.
    static let sender16 = [31, 32, 33, 34, 35, 36]
    static let sender256 = [203, 114, 179, 75, 177, 80]
    static let senderRGB: [(Int, Int, Int)] = [(239, 83, 80), (102, 187, 106), (255, 202, 40),
                                               (66, 165, 245), (171, 71, 188), (38, 198, 218)]

    static func sequence(for piece: Piece, depth: ColorDepth) -> String? {
        let style = piece.style
        var codes: [String] = []
        if style.contains(.strong) { codes.append("1") }
        if style.contains(.muted) || style.contains(.gutter) || style.contains(.separator) { codes.append("2") }
        if style.contains(.emphasis) || style.contains(.quote) { codes.append("3") }
        if style.contains(.link) { codes.append("4") }
        if style.contains(.sender) {
            codes.append(color(index: style.senderColorIndex, depth: depth))
        } else if style.contains(.error) {
            codes.append(basic(31, depth))
        } else if style.contains(.warning) {
            codes.append(basic(33, depth))
        } else if style.contains(.success) {
            codes.append(basic(32, depth))
        } else if style.contains(.link) {
            codes.append(basic(34, depth))
        } else if style.contains(.code) {
            codes.append(basic(36, depth))
        } else if style.contains(.accent) {
            codes.append(basic(35, depth))
        }
        if style.contains(.customForeground) { codes.append(rgb(piece.foreground, depth: depth, background: false)) }
        if style.contains(.customBackground) { codes.append(rgb(piece.background, depth: depth, background: true)) }
        guard !codes.isEmpty else { return nil }
        return "\u{1B}[" + codes.joined(separator: ";") + "m"
    }

    static func basic(_ code: Int, _ depth: ColorDepth) -> String { String(code) }

    /// Appends the SGR of a block cell whose only attributes are its own
    /// colours (image previews: a thousand cells a message), byte by byte;
    /// the same as `sequence(for:depth:)` gives for it. False, with nothing
    /// appended, for any other piece.
    static func appendBlockSequence(for piece: Piece, depth: ColorDepth, to out: OutputBuffer) -> Bool {
        guard isColourOnly(piece) else { return false }
        out.append(0x1B)
        out.append(UInt8(ascii: "["))
        var first = true
        if piece.style.contains(.customForeground) {
            appendColour(piece.foreground, depth: depth, background: false, to: out)
            first = false
        }
        if piece.style.contains(.customBackground) {
            if !first { out.append(UInt8(ascii: ";")) }
            appendColour(piece.background, depth: depth, background: true, to: out)
        }
        out.append(UInt8(ascii: "m"))
        return true
    }

    /// A block cell whose only attributes are its own colours.
    static func isColourOnly(_ piece: Piece) -> Bool {
        !piece.style.isEmpty && piece.style.isSubset(of: [.customForeground, .customBackground])
    }

    /// Two colour-only cells that set the same colours.
    static func sameColours(_ a: Piece, _ b: Piece) -> Bool {
        a.style == b.style && (!a.style.contains(.customForeground) || a.foreground == b.foreground)
            && (!a.style.contains(.customBackground) || a.background == b.background)
    }

    private static func appendColour(_ value: UInt32, depth: ColorDepth, background: Bool, to out: OutputBuffer) {
        let r = Int(value >> 16 & 0xFF), g = Int(value >> 8 & 0xFF), b = Int(value & 0xFF)
        switch depth {
        case .trueColor:
            out.appendDecimal(background ? 48 : 38)
            out.append(UInt8(ascii: ";"))
            out.append(UInt8(ascii: "2"))
            for channel in [r, g, b] {
                out.append(UInt8(ascii: ";"))
                out.appendDecimal(channel)
            }
        case .ansi256:
            func level(_ c: Int) -> Int { c < 48 ? 0 : c < 115 ? 1 : (c - 35) / 40 }
            out.appendDecimal(background ? 48 : 38)
            out.append(UInt8(ascii: ";"))
            out.append(UInt8(ascii: "5"))
            out.append(UInt8(ascii: ";"))
            out.appendDecimal(16 + 36 * level(r) + 6 * level(g) + level(b))
        default:
            let bright = (r + g + b) > 382
            let code = (r > 127 ? 1 : 0) | (g > 127 ? 2 : 0) | (b > 127 ? 4 : 0)
            out.appendDecimal((background ? 40 : 30) + code + (bright ? 60 : 0))
        }
    }

    static func color(index: Int, depth: ColorDepth) -> String {
        switch depth {
        case .trueColor:
            let (r, g, b) = senderRGB[index % 6]
            return "38;2;\(r);\(g);\(b)"
        case .ansi256: return "38;5;\(sender256[index % 6])"
        default: return String(sender16[index % 6])
        }
    }

    static func rgb(_ value: UInt32, depth: ColorDepth, background: Bool) -> String {
        let r = Int(value >> 16 & 0xFF), g = Int(value >> 8 & 0xFF), b = Int(value & 0xFF)
        switch depth {
        case .trueColor:
            return "\(background ? 48 : 38);2;\(r);\(g);\(b)"
        case .ansi256:
            func level(_ c: Int) -> Int { c < 48 ? 0 : c < 115 ? 1 : (c - 35) / 40 }
            return "\(background ? 48 : 38);5;\(16 + 36 * level(r) + 6 * level(g) + level(b))"
        default:
            let bright = (r + g + b) > 382
            let code = (r > 127 ? 1 : 0) | (g > 127 ? 2 : 0) | (b > 127 ? 4 : 0)
            return String((background ? 40 : 30) + code + (bright ? 60 : 0))
        }
    }
}
