import CellHostABI
import XCTest
@testable import CellHostCore

// IMPs of the test classes. "value" answers which class implemented it.

private typealias ValueIMP = @convention(c) (OpaquePointer?, UnsafePointer<CChar>?) -> Int32
private let baseValue: ValueIMP = { _, _ in 1 }
private let subValue: ValueIMP = { _, _ in 2 }
private let otherValue: ValueIMP = { _, _ in 3 }
private let addIMP: @convention(c) (OpaquePointer?, UnsafePointer<CChar>?, Int32, Int32) -> Int32 = { _, _, a, b in a + b }
private let scaleIMP: @convention(c) (OpaquePointer?, UnsafePointer<CChar>?, Double, Int32) -> Double = { _, _, x, n in x * Double(n) }
private let voidIMP: @convention(c) (OpaquePointer?, UnsafePointer<CChar>?) -> Void = { _, _ in }

/// "valueThroughSuper:" (i@:^v): calls [super value] through the host table
/// given as the argument, and adds 10 — what a plugin's override does.
private let subValueCallingSuper: @convention(c) (OpaquePointer?, UnsafePointer<CChar>?, UnsafeRawPointer?) -> Int32 = { object, _, host in
    guard let table = host?.assumingMemoryBound(to: cellhost_host.self) else { return -1 }
    var result: Int32 = 0
    let status = table.pointee.send_super("SuperSub", object, "value", "i@:", &result, nil)
    return status == Int32(CELLHOST_OK) ? result + 10 : -status
}

/// Selector look-up, `send`, `send_super` and `responds_to`, and what
/// `Runtime.link` accepts and rejects.
final class DispatchTests: XCTestCase {
    private var runtime: Runtime!
    private var table: UnsafePointer<cellhost_host>!

    override func setUp() {
        super.setUp()
        runtime = Runtime()
        table = runtime.hostTable(for: HostClasses.pluginID)
    }

    override func tearDown() {
        runtime = nil
        table = nil
        super.tearDown()
    }

    /// Base : MessageCell (value → 1, add:to:), Sub : Base (value → 2), Leaf : Sub (nothing).
    private func linkHierarchy(file: StaticString = #filePath, line: UInt = #line) {
        let rejections = link(runtime, [
            classDescription("Base", methods: [methodDescription("value", "i@:", baseValue),
                                               methodDescription("add:to:", "i@:ii", addIMP),
                                               methodDescription("scale:by:", "d@:di", scaleIMP),
                                               methodDescription("nothing", "v@:", voidIMP)]),
            classDescription("Sub", superclass: "Base", methods: [methodDescription("value", "i@:", subValue)]),
            classDescription("Leaf", superclass: "Sub"),
        ])
        XCTAssertEqual(rejections.map(\.description), [], file: file, line: line)
    }

    private func cls(_ name: String, file: StaticString = #filePath, line: UInt = #line) throws -> RuntimeClass {
        try XCTUnwrap(runtime.classes[name], "class \(name) is linked", file: file, line: line)
    }

    /// Sends `selector` to a fresh instance of `className` through the host table.
    private func send(_ className: String, _ selector: String, types: String? = "i@:",
                      arguments: [UnsafeMutableRawPointer?]? = nil) throws -> (status: Int32, result: Int32) {
        let object = CellObject(cls: try cls(className))
        var result: Int32 = -999
        let status: Int32 = withExtendedLifetime(object) {
            if var arguments {
                return arguments.withUnsafeMutableBufferPointer { args in
                    table.pointee.send(object.handle, selector, types, &result, args.baseAddress)
                }
            }
            return table.pointee.send(object.handle, selector, types, &result, nil)
        }
        return (status, result)
    }

    // MARK: Look-up

    func test_lookup_findsMethodOfTheClassItself() throws {
        linkHierarchy()
        XCTAssertTrue(try cls("Sub").lookup("value")?.owner === cls("Sub"))
    }

    func test_lookup_walksTheSuperclassChain() throws {
        linkHierarchy()
        XCTAssertTrue(try cls("Leaf").lookup("add:to:")?.owner === cls("Base"))
    }

    func test_lookup_reachesTheHostRootClass() throws {
        linkHierarchy()
        XCTAssertTrue(try cls("Leaf").lookup(WellKnownSelector.render.rawValue)?.owner === runtime.messageCell)
    }

    func test_lookup_ofUnknownSelector_isNil() throws {
        linkHierarchy()
        XCTAssertNil(try cls("Leaf").lookup("noSuchSelector"))
    }

