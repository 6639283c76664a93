/*
 * cellhost/log.h — logging: the "cellhost.log" extension.
 *
 *     const cellhost_log_api *log = host->get_extension(host, CELLHOST_EXT_LOG);
 *     log->log(host, CELLHOST_LOG_WARNING, "no cache directory; previews are slower");
 *
 * A plugin never writes to stdout or stderr itself: the host runs plugins with
 * those pointed elsewhere and reports a plugin that writes to them.
 */
#ifndef CELLHOST_LOG_H
#define CELLHOST_LOG_H

#include "types.h"

#ifdef __cplusplus
extern "C" {
#endif

struct cellhost_host;

/** The id of the logging extension of the host. */
#define CELLHOST_EXT_LOG "cellhost.log"

/** Severity of a log line: a CELLHOST_LOG_* value. */
typedef int32_t cellhost_log_level;
enum {
    CELLHOST_LOG_DEBUG = 0,   /**< shown with `--verbose` */
    CELLHOST_LOG_INFO = 1,    /**< shown with `--verbose` */
    CELLHOST_LOG_WARNING = 2, /**< shown on stderr, prefixed with the plugin id */
    CELLHOST_LOG_ERROR = 3,   /**< shown on stderr, prefixed with the plugin id; kept
                                   as the reason of a render that returns CELLHOST_ERROR */
};

/** The logging functions. Host-owned, valid for the life of the process. */
typedef struct cellhost_log_api {
    /** sizeof(cellhost_log_api) as the host compiled it. */
    uint32_t struct_size;
    /**
     * [render-thread] Log one line as the plugin that owns `host`. `message`
     * is UTF-8, copied (and sanitized) by the host before it returns. Levels
     * outside DEBUG…ERROR are treated as ERROR.
     */
    void (*log)(const struct cellhost_host *host, cellhost_log_level level, const char *message);
} cellhost_log_api;

#ifdef __cplusplus
}
#endif

#endif /* CELLHOST_LOG_H */
