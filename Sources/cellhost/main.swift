import Glibc

// `cellhost`: a thin command line over CellHostCore. See docs/cli.md.
let arguments = Array(CommandLine.arguments.dropFirst())
exit(CommandLineTool(environment: currentEnvironment()).run(arguments))
