internal import CellHostABI
import Glibc

/// What one thread keeps between the calls it runs: the last context
/// strings it read, the extensions of the last host table it used and the
/// context value its outermost call hands to the renderer, so that a call
/// takes no lock, makes no `String` for what the previous call on the
/// thread already had, and builds no `RenderContext`.
///
/// Thread safety: each thread reaches only its own cache (through a pthread
/// key), and CellKit calls nothing while it reads or writes one, so a nested
/// call (`send_super`) never finds it half updated. It lives in memory of
/// its own, reached by pointer, so that a call pays no reference counting.
struct ThreadCache {
    /// The `String`s of the message classes and base directories this
    /// thread's contexts had, and which of them the reused context holds.
    var messageClass = CStringCache()
    var baseDirectory = CStringCache()
    /// The table `extensions` belongs to, as of `extensionsGeneration`.
    var extensionsTable: UnsafePointer<cellhost_host>?
    var extensionsGeneration: UInt64 = 0
    /// Where `Runtime.extensions(of:)` keeps those of `extensionsTable`;
    /// `nil` before the first look-up.
    var extensions: UnsafePointer<HostExtensions>?
    /// `Runtime.callSlots`, read once for the thread (the global is made
    /// lazily, so each read of it checks that it was).
    let callSlots = Runtime.callSlots
    /// The next call token of the block this thread reserved
    /// (`Runtime.beginCall`), and how many of the block are left.
    private var nextCallToken: UInt64 = 0
    private var callTokensLeft: UInt64 = 0
    /// Tokens reserved at once: one atomic add on the shared counter per
    /// block instead of per call.
    static let callTokenBlock: UInt64 = 1024
    /// The context the thread's outermost method call hands to its renderer
    /// (`claimReusedContext`), made on the first call and then updated in
    /// place (`RenderContext.update`), so that a call neither builds nor
    /// destroys one (a context holds two `String`s: a retain and a release
    /// each). In memory of its own, so that it is lent by address
    /// (`inout`), which copies no `String`. `nil` before the first call.
    private var reusedContext: UnsafeMutablePointer<RenderContext>?
    /// True while a call on this thread has `reusedContext`: a nested call
    /// (`send_super`) must not change it under the renderer that has it.
    private var reusedContextIsLent = false
    /// Media directories this thread found missing, for a second.
    var missingDirectories = MissingDirectories()
    /// The slot of `Runtime.callSlots` this thread's calls try first:
    /// threads start eight slots (cache lines) apart, so up to eight
    /// threads, each with calls nested seven deep, never meet.
    let homeSlot = Runtime.threadsSeen.wrappingAdd(1, ordering: .relaxed).oldValue &* 8

    /// A call token no other call of the plugin has, from this thread's block.
    mutating func takeCallToken() -> UInt64 {
        if callTokensLeft == 0 {
            let last = Runtime.lastCallToken.wrappingAdd(Self.callTokenBlock, ordering: .relaxed).newValue
            nextCallToken = last &- Self.callTokenBlock &+ 1
            callTokensLeft = Self.callTokenBlock
        }
        let token = nextCallToken
        nextCallToken &+= 1
        callTokensLeft &-= 1
        return token
    }

    /// The thread's reused context, made with `host` on first use, for a
    /// call that gives it back with `returnReusedContext()`; `nil` while
    /// an outer call on the thread has it (a nested call makes its own).
    @inline(__always)
    mutating func claimReusedContext(host: Host) -> UnsafeMutablePointer<RenderContext>? {
        guard !reusedContextIsLent else { return nil }
        reusedContextIsLent = true
        return reusedContext ?? makeReusedContext(host: host)
    }

    /// The first call's: a context that `RenderContext.update` then sets.
    @inline(never)
    private mutating func makeReusedContext(host: Host) -> UnsafeMutablePointer<RenderContext> {
        let context = UnsafeMutablePointer<RenderContext>.allocate(capacity: 1)
        context.initialize(to: RenderContext(width: 1, messageClass: "", host: host))
        reusedContext = context
        return context
    }

    /// The call that claimed the reused context has returned.
    @inline(__always)
    mutating func returnReusedContext() { reusedContextIsLent = false }

    /// Frees what the cache holds in memory of its own (at thread exit).
    func freeOwnedMemory() {
        reusedContext?.deinitialize(count: 1)
        reusedContext?.deallocate()
        missingDirectories.freeOwnedMemory()
    }

