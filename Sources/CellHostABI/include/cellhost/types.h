/*
 * cellhost/types.h — the opaque handles shared by every header.
 *
 * Handles are owned by the host. A plugin never frees, copies or dereferences
 * them; it passes them back to host functions. Unless a header says otherwise
 * a handle is valid only for the duration of the call that handed it to the
 * plugin.
 *
 * No header of the contract uses a C enum type in a struct or a signature:
 * the size of an enum is the compiler's choice. Every enumerated value has a
 * fixed-width integer typedef (`cellhost_lookup` is an int32_t) and its
 * constants are plain integer constants.
 */
#ifndef CELLHOST_TYPES_H
#define CELLHOST_TYPES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/**
 * An instance of a cell class (type encoding `@`). The host creates one
 * instance per class per conversation and passes it as `self` to every
 * method. Its storage holds one zeroed block per class of its chain, each
 * `cellhost_class.instance_size` bytes; a class reaches its own block with
 * `cellhost_host.object_ivars(self, &that_class)`. Valid from
 * `conversationWillBegin:` until `conversationDidEnd:` returns.
 */
typedef struct cellhost_object cellhost_object;

/**
 * A selector (type encoding `:`): a NUL-terminated selector name such as
 * "renderMessage:context:into:". Compare it by content (strcmp), never write
 * through it.
 */
typedef const char *cellhost_sel;

/**
 * One parsed message (type encoding `^{cellhost_message}`). Read it with the
 * message extension (message.h). Valid until the call that received it
 * returns; strings read from it live exactly as long.
 */
typedef struct cellhost_message cellhost_message;

/**
 * The content being built for one message (type encoding
 * `^{cellhost_builder}`). Append to it with the builder extension
 * (builder.h). Valid until the call that received it returns.
 */
typedef struct cellhost_builder cellhost_builder;

/**
 * A method implementation. Every IMP receives `self` and `_cmd` first, then
 * the arguments its type encoding lists, exactly as an Objective-C IMP does:
 *
 *     RET imp(cellhost_object *self, cellhost_sel _cmd, ARGS...);
 *
 * The host casts this pointer to the signature described by the method's
 * type encoding and calls it through libffi.
 */
typedef void (*cellhost_imp)(void);

#ifdef __cplusplus
}
#endif

#endif /* CELLHOST_TYPES_H */
