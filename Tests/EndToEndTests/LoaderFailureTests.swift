import Foundation
import XCTest

/// Files in a plugin directory that cannot even be opened as a plugin: each is
/// reported with its file name and a stable reason, and never hides the
/// shipped plugins.
final class LoaderFailureTests: EndToEndTestCase {

    // MARK: - Not a usable ELF file

    func test_fileThatIsNotELF_isReportedAndOthersStillLoad() throws {
        try writeFile("junk.so", Data("this is not a shared library\n".utf8))

        assertLoadFailure(try listPluginsRun(), fileName: "junk.so", ["not an ELF file"])
    }

    func test_emptyFile_isReportedAndOthersStillLoad() throws {
        try writeFile("empty.so", Data())

        assertLoadFailure(try listPluginsRun(), fileName: "empty.so", ["empty file"])
    }

    func test_truncatedELF_isReportedAndOthersStillLoad() throws {
        let whole = try realPluginBytes()
        try writeFile("truncated.so", whole.prefix(whole.count / 2))

        assertLoadFailure(try listPluginsRun(), fileName: "truncated.so", ["truncated ELF file"])
    }

    func test_32bitELF_isReportedAndOthersStillLoad() throws {
        var bytes = [UInt8](try realPluginBytes())
        bytes[4] = 1 // EI_CLASS = ELFCLASS32
        try writeFile("elf32.so", Data(bytes))

        assertLoadFailure(try listPluginsRun(), fileName: "elf32.so", ["32-bit ELF"])
    }

    func test_ELFForAnotherArchitecture_isReportedNamingThatArchitecture() throws {
        #if arch(arm64)
        // On an aarch64 host aarch64 is not foreign: claim x86-64 instead and
        // check only the key phrase (the host's name for x86-64 is not fixed).
        let (machine, expected): (UInt16, [String]) = (62, ["wrong architecture"])
        #else
        let (machine, expected): (UInt16, [String]) = (183, ["wrong architecture", "aarch64"])
        #endif
        var bytes = [UInt8](try realPluginBytes())
        bytes[18] = UInt8(machine & 0xff) // e_machine, little-endian
        bytes[19] = UInt8(machine >> 8)
        try writeFile("foreign.so", Data(bytes))

        assertLoadFailure(try listPluginsRun(), fileName: "foreign.so", expected)
    }

    // MARK: - A shared library, but not a loadable plugin

    func test_sharedLibraryWithoutEntrySymbol_isReportedAndOthersStillLoad() throws {
        try compileFixture("no_entry_symbol.c", as: "libnotaplugin")

        assertLoadFailure(try listPluginsRun(), fileName: "libnotaplugin.so",
                          ["no cellhost_plugin_entry symbol"])
    }

    func test_pluginWhoseDependencyIsMissing_reportsDlopenFailureNamingTheLibrary() throws {
        // Build libcellhostdep.so outside the plugin directory, link the plugin
        // against it, then delete it so that dlopen cannot resolve it.
        let depDir = try makeDirectory("deps")
        let lib = try compileFixture("cellhostdep.c", as: "libcellhostdep", into: depDir)
        try compileFixture("needs_dependency.c", as: "needsdep",
                           extraFlags: ["-L", depDir.path, "-lcellhostdep"])
        try FileManager.default.removeItem(at: lib)

        assertLoadFailure(try listPluginsRun(), fileName: "needsdep.so",
                          ["dlopen failed", "libcellhostdep.so"])
    }

    // MARK: - Not a regular file

    func test_danglingSymlink_isReportedAndOthersStillLoad() throws {
        try makeSymlink("x.so", to: tempRoot.appendingPathComponent("nowhere/libgone.so").path)

        assertLoadFailure(try listPluginsRun(), fileName: "x.so", ["dangling symlink"])
    }

    func test_symlinkLoop_isReportedForEachLinkAndOthersStillLoad() throws {
        try makeSymlink("a.so", to: "b.so")
        try makeSymlink("b.so", to: "a.so")

        let listing = try listPluginsRun()
        assertLoadFailure(listing, fileName: "a.so", ["symlink loop"])
        assertLoadFailure(listing, fileName: "b.so", ["symlink loop"])
    }

    func test_directoryNamedLikeAPlugin_isReportedAndOthersStillLoad() throws {
        try makeDirectory("plugins/d.so")

        assertLoadFailure(try listPluginsRun(), fileName: "d.so", ["is a directory"])
    }

    // MARK: - Together

    func test_manyBrokenFilesAtOnce_areEachReportedAndAGoodPluginStillLoads() throws {
        try writeFile("junk.so", Data("#!/bin/sh\necho nope\n".utf8))
        try writeFile("empty.so", Data())
        try makeSymlink("x.so", to: "missing-target.so")
        try compileFixture("no_entry_symbol.c", as: "libnotaplugin")
        try compileFixture("hello.c", as: "libhello")

        let listing = try listPluginsRun()
        assertLoadFailure(listing, fileName: "junk.so", ["not an ELF file"])
        assertLoadFailure(listing, fileName: "empty.so", ["empty file"])
        assertLoadFailure(listing, fileName: "x.so", ["dangling symlink"])
        assertLoadFailure(listing, fileName: "libnotaplugin.so", ["no cellhost_plugin_entry symbol"])
        let hello = listing.report.plugins(id: "test.hello")
        XCTAssertEqual(hello.count, 1)
        XCTAssertEqual(hello.first?.state, .loaded, hello.first?.error ?? "")
    }

    // MARK: - Helpers

    /// The bytes of a real, working plugin (hello.c), built outside the plugin
    /// directory: raw material for the damaged copies above.
    private func realPluginBytes() throws -> Data {
        let dir = try makeDirectory("pristine")
        let url = try compileFixture("hello.c", as: "libhello", into: dir)
        let data = try Data(contentsOf: url)
        XCTAssertGreaterThan(data.count, 64, "a compiled plugin is larger than an ELF header")
        return data
    }
}
