/*
 * cellhost/builder.h — building a cell's content.
 *
 * A cell never writes bytes to the terminal. It appends styled text, line
 * breaks and preformatted rows to a builder; the host sanitizes every string
 * (escape sequences removed, control and bidi characters made visible,
 * invalid UTF-8 replaced), wraps text to the width, draws the chrome around
 * it, and encodes it as ANSI, plain text or JSON.
 */
#ifndef CELLHOST_BUILDER_H
#define CELLHOST_BUILDER_H

#include "types.h"

#ifdef __cplusplus
extern "C" {
#endif

/**
 * Semantic styles, combinable as bits. The host maps them to colours and
 * attributes for the terminal, and drops them for plain output.
 */
enum cellhost_style {
    CELLHOST_STYLE_PLAIN    = 0,
    CELLHOST_STYLE_STRONG   = 1u << 0, /**< bold */
    CELLHOST_STYLE_EMPHASIS = 1u << 1, /**< italic */
    CELLHOST_STYLE_CODE     = 1u << 2, /**< inline code */
    CELLHOST_STYLE_LINK     = 1u << 3, /**< a URL */
    CELLHOST_STYLE_MUTED    = 1u << 4, /**< secondary information */
    CELLHOST_STYLE_ACCENT   = 1u << 5, /**< titles, icons */
    CELLHOST_STYLE_SUCCESS  = 1u << 6,
    CELLHOST_STYLE_WARNING  = 1u << 7,
    CELLHOST_STYLE_ERROR    = 1u << 8,
    CELLHOST_STYLE_QUOTE    = 1u << 9, /**< quoted text */
};
typedef uint32_t cellhost_style_bits;

/** Bits of `cellhost_block_cell.flags`. */
enum cellhost_block_flags {
    CELLHOST_BLOCK_HAS_FG = 1u << 0, /**< `fg` is meaningful */
    CELLHOST_BLOCK_HAS_BG = 1u << 1, /**< `bg` is meaningful */
};

/**
 * One terminal cell of a preformatted row (image previews, bar charts).
 * `codepoint` must be a printable character one column wide (others become
 * U+FFFD). Colours are 0xRRGGBB.
 */
typedef struct cellhost_block_cell {
    uint32_t codepoint;
    uint32_t fg;
    uint32_t bg;
    uint32_t flags; /**< cellhost_block_flags */
} cellhost_block_cell;

#ifdef __cplusplus
}
#endif

#endif /* CELLHOST_BUILDER_H */
