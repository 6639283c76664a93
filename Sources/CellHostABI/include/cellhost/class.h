/*
 * cellhost/class.h — cell classes and message classes a plugin contributes.
 *
 * A cell class is what `registerClass:forMessageClass:` registers: a name, a
 * superclass, the message classes it renders, a rank, a method list and the
 * size of its instance variables. The host resolves a selector by walking the
 * class, then its superclass, up to the host's `MessageCell`, so a subclass
 * implements only what it changes.
 *
 * Every struct here starts with `struct_size` (sizeof the struct as the
 * plugin compiled it). Arrays of them (a descriptor's `classes`, a class's
 * `methods`) are read with the stride of their first element's
 * `struct_size`, and every element must carry the same value.
 *
 * Ownership: plugin-owned. The structs, their strings and arrays must stay
 * valid and unchanged from the moment the host reads them until the plugin's
 * `deinit` returns (static const data is the usual choice).
 * Threading: the host reads them on the loading thread only.
 */
#ifndef CELLHOST_CLASS_H
#define CELLHOST_CLASS_H

#include "types.h"

#ifdef __cplusplus
extern "C" {
#endif

/** One method: selector, type encoding and implementation. */
typedef struct cellhost_method {
    /** sizeof(cellhost_method). Use CELLHOST_METHOD to fill it. */
    uint32_t struct_size;
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

/** A method list entry: `CELLHOST_METHOD(CELLHOST_SEL_RENDER, CELLHOST_TYPES_RENDER, render)`. */
#define CELLHOST_METHOD(selector, types, imp) \
    { sizeof(cellhost_method), (selector), (types), (cellhost_imp)(imp) }

/**
 * A cell class.
 *
 * Instance variables: each class of an object's chain owns a separate zeroed
 * block of its own `instance_size` bytes (16-byte aligned), laid out by the
 * host along the superclass chain, across plugins. A class's methods reach
 * its block with `cellhost_host.object_ivars(self, cls)`, where `cls` is the
 * address of this struct, so a subclass in another plugin never moves or
 * overwrites its superclass's variables.
 */
typedef struct cellhost_class {
    /** sizeof(cellhost_class) as the plugin compiled it. */
    uint32_t struct_size;
    /** Reserved for flags; 0 in ABI 2.0 (the host refuses other values). */
    uint32_t flags;
    /**
     * Class name, unique across all plugins, e.g. "PollMessageCell".
     * Non-empty, at most 255 bytes, printable ASCII without spaces.
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
    /** Number of entries in `methods`. */
    uint32_t method_count;
    /** The methods; `method_count` entries. May be NULL when the count is 0. */
    const cellhost_method *methods;
    /**
     * Bytes of this class's own zeroed per-instance storage (not counting its
     * superclasses'), reachable with `cellhost_host.object_ivars`. 0 for none.
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
 */
typedef struct cellhost_message_class {
    /** sizeof(cellhost_message_class) as the plugin compiled it. */
    uint32_t struct_size;
    /** The new class, e.g. "gif". Non-empty, NUL-terminated. */
    const char *name;
    /** Its parent, e.g. "image"; NULL for a root class. */
    const char *parent;
} cellhost_message_class;

#ifdef __cplusplus
}
#endif

#endif /* CELLHOST_CLASS_H */
