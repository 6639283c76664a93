import CellHostABI
import Glibc

// libFuzzer target `render`: the input is a JSON Lines (or JSON array) stream,
// read by InputReader and rendered by a RenderSession through the shipped
// plugins, once per output format. The plain output is checked like
// HostileInputTests checks it: no control byte but "\n", no DEL or C1
// control, valid UTF-8, no line wider than the width.
//
// The plugins are loaded once per process from $CELLHOST_FUZZ_PLUGINS (Fuzz/run
// sets it to .build/debug); all five must load.

private let pluginNames = ["libFileCell.so", "libImageCell.so", "libPollCell.so", "libTextCell.so", "libVoiceCell.so"]

private let host: CellHost = {
    let host = CellHost()
    guard let directory = getenv("CELLHOST_FUZZ_PLUGINS").map({ String(cString: $0) }) else {
        fuzzFail("set CELLHOST_FUZZ_PLUGINS to the directory of the shipped plugins (.build/debug)")
    }
    let records = host.loadPlugins(searchPath: PluginSearchPath(directories: [directory]))
    let loaded = Set(records.filter(\.isLoaded).map { String($0.file.split(separator: "/").last ?? "") })
    guard Set(pluginNames).isSubset(of: loaded) else {
        fuzzFail("shipped plugins missing in \(directory): loaded \(loaded.sorted()); \(host.diagnostics)")
    }
    return host
}()

/// The formats, widths and content caps of each run: every format, the
/// narrowest width, and caps small enough that the fuzzer reaches them.
let renderRuns: [(settings: OutputSettings, limits: OutputLimits)] = [
    (OutputSettings(format: .ansi, depth: .trueColor, width: 12), .standard),
    (OutputSettings(format: .plain, depth: .none, width: 30), OutputLimits(rows: 5, bytes: 400)),
    (OutputSettings(format: .json, depth: .none, width: 80), .standard),
]

/// The input file InputReader reads: one unlinked temporary file per process,
/// rewritten for each input.
private let inputFD: Int32 = {
    var template = Array("/dev/shm/cellhost-fuzz-XXXXXX".utf8CString)
    let fd = template.withUnsafeMutableBufferPointer { mkstemp($0.baseAddress!) }
    guard fd >= 0 else { fuzzFail("mkstemp in /dev/shm failed") }
    unlink(template.withUnsafeBufferPointer { String(cString: $0.baseAddress!) })
    return fd
}()

/// Renders `bytes` as a stream in `settings`; returns the output.
func renderStream(_ bytes: UnsafeBufferPointer<UInt8>, _ settings: OutputSettings, _ limits: OutputLimits) -> [UInt8] {
    let fd = inputFD
    guard ftruncate(fd, 0) == 0 else { fuzzFail("ftruncate failed") }
    var written = 0
    while written < bytes.count {
        let count = pwrite(fd, bytes.baseAddress! + written, bytes.count - written, off_t(written))
        guard count > 0 else { fuzzFail("write of the input failed") }
        written += count
    }
    lseek(fd, 0, SEEK_SET)
    let output = OutputBuffer(fd: -1)
    let session = RenderSession(host: host, settings: settings, me: "me", output: output, limits: limits)
    try? InputReader(fd: fd).read(record: { record in
        try? session.render(record.bytes, line: record.line)
    }, problem: { _ in })
    session.finish()
    return output.bytes
}

/// Traps (a libFuzzer finding) when plain output is unsafe or too wide.
func checkPlain(_ output: [UInt8], width: Int) {
    guard let text = String(validating: output, as: UTF8.self) else { fuzzFail("plain output is not valid UTF-8") }
    var index = 0
    while index < output.count {
        let byte = output[index]
        if byte < 0x20 && byte != 0x0A { fuzzFail("plain output has control byte \(byte) at \(index)") }
        if byte == 0x7F { fuzzFail("plain output has DEL at \(index)") }
        if byte == 0xC2, index + 1 < output.count, output[index + 1] >= 0x80, output[index + 1] <= 0x9F {
            fuzzFail("plain output has a C1 control at \(index)")
        }
        index += 1
    }
    for line in text.split(separator: "\n", omittingEmptySubsequences: false) where line.utf8.count > width {
        let columns = DisplayWidth.width(of: String(line))
        if columns > width { fuzzFail("plain line of \(columns) columns at width \(width): \(line.debugDescription)") }
    }
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzRender(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let bytes = UnsafeBufferPointer(start: size == 0 ? nil : data, count: size)
    for (settings, limits) in renderRuns {
        let output = renderStream(bytes, settings, limits)
        if settings.format == .plain { checkPlain(output, width: settings.width) }
    }
    return 0
}
