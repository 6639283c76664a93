/// The `--help` texts.
enum Help {
    static let version = "0.1.0"

    static let main = """
    cellhost — render chat messages in the terminal through plugin cell renderers

    USAGE:
      cellhost render [FILE… | -] [options]   render messages (JSON Lines or a JSON array)
      cellhost list-plugins [--json] [--verbose]
                                              list plugins, their classes and the registry
      cellhost --version

    Run 'cellhost COMMAND --help' for a command's options. Documentation: docs/cli.md.

    """

    static let render = """
    USAGE: cellhost render [FILE… | -] [options]

    Renders each message as soon as it is read. FILE is JSON Lines (one message per
    line) or a file holding one JSON array; '-' or no FILE reads standard input.

    OPTIONS:
      --format ansi|plain|json  output format (default: ansi on a terminal, else plain)
      --width N                 columns (default: $COLUMNS, else the terminal's, else 80)
      --me ID                   the viewer's user id: their messages are outgoing
      --renderer TYPE=CLASS     use CLASS for message class TYPE (repeatable)
      --plugin-path DIR         look for plugins in DIR first (repeatable)
      --color auto|always|never colours in ansi output (default auto; NO_COLOR,
                                CLICOLOR_FORCE, COLORTERM and TERM are honoured)
      --max-rows N              rows of content per message (default 1000); the
                                rest becomes one '… N more lines' row
      --max-bytes N             bytes of content per message (default 1048576)
      --verbose                 also show plugins' info and debug logs
      -h, --help                show this help

    EXIT STATUS: 0 all rendered (fallbacks are normal), 1 some input was invalid,
    2 usage error, 3 standard output could not be written.

    """

    static let listPlugins = """
    USAGE: cellhost list-plugins [--json] [--verbose] [--plugin-path DIR]… [--renderer TYPE=CLASS]…

    Lists every plugin found (id, version, ABI, file, loaded or why not), its cell
    classes, and the effective registry: message class → winning class, shadowed
    candidates, parent class.

    OPTIONS:
      --json                    one JSON object (stable; see docs/cli.md)
      --verbose                 methods and encodings, descriptions, the search path
      --plugin-path DIR         look for plugins in DIR first (repeatable)
      --renderer TYPE=CLASS     show the registry with this override (repeatable)
      -h, --help                show this help

    """

    static func topic(_ name: String) -> String? {
        switch name {
        case "render": return render
        case "list-plugins": return listPlugins
        default: return nil
        }
    }
}
