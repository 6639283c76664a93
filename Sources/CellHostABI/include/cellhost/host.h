/*
 * cellhost/host.h — the table of host functions given to a plugin.
 *
 * The host passes a `const cellhost_host *` to the plugin's `init` and in
 * every `cellhost_context`. Each plugin receives its own table (so the host
 * knows who logs and who registers); keep the pointer, it stays valid until
 * the plugin's `deinit` returns.
 *
 * Threading: in ABI 1.x the host calls into plugins from one thread at a time.
 * Host functions may only be called from inside a call the host made into the
 * plugin (`init`, or a method), on that thread.
 */
#ifndef CELLHOST_HOST_H
#define CELLHOST_HOST_H

#include "builder.h"
#include "class.h"
#include "message.h"
#include "version.h"

#ifdef __cplusplus
extern "C" {
#endif

/** Severity of a log line. */
typedef enum cellhost_log_level {
    CELLHOST_LOG_DEBUG = 0,   /**< shown with `--verbose` */
    CELLHOST_LOG_INFO = 1,    /**< shown with `--verbose` */
    CELLHOST_LOG_WARNING = 2, /**< shown on stderr, prefixed with the plugin id */
    CELLHOST_LOG_ERROR = 3,   /**< shown on stderr, prefixed with the plugin id */
} cellhost_log_level;

/** What `send`, `send_super`, `register_class` and `register_message_class` return. */
typedef enum cellhost_status_code {
    CELLHOST_OK = 0,
    /** The receiver's class chain has no method for the selector. */
    CELLHOST_E_UNRECOGNIZED_SELECTOR = 1,
    /** `types` was given and differs from the method's encoding. */
    CELLHOST_E_SIGNATURE_MISMATCH = 2,
    /** A class name does not name a registered class. */
    CELLHOST_E_NO_SUCH_CLASS = 3,
    /** A NULL or otherwise unusable argument. */
    CELLHOST_E_INVALID_ARGUMENT = 4,
    /** The class or message class was refused; the reason was logged. */
    CELLHOST_E_REJECTED = 5,
    /** Registration is only possible during `init`. */
    CELLHOST_E_TOO_LATE = 6,
} cellhost_status_code;

typedef struct cellhost_host cellhost_host;

struct cellhost_host {
    /** The contract version the host implements. */
    cellhost_version abi;
    /** Host-private; do not touch. */
    void *host_data;

    /* ---- logging ------------------------------------------------------- */

    /**
     * Log one line. `message` is UTF-8, copied (and sanitized) by the host
     * before it returns. A plugin never writes to stdout or stderr itself.
     */
    void (*log)(const cellhost_host *host, cellhost_log_level level, const char *message);

    /* ---- reading messages (message.h) ---------------------------------- */

    /**
     * Fill `out` with the common fields of `msg`. The caller sets
     * `out->struct_size = sizeof *out` first; the host fills what fits.
     */
    void (*message_info)(const cellhost_message *msg, cellhost_message_info *out);

    /** String at `path`; numbers are WRONG_TYPE, not converted. */
    cellhost_lookup (*message_string)(const cellhost_message *msg, const char *path, cellhost_string *out);
    /** Number at `path` (any JSON number). */
    cellhost_lookup (*message_number)(const cellhost_message *msg, const char *path, double *out);
    /** Integer at `path`: a JSON number with no fraction that fits int64_t; else WRONG_TYPE. */
    cellhost_lookup (*message_integer)(const cellhost_message *msg, const char *path, int64_t *out);
    /** Boolean at `path`. */
    cellhost_lookup (*message_bool)(const cellhost_message *msg, const char *path, bool *out);
    /** Element count of the array (or member count of the object) at `path`. */
    cellhost_lookup (*message_count)(const cellhost_message *msg, const char *path, size_t *out);

    /* ---- building content (builder.h) ---------------------------------- */

    /**
     * Append `length` bytes of UTF-8 text in `style`. The text may contain
     * '\n' (a line break); it is sanitized and wrapped by the host. The bytes
     * are copied before the call returns.
     */
    void (*append)(cellhost_builder *out, const char *utf8, size_t length, cellhost_style_bits style);
    /** End the current line; an empty line when called twice. */
    void (*line_break)(cellhost_builder *out);
    /**
     * Append one preformatted row of `count` cells, never wrapped (cut at the
     * content width). The cells are copied before the call returns.
     */
    void (*append_row)(cellhost_builder *out, const cellhost_block_cell *cells, size_t count);

    /* ---- objects and dynamic dispatch ----------------------------------- */

    /** The zeroed per-instance storage of `self` (NULL when instance_size is 0). */
    void *(*object_ivars)(cellhost_object *self);
    /** The class name of `self`, host-owned, valid until the plugin's deinit. */
    const char *(*object_class_name)(cellhost_object *self);
    /**
     * The current conversation's instance of the class named `class_name`
     * (created on first use), or NULL when no such class is registered. Use
     * it to send to another plugin's class.
     */
    cellhost_object *(*instance_of)(const cellhost_host *host, const char *class_name);
    /** True when the class chain of `receiver` implements `selector`. */
    bool (*responds_to)(cellhost_object *receiver, const char *selector);
    /**
     * Call `selector` on `receiver`, looked up along its class chain, through
     * libffi. `args` points to an array with one pointer per argument after
     * `self` and `_cmd` (as libffi's avalue); `ret` points to storage of the
     * return type's size, or is NULL to ignore it. When `types` is non-NULL
     * the call is refused with CELLHOST_E_SIGNATURE_MISMATCH unless it equals
     * the method's encoding; pass it whenever you can.
     */
    int32_t (*send)(cellhost_object *receiver, const char *selector, const char *types,
                    void *ret, void *const *args);
    /**
     * Like `send`, but starts the look-up at the superclass of the class
     * named `current_class` (the class whose method is calling), exactly as
     * Objective-C's `[super …]`.
     */
    int32_t (*send_super)(const char *current_class, cellhost_object *receiver, const char *selector,
                          const char *types, void *ret, void *const *args);

    /* ---- run-time registration (only during init) ---------------------- */

    /**
     * Register a class as if it were listed in the descriptor. The class and
     * everything it points to stay plugin-owned and must outlive `deinit`.
     * Returns CELLHOST_OK, or an error whose reason was logged.
     */
    int32_t (*register_class)(const cellhost_host *host, const cellhost_class *cls);
    /** Declare a message class, as the descriptor's `message_classes` do. */
    int32_t (*register_message_class)(const cellhost_host *host, const cellhost_message_class *mc);
};

#ifdef __cplusplus
}
#endif

#endif /* CELLHOST_HOST_H */
