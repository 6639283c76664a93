/// Whether a WhatsApp export writes its dates day first (`31/12/20`) or
/// month first (`12/31/20`). A line does not say: `01/02/20` reads both
/// ways. The export as a whole does, once a date has a number above 12 in
/// one of its first two places, so the order is decided from every date of
/// the file (or, on a stream, from the dates before the first message has to
/// be shown).
enum WhatsAppDateOrder: Equatable {
    case dayFirst, monthFirst

    /// How the order is named in notes and warnings.
    var title: String { self == .dayFirst ? "day first" : "month first" }

    /// The order a header shows by itself: a first number above 12 (and a
    /// second one that can be a month) is a day; a second number above 12 is.
    /// Nil for a header that does not tell (or is year first).
    static func shown(by header: WhatsAppHeader) -> WhatsAppDateOrder? {
        guard !header.yearFirst else { return nil }
        let first = header.numbers[0]
        let second = header.numbers[1]
        guard (1...31).contains(first), (1...31).contains(second) else { return nil }
        if first > 12 && second <= 12 { return .dayFirst }
        if second > 12 && first <= 12 { return .monthFirst }
        return nil
    }

    /// The order when no date tells: month first for `/` with `AM`/`PM` in
    /// capitals (the United States' `12/31/20, 11:59 PM`), day first for
    /// every other style (`31/12/2020, 23:59`, `31/12/20, 11:59 pm`,
    /// `31/12/20, 11:59 p. m.`, `31.12.20`, `31-12-2020`).
    static func usual(for header: WhatsAppHeader) -> WhatsAppDateOrder {
        header.separator == UInt8(ascii: "/") && header.capitalMarker ? .monthFirst : .dayFirst
    }

    /// The time of `header` in the run's time zone (WhatsApp writes local
    /// time with no zone); nil when the date or time is impossible.
    func time(of header: WhatsAppHeader) -> Double? {
        let year: Int
        let month: Int
        let day: Int
        if header.yearFirst {
            (year, month, day) = (header.numbers[0], header.numbers[1], header.numbers[2])
        } else {
            year = header.digits[2] == 2 ? 2000 + header.numbers[2] : header.numbers[2]
            (month, day) = self == .dayFirst ? (header.numbers[1], header.numbers[0]) : (header.numbers[0], header.numbers[1])
        }
        var hour = header.hour
        switch header.clock {
        case .twentyFourHour:
            break
        case .am, .pm:
            guard (1...12).contains(hour) else { return nil }
            hour = hour % 12 + (header.clock == .pm ? 12 : 0)
        case .unknown:
            return nil
        }
        return ImportTime.local(year: year, month: month, day: day, hour: hour, minute: header.minute, second: header.second)
    }
}

/// What the dates of an export have shown about their order so far: the
/// dates that tell each order, and the style of the first date, for the
/// usual order when none tells.
struct WhatsAppDateSurvey {
    private(set) var dayFirst = 0
    private(set) var monthFirst = 0
    /// The first date that told each order (line, as written).
    private(set) var firstDayFirst: (line: Int, text: String)?
    private(set) var firstMonthFirst: (line: Int, text: String)?
    private var usual: WhatsAppDateOrder?

    mutating func add(_ header: WhatsAppHeader, line: Int) {
        if header.yearFirst { return }
        if usual == nil { usual = WhatsAppDateOrder.usual(for: header) }
        switch WhatsAppDateOrder.shown(by: header) {
        case .dayFirst?:
            dayFirst += 1
            if firstDayFirst == nil { firstDayFirst = (line, header.written) }
        case .monthFirst?:
            monthFirst += 1
            if firstMonthFirst == nil { firstMonthFirst = (line, header.written) }
        case nil:
            break
        }
    }

    /// True once some date has told the order.
    var isTold: Bool { dayFirst + monthFirst > 0 }

    /// The order to read the dates in, and the note that says why: the order
    /// more dates tell, else the usual order for the style of the first date.
    func decision() -> (order: WhatsAppDateOrder, told: Bool, note: String?) {
        guard isTold else {
            guard let usual else { return (.dayFirst, false, nil) }
            let style = usual == .monthFirst ? "'/' and AM/PM" : "this date style"
            return (usual, false, "dates read \(usual.title): none tells the order (no day above 12), "
                    + "and \(usual.title) is the usual order with \(style)")
        }
        let order: WhatsAppDateOrder = dayFirst >= monthFirst ? .dayFirst : .monthFirst
        guard let first = order == .dayFirst ? firstDayFirst : firstMonthFirst else { return (order, true, nil) }
        var note = "dates read \(order.title) (as \"\(first.text)\" on line \(first.line) shows)"
        let other = order == .dayFirst ? monthFirst : dayFirst
        if other > 0, let odd = order == .dayFirst ? firstMonthFirst : firstDayFirst {
            note += "; \(other) date\(other == 1 ? "" : "s") read the other way, the first \"\(odd.text)\" on line \(odd.line)"
        }
        return (order, true, note)
    }
}
