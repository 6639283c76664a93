/*
 * cellhost/message.h — reading a message: the "cellhost.message" extension.
 *
 *     const cellhost_message_api *m = host->get_extension(host, CELLHOST_EXT_MESSAGE);
 *
 * Messages are JSON objects in CellHost's input schema (see docs/cli.md). The
 * host parses each once and hands cells a `cellhost_message` handle, read
 * through the functions of this extension.
 *
 * Strings returned are valid UTF-8 (invalid sequences replaced by U+FFFD),
 * NUL-terminated, with their byte length given separately; they are
 * host-owned and valid until the call that received the message returns.
 * They are already sanitized: terminal escape sequences are removed whole and
 * other control and bidi characters shown visibly ("<U+202E>"), except '\n',
 * which is kept. So a plugin that cuts text into spans (markup, links) can
 * never cut an escape sequence in two. The builder sanitizes again anyway.
 *
 * Key paths: keys into the message object separated by '.'; a key made of
 * digits indexes an array (and names a key in an object). A backslash makes
 * the next character part of the key, so "content.m\\.relates_to" (in C
 * source) names the key "m.relates_to" inside "content", and "a\\\\b" the key
 * "a\b". Examples: "file.size", "voice.waveform.3", "poll.options.0.text".
 * Paths are NUL-terminated UTF-8, at most 255 bytes; a longer or NULL path
 * reads as CELLHOST_MISSING.
 *
 * Threading: [render-thread] every function: only inside a call the host
 * made into the plugin, on that thread.
 */
#ifndef CELLHOST_MESSAGE_H
#define CELLHOST_MESSAGE_H

#include "types.h"

#ifdef __cplusplus
extern "C" {
#endif

/** The id of the message-reading extension of the host. */
#define CELLHOST_EXT_MESSAGE "cellhost.message"

/** The answer of a typed look-up: one of CELLHOST_FOUND, _MISSING, _WRONG_TYPE. */
typedef int32_t cellhost_lookup;
enum {
    /** Found with the asked type; the out-parameter is set. */
    CELLHOST_FOUND = 0,
    /** No value at that path (or it is JSON null). The out-parameter is untouched. */
    CELLHOST_MISSING = 1,
    /** A value is there but of another type. The out-parameter is untouched. */
    CELLHOST_WRONG_TYPE = 2,
};

/** Which way a message goes, from the viewer's side: CELLHOST_INCOMING or _OUTGOING. */
typedef uint32_t cellhost_direction;
enum {
    CELLHOST_INCOMING = 0,
    CELLHOST_OUTGOING = 1,
};

/** Delivery status of a message (shown for outgoing messages): a CELLHOST_STATUS_* value. */
typedef uint32_t cellhost_status;
enum {
    CELLHOST_STATUS_NONE = 0,
    CELLHOST_STATUS_SENDING = 1,
    CELLHOST_STATUS_SENT = 2,
    CELLHOST_STATUS_DELIVERED = 3,
    CELLHOST_STATUS_READ = 4,
    CELLHOST_STATUS_FAILED = 5,
};

/** A host-owned UTF-8 string: NUL-terminated, `length` bytes before the NUL. */
typedef struct cellhost_string {
    const char *data;  /**< Never NULL; "" when absent. */
    size_t length;     /**< Bytes, not counting the NUL. */
} cellhost_string;

/**
 * The common fields of a message, filled by `cellhost_message_api.info`.
 * Absent strings are "" with length 0. Valid as the message handle is.
 */
typedef struct cellhost_message_info {
    /** sizeof(cellhost_message_info) as the plugin compiled it; set by the caller. */
    uint32_t struct_size;
    cellhost_direction direction;
    cellhost_status status;
    /** True when `time` holds a time. */
    bool has_time;
    /** True when the message was edited. */
    bool edited;
    /** Seconds since the Unix epoch (UTC). */
    double time;
    cellhost_string type;        /**< Message class as given ("" when missing). */
    cellhost_string id;
    cellhost_string sender_id;
    cellhost_string sender_name;
    cellhost_string text;        /**< The body and every type's fallback text. */
} cellhost_message_info;

/**
 * The message-reading functions. Host-owned, valid for the life of the
 * process; every function takes the message handle it reads.
 */
typedef struct cellhost_message_api {
    /** sizeof(cellhost_message_api) as the host compiled it. */
    uint32_t struct_size;

    /**
     * Fill `out` with the common fields of `msg`. The caller sets
     * `out->struct_size = sizeof *out` first; the host writes only the fields
     * that fit in it (an older, smaller struct is valid).
     */
    void (*info)(const cellhost_message *msg, cellhost_message_info *out);
    /** String at `path`; numbers are WRONG_TYPE, not converted. */
    cellhost_lookup (*string)(const cellhost_message *msg, const char *path, cellhost_string *out);
    /** Number at `path` (any JSON number, as a double). */
    cellhost_lookup (*number)(const cellhost_message *msg, const char *path, double *out);
    /** Integer at `path`: a JSON number with no fraction that fits int64_t; else WRONG_TYPE. */
    cellhost_lookup (*integer)(const cellhost_message *msg, const char *path, int64_t *out);
    /** Boolean at `path`. */
    cellhost_lookup (*boolean)(const cellhost_message *msg, const char *path, bool *out);
    /** Element count of the array (or member count of the object) at `path`. */
    cellhost_lookup (*count)(const cellhost_message *msg, const char *path, size_t *out);
    /**
     * Every element of the array of numbers at `path`, in one call (a voice
     * message's waveform): writes the first min(count, capacity) elements to
     * `out` (which may be NULL when `capacity` is 0) and the array's length to
     * `*count`. FOUND for an array whose elements are all numbers (an empty
     * array too); WRONG_TYPE, with nothing written, when the value is not an
     * array or an element is not a number.
     */
    cellhost_lookup (*numbers)(const cellhost_message *msg, const char *path,
                               double *out, size_t capacity, size_t *count);
} cellhost_message_api;

#ifdef __cplusplus
}
#endif

#endif /* CELLHOST_MESSAGE_H */
