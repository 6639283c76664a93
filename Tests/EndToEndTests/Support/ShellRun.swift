import Foundation
import XCTest

#if canImport(Glibc)
import Glibc
#endif

extension EndToEndTestCase {
    /// Runs `/bin/sh -c script` with `$CELLHOST` set to the binary under test,
    /// in the test's clean environment, with `stdout` as the child's standard
    /// output (a pipe, /dev/full, …). Returns the status and stderr. A run
    /// that exceeds `timeout` is killed and fails the test.
    func runShell(_ script: String, stdout: FileHandle, env: [String: String] = [:], timeout: TimeInterval = 60,
                  file: StaticString = #filePath, line: UInt = #line) throws -> (status: Int32, stderr: String) {
        let errURL = scratchDir.appendingPathComponent("shell-stderr-\(UUID().uuidString)")
        try Data().write(to: errURL)
        let errHandle = try FileHandle(forWritingTo: errURL)
        defer { try? errHandle.close() }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/sh")
        process.arguments = ["-c", script]
        var environment = cleanEnvironment(defaultEnvironment.merging(env) { _, given in given })
        environment["CELLHOST"] = binary.path
        process.environment = environment
        process.currentDirectoryURL = tempRoot
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = stdout
        process.standardError = errHandle
        let finished = DispatchSemaphore(value: 0)
        process.terminationHandler = { _ in finished.signal() }
        try process.run()
        if finished.wait(timeout: .now() + timeout) == .timedOut {
            kill(process.processIdentifier, SIGKILL)
            finished.wait()
            XCTFail("sh -c \(script) did not finish within \(Int(timeout)) s", file: file, line: line)
        }
        process.waitUntilExit()
        let stderr = String(decoding: (try? Data(contentsOf: errURL)) ?? Data(), as: UTF8.self)
        return (process.terminationStatus, stderr)
    }
}
