import CellHostABI
import XCTest
@testable import CellHostCore

/// `Registry`: candidates per message class, overrides, and the fallback chain.
final class RegistryTests: XCTestCase {
    private var runtime: Runtime!
    private var registry: Registry { runtime.registry }

    override func setUp() {
        super.setUp()
        runtime = Runtime()
    }

    override func tearDown() {
        runtime = nil
        super.tearDown()
    }

    private func names(_ messageClass: String) -> [String] {
        registry.candidates(for: messageClass).map(\.cls.name)
    }

    private func chainNames(_ type: String) -> [String] {
        registry.chain(for: type).steps.map(\.cls.name)
    }

    // MARK: Candidates

    func test_higherRank_wins() {
        linkRenderer(runtime, "Low", for: ["image"], rank: 1)
        linkRenderer(runtime, "High", for: ["image"], rank: 5)
        XCTAssertEqual(names("image").first, "High")
    }

    func test_higherRank_winsEvenWhenRegisteredFirst() {
        linkRenderer(runtime, "High", for: ["image"], rank: 5)
        linkRenderer(runtime, "Low", for: ["image"], rank: 1)
        XCTAssertEqual(names("image").first, "High")
    }

    func test_equalRank_laterRegistrationWins() {
        linkRenderer(runtime, "Earlier", for: ["image"])
        linkRenderer(runtime, "Later", for: ["image"])
        XCTAssertEqual(names("image"), ["Later", "Earlier"])
    }

    func test_equalRank_withinOneBatch_laterInTheBatchWins() {
        link(runtime, ["BatchFirst", "BatchSecond"].map {
            classDescription($0, messageClasses: ["image"],
                             methods: [methodDescription(WellKnownSelector.render.rawValue, CELLHOST_TYPES_RENDER, noopRender)])
        })
        XCTAssertEqual(names("image"), ["BatchSecond", "BatchFirst"])
    }

    func test_negativeRank_losesToRankZero() {
        linkRenderer(runtime, "Zero", for: ["image"], rank: 0)
        linkRenderer(runtime, "Negative", for: ["image"], rank: -1)
        XCTAssertEqual(names("image"), ["Zero", "Negative"])
    }

    func test_shadowedCandidates_stayListed_inRankThenRecencyOrder() {
        linkRenderer(runtime, "A0", for: ["image"], rank: 0)
        linkRenderer(runtime, "B3", for: ["image"], rank: 3)
        linkRenderer(runtime, "C1", for: ["image"], rank: 1)
        linkRenderer(runtime, "D3", for: ["image"], rank: 3)
        XCTAssertEqual(names("image"), ["D3", "B3", "C1", "A0"])
        XCTAssertEqual(chainNames("image"), ["D3", "B3", "C1", "A0", "UnknownMessageCell"])
    }

    func test_hostMessageCell_isTheTextCandidateOfLastResort() {
        XCTAssertEqual(names("text"), ["MessageCell"])
        linkRenderer(runtime, "PluginText", for: ["text"])
        XCTAssertEqual(names("text"), ["PluginText", "MessageCell"])
    }

    // MARK: Overrides

    func test_override_beatsRank() throws {
        linkRenderer(runtime, "Weak", for: ["image"], rank: -5)
        linkRenderer(runtime, "Strong", for: ["image"], rank: 100)
        registry.override("image", with: try XCTUnwrap(runtime.classes["Weak"]))
        let chain = registry.chain(for: "image")
        XCTAssertEqual(chain.steps.map(\.cls.name), ["Weak", "Strong", "UnknownMessageCell"],
                       "the override comes first and is not tried twice")
        XCTAssertEqual(chain.steps.map(\.isOverride), [true, false, false])
    }

    func test_override_withAClassNotRegisteredForTheType_rendersIt() throws {
        let other = try XCTUnwrap(linkRenderer(runtime, "Elsewhere", for: []))
        registry.override("poll", with: other)
        let chain = registry.chain(for: "poll")
        XCTAssertEqual(chain.steps.map(\.cls.name), ["Elsewhere", "UnknownMessageCell"])
        XCTAssertFalse(chain.isUnregistered)
        XCTAssertTrue(registry.overrideClass(for: "poll") === other)
    }

