/// The `--help` texts.
enum Help {
    static let version = "0.1.0"

    static let main = """
    cellhost — render chat messages in the terminal through plugin cell renderers

    USAGE:
      cellhost render [FILE… | DIR | -] [options]
                                              render messages: CellHost JSON Lines, or a
                                              Telegram, Matrix, Discord, Slack or WhatsApp export
      cellhost list-plugins [--json] [--verbose]
                                              list plugins, their classes and the registry
      cellhost check-plugin FILE.so [--json]  check one plugin: load, link, render samples
      cellhost new-plugin NAME [--lang c|swift] [--type TYPE]
                                              write a ready-to-build plugin directory
      cellhost --version

    Run 'cellhost COMMAND --help' for a command's options. Defaults for render can be
    set in ~/.config/cellhost/config under [render] (me, width, color, paging,
    width-mode, images, bubble-width, isolation, plugin-timeout, plugin-memory).
    The manual: 'man cellhost' (the search path, the config file, the environment).

    """

    static let render = """
    USAGE: cellhost render [FILE… | DIR | -] [options]

    Renders each message as soon as it is read. FILE is CellHost JSON Lines (one
    message per line, or one JSON array), or a chat export: a Telegram Desktop
    result.json, Matrix events (an Element export, a /messages page, a /sync
    response), a DiscordChatExporter JSON file, a WhatsApp chat .txt, or a Slack
    export directory (DIR). The format is told from the content; '-' or no FILE
    reads standard input.

    OPTIONS:
      --format ansi|plain|json|html
                                output format (default: ansi on a terminal, else
                                plain); html is one self-contained page
      --follow                  keep reading FILE as it grows, like tail -F (truncation
                                and rotation included); CellHost JSON Lines only
      --lines N                 with --follow: start from the last N messages (default 10)
      --from FORMAT             read every input as FORMAT instead of detecting it:
                                cellhost, telegram, matrix, discord, slack, whatsapp
      --width N                 columns, 12 to 1000 (default: $COLUMNS, else the
                                terminal's, else 80)
      --me ID                   the viewer's user id: their messages are outgoing
      --renderer TYPE=CLASS     use CLASS for message class TYPE (repeatable)
      --plugin-path DIR         look for plugins in DIR first (repeatable)
      --color auto|always|never colours in ansi output (default auto; NO_COLOR,
                                CLICOLOR_FORCE, COLORTERM and TERM are honoured;
                                an explicit --format ansi means colour when piped)
      --paging auto|always|never
                                through $CELLHOST_PAGER, $PAGER or 'less -RFX' (default
                                auto: when stdout is a terminal and the input is no
                                live stream)
      --bubble-width N          the most columns a message bubble takes (default 100)
      --width-mode grapheme|wcwidth|auto
                                measure text by grapheme cluster (kitty, WezTerm,
                                foot) or code point by code point (tmux, xterm, VTE);
                                auto (the default) picks by TERM_PROGRAM and TERM
      --max-rows N              rows of content per message (default 1000); the
                                rest becomes one '… N more lines' row
      --max-bytes N             bytes of content per message (default 1048576)
      --verbose                 also show plugins' info and debug logs, the format each
                                input was read as, an import summary, and times that
                                could not be read
      --images symbols|none     picture previews drawn with characters and colours
                                (default symbols), or none
      --image-rows N            the most rows a preview takes (default 12)
      --media-dir DIR           resolve relative media paths against DIR (default: the
                                input file's directory; the current one for stdin)
      --isolation MODE          where plugin code runs: none (in this process),
                                auto (plugins installed with cellhost in this process,
                                others in a worker process; the default), shared (all
                                in one worker), each (a worker per plugin)
      --plugin-timeout MS       a plugin's time limit per message (default 500 in a
                                worker; 10000 in this process, where it ends the run)
      --plugin-memory MIB       a worker's memory limit (default 1024)
      --allow-insecure-plugins  load plugin files that others could have written
      -h, --help                show this help

    A plugin that crashes or times out in a worker is disabled for the run and its
    messages go to the next renderer of their fallback chain.

    EXIT STATUS: 0 all rendered (fallbacks are normal), 1 some input was invalid,
    2 usage error, 3 standard output could not be written, 4 code running in this
    process crashed or timed out (messages rendered before it are written).

    """

    static let newPlugin = """
    USAGE: cellhost new-plugin NAME [--lang c|swift] [--type TYPE] [--output DIR] [--sdk DIR]

    Writes a plugin directory NAME/ (or DIR) holding a cell class for message class
    TYPE (default: NAME), a sample conversation and a README with the three commands
    that build the plugin, check it with 'cellhost check-plugin' and render the sample.
    A TYPE the host does not know is declared by the plugin under "text".

    OPTIONS:
      --lang c|swift   C against the contract headers (default), or Swift with CellKit
      --type TYPE      the message class the cell renders
      --output DIR     where to write (default: ./NAME); it must not exist
      --sdk DIR        where the headers (and CellKit) come from: a CellHost checkout,
                       or for C an installation prefix (default: the headers
                       installed with this executable, else the checkout it was
                       built in; Swift needs a checkout, CellKit is not installed)
      -h, --help       show this help

    """

    static let listPlugins = """
    USAGE: cellhost list-plugins [--json] [--verbose] [--rescan] [--plugin-path DIR]… [--renderer TYPE=CLASS]…

    Lists every plugin found (id, version, ABI, file, loaded or why not), its cell
    classes, and the effective registry: message class → winning class, shadowed
    candidates, parent class. Plugins are described in a child process and the
    result is cached ($XDG_CACHE_HOME/cellhost/plugins.cache) until a file changes.

    OPTIONS:
      --json                    one JSON object (a stable format)
      --verbose                 methods and encodings, descriptions, the search path
      --plugin-path DIR         look for plugins in DIR first (repeatable)
      --renderer TYPE=CLASS     show the registry with this override (repeatable)
      --rescan                  describe every plugin again, ignoring the cache
      --allow-insecure-plugins  load plugin files that others could have written
      -h, --help                show this help

    EXIT STATUS: 0 every plugin loaded, 1 a plugin failed or a class was rejected,
    2 usage error.

    """

    static let checkPlugin = """
    USAGE: cellhost check-plugin FILE.so [--json] [--plugin-path DIR]… [--timeout MS] [--width N]…
                                 [--plugin-memory MIB] [--allow-insecure-plugins]

    Checks one plugin file the way 'cellhost render' would use it, in child
    processes (a crash or hang fails one check, the others still run), and prints
    one line per check: PASS, FAIL or SKIP, its name, and what passed or why not;
    then a summary line. The checks: descriptor, classes-link, init-deinit,
    render-samples, can-render, plain-text, determinism, time-per-call,
    output-bounds, declines-everything ('man cellhost' says what each asserts).

    OPTIONS:
      --json                    one JSON object per check and line
      --plugin-path DIR         look for other plugins (superclasses) in DIR first (repeatable)
      --timeout MS              the time one render call may take (default 100); a call
                                still running after 10 times that (at least 2 s) is a hang
      --plugin-memory MIB       each check process's memory limit (default 1024)
      --width N                 render the samples at content width N (repeatable;
                                default 1, 20, 40, 80 and 200)
      --allow-insecure-plugins  load plugin files that others could have written
      -h, --help                show this help

    EXIT STATUS: 0 no check failed, 1 a check failed, 2 usage error.

    """

    static func topic(_ name: String) -> String? {
        switch name {
        case "render": return render
        case "list-plugins": return listPlugins
        case "check-plugin": return checkPlugin
        case "new-plugin": return newPlugin
        default: return nil
        }
    }
}
