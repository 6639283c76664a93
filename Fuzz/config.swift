// libFuzzer target `config`: the bytes as a config file
// (`$XDG_CONFIG_HOME/cellhost/config`). Every pair parsed must be non-empty
// and trimmed; a problem must name a line of the file.

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzConfig(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    checkConfig(Array(UnsafeBufferPointer(start: size == 0 ? nil : data, count: size)))
    return 0
}

func checkConfig(_ bytes: [UInt8]) {
    do {
        let config = try ConfigFile.parse(bytes: bytes, path: "config")
        for (key, value) in config.renderers {
            if key.isEmpty || value.isEmpty { fuzzFail("empty pair \(key.debugDescription)=\(value.debugDescription)") }
            for text in [key, value] where text.first == " " || text.last == " " || text.first == "\t" || text.last == "\t" {
                fuzzFail("untrimmed \(text.debugDescription)")
            }
        }
    } catch let problem as ConfigFile.Problem {
        let lines = bytes.split(separator: 0x0A, omittingEmptySubsequences: false).count
        if problem.line < 1 || problem.line > lines { fuzzFail("problem on line \(problem.line) of \(lines)") }
    } catch {
        fuzzFail("unexpected error \(error)")
    }
}
