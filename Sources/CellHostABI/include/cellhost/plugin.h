/*
 * cellhost/plugin.h — the plugin descriptor and the entry symbol.
 *
 * A plugin is a shared library exporting one symbol:
 *
 *     CELLHOST_EXPORT const cellhost_plugin_descriptor *cellhost_plugin_entry(void);
 *
 * Describing a plugin runs no plugin code but the entry function: the host's
 * scanner (`cellhost list-plugins`, and the cache behind `cellhost render`)
 * opens the library with dlopen(RTLD_NOW | RTLD_LOCAL) in a child process,
 * calls the entry once, checks the ABI version with
 * `cellhost_version_is_compatible`, and reads the descriptor, its classes and
 * message classes. It calls `init` (then `deinit`) only for a plugin that
 * sets CELLHOST_PLUGIN_REGISTERS_AT_INIT. A process that uses the plugin
 * calls the entry, then `init` once before any method, and `deinit` once at
 * the end, for every `init` that succeeded.
 *
 * Threading: the entry, `init`, `deinit` and `get_extension` are called on
 * the host's loading thread, one plugin at a time. Which threads call the
 * methods of the plugin's classes is up to CELLHOST_PLUGIN_THREAD_SAFE
 * (below).
 */
#ifndef CELLHOST_PLUGIN_H
#define CELLHOST_PLUGIN_H

#include "host.h"

#ifdef __cplusplus
extern "C" {
#endif

/** Marks the entry function as exported from the shared library. */
#define CELLHOST_EXPORT __attribute__((visibility("default")))

/** The name of the entry symbol, for dlsym. */
#define CELLHOST_PLUGIN_ENTRY_SYMBOL "cellhost_plugin_entry"

/** Bits of `cellhost_plugin_descriptor.flags`. */
enum {
    /**
     * The plugin registers classes or message classes from `init` with
     * `register_class` / `register_message_class`. The scanner then has to
     * run `init` to describe it, and `cellhost list-plugins` says so. Without
     * this flag those calls return CELLHOST_E_REJECTED.
     */
    CELLHOST_PLUGIN_REGISTERS_AT_INIT = 1 << 0,
    /**
     * The methods of the plugin's classes may be called from several
     * threads at once.
     *
     * What the plugin promises when it sets this flag: any method of any of
     * its classes may run on any thread, at the same time as other methods
     * of its classes (the same method too, on the same instance too), each
     * call on a different message. Whatever the plugin keeps between calls
     * (instance variables, statics, caches) it guards itself.
     *
     * What the host promises, with or without the flag: the `message`,
     * `context` and `builder` of one call are used by one thread only, the
     * thread of that call, and only during it; calls that nest (`send`,
     * `send_super`) run on the thread of the call they nest in.
     *
     * What the host promises without the flag: every call to a method of
     * the plugin's classes during a run (a `cellhost render`, or the life
     * of an embedding `RenderSession`) is made from one thread, the same
     * thread for the whole run, one call at a time (nested calls aside).
     * A class counts as thread-safe only when its plugin and the plugins
     * of all its superclasses set the flag; the host's own classes
     * (MessageCell, UnknownMessageCell) are thread-safe.
     *
     * From a method called concurrently (on a thread other than the
     * run's one thread), `send`, `send_super` and `instance_of` refuse to
     * reach a class that is not thread-safe (host.h: CELLHOST_E_WRONG_THREAD,
     * NULL). The threading of each host function is given in host.h.
     */
    CELLHOST_PLUGIN_THREAD_SAFE = 1 << 1,
};

/**
 * The description of a plugin.
 *
 * Ownership: plugin-owned; the struct and everything it points to must stay
 * valid and unchanged until `deinit` returns (static const data is usual).
 * The host copies the strings it shows.
 */
typedef struct cellhost_plugin_descriptor {
    /** CELLHOST_ABI_VERSION_INIT: the headers the plugin was compiled against. Always first. */
    cellhost_version abi;
    /**
     * sizeof(cellhost_plugin_descriptor) as the plugin compiled it. Fields
     * past it read as zero / NULL, so a plugin built against an older,
     * smaller descriptor of the same major version still loads.
     */
    uint32_t struct_size;
    /** A set of CELLHOST_PLUGIN_* bits. */
    uint32_t flags;
    /** Unique id, reverse-DNS ("org.example.poll") or a short name. Non-empty; [A-Za-z0-9._-]. */
    const char *id;
    /** The plugin's own version, e.g. "1.2.0". Non-empty. */
    const char *version;
    /** One line saying what it renders. May be NULL. */
    const char *description;
    /** May be NULL. */
    const char *author;
    /** SPDX identifier, e.g. "MIT". May be NULL. */
    const char *license;

    /**
     * Optional (NULL): called once after the descriptor was accepted and
     * before any class is used. `host` stays valid until `deinit` returns.
     * Return 0 on success. On failure return non-zero and point `*reason` at
     * a message (valid until `init` returns; the host copies it); the plugin
     * is then reported as not loaded and `deinit` is not called.
     */
    int32_t (*init)(const cellhost_host *host, const char **reason);
    /**
     * Optional (NULL): called exactly once for every `init` that succeeded
     * (for a plugin without `init`: once for every time it was opened to be
     * used): when the process ends normally (after the last
     * `conversationDidEnd:`), or earlier when the host stops using the
     * plugin. Not called in a process that crashed or was killed (a plugin
     * that crashed or hung in isolation). Release what `init` acquired.
     */
    void (*deinit)(const cellhost_host *host);

    /** The cell classes; `class_count` entries, registered in this order. */
    const cellhost_class *classes;
    uint32_t class_count;
    /** Message classes the plugin adds to the tree; `message_class_count` entries. */
    uint32_t message_class_count;
    const cellhost_message_class *message_classes;

    /**
     * Optional (NULL): the plugin extension named `id` (such as
     * CELLHOST_EXT_SAMPLES, samples.h), or NULL. May be called before `init`;
     * must not depend on it.
     */
    const void *(*get_extension)(const char *id);
} cellhost_plugin_descriptor;

/** The type of the entry symbol. Returns NULL only when the plugin cannot work at all. */
typedef const cellhost_plugin_descriptor *(*cellhost_plugin_entry_fn)(void);

/**
 * The entry symbol every plugin defines (declared here so the compiler checks
 * the definition). Called on the loading thread, at least once per process
 * that opens the plugin; it must return the same descriptor every time, valid
 * until `deinit` returns, and do nothing else a scanner should not run.
 */
CELLHOST_EXPORT const cellhost_plugin_descriptor *cellhost_plugin_entry(void);

#ifdef __cplusplus
}
#endif

#endif /* CELLHOST_PLUGIN_H */
