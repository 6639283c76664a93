import CellHostABI
import Foundation
import XCTest
@testable import CellHostCore

/// The fallback chain seen through the embedding API: a declining or failing
/// cell passes the message to the next candidate, then the parent message
/// class, then `UnknownMessageCell`; nothing is dropped.
final class FallbackChainTests: XCTestCase {
    private var host: CellHost!

    override func setUp() {
        super.setUp()
        host = CellHost()
    }

    override func tearDown() {
        host = nil
        super.tearDown()
    }

    private func renders(_ name: String, for types: [String], rank: Int32 = 0) throws {
        try host.register(InProcessCell(className: name, messageClasses: types, rank: rank) { context in
            context.append("by \(name) as \(context.type)")
            return .rendered
        })
    }

    private func declines(_ name: String, for types: [String], rank: Int32 = 0) throws {
        try host.register(InProcessCell(className: name, messageClasses: types, rank: rank) { context in
            context.append("junk from \(name)")
            context.lineBreak()
            return .declined
        })
    }

    private func fails(_ name: String, for types: [String], rank: Int32 = 0) throws {
        try host.register(InProcessCell(className: name, messageClasses: types, rank: rank) { context in
            context.append("half-built by \(name)")
            return .error
        })
    }

    private func content(_ json: String, width: Int = 60) throws -> [String] {
        contentLines(try host.renderLines(json, width: width))
    }

    private static let voice = #"{"id":"v1","type":"voice","text":"call me back","voice":{"duration":3}}"#

    // MARK: Plain lines

    func test_firstCandidate_rendersTheMessage() throws {
        try renders("VoiceRenderer", for: ["voice"])
        XCTAssertEqual(try content(Self.voice), ["by VoiceRenderer as voice"])
    }

    func test_decliningCell_passesToTheNextCandidate_andItsContentIsDiscarded() throws {
        try renders("VoiceRenderer", for: ["voice"], rank: 0)
        try declines("VoiceDecliner", for: ["voice"], rank: 10)
        let lines = try host.renderLines(Self.voice, width: 60)
        XCTAssertEqual(contentLines(lines), ["by VoiceRenderer as voice"])
        XCTAssertFalse(lines.joined().contains("junk"))
    }

    func test_failingCell_passesToTheNextCandidate_andItsContentIsDiscarded() throws {
        try renders("VoiceRenderer", for: ["voice"], rank: 0)
        try fails("VoiceFailer", for: ["voice"], rank: 10)
        let lines = try host.renderLines(Self.voice, width: 60)
        XCTAssertEqual(contentLines(lines), ["by VoiceRenderer as voice"])
        XCTAssertFalse(lines.joined().contains("half-built"))
    }

    func test_whenAllOwnCandidatesDecline_theParentClassRenders() throws {
        try declines("VoiceDecliner", for: ["voice"])
        try fails("VoiceFailer", for: ["voice"])
        try renders("FileRenderer", for: ["file"])
        XCTAssertEqual(try content(Self.voice), ["by FileRenderer as voice"])
    }

    func test_voiceWithoutVoiceRenderer_isShownByTheFileRenderer() throws {
        try renders("FileRenderer", for: ["file"])
        XCTAssertEqual(try content(Self.voice), ["by FileRenderer as voice"])
    }

    func test_whenEverythingDeclines_unknownMessageCellShowsTypeAndText() throws {
        try declines("VoiceDecliner", for: ["voice"])
        try declines("FileDecliner", for: ["file"])
        let lines = try content(Self.voice)
        XCTAssertEqual(lines, ["Unsupported message type “voice”", "call me back"])
    }

