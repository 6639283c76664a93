/*
 * cellhost/builder.h — building a cell's content: the "cellhost.builder"
 * extension.
 *
 *     const cellhost_builder_api *b = host->get_extension(host, CELLHOST_EXT_BUILDER);
 *
 * A cell never writes bytes to the terminal. It appends styled text, line
 * breaks and preformatted rows to a builder; the host sanitizes every string
 * (escape sequences removed, control and bidi characters made visible,
 * invalid UTF-8 replaced), wraps text to the width, draws the chrome around
 * it, and encodes it as ANSI, plain text or JSON.
 *
 * Threading: [render-thread] every function: only inside the call that
 * received the builder, on that thread.
 */
#ifndef CELLHOST_BUILDER_H
#define CELLHOST_BUILDER_H

#include "types.h"

#ifdef __cplusplus
extern "C" {
#endif

/** The id of the content-building extension of the host. */
#define CELLHOST_EXT_BUILDER "cellhost.builder"

/**
 * Semantic styles, combinable as bits (CELLHOST_STYLE_*). The host maps them
 * to colours and attributes for the terminal, and drops them for plain
 * output. Unknown bits are ignored.
 */
typedef uint32_t cellhost_style_bits;
enum {
    CELLHOST_STYLE_PLAIN    = 0,
    CELLHOST_STYLE_STRONG   = 1 << 0, /**< bold */
    CELLHOST_STYLE_EMPHASIS = 1 << 1, /**< italic */
    CELLHOST_STYLE_CODE     = 1 << 2, /**< inline code */
    CELLHOST_STYLE_LINK     = 1 << 3, /**< a URL */
    CELLHOST_STYLE_MUTED    = 1 << 4, /**< secondary information */
    CELLHOST_STYLE_ACCENT   = 1 << 5, /**< titles, icons */
    CELLHOST_STYLE_SUCCESS  = 1 << 6,
    CELLHOST_STYLE_WARNING  = 1 << 7,
    CELLHOST_STYLE_ERROR    = 1 << 8,
    CELLHOST_STYLE_QUOTE    = 1 << 9, /**< quoted text */
};

/** Bits of `cellhost_block_cell.flags`. */
enum {
    CELLHOST_BLOCK_HAS_FG = 1 << 0, /**< `fg` is meaningful */
    CELLHOST_BLOCK_HAS_BG = 1 << 1, /**< `bg` is meaningful */
};

/**
 * One terminal cell of a preformatted row (image previews, bar charts).
 * `codepoint` must be a printable character one column wide (others become
 * U+FFFD). Colours are 0xRRGGBB. Plain data; never grows (rows are arrays).
 */
typedef struct cellhost_block_cell {
    uint32_t codepoint;
    uint32_t fg;
    uint32_t bg;
    uint32_t flags; /**< CELLHOST_BLOCK_* bits */
} cellhost_block_cell;

/** The content-building functions. Host-owned, valid for the life of the process. */
typedef struct cellhost_builder_api {
    /** sizeof(cellhost_builder_api) as the host compiled it. */
    uint32_t struct_size;

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
     * content width; at most 4096 cells are read). The cells are copied
     * before the call returns.
     */
    void (*append_row)(cellhost_builder *out, const cellhost_block_cell *cells, size_t count);
} cellhost_builder_api;

#ifdef __cplusplus
}
#endif

#endif /* CELLHOST_BUILDER_H */
