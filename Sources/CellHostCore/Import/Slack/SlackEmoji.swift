/// Slack's emoji shortcodes (`thumbsup`, `tada`, `skin-tone-3`) as emoji:
/// reactions name their emoji this way, and message text writes `:name:`.
/// The table holds the common ones; a name it does not know stays `:name:`
/// (custom workspace emoji are names too, with no picture in the export).
enum SlackEmoji {
    /// The emoji for a reaction or shortcode name (`+1::skin-tone-2` gives
    /// 👍🏻); `:name:` when the name is not in the table.
    static func emoji(_ name: String) -> String {
        known(name) ?? ":\(name):"
    }

    /// The emoji for `name`, or nil when the table does not know it.
    static func known(_ name: String) -> String? {
        var base = name
        var tone: String?
        if let range = name.firstRange(of: "::skin-tone-") {
            base = String(name[..<range.lowerBound])
            tone = String(name[range.upperBound...])
        }
        guard let emoji = table[base] else { return nil }
        guard let tone else { return emoji }
        guard let modifier = skinTones[tone] else { return emoji }
        // The modifier follows the first scalar (before any variation selector).
        var scalars = Array(emoji.unicodeScalars)
        if scalars.count > 1, scalars[1] == "\u{FE0F}" { scalars.remove(at: 1) }
        scalars.insert(modifier, at: 1)
        var view = String.UnicodeScalarView()
        view.append(contentsOf: scalars)
        return String(view)
    }

    /// `skin-tone-2` … `skin-tone-6`: the Fitzpatrick modifiers.
    private static let skinTones: [String: Unicode.Scalar] = [
        "2": "\u{1F3FB}", "3": "\u{1F3FC}", "4": "\u{1F3FD}", "5": "\u{1F3FE}", "6": "\u{1F3FF}",
    ]