    func test_override_isListedAmongKnownMessageClasses() throws {
        let other = try XCTUnwrap(linkRenderer(runtime, "Custom", for: []))
        registry.override("custom-type", with: other)
        XCTAssertTrue(registry.knownMessageClasses.contains("custom-type"))
    }

    // MARK: Chains

    func test_chain_ownCandidates_thenParentCandidates_thenUnknown() {
        linkRenderer(runtime, "VoiceLow", for: ["voice"], rank: 0)
        linkRenderer(runtime, "VoiceHigh", for: ["voice"], rank: 2)
        linkRenderer(runtime, "FileCellX", for: ["file"])
        let chain = registry.chain(for: "voice")
        XCTAssertEqual(chain.steps.map(\.cls.name), ["VoiceHigh", "VoiceLow", "FileCellX", "UnknownMessageCell"])
        XCTAssertEqual(chain.steps.map(\.messageClass), ["voice", "voice", "file", "voice"])
        XCTAssertFalse(chain.isUnregistered)
    }

    func test_chain_ofSticker_goesThroughImageThenFile() {
        linkRenderer(runtime, "ImageCellX", for: ["image"])
        linkRenderer(runtime, "FileCellX", for: ["file"])
        XCTAssertEqual(chainNames("sticker"), ["ImageCellX", "FileCellX", "UnknownMessageCell"])
        XCTAssertTrue(registry.chain(for: "sticker").isUnregistered)
    }

    func test_chain_ofVoiceWithoutVoiceRenderer_isUnregistered_andFallsBackToFile() {
        linkRenderer(runtime, "FileCellX", for: ["file"])
        let chain = registry.chain(for: "voice")
        XCTAssertTrue(chain.isUnregistered)
        XCTAssertEqual(chain.steps.map(\.cls.name), ["FileCellX", "UnknownMessageCell"])
    }

    func test_chain_ofUnregisteredType_isJustUnknownMessageCell() {
        let chain = registry.chain(for: "hologram")
        XCTAssertTrue(chain.isUnregistered)
        XCTAssertEqual(chain.steps.count, 1)
        XCTAssertTrue(chain.steps.first?.cls === runtime.unknownMessageCell)
        XCTAssertEqual(chain.steps.first?.messageClass, "hologram")
    }

    func test_chain_ofEmptyType_isJustUnknownMessageCell() {
        XCTAssertEqual(chainNames(""), ["UnknownMessageCell"])
    }

    func test_chain_triesAClassRegisteredForTwoLevelsOnlyOnce() {
        linkRenderer(runtime, "Both", for: ["voice", "file"])
        linkRenderer(runtime, "FileOnly", for: ["file"])
        XCTAssertEqual(chainNames("voice"), ["Both", "FileOnly", "UnknownMessageCell"])
    }

    func test_chain_reflectsRegistrationsMadeAfterItWasComputed() {
        XCTAssertEqual(chainNames("voice"), ["UnknownMessageCell"])
        linkRenderer(runtime, "LateVoice", for: ["voice"])
        XCTAssertEqual(chainNames("voice"), ["LateVoice", "UnknownMessageCell"])
    }

    func test_chain_followsPluginDeclaredMessageClasses() {
        XCTAssertNil(registry.declare("gif", parent: "image", by: "test.plugin"))
        linkRenderer(runtime, "ImageCellX", for: ["image"])
        linkRenderer(runtime, "FileCellX", for: ["file"])
        XCTAssertEqual(chainNames("gif"), ["ImageCellX", "FileCellX", "UnknownMessageCell"])
    }

    func test_knownMessageClasses_listBuiltInsFirst_thenRegisteredTypes() {
        linkRenderer(runtime, "Zed", for: ["zeta"])
        linkRenderer(runtime, "Alp", for: ["alpha"])
        XCTAssertEqual(registry.knownMessageClasses,
                       ["text", "file", "image", "voice", "video", "sticker", "poll", "system", "alpha", "zeta"])
    }
}

/// `MessageClassTree`: the tree of message classes.
final class MessageClassTreeTests: XCTestCase {

