import Foundation
import XCTest

/// Plugins that open and export the entry symbol but whose descriptor, init or
/// classes break the contract. A broken plugin is refused whole; a broken
/// class is refused alone while its plugin loads. Either way the reason is
/// reported and the shipped plugins are untouched.
final class PluginValidationTests: EndToEndTestCase {

    // MARK: - ABI version

    func test_pluginBuiltForABI1_isRefusedNamingBothVersionsAndTheFix() throws {
        try compileFixture("abi_major_1.c", as: "libabi1")
        let hostVersion = try ABIHeaders.version()

        assertLoadFailure(try listPluginsRun(), fileName: "libabi1.so",
                          ["plugin ABI 1.0 is not supported by this host (ABI \(hostVersion)): the major version differs; "
                           + "rebuild the plugin against the ABI 2 headers"])
    }

    func test_pluginBuiltForANewerMinorVersion_isRefusedAsNewer() throws {
        try compileFixture("abi_minor_7.c", as: "libabi17")

        assertLoadFailure(try listPluginsRun(), fileName: "libabi17.so", ["plugin ABI 2.7 is newer than this host's ABI 2.0"])
    }

    // MARK: - Descriptor

    func test_entryReturningNULL_isReported() throws {
        try compileFixture("entry_returns_null.c", as: "libnull")

        assertLoadFailure(try listPluginsRun(), fileName: "libnull.so", ["returned NULL"])
    }

    func test_descriptorCountingClassesButPointingAtNone_isInvalid() throws {
        try compileFixture("descriptor_classes_null.c", as: "libnoclasses")

        assertLoadFailure(try listPluginsRun(), fileName: "libnoclasses.so", ["invalid descriptor"])
    }

    func test_descriptorWithNullID_isInvalid() throws {
        try compileFixture("descriptor_id_null.c", as: "libnullid")

        assertLoadFailure(try listPluginsRun(), fileName: "libnullid.so", ["invalid descriptor"])
    }

    func test_descriptorWithEmptyID_isInvalid() throws {
        try compileFixture("descriptor_id_empty.c", as: "libemptyid")

        assertLoadFailure(try listPluginsRun(), fileName: "libemptyid.so", ["invalid descriptor"])
    }

    func test_twoPluginsWithTheSameID_firstInFileNameOrderLoadsAndSecondIsDuplicate() throws {
        try compileFixture("duplicate_id.c", as: "a")
        try compileFixture("duplicate_id.c", as: "b")

        let listing = try listPluginsRun()
        assertLoadFailure(listing, fileName: "b.so", ["duplicate plugin id"])
        let first = listing.report.plugins(fileName: "a.so")
        XCTAssertEqual(first.count, 1)
        XCTAssertEqual(first.first?.state, .loaded, first.first?.error ?? "")
        XCTAssertEqual(first.first?.id, "test.dup")
        XCTAssertEqual(listing.report.plugins(id: "test.dup").filter { $0.state == .loaded }.count, 1,
                       "exactly one plugin with a given id is loaded")
    }

    // MARK: - init

    func test_initThatFails_isReportedWithThePluginsOwnReason_whenTheScannerRunsIt() throws {
        try compileFixture("init_fails.c", as: "libinitfails", extraFlags: ["-DREGISTERS_AT_INIT"])

        assertLoadFailure(try listPluginsRun(), fileName: "libinitfails.so",
                          ["init failed: no licence key (status 1)"])
    }

    func test_initThatFails_whenFirstUsed_isReportedAndItsMessagesFallBack() throws {
        let plugin = try compileFixture("init_fails.c", as: "libinitfails")
        XCTAssertEqual(try listPlugins().plugin(atPath: plugin.path)?.state, .loaded, "describing does not run init")

        let (rendered, stderr) = try renderJSON([#"{"type":"licensed","text":"still shown"}"#], extraArgs: ["--isolation", "none"])
        XCTAssertEqual(rendered.first?.className, "TextMessageCell", "the message falls back to the cell of its parent class, text")
        XCTAssertTrue(stderr.contains("\(plugin.path): could not be opened when first needed: init failed: no licence key (status 1)"),
                      stderr)
    }

    // MARK: - Classes

    func test_classWhoseSuperclassDoesNotExist_isRejectedWhileItsPluginLoads() throws {
        try compileFixture("missing_superclass.c", as: "liborphan")

        assertClassRejected(try listPluginsRun(), fileName: "liborphan.so", className: "OrphanCell",
                            ["superclass", "NoSuchBaseCell"])
    }

    func test_classWithMalformedTypeEncoding_isRejectedAtLoadTime() throws {
        try compileFixture("malformed_encoding.c", as: "libmalformed")

        let listing = try listPluginsRun()
        assertClassRejected(listing, fileName: "libmalformed.so", className: "MalformedEncodingCell",
                            ["malformed type encoding"])
        // It asked for rank 100 on "text"; being rejected, it takes nothing over.
        XCTAssertEqual(listing.report.row("text")?.winner?.className, "TextMessageCell")
    }

    func test_renderSelectorWithWrongEncoding_isRejectedNamingFoundAndExpectedEncodings() throws {
        try compileFixture("void_render_encoding.c", as: "libvoidrender")
        let expected = try ABIHeaders.stringMacro("CELLHOST_TYPES_RENDER")

        let listing = try listPluginsRun()
        assertClassRejected(listing, fileName: "libvoidrender.so", className: "VoidRenderCell",
                            ["v@:", expected])
        XCTAssertEqual(listing.report.row("text")?.winner?.className, "TextMessageCell")
    }
}