    private static let table: [String: String] = [
        "+1": "👍", "thumbsup": "👍", "-1": "👎", "thumbsdown": "👎", "ok_hand": "👌", "clap": "👏",
        "wave": "👋", "raised_hands": "🙌", "pray": "🙏", "muscle": "💪", "point_up": "☝️", "point_right": "👉",
        "point_left": "👈", "point_down": "👇", "v": "✌️", "crossed_fingers": "🤞", "handshake": "🤝",
        "heart": "❤️", "orange_heart": "🧡", "yellow_heart": "💛", "green_heart": "💚", "blue_heart": "💙",
        "purple_heart": "💜", "black_heart": "🖤", "broken_heart": "💔", "sparkling_heart": "💖", "two_hearts": "💕",
        "smile": "😄", "smiley": "😃", "grinning": "😀", "grin": "😁", "laughing": "😆", "satisfied": "😆",
        "sweat_smile": "😅", "joy": "😂", "rolling_on_the_floor_laughing": "🤣", "slightly_smiling_face": "🙂",
        "upside_down_face": "🙃", "wink": "😉", "blush": "😊", "innocent": "😇", "heart_eyes": "😍",
        "star-struck": "🤩", "kissing_heart": "😘", "yum": "😋", "stuck_out_tongue": "😛",
        "stuck_out_tongue_winking_eye": "😜", "thinking_face": "🤔", "face_with_raised_eyebrow": "🤨",
        "neutral_face": "😐", "expressionless": "😑", "no_mouth": "😶", "smirk": "😏", "unamused": "😒",
        "face_with_rolling_eyes": "🙄", "grimacing": "😬", "relieved": "😌", "pensive": "😔", "sleepy": "😪",
        "sleeping": "😴", "mask": "😷", "nerd_face": "🤓", "sunglasses": "😎", "confused": "😕", "worried": "😟",
        "slightly_frowning_face": "🙁", "open_mouth": "😮", "hushed": "😯", "astonished": "😲", "flushed": "😳",
        "pleading_face": "🥺", "cry": "😢", "sob": "😭", "scream": "😱", "disappointed": "😞", "sweat": "😓",
        "weary": "😩", "tired_face": "😫", "triumph": "😤", "rage": "😡", "angry": "😠", "skull": "💀",
        "exploding_head": "🤯", "partying_face": "🥳", "hugging_face": "🤗", "shushing_face": "🤫",
        "zipper_mouth_face": "🤐", "sweat_drops": "💦", "zzz": "💤", "poop": "💩", "hankey": "💩",
        "see_no_evil": "🙈", "hear_no_evil": "🙉", "speak_no_evil": "🙊", "eyes": "👀", "brain": "🧠",
        "tada": "🎉", "confetti_ball": "🎊", "balloon": "🎈", "gift": "🎁", "birthday": "🎂", "trophy": "🏆",
        "medal": "🏅", "fire": "🔥", "sparkles": "✨", "star": "⭐", "star2": "🌟", "zap": "⚡", "boom": "💥",
        "100": "💯", "rocket": "🚀", "white_check_mark": "✅", "heavy_check_mark": "✔️", "ballot_box_with_check": "☑️",
        "x": "❌", "heavy_multiplication_x": "✖️", "warning": "⚠️", "no_entry": "⛔", "no_entry_sign": "🚫",
        "question": "❓", "exclamation": "❗", "bangbang": "‼️", "heavy_plus_sign": "➕", "heavy_minus_sign": "➖",
        "bulb": "💡", "memo": "📝", "pencil": "📝", "pencil2": "✏️", "pushpin": "📌", "paperclip": "📎", "link": "🔗",
        "lock": "🔒", "key": "🔑", "bell": "🔔", "mag": "🔍", "calendar": "📆", "date": "📅", "clock1": "🕐",
        "hourglass": "⌛", "stopwatch": "⏱️", "email": "📧", "envelope": "✉️", "phone": "📱", "computer": "💻",
        "chart_with_upwards_trend": "📈", "chart_with_downwards_trend": "📉", "bar_chart": "📊",
        "moneybag": "💰", "dollar": "💵", "coffee": "☕", "beer": "🍺", "beers": "🍻", "wine_glass": "🍷",
        "pizza": "🍕", "hamburger": "🍔", "cake": "🍰", "doughnut": "🍩", "cookie": "🍪", "apple": "🍎",
        "sunny": "☀️", "cloud": "☁️", "umbrella": "☔", "snowflake": "❄️", "rainbow": "🌈", "earth_americas": "🌎",
        "cat": "🐱", "dog": "🐶", "unicorn_face": "🦄", "bug": "🐛", "tiger": "🐯", "monkey_face": "🐵",
        "snail": "🐌", "turtle": "🐢", "seedling": "🌱", "rose": "🌹", "sunflower": "🌻", "cactus": "🌵",
        "house": "🏠", "car": "🚗", "airplane": "✈️", "ship": "🚢", "construction": "🚧",
        "arrow_right": "➡️", "arrow_left": "⬅️", "arrow_up": "⬆️", "arrow_down": "⬇️", "repeat": "🔁",
        "heavy_dollar_sign": "💲", "speech_balloon": "💬", "thought_balloon": "💭", "loudspeaker": "📢",
        "mega": "📣", "musical_note": "🎵", "notes": "🎶", "video_game": "🎮", "dart": "🎯", "game_die": "🎲",
        "soccer": "⚽", "basketball": "🏀", "checkered_flag": "🏁", "triangular_flag_on_post": "🚩",
        "thumbsup_all": "👍", "raising_hand": "🙋", "man-shrugging": "🤷‍♂️", "woman-shrugging": "🤷‍♀️",
        "shrug": "🤷", "facepalm": "🤦", "man-facepalming": "🤦‍♂️", "woman-facepalming": "🤦‍♀️",
        "white_circle": "⚪", "red_circle": "🔴", "large_green_circle": "🟢", "large_blue_circle": "🔵",
        "large_yellow_circle": "🟡", "small_red_triangle": "🔺", "information_source": "ℹ️", "new": "🆕",
        "ok": "🆗", "sos": "🆘", "cool": "🆒", "free": "🆓", "up": "🆙", "heavy_heart_exclamation_mark_ornament": "❣️",
    ]
}