    func test_lookup_isCached_returningTheSameMethod() throws {
        linkHierarchy()
        let leaf = try cls("Leaf")
        let first = try XCTUnwrap(leaf.lookup("value"))
        let second = try XCTUnwrap(leaf.lookup("value"))
        XCTAssertTrue(first === second)
        XCTAssertTrue(first === (try cls("Sub")).methods["value"])
    }

    func test_subclassOverride_winsOverSuperclassMethod() throws {
        linkHierarchy()
        XCTAssertTrue(try cls("Leaf").lookup("value")?.owner === cls("Sub"))
        XCTAssertEqual(try send("Leaf", "value").result, 2)
        XCTAssertEqual(try send("Base", "value").result, 1)
    }

    func test_isSubclass_followsTheChain() throws {
        linkHierarchy()
        XCTAssertTrue(try cls("Leaf").isSubclass(of: cls("Base")))
        XCTAssertTrue(try cls("Leaf").isSubclass(of: runtime.messageCell))
        XCTAssertFalse(try cls("Base").isSubclass(of: cls("Leaf")))
    }

    func test_methodList_keepsDeclarationOrder() throws {
        linkHierarchy()
        XCTAssertEqual(try cls("Base").methodList.map(\.selector), ["value", "add:to:", "scale:by:", "nothing"])
    }

    // MARK: send

    func test_send_callsTheMethodAndReturnsItsResult() throws {
        linkHierarchy()
        let answer = try send("Sub", "value")
        XCTAssertEqual(answer.status, Int32(CELLHOST_OK))
        XCTAssertEqual(answer.result, 2)
    }

    func test_send_passesArguments() throws {
        linkHierarchy()
        var a: Int32 = 40, b: Int32 = 2
        let answer = try withUnsafeMutablePointer(to: &a) { pa in
            try withUnsafeMutablePointer(to: &b) { pb in
                try send("Leaf", "add:to:", types: "i@:ii", arguments: [UnsafeMutableRawPointer(pa), UnsafeMutableRawPointer(pb)])
            }
        }
        XCTAssertEqual(answer.status, Int32(CELLHOST_OK))
        XCTAssertEqual(answer.result, 42)
    }

    func test_send_returnsDouble() throws {
        linkHierarchy()
        let object = CellObject(cls: try cls("Leaf"))
        var x = 1.25, n: Int32 = 4
        var result = 0.0
        let status = withUnsafeMutablePointer(to: &x) { px in
            withUnsafeMutablePointer(to: &n) { pn in
                var args: [UnsafeMutableRawPointer?] = [UnsafeMutableRawPointer(px), UnsafeMutableRawPointer(pn)]
                return table.pointee.send(object.handle, "scale:by:", "d@:di", &result, &args)
            }
        }
        withExtendedLifetime(object) {}
        XCTAssertEqual(status, Int32(CELLHOST_OK))
        XCTAssertEqual(result, 5.0)
    }

    func test_send_writesOnlyTheReturnTypesBytes() throws {
        linkHierarchy()
        let object = CellObject(cls: try cls("Sub"))
        var result: UInt64 = 0x1111_1111_1111_1111
        let status = table.pointee.send(object.handle, "value", "i@:", &result, nil)
        withExtendedLifetime(object) {}
        XCTAssertEqual(status, Int32(CELLHOST_OK))
        XCTAssertEqual(result, 0x1111_1111_0000_0002)
    }

    func test_send_withNilResult_ignoresTheReturnValue() throws {
        linkHierarchy()
        let object = CellObject(cls: try cls("Sub"))
        let status = table.pointee.send(object.handle, "value", "i@:", nil, nil)
        withExtendedLifetime(object) {}
        XCTAssertEqual(status, Int32(CELLHOST_OK))
    }

    func test_send_withoutTypes_skipsTheSignatureCheck() throws {
        linkHierarchy()
        XCTAssertEqual(try send("Sub", "value", types: nil).result, 2)
    }

    func test_send_withStackOffsetsInTypes_matchesTheCanonicalEncoding() throws {
        linkHierarchy()
        let answer = try send("Sub", "value", types: "i16@0:8")
        XCTAssertEqual(answer.status, Int32(CELLHOST_OK))
        XCTAssertEqual(answer.result, 2)
    }

