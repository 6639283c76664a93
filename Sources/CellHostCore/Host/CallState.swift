import CellHostABI
import Glibc
import Synchronization

/// What the runtime keeps about the plugin calls one thread is making: the
/// class being called (for the crash diagnostic), the record being rendered
/// (where plugin logs go), the base directory handed to plugins, the last
/// error each plugin logged, and the call counter a watchdog reads.
///
/// The thread that owns the runtime uses the runtime's own state
/// (`Runtime.mainState`); a render worker thread (`RenderPipeline` with
/// several threads) installs one of its own with `install()`, and every
/// `Runtime` accessor on that thread then reads and writes it. Only its
/// thread touches a state, except `progress`, `activeClassName` and
/// `record` which a watchdog or crash handler reads (racily, as a last
/// resort before the process ends).
public final class CallState: @unchecked Sendable {
    /// The class whose method the thread is calling. Not retained (a class
    /// lives as long as its runtime), so setting it per call costs no
    /// reference counting.
    public internal(set) unowned(unsafe) var activeClass: RuntimeClass?
    /// The record whose chain the thread is walking (for the crash diagnostic).
    /// Not retained: whoever sets it holds the slot and clears it before
    /// letting go (`RenderPipeline`, `RenderWorkers`), and retaining it would
    /// write the slot's reference count, which the other thread of a
    /// pipeline writes too.
    unowned(unsafe) var record: RenderSlot?
    /// While set, plugin log lines go to this record instead of to the
    /// runtime's `diagnostics`. Not retained: every setter clears it before
    /// the record can go (a walk sets it for its own message), so setting it
    /// per message costs no reference counting on a record the owning
    /// thread's pipeline also holds.
    unowned(unsafe) var logCapture: RenderSlot?
    /// What relative media paths resolve against (`cellhost_context.base_directory`).
    var baseDirectory: BaseDirectory
    /// The last error each plugin logged on this thread.
    var lastError: [String: String] = [:]
    /// The date of the last timestamp this thread parsed (`Message.load`).
    var days = RFC3339.DayCache()
    /// The last values of the string fields this thread parsed (`Message.load`).
    var recent = Message.RecentFields()
    /// Counts this thread's plugin calls (`CallProgress`).
    public let progress = CallProgress()
    /// True on a render worker thread: only thread-safe classes may be
    /// called there (CELLHOST_PLUGIN_THREAD_SAFE).
    public let isWorker: Bool

    /// The walk this thread's messages reuse (`RenderSession.walk`): touched
    /// every message, so its fields are in cache, where a slot's own walk
    /// was last touched a ring's length of messages earlier (a cache miss
    /// on every message). A walk that pauses moves into its slot's
    /// (`ChainWalk.exchange`).
    let walk = ChainWalk(steps: [])

    /// The instances this thread used last, by conversation generation:
    /// most renders find theirs here instead of taking the conversation's
    /// lock (which every render thread would contend for).
    private var recentInstances = GenerationCache<ObjectIdentifier, CellObject>()

    /// The handle of `runtime.conversation.instance(of:runtime:)`, through
    /// this thread's small cache of the current conversation's instances,
    /// which keeps the instance (so the handle costs no reference counting):
    /// only this thread changes the cache, and only here.
    func instanceHandle(of cls: RuntimeClass, runtime: Runtime) -> OpaquePointer {
        let conversation = runtime.conversation
        let id = ObjectIdentifier(cls)
        if let object = recentInstances.value(for: id, generation: conversation.generation) { return object.handle }
        let object = conversation.instance(of: cls, runtime: runtime)
        recentInstances.insert(object, for: id, generation: conversation.generation)
        return object.handle
    }

    /// The chains this thread looked up lately, by registry generation:
    /// most messages find theirs here instead of taking the registry's lock
    /// and hashing their type.
    private var recentChains = GenerationCache<String, Registry.Chain>()

    /// `registry.chain(for:)`, through this thread's small cache; the
    /// caller read the registry's `generation` already.
    func chain(for type: String, in registry: Registry, generation: Int) -> Registry.Chain {
        if let chain = recentChains.value(for: type, generation: generation) { return chain }
        let chain = registry.chain(for: type)
        recentChains.insert(chain, for: type, generation: generation)
        return chain
    }

