/*
 * cellhost/output.h — what the output can show: the "cellhost.output"
 * extension.
 *
 *     const cellhost_output_api *o = host->get_extension(host, CELLHOST_EXT_OUTPUT);
 *     cellhost_output_info info = { .struct_size = sizeof info };
 *     if (o != NULL) o->info(host, &info);
 *
 * A cell that draws pictures (an image preview, a chart) sizes and colours
 * them for the output: with `--format plain` (or no colours) only the
 * characters of a row are shown, so a preview must carry its picture in the
 * characters; `images` and `image_rows` are the user's choices
 * (`--images`, `--image-rows`). The settings hold for the whole run.
 *
 * Threading: [render-thread].
 */
#ifndef CELLHOST_OUTPUT_H
#define CELLHOST_OUTPUT_H

#include "types.h"

#ifdef __cplusplus
extern "C" {
#endif

struct cellhost_host;

/** The id of the output-settings extension of the host. */
#define CELLHOST_EXT_OUTPUT "cellhost.output"

/** The output format: a CELLHOST_FORMAT_* value. Formats may be added: treat
 *  a value you do not know like CELLHOST_FORMAT_PLAIN. */
typedef uint32_t cellhost_output_format;
enum {
    CELLHOST_FORMAT_ANSI = 0,  /**< styled terminal output */
    CELLHOST_FORMAT_PLAIN = 1, /**< text only: styles and colours dropped */
    CELLHOST_FORMAT_JSON = 2,  /**< JSON for programs: each line's characters, and the
                                    colours of rows as spans (24-bit, so `colors` is TRUECOLOR) */
    CELLHOST_FORMAT_HTML = 3,  /**< an HTML page: the browser wraps the text; the host shows
                                    pictures itself from the message (so `images` is NONE);
                                    rows keep their 24-bit colours (`colors` is TRUECOLOR) */
};

/** The colours the output carries: a CELLHOST_COLORS_* value. */
typedef uint32_t cellhost_color_depth;
enum {
    CELLHOST_COLORS_NONE = 0,      /**< no colours: block cells show their characters only */
    CELLHOST_COLORS_16 = 1,        /**< the 16 ANSI colours */
    CELLHOST_COLORS_256 = 2,       /**< the xterm 256-colour palette */
    CELLHOST_COLORS_TRUECOLOR = 3, /**< 24-bit colour */
};

/** How pictures are shown: a CELLHOST_IMAGES_* value. */
typedef uint32_t cellhost_image_mode;
enum {
    CELLHOST_IMAGES_NONE = 0,    /**< no previews (`--images none`) */
    CELLHOST_IMAGES_SYMBOLS = 1, /**< previews made of characters and colours (append_row) */
};

/** The settings, filled by `cellhost_output_api.info`. */
typedef struct cellhost_output_info {
    /** sizeof(cellhost_output_info) as the plugin compiled it; set by the caller. */
    uint32_t struct_size;
    cellhost_output_format format;
    cellhost_color_depth colors;
    cellhost_image_mode images;
    /** The most rows a picture may take (`--image-rows`, default 12); >= 1. */
    uint32_t image_rows;
} cellhost_output_info;

/** The output-settings functions. Host-owned, valid for the life of the process. */
typedef struct cellhost_output_api {
    /** sizeof(cellhost_output_api) as the host compiled it. */
    uint32_t struct_size;
    /**
     * [render-thread] Fill `out` with the run's output settings. The caller
     * sets `out->struct_size = sizeof *out` first; the host writes only the
     * fields that fit in it.
     */
    void (*info)(const struct cellhost_host *host, cellhost_output_info *out);
} cellhost_output_api;

#ifdef __cplusplus
}
#endif

#endif /* CELLHOST_OUTPUT_H */