    func test_send_withWrongTypes_isSignatureMismatch_andDoesNotCall() throws {
        linkHierarchy()
        let answer = try send("Sub", "value", types: "d@:")
        XCTAssertEqual(answer.status, Int32(CELLHOST_E_SIGNATURE_MISMATCH))
        XCTAssertEqual(answer.result, -999, "the result is untouched")
    }

    func test_send_withMalformedTypes_isSignatureMismatch() throws {
        linkHierarchy()
        XCTAssertEqual(try send("Sub", "value", types: "i@:x").status, Int32(CELLHOST_E_SIGNATURE_MISMATCH))
    }

    func test_send_ofUnknownSelector_isUnrecognizedSelector() throws {
        linkHierarchy()
        XCTAssertEqual(try send("Sub", "noSuchSelector").status, Int32(CELLHOST_E_UNRECOGNIZED_SELECTOR))
    }

    func test_send_withMissingArguments_isInvalidArgument() throws {
        linkHierarchy()
        XCTAssertEqual(try send("Base", "add:to:", types: "i@:ii", arguments: nil).status,
                       Int32(CELLHOST_E_INVALID_ARGUMENT))
    }

    func test_send_toNilReceiver_isInvalidArgument() {
        var result: Int32 = 0
        XCTAssertEqual(table.pointee.send(nil, "value", "i@:", &result, nil), Int32(CELLHOST_E_INVALID_ARGUMENT))
    }

    func test_send_ofVoidMethod_succeeds() throws {
        linkHierarchy()
        let object = CellObject(cls: try cls("Leaf"))
        let status = table.pointee.send(object.handle, "nothing", "v@:", nil, nil)
        withExtendedLifetime(object) {}
        XCTAssertEqual(status, Int32(CELLHOST_OK))
    }

    func test_dispatcherSend_fromAGivenClass_startsTheLookupThere() throws {
        linkHierarchy()
        let object = CellObject(cls: try cls("Leaf"))
        var result: Int32 = 0
        let status = Dispatcher.send(from: try cls("Base"), receiver: object, selector: "value", types: "i@:",
                                     result: &result, arguments: nil)
        withExtendedLifetime(object) {}
        XCTAssertEqual(status, Int32(CELLHOST_OK))
        XCTAssertEqual(result, 1)
    }

    // MARK: send_super

    func test_sendSuper_startsAtTheSuperclassOfTheNamedClass() throws {
        linkHierarchy()
        let object = CellObject(cls: try cls("Leaf"))
        var result: Int32 = 0
        let status = table.pointee.send_super("Sub", object.handle, "value", "i@:", &result, nil)
        withExtendedLifetime(object) {}
        XCTAssertEqual(status, Int32(CELLHOST_OK))
        XCTAssertEqual(result, 1, "[super value] from Sub runs Base's value")
    }

    func test_sendSuper_fromTheLeaf_findsTheNearestOverride() throws {
        linkHierarchy()
        let object = CellObject(cls: try cls("Leaf"))
        var result: Int32 = 0
        let status = table.pointee.send_super("Leaf", object.handle, "value", "i@:", &result, nil)
        withExtendedLifetime(object) {}
        XCTAssertEqual(status, Int32(CELLHOST_OK))
        XCTAssertEqual(result, 2)
    }

    func test_sendSuper_pastTheLastImplementation_isUnrecognizedSelector() throws {
        linkHierarchy()
        let object = CellObject(cls: try cls("Leaf"))
        var result: Int32 = 0
        let status = table.pointee.send_super("Base", object.handle, "value", "i@:", &result, nil)
        withExtendedLifetime(object) {}
        XCTAssertEqual(status, Int32(CELLHOST_E_UNRECOGNIZED_SELECTOR))
    }

    func test_sendSuper_withAClassNotOnTheReceiversChain_isNoSuchClass() throws {
        linkHierarchy()
        link(runtime, [classDescription("Unrelated", methods: [methodDescription("value", "i@:", otherValue)])])
        let object = CellObject(cls: try cls("Leaf"))
        var result: Int32 = 0
        let status = table.pointee.send_super("Unrelated", object.handle, "value", "i@:", &result, nil)
        withExtendedLifetime(object) {}
        XCTAssertEqual(status, Int32(CELLHOST_E_NO_SUCH_CLASS))
    }

    func test_sendSuper_withWrongTypes_isSignatureMismatch() throws {
        linkHierarchy()
        let object = CellObject(cls: try cls("Leaf"))
        var result: Int32 = 0
        let status = table.pointee.send_super("Sub", object.handle, "value", "q@:", &result, nil)
        withExtendedLifetime(object) {}
        XCTAssertEqual(status, Int32(CELLHOST_E_SIGNATURE_MISMATCH))
    }

