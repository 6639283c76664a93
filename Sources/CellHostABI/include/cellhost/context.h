/*
 * cellhost/context.h — what a cell knows about the place it renders into.
 */
#ifndef CELLHOST_CONTEXT_H
#define CELLHOST_CONTEXT_H

#include "types.h"

#ifdef __cplusplus
extern "C" {
#endif

struct cellhost_host;

/** Bits of `cellhost_context.flags`. */
enum {
    /** The output will carry colours; a cell may rely on styles to separate things. */
    CELLHOST_CONTEXT_COLOR = 1 << 0,
    /** The message is outgoing (sent by the viewer, see `--me`). */
    CELLHOST_CONTEXT_OUTGOING = 1 << 1,
    /** The output is JSON for programs; cells render as usual. */
    CELLHOST_CONTEXT_JSON = 1 << 2,
};

/**
 * The rendering context (type encoding `r^{cellhost_context}`), passed to
 * every well-known selector.
 *
 * Owned by the host and read-only for the plugin. Valid until the call that
 * received it returns; copy what you need to keep. Fields are only ever
 * appended in later minor versions; read a field only when `struct_size`
 * covers it.
 */
typedef struct cellhost_context {
    /** sizeof(cellhost_context) as the host compiled it. */
    uint32_t struct_size;
    /**
     * Columns available to the cell's content (chrome already subtracted),
     * >= 1. 0 only in `conversationWillBegin:` / `conversationDidEnd:`, which
     * render nothing.
     */
    uint32_t width;
    /** A set of CELLHOST_CONTEXT_* bits. */
    uint32_t flags;
    /** Reserved, zero. */
    uint32_t reserved;
    /**
     * The message class the message is being rendered as: its own type, or a
     * parent class when the host fell back (a `voice` shown by a `file` cell
     * sees "file"). "" in the conversation selectors. NUL-terminated,
     * host-owned.
     */
    const char *message_class;
    /** The host table of the plugin that owns the called method. */
    const struct cellhost_host *host;
    /**
     * The absolute directory that relative paths in the message (media files)
     * are relative to: the directory of the input file, or the current
     * directory for standard input. Never NULL, no trailing '/' except for
     * "/" itself. NUL-terminated, host-owned.
     */
    const char *base_directory;
} cellhost_context;

#ifdef __cplusplus
}
#endif

#endif /* CELLHOST_CONTEXT_H */
