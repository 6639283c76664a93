import Glibc

/// Checks a candidate file before `dlopen`, so that each kind of bad file
/// gets a precise one-line reason instead of a loader message, and so that
/// nothing that is not a shared object for this machine is ever mapped.
enum ELFProbe {
    /// Why a file cannot be a plugin, or nil when it looks like a shared
    /// object for this machine.
    static func problem(with path: String) -> String? {
        var info = stat()
        if lstat(path, &info) != 0 { return "cannot read: \(String(cString: strerror(errno)))" }
        if info.st_mode & S_IFMT == S_IFLNK {
            if stat(path, &info) != 0 {
                let code = errno
                if code == ELOOP { return "symlink loop" }
                if code == ENOENT {
                    var target = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
                    let count = readlink(path, &target, target.count - 1)
                    let shown = count > 0 ? String(cString: target) : "?"
                    return "dangling symlink to '\(shown)'"
                }
                return "cannot follow symlink: \(String(cString: strerror(code)))"
            }
        }
        switch info.st_mode & S_IFMT {
        case S_IFDIR: return "is a directory, not a plugin file"
        case S_IFREG: break
        default: return "not a regular file"
        }
        if info.st_size == 0 { return "empty file" }
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return "cannot open: \(String(cString: strerror(errno)))" }
        defer { close(fd) }
        return problem(size: Int(info.st_size)) { offset, count in
            var bytes = [UInt8](repeating: 0, count: count)
            let read = bytes.withUnsafeMutableBytes { pread(fd, $0.baseAddress, count, off_t(offset)) }
            return Array(bytes.prefix(max(0, read)))
        }
    }

    /// The same checks on a file's content held in memory (for the fuzzer
    /// and tests): the header, then the program and section header bounds.
    static func problem(bytes: UnsafeRawBufferPointer) -> String? {
        if bytes.isEmpty { return "empty file" }
        return problem(size: bytes.count) { offset, count in
            guard offset >= 0, offset < bytes.count else { return [] }
            return Array(bytes[offset..<(offset + min(count, bytes.count - offset))])
        }
    }

    /// The content checks of a file of `size` bytes; `read(offset, count)`
    /// answers the bytes there (fewer at the end of the file).
    private static func problem(size: Int, read: (_ offset: Int, _ count: Int) -> [UInt8]) -> String? {
        let header = read(0, 64)
        let count = header.count
        guard count >= 4, header[0] == 0x7F, header[1] == UInt8(ascii: "E"), header[2] == UInt8(ascii: "L"),
              header[3] == UInt8(ascii: "F") else {
            return "not an ELF file"
        }
        guard count >= 20 else { return "truncated ELF file (\(size) bytes)" }
        if header[4] == 1 { return "32-bit ELF (ELFCLASS32); this host needs a 64-bit shared object" }
        guard header[4] == 2 else { return "not an ELF file (unknown ELF class \(header[4]))" }
        guard header[5] == 1 else { return "big-endian ELF; this host is little-endian" }
        let machine = UInt16(header[18]) | UInt16(header[19]) << 8
        if machine != hostMachine {
            return "wrong architecture: ELF for \(machineName(machine)), this host is \(machineName(hostMachine))"
        }
        guard count == 64 else { return "truncated ELF file (\(size) bytes)" }
        func u16(_ offset: Int) -> Int { Int(header[offset]) | Int(header[offset + 1]) << 8 }
        // Offsets and sizes are unsigned 64-bit values from the file: compare
        // them without adding, so that no value can overflow.
        func u64(_ bytes: [UInt8], _ offset: Int) -> UInt64 {
            var value: UInt64 = 0
            for index in 0..<8 { value |= UInt64(bytes[offset + index]) << (8 * index) }
            return value
        }
        let type = u16(16)
        guard type == 3 else { return type == 2 ? "an executable, not a shared object" : "not a shared object (ELF type \(type))" }
        let fileSize = UInt64(size)
        let phoff = u64(header, 32), shoff = u64(header, 40)
        let phentsize = u16(54), phnum = u16(56), shentsize = u16(58), shnum = u16(60)
        guard phnum > 0, phentsize >= 56, phoff > 0, phoff <= fileSize, UInt64(phnum * phentsize) <= fileSize - phoff else {
            return "truncated ELF file (\(size) bytes; program headers missing)"
        }
        if shoff > 0, shoff > fileSize || UInt64(shnum * shentsize) > fileSize - shoff {
            return "truncated ELF file (\(size) bytes; section headers at \(shoff) missing)"
        }
        let programHeaders = read(Int(phoff), phnum * phentsize)
        guard programHeaders.count == phnum * phentsize else { return "truncated ELF file (\(size) bytes)" }
        for index in 0..<phnum {
            let base = index * phentsize
            let kind = Int(programHeaders[base]) | Int(programHeaders[base + 1]) << 8
            guard kind == 1 else { continue } // PT_LOAD
            let offset = u64(programHeaders, base + 8), length = u64(programHeaders, base + 32)
            if offset > fileSize || length > fileSize - offset {
                let (end, overflow) = offset.addingReportingOverflow(length)
                return "truncated ELF file (\(size) bytes; a segment needs \(overflow ? "more than \(UInt64.max)" : "\(end)"))"
            }
        }
        return nil
    }

    #if arch(x86_64)
    static let hostMachine: UInt16 = 62
    #elseif arch(arm64)
    static let hostMachine: UInt16 = 183
    #else
    static let hostMachine: UInt16 = 0
    #endif

    static func machineName(_ machine: UInt16) -> String {
        switch machine {
        case 3: return "i386"
        case 8: return "mips"
        case 20: return "powerpc"
        case 21: return "powerpc64"
        case 40: return "arm"
        case 62: return "x86_64"
        case 183: return "aarch64"
        case 243: return "riscv"
        default: return "machine \(machine)"
        }
    }
}