    func test_superCall_fromInsideAnIMP_runsTheSuperclassImplementation() throws {
        let rejections = link(runtime, [
            classDescription("SuperBase", methods: [methodDescription("value", "i@:", baseValue)]),
            classDescription("SuperSub", superclass: "SuperBase",
                             methods: [methodDescription("valueThroughSuper:", "i@:^v", subValueCallingSuper)]),
        ])
        XCTAssertEqual(rejections.map(\.description), [])
        let object = CellObject(cls: try cls("SuperSub"))
        var host: UnsafeRawPointer? = UnsafeRawPointer(table!)
        var result: Int32 = 0
        let status = withUnsafeMutablePointer(to: &host) { pointer -> Int32 in
            var args: [UnsafeMutableRawPointer?] = [UnsafeMutableRawPointer(pointer)]
            return table.pointee.send(object.handle, "valueThroughSuper:", "i@:^v", &result, &args)
        }
        withExtendedLifetime(object) {}
        XCTAssertEqual(status, Int32(CELLHOST_OK))
        XCTAssertEqual(result, 11)
    }

    // MARK: Other host functions

    func test_respondsTo_isTrueForOwnAndInheritedSelectors() throws {
        linkHierarchy()
        let object = CellObject(cls: try cls("Leaf"))
        withExtendedLifetime(object) {
            XCTAssertTrue(table.pointee.responds_to(object.handle, "value"))
            XCTAssertTrue(table.pointee.responds_to(object.handle, "add:to:"))
            XCTAssertTrue(table.pointee.responds_to(object.handle, WellKnownSelector.render.rawValue))
        }
    }

    func test_respondsTo_isFalseForUnknownSelectors() throws {
        linkHierarchy()
        let object = CellObject(cls: try cls("Leaf"))
        withExtendedLifetime(object) {
            XCTAssertFalse(table.pointee.responds_to(object.handle, "noSuchSelector"))
            XCTAssertFalse(table.pointee.responds_to(object.handle, WellKnownSelector.canRender.rawValue))
            XCTAssertFalse(table.pointee.responds_to(nil, "value"))
        }
    }

    func test_objectClassName_isTheReceiversClass() throws {
        linkHierarchy()
        let object = CellObject(cls: try cls("Leaf"))
        withExtendedLifetime(object) {
            XCTAssertEqual(table.pointee.object_class_name(object.handle).map { String(cString: $0) }, "Leaf")
        }
    }

    func test_instanceOf_givesAnInstanceToSendTo() throws {
        linkHierarchy()
        let handle = try XCTUnwrap(table.pointee.instance_of(table, "Sub"))
        var result: Int32 = 0
        XCTAssertEqual(table.pointee.send(handle, "value", "i@:", &result, nil), Int32(CELLHOST_OK))
        XCTAssertEqual(result, 2)
        XCTAssertEqual(table.pointee.instance_of(table, "Sub"), handle, "one instance per class per conversation")
    }

    func test_instanceOf_unknownClass_isNil() {
        XCTAssertNil(table.pointee.instance_of(table, "NoSuchClass"))
    }

    func test_objectIvars_areZeroedStorageOfTheInstanceSize() throws {
        var described = classDescription("WithIvars", instanceSize: 24)
        described.address = 0x1000
        link(runtime, [described])
        let object = CellObject(cls: try cls("WithIvars"))
        withExtendedLifetime(object) {
            guard let ivars = table.pointee.object_ivars(object.handle, Self.classStruct(0x1000)) else { return XCTFail("no ivars") }
            XCTAssertEqual(UnsafeRawBufferPointer(start: ivars, count: 24).allSatisfy { $0 == 0 }, true)
        }
        let plain = CellObject(cls: runtime.messageCell)
        withExtendedLifetime(plain) { XCTAssertNil(table.pointee.object_ivars(plain.handle, Self.classStruct(0x1000))) }
    }

