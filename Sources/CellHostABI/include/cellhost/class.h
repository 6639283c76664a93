/*
 * cellhost/class.h — cell classes and message classes a plugin contributes.
 *
 * A cell class is what `registerClass:forMessageClass:` registers: a name, a
 * superclass, the message classes it renders, a rank and a method list. The
 * host resolves a selector by walking the class, then its superclass, up to
 * the host's `MessageCell`, so a subclass implements only what it changes.
 */
#ifndef CELLHOST_CLASS_H
#define CELLHOST_CLASS_H

#include "types.h"

#ifdef __cplusplus
extern "C" {
#endif

/** One method: selector, type encoding and implementation. */
typedef struct cellhost_method {
    /** Selector name, e.g. CELLHOST_SEL_RENDER. NUL-terminated, non-NULL. */
    const char *selector;
    /**
     * Objective-C style type encoding of the IMP: return type, then `@` (self),
     * `:` (_cmd), then each argument. See selectors.h for the letters and the
     * encodings required of well-known selectors. NUL-terminated, non-NULL.
     */
    const char *types;
    /** The implementation, cast to cellhost_imp. Non-NULL. */
    cellhost_imp imp;
} cellhost_method;

/** Bits of `cellhost_class.flags`. None are defined in 1.0; pass 0. */
enum cellhost_class_flags {
    CELLHOST_CLASS_NONE = 0,
};

/**
 * A cell class.
 *
 * Ownership: the struct, its strings and arrays are owned by the plugin and
 * must stay valid and unchanged from the moment the host reads them until the
 * plugin's `deinit` returns (static const data is the usual choice). The host
 * reads them on the loading thread only.
 */
typedef struct cellhost_class {
    /**
     * Class name, unique across all plugins, e.g. "PollMessageCell".
     * Non-empty, NUL-terminated; printable ASCII without spaces.
     */
    const char *name;
    /**
     * Name of the superclass: a host class ("MessageCell",
     * "UnknownMessageCell") or a class of any plugin. NULL means "MessageCell".
     */
    const char *superclass;
    /**
     * The message classes this class registers for, as a NULL-terminated
     * array of names ("text", "poll", …). NULL or empty registers for none:
     * such a class can still be a superclass or an override target.
     */
    const char *const *message_classes;
    /**
     * Rank among the candidates of each of its message classes: the highest
     * wins; on equal rank the later registration wins. Shipped plugins use 0.
     */
    int32_t rank;
    /** A set of `cellhost_class_flags`. */
    uint32_t flags;
    /** The methods; `method_count` entries. May be NULL when the count is 0. */
    const cellhost_method *methods;
    /** Number of entries in `methods`. */
    uint32_t method_count;
    /**
     * Bytes of zeroed per-instance storage the host allocates for each
     * instance, reachable with `cellhost_host.object_ivars`. 0 for none.
     * At most 1 MiB.
     */
    uint32_t instance_size;
} cellhost_class;

/**
 * A message class declared by a plugin, to extend the tree of message
 * classes (the host declares `text`, `file`, `image`, `voice`, `video`,
 * `sticker`, `poll`). A message whose class has no renderer falls back to the
 * renderers of its parent, then of the parent's parent, and finally to
 * `UnknownMessageCell`.
 *
 * Ownership as for cellhost_class.
 */
typedef struct cellhost_message_class {
    /** The new class, e.g. "gif". Non-empty, NUL-terminated. */
    const char *name;
    /** Its parent, e.g. "image"; NULL for a root class. */
    const char *parent;
} cellhost_message_class;

#ifdef __cplusplus
}
#endif

#endif /* CELLHOST_CLASS_H */
