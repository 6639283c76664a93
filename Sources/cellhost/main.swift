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
// A check-plugin child: runs the plugin under test (PluginChecker).
if arguments.first == CheckChild.childCommand {
    exit(CheckChild.run())
}
// Before any plugin is loaded, stdout moves to a private descriptor and fd 1
// becomes /dev/null (StandardOutput).
let output = StandardOutput.isolate()
let status = CommandLineTool(environment: currentEnvironment(), output: output).run(arguments)
if let message = output.failureMessage {
    printError(message)
    exit(StandardOutput.failureStatus)
}
exit(status)