    func test_objectIvars_giveEachClassOfTheChainItsOwnBlock() throws {
        var base = classDescription("IvarBase", instanceSize: 20)
        base.address = 0x2000
        var sub = classDescription("IvarSub", superclass: "IvarBase", instanceSize: 8)
        sub.address = 0x3000
        link(runtime, [sub, base])
        let object = CellObject(cls: try cls("IvarSub"))
        withExtendedLifetime(object) {
            guard let baseBlock = table.pointee.object_ivars(object.handle, Self.classStruct(0x2000)),
                  let subBlock = table.pointee.object_ivars(object.handle, Self.classStruct(0x3000)) else {
                return XCTFail("a class of the chain has no block")
            }
            XCTAssertEqual(subBlock - baseBlock, 32, "the subclass's block follows the superclass's 20 bytes, 16-aligned")
            XCTAssertEqual(Int(bitPattern: subBlock) % 16, 0)
        }
        let baseObject = CellObject(cls: try cls("IvarBase"))
        withExtendedLifetime(baseObject) {
            XCTAssertNotNil(table.pointee.object_ivars(baseObject.handle, Self.classStruct(0x2000)))
            XCTAssertNil(table.pointee.object_ivars(baseObject.handle, Self.classStruct(0x3000)),
                         "a subclass's block is not part of a superclass instance")
        }
    }

    /// A stand-in for the address of a plugin's class struct: the host only compares it.
    private static func classStruct(_ address: UInt) -> UnsafePointer<cellhost_class>? {
        UnsafePointer(bitPattern: address)
    }

    // MARK: link

    func test_link_rejectsWellKnownSelectorWithWrongEncoding_namingBothEncodings() {
        let rejections = link(runtime, [classDescription("BadRender", messageClasses: ["text"],
                                                         methods: [methodDescription(WellKnownSelector.render.rawValue,
                                                                                     "v@:^{cellhost_message}", voidIMP)])])
        XCTAssertEqual(rejections.map(\.className), ["BadRender"])
        let reason = rejections.first?.reason ?? ""
        XCTAssertTrue(reason.contains("v@:^{cellhost_message}"), reason)
        XCTAssertTrue(reason.contains(CELLHOST_TYPES_RENDER), reason)
        XCTAssertNil(runtime.classes["BadRender"])
        XCTAssertFalse(runtime.registry.candidates(for: "text").contains { $0.cls.name == "BadRender" })
    }

    func test_link_rejectsWellKnownSelectorWithoutConstQualifiers() {
        let loose = "i@:^{cellhost_message}^{cellhost_context}^{cellhost_builder}"
        let rejections = link(runtime, [classDescription("LooseRender", methods: [methodDescription(WellKnownSelector.render.rawValue, loose, noopRender)])])
        XCTAssertEqual(rejections.map(\.className), ["LooseRender"])
    }

    func test_link_acceptsWellKnownSelectorWithStackOffsets() {
        let withOffsets = "i40@0:8r^{cellhost_message}16r^{cellhost_context}24^{cellhost_builder}32"
        let rejections = link(runtime, [classDescription("OffsetRender", methods: [methodDescription(WellKnownSelector.render.rawValue, withOffsets, noopRender)])])
        XCTAssertEqual(rejections.map(\.description), [])
        XCTAssertNotNil(runtime.classes["OffsetRender"])
    }

    func test_link_rejectsMalformedEncoding_withTheParserDiagnostic() {
        let rejections = link(runtime, [classDescription("Malformed", methods: [methodDescription("frob", "i@:x", baseValue)])])
        XCTAssertEqual(rejections.map(\.className), ["Malformed"])
        let reason = rejections.first?.reason ?? ""
        XCTAssertTrue(reason.contains("frob"), reason)
        XCTAssertTrue(reason.contains("unknown type 'x'"), reason)
        XCTAssertNil(runtime.classes["Malformed"])
    }

    func test_link_rejectsNullImplementation() {
        let rejections = link(runtime, [classDescription("NullIMP", methods: [.init(selector: "value", types: "i@:", imp: 0)])])
        XCTAssertTrue(rejections.first?.reason.contains("NULL") ?? false, "\(rejections)")
    }

    func test_link_rejectsMissingSuperclass() {
        let rejections = link(runtime, [classDescription("Orphan", superclass: "X")])
        XCTAssertEqual(rejections.map(\.className), ["Orphan"])
        XCTAssertEqual(rejections.first?.reason, "superclass 'X' not found")
    }

    func test_link_rejectsSuperclassCycle() {
        let rejections = link(runtime, [classDescription("CycleA", superclass: "CycleB"),
                                        classDescription("CycleB", superclass: "CycleA")])
        XCTAssertEqual(Set(rejections.map(\.className)), ["CycleA", "CycleB"])
        XCTAssertTrue(rejections.contains { $0.reason.contains("cycle") }, "\(rejections)")
        XCTAssertNil(runtime.classes["CycleA"])
        XCTAssertNil(runtime.classes["CycleB"])
    }

