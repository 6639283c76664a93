import Glibc

// libFuzzer target `import`: the first byte picks how the rest is read —
// detected from its content, or forced to one importer (as `--from` does) —
// and the importer runs on it. None may trap or hang, and every record an
// importer hands over must load as a CellHost message (a JSON object).

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzImport(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    checkImport(Array(UnsafeBufferPointer(start: size == 0 ? nil : data, count: size)))
    return 0
}

func checkImport(_ bytes: [UInt8]) {
    guard let selector = bytes.first else { return }
    let body = Array(bytes.dropFirst())
    let formats = ImportFormat.allCases
    var format: ImportFormat
    if Int(selector) < formats.count {
        format = formats[Int(selector)]
    } else {
        switch FormatDetector.detect(body, atEnd: true) {
        case .format(let detected)?: format = detected
        default: return
        }
    }
    guard let importer = format.importer else { return }
    let message = Message()
    let sink = ImportSink(record: { record, _ in
        do { try message.load(record, me: nil) } catch {
            fuzzFail("\(format) importer handed over a record that is not a message: \(error): "
                     + String(decoding: record.prefix(300), as: UTF8.self))
        }
    }, problem: { _, _ in })
    _ = try? importer.run(ImportInput(name: "fuzz", source: ByteSource(bytes: body)), options: ImportOptions(), sink: sink)
}
