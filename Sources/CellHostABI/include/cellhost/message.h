/*
 * cellhost/message.h — reading a message.
 *
 * Messages are JSON objects (see docs/input.md). The host parses each once and
 * hands cells a `cellhost_message` handle, read through the accessors of the
 * host table (host.h), which are declared here as function pointer types.
 *
 * Strings returned by accessors are valid UTF-8 (invalid sequences replaced
 * by U+FFFD), NUL-terminated, with their byte length given separately; they
 * are host-owned and valid until the call that received the message returns.
 * They are already sanitized: terminal escape sequences are removed whole and
 * other control and bidi characters shown visibly ("<U+202E>"), except '\n',
 * which is kept. So a plugin that cuts text into spans (markup, links) can
 * never cut an escape sequence in two. The builder sanitizes again anyway.
 */
#ifndef CELLHOST_MESSAGE_H
#define CELLHOST_MESSAGE_H

#include "types.h"

#ifdef __cplusplus
extern "C" {
#endif

/** The answer of a typed look-up. */
typedef enum cellhost_lookup {
    /** Found with the asked type; the out-parameter is set. */
    CELLHOST_FOUND = 0,
    /** No value at that path (or it is JSON null). The out-parameter is untouched. */
    CELLHOST_MISSING = 1,
    /** A value is there but of another type. The out-parameter is untouched. */
    CELLHOST_WRONG_TYPE = 2,
} cellhost_lookup;

/** Which way a message goes, from the viewer's side. */
typedef enum cellhost_direction {
    CELLHOST_INCOMING = 0,
    CELLHOST_OUTGOING = 1,
} cellhost_direction;

/** Delivery status of a message (shown for outgoing messages). */
typedef enum cellhost_status {
    CELLHOST_STATUS_NONE = 0,
    CELLHOST_STATUS_SENDING = 1,
    CELLHOST_STATUS_SENT = 2,
    CELLHOST_STATUS_DELIVERED = 3,
    CELLHOST_STATUS_READ = 4,
    CELLHOST_STATUS_FAILED = 5,
} cellhost_status;

/** A host-owned UTF-8 string: NUL-terminated, `length` bytes before the NUL. */
typedef struct cellhost_string {
    const char *data;  /**< Never NULL; "" when absent. */
    size_t length;     /**< Bytes, not counting the NUL. */
} cellhost_string;

/**
 * The common fields of a message, filled by `cellhost_host.message_info`.
 * Absent strings are "" with length 0. Valid as the message handle is.
 */
typedef struct cellhost_message_info {
    /** sizeof(cellhost_message_info) as the plugin compiled it; set by the caller. */
    uint32_t struct_size;
    cellhost_direction direction;
    cellhost_status status;
    /** True when `time` holds a time. */
    bool has_time;
    /** Seconds since the Unix epoch (UTC). */
    double time;
    cellhost_string type;        /**< Message class as given ("" when missing). */
    cellhost_string id;
    cellhost_string sender_id;
    cellhost_string sender_name;
    cellhost_string text;        /**< The body and every type's fallback text. */
    bool edited;
} cellhost_message_info;

/*
 * Key paths: dot-separated keys into the message object; a key made of digits
 * indexes an array. Examples: "file.size", "voice.waveform.3",
 * "poll.options.0.text". Paths are NUL-terminated ASCII, at most 255 bytes.
 */

#ifdef __cplusplus
}
#endif

#endif /* CELLHOST_MESSAGE_H */