    func test_link_rejectsClassThatIsItsOwnSuperclass() {
        let rejections = link(runtime, [classDescription("Ouroboros", superclass: "Ouroboros")])
        XCTAssertEqual(rejections.map(\.className), ["Ouroboros"])
        XCTAssertTrue(rejections.first?.reason.contains("cycle") ?? false)
    }

    func test_link_rejectsSubclassOfARejectedClass() {
        let rejections = link(runtime, [
            classDescription("BrokenParent", methods: [methodDescription("frob", "i@:x", baseValue)]),
            classDescription("Child", superclass: "BrokenParent"),
        ])
        XCTAssertEqual(rejections.map(\.className).sorted(), ["BrokenParent", "Child"])
        XCTAssertEqual(rejections.first { $0.className == "Child" }?.reason, "superclass 'BrokenParent' was rejected")
        XCTAssertNil(runtime.classes["Child"])
    }

    func test_link_acceptsSuperclassDefinedLaterInTheSameBatch() throws {
        let rejections = link(runtime, [
            classDescription("EarlyChild", superclass: "LateParent", messageClasses: ["text"]),
            classDescription("LateParent", methods: [methodDescription("value", "i@:", baseValue)]),
        ])
        XCTAssertEqual(rejections.map(\.description), [])
        XCTAssertTrue(try cls("EarlyChild").superclass === cls("LateParent"))
        XCTAssertEqual(try send("EarlyChild", "value").result, 1)
    }

    func test_link_acceptsSuperclassFromAnEarlierBatchOfAnotherPlugin() throws {
        link(runtime, [classDescription("FromPluginA", methods: [methodDescription("value", "i@:", baseValue)])], plugin: "a")
        let rejections = link(runtime, [classDescription("FromPluginB", superclass: "FromPluginA")], plugin: "b")
        XCTAssertEqual(rejections.map(\.description), [])
        XCTAssertEqual(try cls("FromPluginB").pluginID, "b")
        XCTAssertEqual(try send("FromPluginB", "value").result, 1)
    }

    func test_link_rejectsDuplicateClassName_keepingTheFirst() throws {
        link(runtime, [classDescription("Twice", methods: [methodDescription("value", "i@:", baseValue)])], plugin: "first")
        let rejections = link(runtime, [classDescription("Twice", methods: [methodDescription("value", "i@:", subValue)])], plugin: "second")
        XCTAssertEqual(rejections.map(\.className), ["Twice"])
        XCTAssertTrue(rejections.first?.reason.contains("first") ?? false)
        XCTAssertEqual(try cls("Twice").pluginID, "first")
    }

    func test_link_rejectsDuplicateClassNameWithinOneBatch() {
        let rejections = link(runtime, [classDescription("Dup"), classDescription("Dup")])
        XCTAssertEqual(rejections.map(\.className), ["Dup"])
        XCTAssertNotNil(runtime.classes["Dup"])
    }

    func test_link_rejectsRedefinitionOfAHostClass() {
        let rejections = link(runtime, [classDescription("MessageCell", superclass: "UnknownMessageCell")])
        XCTAssertEqual(rejections.map(\.className), ["MessageCell"])
        XCTAssertTrue(runtime.classes["MessageCell"] === runtime.messageCell)
    }

    func test_link_registersAcceptedClassesForTheirMessageClasses() throws {
        link(runtime, [classDescription("PollCellX", messageClasses: ["poll", "survey"], rank: 3,
                                        methods: [methodDescription(WellKnownSelector.render.rawValue, CELLHOST_TYPES_RENDER, noopRender)])])
        XCTAssertEqual(runtime.registry.candidates(for: "poll").map(\.cls.name), ["PollCellX"])
        XCTAssertEqual(runtime.registry.candidates(for: "survey").map(\.cls.name), ["PollCellX"])
        XCTAssertEqual(runtime.registry.candidates(for: "poll").first?.rank, 3)
    }

    func test_link_aRejectedClassDoesNotPreventTheOthersOfTheBatch() {
        let rejections = link(runtime, [
            classDescription("Good1"),
            classDescription("Bad", methods: [methodDescription("x", "", baseValue)]),
            classDescription("Good2"),
        ])
        XCTAssertEqual(rejections.map(\.className), ["Bad"])
        XCTAssertNotNil(runtime.classes["Good1"])
        XCTAssertNotNil(runtime.classes["Good2"])
    }
}