    func test_unregisteredType_isShownByUnknownMessageCell_withTypeAndText() throws {
        XCTAssertEqual(try content(#"{"type":"hologram","text":"beam me up"}"#),
                       ["Unsupported message type “hologram”", "beam me up"])
    }

    func test_unregisteredType_withoutText_stillShowsTheType() throws {
        XCTAssertEqual(try content(#"{"type":"hologram"}"#), ["Unsupported message type “hologram”"])
    }

    func test_pollWithoutPollRenderer_isShownWithItsText() throws {
        let lines = try content(#"{"type":"poll","text":"Lunch at noon?","poll":{"options":[]}}"#)
        XCTAssertTrue(lines.contains("Lunch at noon?"), "\(lines)")
    }

    func test_messageWithoutType_isShownWithItsText() throws {
        XCTAssertEqual(try content(#"{"text":"typeless"}"#), ["Message without a usable type", "typeless"])
    }

    func test_messageWithNonStringType_isTreatedAsMissingType() throws {
        XCTAssertEqual(try content(#"{"type":42,"text":"numeric type"}"#), ["Message without a usable type", "numeric type"])
    }

    func test_textMessage_isRenderedByTheHostMessageCell() throws {
        XCTAssertEqual(try content(#"{"type":"text","text":"plain hello"}"#), ["plain hello"])
    }

    func test_textMessageWithoutText_isStillShown() throws {
        let lines = try content(#"{"type":"text"}"#)
        XCTAssertEqual(lines.count, 1)
        XCTAssertTrue(lines.first?.contains("text") ?? false, "\(lines)")
    }

    func test_renderClosure_seesTheContentWidthAndPayload() throws {
        var seen: (width: Int, name: String?, size: Double?)?
        try host.register(InProcessCell(className: "FileProbe", messageClasses: ["file"]) { context in
            seen = (context.width, context.string("file.name"), context.number("file.size"))
            context.append("ok")
            return .rendered
        })
        _ = try host.renderLines(#"{"type":"file","file":{"name":"a.pdf","size":2048}}"#, width: 60)
        XCTAssertEqual(seen?.width, 46, "60 columns: a bubble of 48, minus gutter and padding")
        XCTAssertEqual(seen?.name, "a.pdf")
        XCTAssertEqual(seen?.size, 2048)
    }

    // MARK: Overrides and registration

    func test_override_beatsAHigherRankedCandidate() throws {
        try renders("VoiceHigh", for: ["voice"], rank: 50)
        try renders("VoiceChosen", for: [], rank: 0)
        try host.override(messageClass: "voice", with: "VoiceChosen")
        XCTAssertEqual(try content(Self.voice), ["by VoiceChosen as voice"])
    }

    func test_override_withUnknownClass_throwsNamingKnownClasses() {
        XCTAssertThrowsError(try host.override(messageClass: "voice", with: "Nope")) { error in
            guard case let CellHostError.unknownClass(name, known)? = error as? CellHostError else {
                return XCTFail("unexpected \(error)")
            }
            XCTAssertEqual(name, "Nope")
            XCTAssertEqual(known, ["MessageCell", "UnknownMessageCell"])
        }
    }

    func test_register_withMissingSuperclass_throwsInvalidClass() {
        let cell = InProcessCell(className: "Orphan", superclass: "NoSuchParent", messageClasses: ["voice"]) { _ in .rendered }
        XCTAssertThrowsError(try host.register(cell)) { error in
            XCTAssertTrue("\(error)".contains("superclass 'NoSuchParent' not found"), "\(error)")
        }
        XCTAssertNil(host.runtime.classes["Orphan"])
    }

    func test_register_sameClassNameTwice_throws() throws {
        try renders("Once", for: ["voice"])
        XCTAssertThrowsError(try renders("Once", for: ["file"]))
    }

    // MARK: JSON report

    func test_json_firstChoice_hasNoFallback_andNamesClassAndPlugin() throws {
        try renders("VoiceRenderer", for: ["voice"])
        let object = try renderJSON(host, Self.voice, line: 7)
        XCTAssertEqual(object["id"] as? String, "v1")
        XCTAssertEqual(object["type"] as? String, "voice")
        XCTAssertEqual(object["line"] as? Int, 7)
        XCTAssertEqual(object["class"] as? String, "VoiceRenderer")
        XCTAssertEqual(object["plugin"] as? String, "cellhost")
        XCTAssertEqual(object["rendered_as"] as? String, "voice")
        XCTAssertTrue(object["fallback"] is NSNull)
        XCTAssertEqual(contentLines(object["lines"] as? [String] ?? []), ["by VoiceRenderer as voice"])
    }

    func test_json_declineThenParent_reportsTheChainAndReason() throws {
        try declines("VoiceDecliner", for: ["voice"])
        try renders("FileRenderer", for: ["file"])
        let object = try renderJSON(host, Self.voice)
        XCTAssertEqual(object["class"] as? String, "FileRenderer")
        XCTAssertEqual(object["rendered_as"] as? String, "file")
        let fallback = try XCTUnwrap(object["fallback"] as? [String: Any])
        let chain = try XCTUnwrap(fallback["chain"] as? [[String: Any]])
        XCTAssertEqual(chain.count, 1)
        XCTAssertEqual(chain.first?["message_class"] as? String, "voice")
        XCTAssertEqual(chain.first?["class"] as? String, "VoiceDecliner")
        XCTAssertEqual(chain.first?["plugin"] as? String, "cellhost")
        XCTAssertEqual(chain.first?["result"] as? String, "declined")
        XCTAssertEqual(fallback["reason"] as? String, "VoiceDecliner declined the message")
    }

    func test_json_error_isReportedAsError() throws {
        try fails("VoiceFailer", for: ["voice"])
        try renders("FileRenderer", for: ["file"])
        let fallback = try XCTUnwrap(try renderJSON(host, Self.voice)["fallback"] as? [String: Any])
        XCTAssertEqual((fallback["chain"] as? [[String: Any]])?.map { $0["result"] as? String }, ["error"])
        XCTAssertEqual(fallback["reason"] as? String, "VoiceFailer returned an error")
    }

    func test_json_unregisteredType_reportsUnregisteredFirst() throws {
        try renders("FileRenderer", for: ["file"])
        let object = try renderJSON(host, Self.voice)
        XCTAssertEqual(object["class"] as? String, "FileRenderer")
        let fallback = try XCTUnwrap(object["fallback"] as? [String: Any])
        let chain = try XCTUnwrap(fallback["chain"] as? [[String: Any]])
        XCTAssertEqual(chain.count, 1)
        XCTAssertEqual(chain.first?["message_class"] as? String, "voice")
        XCTAssertTrue(chain.first?["class"] is NSNull)
        XCTAssertEqual(chain.first?["result"] as? String, "unregistered")
        XCTAssertEqual(fallback["reason"] as? String, "no renderer is registered for message class 'voice'")
    }

    func test_json_everythingDeclines_endsAtUnknownMessageCell_listingEveryAttemptInOrder() throws {
        try declines("VoiceA", for: ["voice"], rank: 2)
        try fails("VoiceB", for: ["voice"], rank: 1)
        try declines("FileA", for: ["file"])
        let object = try renderJSON(host, Self.voice)
        XCTAssertEqual(object["class"] as? String, "UnknownMessageCell")
        XCTAssertEqual(object["plugin"] as? String, "cellhost")
        let chain = try XCTUnwrap((object["fallback"] as? [String: Any])?["chain"] as? [[String: Any]])
        XCTAssertEqual(chain.map { $0["class"] as? String }, ["VoiceA", "VoiceB", "FileA"])
        XCTAssertEqual(chain.map { $0["message_class"] as? String }, ["voice", "voice", "file"])
        XCTAssertEqual(chain.map { $0["result"] as? String }, ["declined", "error", "declined"])
        let lines = try XCTUnwrap(object["lines"] as? [String])
        XCTAssertTrue(lines.contains { $0.contains("voice") && $0.contains("Unsupported") }, "\(lines)")
        XCTAssertTrue(lines.contains { $0.contains("call me back") }, "\(lines)")
    }

    func test_json_missingType_reportsMissingTypeAndNullType() throws {
        let object = try renderJSON(host, #"{"id":"x","text":"no type here"}"#)
        XCTAssertTrue(object["type"] is NSNull)
        XCTAssertEqual(object["class"] as? String, "UnknownMessageCell")
        let fallback = try XCTUnwrap(object["fallback"] as? [String: Any])
        XCTAssertEqual((fallback["chain"] as? [[String: Any]])?.first?["result"] as? String, "missing type")
        XCTAssertEqual(fallback["reason"] as? String, "the message has no usable type")
    }

    func test_json_messageWithoutID_hasNullID() throws {
        let object = try renderJSON(host, #"{"type":"text","text":"hi"}"#)
        XCTAssertTrue(object["id"] is NSNull)
        XCTAssertEqual(object["class"] as? String, "MessageCell")
    }

    func test_render_ofNonObject_throwsAndWritesNothing() throws {
        let output = OutputBuffer(fd: -1)
        let session = RenderSession(host: host, settings: OutputSettings(format: .json, depth: .none, width: 60),
                                    me: nil, output: output)
        var json = "[1,2,3]"
        XCTAssertThrowsError(try json.withUTF8 { try session.render($0, line: 1) }) { error in
            XCTAssertTrue("\(error)".contains("array"), "\(error)")
        }
        XCTAssertEqual(output.bytes, [])
    }
}