    func test_builtIn_voiceImageAndVideo_haveParentFile() {
        let tree = MessageClassTree.builtIn
        XCTAssertEqual(tree.parent(of: "voice"), "file")
        XCTAssertEqual(tree.parent(of: "image"), "file")
        XCTAssertEqual(tree.parent(of: "video"), "file")
    }

    func test_builtIn_sticker_hasParentImage_andAncestorsImageThenFile() {
        let tree = MessageClassTree.builtIn
        XCTAssertEqual(tree.parent(of: "sticker"), "image")
        XCTAssertEqual(tree.ancestors(of: "sticker"), ["image", "file"])
    }

    func test_builtIn_textFileAndPoll_areRoots() {
        let tree = MessageClassTree.builtIn
        for root in ["text", "file", "poll"] {
            XCTAssertTrue(tree.isDeclared(root), root)
            XCTAssertNil(tree.parent(of: root), root)
        }
    }

    func test_undeclaredClass_hasNoParentAndNoAncestors() {
        XCTAssertNil(MessageClassTree.builtIn.parent(of: "hologram"))
        XCTAssertEqual(MessageClassTree.builtIn.ancestors(of: "hologram"), [])
        XCTAssertFalse(MessageClassTree.builtIn.isDeclared("hologram"))
    }

    func test_redeclaration_withTheSameParent_isAccepted() {
        var tree = MessageClassTree.builtIn
        let count = tree.declarations.count
        XCTAssertNil(tree.declare("voice", parent: "file", by: "plugin"))
        XCTAssertEqual(tree.declarations.count, count)
        XCTAssertEqual(tree.declarations.first { $0.name == "voice" }?.declaredBy, "cellhost")
    }

    func test_redeclaration_withAnotherParent_isRefused() {
        var tree = MessageClassTree.builtIn
        let reason = tree.declare("voice", parent: "text", by: "plugin")
        XCTAssertNotNil(reason)
        XCTAssertTrue(reason?.contains("already declared by cellhost") ?? false, reason ?? "")
        XCTAssertEqual(tree.parent(of: "voice"), "file")
    }

    func test_redeclaringARootWithAParent_isRefused() {
        var tree = MessageClassTree.builtIn
        XCTAssertNotNil(tree.declare("poll", parent: "text", by: "plugin"))
        XCTAssertNil(tree.parent(of: "poll"))
    }

    func test_declaration_makingACycle_isRefused() {
        var tree = MessageClassTree.builtIn
        let reason = tree.declare("file", parent: "sticker", by: "plugin")
        XCTAssertTrue(reason?.contains("cycle") ?? false, reason ?? "nil")
    }

    func test_declaration_withItselfAsParent_isRefused() {
        var tree = MessageClassTree()
        XCTAssertTrue(tree.declare("loop", parent: "loop", by: "plugin")?.contains("cycle") ?? false)
        XCTAssertFalse(tree.isDeclared("loop"))
    }

    func test_twoStepCycleOfNewClasses_isRefused() {
        var tree = MessageClassTree()
        XCTAssertNil(tree.declare("a", parent: "b", by: "plugin"))
        XCTAssertTrue(tree.declare("b", parent: "a", by: "plugin")?.contains("cycle") ?? false)
        XCTAssertEqual(tree.ancestors(of: "a"), ["b"])
    }

    func test_newClass_underABuiltIn_getsItsAncestors() {
        var tree = MessageClassTree.builtIn
        XCTAssertNil(tree.declare("gif", parent: "image", by: "org.example.gif"))
        XCTAssertEqual(tree.ancestors(of: "gif"), ["image", "file"])
        XCTAssertEqual(tree.declarations.last, .init(name: "gif", parent: "image", declaredBy: "org.example.gif"))
    }

    func test_emptyOrOverlongName_isRefused() {
        var tree = MessageClassTree()
        XCTAssertNotNil(tree.declare("", parent: nil, by: "plugin"))
        XCTAssertNotNil(tree.declare(String(repeating: "x", count: 65), parent: nil, by: "plugin"))
        XCTAssertNil(tree.declare(String(repeating: "x", count: 64), parent: nil, by: "plugin"))
    }
}
