/*
 * cellhost/samples.h — sample messages: the "cellhost.samples" extension of a
 * plugin.
 *
 * A plugin extension, asked by the host through the descriptor's
 * `get_extension` (plugin.h). `cellhost check-plugin` renders every sample
 * with the plugin's classes, besides its own corpus, so an author can make
 * the validator exercise the payloads their cells really read:
 *
 *     static const char *const samples[] = {
 *         "{\"type\":\"poll\",\"poll\":{\"question\":\"Lunch?\",\"options\":[{\"text\":\"Yes\"}]}}",
 *     };
 *     static const cellhost_samples poll_samples = { sizeof poll_samples, 1, samples };
 *     static const void *get_extension(const char *id) {
 *         return strcmp(id, CELLHOST_EXT_SAMPLES) == 0 ? &poll_samples : NULL;
 *     }
 */
#ifndef CELLHOST_SAMPLES_H
#define CELLHOST_SAMPLES_H

#include "types.h"

#ifdef __cplusplus
extern "C" {
#endif

/** The id of the sample-messages extension of a plugin. */
#define CELLHOST_EXT_SAMPLES "cellhost.samples"

/**
 * Ownership: plugin-owned, valid and unchanged until `deinit` returns.
 * Threading: read on the loading thread.
 */
typedef struct cellhost_samples {
    /** sizeof(cellhost_samples) as the plugin compiled it. */
    uint32_t struct_size;
    /** Number of entries in `messages`; the host reads at most 256. */
    uint32_t count;
    /**
     * Each entry one message: a JSON object in CellHost's input schema
     * (`type`, `text`, and the payload the cell reads), NUL-terminated UTF-8,
     * at most 64 KiB.
     */
    const char *const *messages;
} cellhost_samples;

#ifdef __cplusplus
}
#endif

#endif /* CELLHOST_SAMPLES_H */
