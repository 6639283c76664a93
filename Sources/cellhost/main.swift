import CellHostCore
import Glibc

// `cellhost`: a thin command line over CellHostCore. See docs/cli.md.
let arguments = Array(CommandLine.arguments.dropFirst())
// The plugin scanner: the host re-executes itself to describe plugins in a
// child process (PluginScanner).
if arguments.first == PluginScanner.childCommand {
    exit(PluginScanner.runChild(files: Array(arguments.dropFirst())))
}
// A render worker: runs plugin classes for a supervising host (Supervisor).
if arguments.first == RenderWorker.childCommand {
    exit(RenderWorker.run())
}
exit(CommandLineTool(environment: currentEnvironment()).run(arguments))
