import CellHostABI
import Foundation
import XCTest
@testable import CellHostCore

/// Plugin classes are linked when first needed: loading checks them as
/// linking does (so every rejection is reported at once) and registers them
/// by message class, and a render links only the classes of the chains it
/// walks; what renders, and in what order candidates are tried, is what
/// linking everything at once gives.
final class LazyLinkingTests: XCTestCase {
    private var plugins: TestPlugins!
    private let hostClasses = ["MessageCell", "UnknownMessageCell"]

    override func setUpWithError() throws {
        plugins = try TestPlugins()
    }

    override func tearDown() {
        plugins.remove()
        plugins = nil
        super.tearDown()
    }

    private func load(_ directories: [TestPlugins]) -> CellHost {
        let host = CellHost()
        host.loadPlugins(with: PluginLoader(searchPath: PluginSearchPath(directories: directories.map(\.directory)),
                                            description: .inProcess))
        return host
    }

    private func linked(_ host: CellHost) -> [String] { host.runtime.classes.linkedNames }

    private func renderedBy(_ host: CellHost, _ type: String) throws -> String? {
        try renderJSON(host, #"{"id":"1","type":"\#(type)","text":"hi"}"#)["class"] as? String
    }

    private func chain(_ host: CellHost, _ type: String) -> [String] {
        host.runtime.registry.chain(for: type).steps.map(\.cls.name)
    }

    func test_loadingPlugins_linksNoneOfTheirClasses() throws {
        try plugins.build("alpha", id: "test.alpha", cell: .init(name: "AlphaCell", messageClass: "alpha"))
        try plugins.build("beta", id: "test.beta", cell: .init(name: "BetaCell", messageClass: "beta"))
        let host = load([plugins])
        XCTAssertEqual(host.diagnostics, [])
        XCTAssertEqual(linked(host), hostClasses)
    }

    func test_aMessage_linksTheClassesOfItsChainOnly() throws {
        try plugins.build("alpha", id: "test.alpha", cell: .init(name: "AlphaCell", messageClass: "alpha"))
        try plugins.build("beta", id: "test.beta", cell: .init(name: "BetaCell", messageClass: "beta"))
        let host = load([plugins])
        XCTAssertEqual(try renderedBy(host, "alpha"), "AlphaCell")
        XCTAssertEqual(linked(host), ["AlphaCell"] + hostClasses)
    }

    func test_aSubclass_linksItsSuperclassFromAnotherPlugin() throws {
        try plugins.build("base", id: "test.base", cell: .init(name: "BaseCell", messageClass: "base"))
        try plugins.build("sub", id: "test.sub", cell: .init(name: "SubCell", messageClass: "sub", superclass: "BaseCell"))
        let host = load([plugins])
        XCTAssertEqual(try renderedBy(host, "sub"), "SubCell")
        XCTAssertEqual(linked(host), ["BaseCell", "MessageCell", "SubCell", "UnknownMessageCell"])
        XCTAssertTrue(try XCTUnwrap(host.runtime.classes["SubCell"]).superclass === host.runtime.classes["BaseCell"])
    }

    func test_candidates_areOrderedByRank_thenTheEarlierDirectory_asWhenAllAreLinked() throws {
        let later = try plugins.sibling("later")
        try plugins.build("first", id: "test.first", cell: .init(name: "FirstCell", messageClass: "shared", rank: 5))
        try later.build("second", id: "test.second", cell: .init(name: "SecondCell", messageClass: "shared", rank: 5))
        try later.build("third", id: "test.third", cell: .init(name: "ThirdCell", messageClass: "shared", rank: 9))
        let lazy = load([plugins, later])
        XCTAssertEqual(chain(lazy, "shared"), ["ThirdCell", "FirstCell", "SecondCell", "UnknownMessageCell"])
        let listed = load([plugins, later])
        _ = listed.runtime.registry.knownMessageClasses
        XCTAssertEqual(chain(listed, "shared"), chain(lazy, "shared"))
        XCTAssertEqual(try renderedBy(lazy, "shared"), "ThirdCell")
    }

    func test_aDecliningWinner_passesToTheShadowedCandidate_thenToTheParentClass() throws {
        try plugins.build("decliner", id: "test.decliner", cell: .init(name: "DeclinerCell", messageClass: "child", rank: 5, text: nil),
                          declares: ("child", "text"))
        try plugins.build("renderer", id: "test.renderer", cell: .init(name: "RendererCell", messageClass: "child", rank: 1))
        let host = load([plugins])
        let rendered = try renderJSON(host, #"{"id":"1","type":"child","text":"hi"}"#)
        XCTAssertEqual(rendered["class"] as? String, "RendererCell")
        let attempts = (rendered["fallback"] as? [String: Any])?["chain"] as? [[String: Any]]
        XCTAssertEqual(attempts?.compactMap { $0["class"] as? String }, ["DeclinerCell"])
        XCTAssertEqual(chain(host, "child"), ["DeclinerCell", "RendererCell", "MessageCell", "UnknownMessageCell"])
    }

    func test_anOverride_linksTheClassItNames_andPutsItFirst() throws {
        try plugins.build("first", id: "test.first", cell: .init(name: "FirstCell", messageClass: "shared", rank: 9))
        try plugins.build("second", id: "test.second", cell: .init(name: "SecondCell", messageClass: "other"))
        let host = load([plugins])
        try host.override(messageClass: "shared", with: "SecondCell")
        XCTAssertEqual(linked(host), ["MessageCell", "SecondCell", "UnknownMessageCell"])
        XCTAssertEqual(chain(host, "shared"), ["SecondCell", "FirstCell", "UnknownMessageCell"])
        XCTAssertEqual(try renderedBy(host, "shared"), "SecondCell")
    }

    func test_anOverrideOfAnUnknownClass_listsEveryClass_linkedOrNot() throws {
        try plugins.build("first", id: "test.first", cell: .init(name: "FirstCell", messageClass: "shared"))
        let host = load([plugins])
        XCTAssertThrowsError(try host.override(messageClass: "shared", with: "NoSuchCell")) { error in
            XCTAssertEqual("\(error)", "no cell class named 'NoSuchCell' (known classes: FirstCell, MessageCell, UnknownMessageCell)")
        }
    }

    func test_rejectedClasses_areReportedWhenLoaded_withoutLinkingAnything() throws {
        try plugins.build("a", id: "test.a", cell: .init(name: "TwinCell", messageClass: "x"))
        try plugins.build("b", id: "test.b", cell: .init(name: "TwinCell", messageClass: "y"))
        try plugins.build("c", id: "test.c", cell: .init(name: "OrphanCell", messageClass: "z", superclass: "NoSuchBase"))
        let host = load([plugins])
        XCTAssertEqual(host.diagnostics, [
            plugins.directory + "/b.so: class 'TwinCell' rejected: a class of that name is already defined by test.a",
            plugins.directory + "/c.so: class 'OrphanCell' rejected: superclass 'NoSuchBase' not found",
        ])
        XCTAssertEqual(linked(host), hostClasses)
        XCTAssertNil(host.runtime.classes["OrphanCell"])
        XCTAssertEqual(host.plugins.map(\.classes.count), [1, 0, 0], "a rejected class is not listed as the plugin's")
    }

    func test_listingTheRegistry_linksEveryClass() throws {
        try plugins.build("alpha", id: "test.alpha", cell: .init(name: "AlphaCell", messageClass: "alpha"))
        try plugins.build("beta", id: "test.beta", cell: .init(name: "BetaCell", messageClass: "beta"))
        let host = load([plugins])
        let known = host.runtime.registry.knownMessageClasses
        XCTAssertTrue(known.contains("alpha") && known.contains("beta"), "\(known)")
        XCTAssertEqual(linked(host), ["AlphaCell", "BetaCell"] + hostClasses)
    }

    func test_aClassRegisteredInProcessAfterLoading_canSubclassALazyClass() throws {
        try plugins.build("base", id: "test.base", cell: .init(name: "BaseCell", messageClass: "base"))
        let host = load([plugins])
        try host.register(InProcessCell(className: "LocalCell", superclass: "BaseCell", messageClasses: ["local"]) { _ in .rendered })
        XCTAssertTrue(try XCTUnwrap(host.runtime.classes["LocalCell"]).superclass === host.runtime.classes["BaseCell"])
        XCTAssertThrowsError(try host.register(InProcessCell(className: "BaseCell", messageClasses: ["local"]) { _ in .rendered })) {
            XCTAssertEqual("\($0)", "class 'BaseCell' rejected: a class of that name is already defined by test.base")
        }
    }

    func test_chainsLookedUpOnManyThreads_linkEachClassOnce() throws {
        let types = (0..<8).map { "type\($0)" }
        for (index, type) in types.enumerated() {
            try plugins.build("p\(index)", id: "test.p\(index)", cell: .init(name: "Cell\(index)", messageClass: type))
        }
        let host = load([plugins])
        let registry = host.runtime.registry
        // NSLock, which ThreadSanitizer understands, not the futex-based Mutex.
        let lock = NSLock()
        nonisolated(unsafe) var seen: [String: Set<ObjectIdentifier>] = [:]
        DispatchQueue.concurrentPerform(iterations: 64) { iteration in
            let type = types[iteration % types.count]
            guard let first = registry.chain(for: type).steps.first?.cls else { return }
            lock.withLock { _ = seen[type, default: []].insert(ObjectIdentifier(first)) }
        }
        for (index, type) in types.enumerated() {
            let cls = try XCTUnwrap(host.runtime.classes["Cell\(index)"])
            XCTAssertEqual(seen[type], [ObjectIdentifier(cls)], "one class object for \(type)")
        }
    }

    func test_classesOfDescribedPlugins_openTheirLibraryWhenFirstUsed() throws {
        let file = try plugins.build("alpha", id: "test.alpha", cell: .init(name: "AlphaCell", messageClass: "alpha", text: "from alpha"))
        let describer = Runtime()
        var record = PluginRecord(file: file, state: .loaded)
        _ = PluginLibrary.open(file, record: &record, runtime: describer, purpose: .describe)
        let host = CellHost()
        PluginLoader.link(described: [record], into: host.runtime)
        XCTAssertEqual(linked(host), hostClasses)
        let cls = try XCTUnwrap(host.runtime.classes["AlphaCell"])
        XCTAssertNotNil(cls.lazyPlugin, "linked, its library not open yet")
        XCTAssertEqual(contentLines(try host.renderLines(#"{"id":"1","type":"alpha"}"#)), ["from alpha"])
        XCTAssertNil(cls.lazyPlugin)
    }
}
