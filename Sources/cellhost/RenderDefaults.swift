import CellHostCore

/// `render`'s settings from the config file's `[render]` section, merged
/// under the command line and the environment.
///
/// Precedence, highest first: the option, the environment (`COLUMNS` for the
/// width; `NO_COLOR` and `CLICOLOR_FORCE` for colour), the config file, the
/// default. A config value is checked like the option it stands for, and a
/// bad one is a usage error naming the file.
struct RenderDefaults {
    let config: ConfigFile?
    let environment: [String: String]

    func apply(to options: Options) throws -> Options {
        guard let config, !config.render.isEmpty else { return options }
        var arguments: [String] = []
        for key in ConfigFile.renderKeys {
            if let value = config.render[key] { arguments.append("--\(key)=\(value)") }
        }
        let defaults: Options
        do {
            defaults = try Options.parse(arguments, allowed: Set(ConfigFile.renderKeys.map { "--" + $0 }), command: "render")
        } catch let error as UsageError {
            // "--paging must be …" is about the key `paging` here.
            let message = error.message.hasPrefix("--") ? String(error.message.dropFirst(2)) : error.message
            throw UsageError(message: "\(config.path ?? "config") [render]: \(message)")
        }
        var merged = options
        merged.me = options.me ?? defaults.me
        merged.paging = options.paging ?? defaults.paging
        merged.images = options.images ?? defaults.images
        merged.bubbleWidth = options.bubbleWidth ?? defaults.bubbleWidth
        merged.widthMode = options.widthMode ?? defaults.widthMode
        merged.isolation = options.isolation ?? defaults.isolation
        merged.pluginTimeout = options.pluginTimeout ?? defaults.pluginTimeout
        merged.pluginMemory = options.pluginMemory ?? defaults.pluginMemory
        if options.width == nil, !hasValue("COLUMNS") { merged.width = defaults.width }
        if options.color == nil, !hasValue("NO_COLOR"), !hasValue("CLICOLOR_FORCE") { merged.color = defaults.color }
        return merged
    }

    private func hasValue(_ name: String) -> Bool { !(environment[name] ?? "").isEmpty }
}
