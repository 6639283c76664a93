/*
 * cellhost/types.h — the opaque handles and small enums shared by every header.
 *
 * Handles are owned by the host. A plugin never frees, copies or dereferences
 * them; it passes them back to host functions. Unless a header says otherwise a
 * handle is valid only for the duration of the call that handed it to the
 * plugin.
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
 * instance per class per conversation and passes it as `self` to every method.
 * Its per-instance storage (`cellhost_class.instance_size` zeroed bytes) is
 * reached with `cellhost_host.object_ivars`. Valid from
 * `conversationWillBegin:` until `conversationDidEnd:` returns.
 */
typedef struct cellhost_object cellhost_object;

/**
 * A selector (type encoding `:`): a NUL-terminated selector name such as
 * "renderMessage:context:into:". The host interns selectors, so the pointer a
 * method receives as `_cmd` may be compared by value with strcmp(); never
 * write through it.
 */
typedef const char *cellhost_sel;

/**
 * One parsed message (type encoding `^{cellhost_message}`). Read it with the
 * accessors of the host table (message.h). Valid until the call that received
 * it returns; strings read from it live exactly as long.
 */
typedef struct cellhost_message cellhost_message;

/**
 * The content being built for one message (type encoding
 * `^{cellhost_builder}`). Append to it with the builder functions of the host
 * table (builder.h). Valid until the call that received it returns.
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