    init(baseDirectory: BaseDirectory, isWorker: Bool) {
        self.baseDirectory = baseDirectory
        self.isWorker = isWorker
    }

    /// The state a worker thread installed, if this is one.
    static var installed: CallState? {
        guard let raw = pthread_getspecific(key) else { return nil }
        return Unmanaged<CallState>.fromOpaque(raw).takeUnretainedValue()
    }

    /// Makes this the state of the calling thread (a worker), until
    /// `uninstall`. The caller keeps it alive meanwhile.
    func install() { pthread_setspecific(Self.key, Unmanaged.passUnretained(self).toOpaque()) }

    /// The calling thread uses its runtime's own state again.
    static func uninstall() { pthread_setspecific(key, nil) }

    /// The key of each thread's installed state (`Runtime.callStateKey`).
    static let key: pthread_key_t = {
        var key = pthread_key_t()
        pthread_key_create(&key, nil)
        return key
    }()
}

/// The call states of every thread that calls a runtime's plugins, for a
/// watchdog on another thread.
public final class CallStates: Sendable {
    /// The runtime's own thread's.
    let main: CallState
    private let workers = Mutex<[CallState]>([])

    init(main: CallState) { self.main = main }

    /// The runtime's, and those of the render workers running now.
    public var all: [CallState] { [main] + workers.withLock { $0 } }

    func add(_ state: CallState) { workers.withLock { $0.append(state) } }
    func remove(_ state: CallState) { workers.withLock { $0.removeAll { $0 === state } } }
}

extension Runtime {
    /// The call state of the calling thread: a worker's own, else the runtime's.
    @inline(__always)
    var state: CallState { unretainedState.takeUnretainedValue() }

    /// `state`, not counted: a thread's state lives as long as its work (a
    /// worker's until it retires, the runtime's own with the runtime), so a
    /// caller that uses it only while it works on this thread needs no
    /// retain and release of it (nor of the runtime, to read it).
    @inline(__always)
    var unretainedState: Unmanaged<CallState> {
        if let raw = pthread_getspecific(callStateKey) { return Unmanaged.fromOpaque(raw) }
        return Unmanaged.passUnretained(mainState)
    }

    /// The class whose method the render path is calling on this thread
    /// (for the crash diagnostic of `--isolation none`).
    public var activeClass: RuntimeClass? { state.activeClass }

    /// While set, plugin log lines of this thread go here (`CallState.logCapture`).
    var logCapture: RenderSlot? {
        get { state.logCapture }
        set { state.logCapture = newValue }
    }

    /// The directory relative media paths resolve against
    /// (`cellhost_context.base_directory`) for calls made on this thread:
    /// the input file's, or the current directory.
    public var baseDirectory: BaseDirectory {
        get { state.baseDirectory }
        set { state.baseDirectory = newValue }
    }

    /// The last error each plugin logged on this thread, to explain a render that failed.
    var lastError: [String: String] {
        get { state.lastError }
        set { state.lastError = newValue }
    }

    /// Counts the plugin calls of the runtime's own thread (`CallProgress`).
    public var callProgress: CallProgress { mainState.progress }

    /// The call states of every thread that calls plugins: the runtime's,
    /// and those of the render workers running now (for a watchdog).
    public var callStates: CallStates { states }

    /// A state for a new render worker thread, known to `callStates` until
    /// `retire`.
    func makeWorkerState(baseDirectory: BaseDirectory) -> CallState {
        let state = CallState(baseDirectory: baseDirectory, isWorker: true)
        states.add(state)
        return state
    }

    func retire(_ state: CallState) {
        states.remove(state)
    }

    /// False when this thread is a render worker and `cls` may not be
    /// called concurrently (`RuntimeClass.isConcurrent`).
    func mayCall(_ cls: RuntimeClass) -> Bool {
        guard let installed = CallState.installed, installed.isWorker else { return true }
        return cls.isConcurrent
    }
}
