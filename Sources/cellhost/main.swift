import Glibc

// `cellhost`: a thin command line over CellHostCore. See docs/cli.md.
// Before any plugin is loaded, stdout moves to a private descriptor and fd 1
// becomes /dev/null (StandardOutput).
let output = StandardOutput.isolate()
let arguments = Array(CommandLine.arguments.dropFirst())
let status = CommandLineTool(environment: currentEnvironment(), output: output).run(arguments)
if let message = output.failureMessage {
    printError(message)
    exit(StandardOutput.failureStatus)
}
exit(status)
