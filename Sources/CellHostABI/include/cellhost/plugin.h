/*
 * cellhost/plugin.h — the plugin descriptor and the entry symbol.
 *
 * A plugin is a shared library exporting one symbol:
 *
 *     CELLHOST_EXPORT const cellhost_plugin_descriptor *cellhost_plugin_entry(void);
 *
 * The host opens the library with dlopen(RTLD_NOW | RTLD_LOCAL), calls the
 * entry once, checks the ABI version, reads the descriptor, calls `init`, and
 * registers the classes. Loading happens on one thread.
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
    /** Optional (NULL): called once before the library is closed. */
    void (*deinit)(void);

    /** The cell classes; `class_count` entries, registered in this order. */
    const cellhost_class *classes;
    uint32_t class_count;
    /** Message classes the plugin adds to the tree; `message_class_count` entries. */
    const cellhost_message_class *message_classes;
    uint32_t message_class_count;
} cellhost_plugin_descriptor;

/** The type of the entry symbol. Returns NULL only when the plugin cannot work at all. */
typedef const cellhost_plugin_descriptor *(*cellhost_plugin_entry_fn)(void);

/**
 * The entry symbol every plugin defines (declared here so the compiler checks
 * the definition). Called once, on the loading thread; the descriptor it
 * returns must stay valid until `deinit` returns.
 */
CELLHOST_EXPORT const cellhost_plugin_descriptor *cellhost_plugin_entry(void);

#ifdef __cplusplus
}
#endif

#endif /* CELLHOST_PLUGIN_H */