    /// The key of each thread's cache, made once (a Swift `static let` is
    /// initialized once, thread-safely); `nil` when the system has no key
    /// left, and then callers use the locked shared state. Its destructor
    /// frees a thread's cache when the thread exits. (A Swift library is
    /// never unloaded, since the Swift runtime keeps pointers into its
    /// metadata, so the destructor stays callable.) Each read is a
    /// `swift_once` call: a method binding keeps a copy
    /// (`MethodBinding.threadCacheKey`).
    static let key: pthread_key_t? = {
        var key = pthread_key_t()
        let made = pthread_key_create(&key) { raw in
            guard let cache = raw?.assumingMemoryBound(to: ThreadCache.self) else { return }
            cache.pointee.freeOwnedMemory()
            cache.deinitialize(count: 1)
            cache.deallocate()
        }
        return made == 0 ? key : nil
    }()

    /// The calling thread's cache, made on its first call and valid until
    /// the thread exits; use it on this thread only. `nil` without a key.
    @inline(__always)
    static var current: UnsafeMutablePointer<ThreadCache>? { current(key: key) }

    /// `current`, for a caller that keeps a copy of `key`.
    @inline(__always)
    static func current(key: pthread_key_t?) -> UnsafeMutablePointer<ThreadCache>? {
        guard let key else { return nil }
        if let raw = pthread_getspecific(key) { return raw.assumingMemoryBound(to: ThreadCache.self) }
        let cache = UnsafeMutablePointer<ThreadCache>.allocate(capacity: 1)
        cache.initialize(to: ThreadCache())
        guard pthread_setspecific(key, cache) == 0 else {
            cache.deinitialize(count: 1)
            cache.deallocate()
            return nil
        }
        return cache
    }
}

/// The `String`s of the last few C strings seen, so that a text seen again
/// makes no new `String`: the same pointer to the same bytes gives the same
/// `String`, another pointer or other bytes a fresh one. A few, not one,
/// because the host passes each message class's own string, and classes
/// alternate from message to message.
struct CStringCache {
    private struct Entry {
        let pointer: UnsafePointer<CChar>
        let value: String
        /// The bytes of `value` and a NUL, to compare with the next text.
        let bytes: ContiguousArray<CChar>

        /// True when `text` is this entry's pointer and still has its bytes
        /// (both are NUL-terminated: strcmp stops at the first difference).
        func matches(_ text: UnsafePointer<CChar>) -> Bool {
            text == pointer && bytes.withUnsafeBufferPointer { $0.baseAddress.map { strcmp(text, $0) == 0 } ?? false }
        }
    }

    /// How many strings are kept.
    static let capacity = 8
    private var entries: [Entry] = []
    /// The entry the next new string replaces once `entries` is full.
    private var next = 0
    /// The entry the string of the thread's reused context was last set
    /// from (`refresh`); `nil` when it was set to `""` for no text.
    private var reused: Entry?

    /// Inlined into every call's context (`Runtime.contextStrings`): a
    /// string seen before costs its look-up only.
    @inline(__always)
    mutating func string(_ text: UnsafePointer<CChar>) -> String {
        entries[index(of: text)].value
    }

    /// Makes `string`, a string of the thread's reused context that only
    /// this cache sets, the text at `text` (`""` for `nil`). Nearly every
    /// call has the text of the call before: then the check is a pointer
    /// compare and a `strcmp`, and `string` is left as it is (assigning
    /// it would retain the new value and release the old).
    @inline(__always)
    mutating func refresh(_ string: inout String, from text: UnsafePointer<CChar>?) {
        guard let text else {
            reused = nil
            string = ""
            return
        }
        if reused?.matches(text) == true { return }
        let index = index(of: text)
        reused = entries[index]
        string = entries[index].value
    }

    /// The index in `entries` of the entry for `text`: a kept one that
    /// matches, else a new one.
    @inline(__always)
    private mutating func index(of text: UnsafePointer<CChar>) -> Int {
        for index in entries.indices where entries[index].matches(text) { return index }
        return add(text)
    }

    /// A new entry for `text`, replacing a stale or the oldest one; its index.
    @inline(never)
    private mutating func add(_ text: UnsafePointer<CChar>) -> Int {
        let entry = Entry(pointer: text, value: String(cString: text),
                          bytes: ContiguousArray(UnsafeBufferPointer(start: text, count: strlen(text) + 1)))
        // The same pointer with other bytes: that entry is stale.
        if let stale = entries.firstIndex(where: { $0.pointer == text }) {
            entries[stale] = entry
            return stale
        }
        if entries.count < Self.capacity {
            entries.append(entry)
            return entries.count - 1
        }
        let replaced = next
        entries[replaced] = entry
        next = (next + 1) % Self.capacity
        return replaced
    }
}

