/*
 * imagedecode.h — the image cell's decoders: PNG (libpng), JPEG
 * (libjpeg-turbo), WebP (libwebp, first frame of an animation through
 * libwebpdemux) and GIF (giflib, first frame), from bytes in memory.
 *
 * Written in C because libjpeg reports errors by longjmp, which Swift cannot
 * catch. Nothing here writes to stdout or stderr, and every size read from a
 * file is checked before it is used: `imgdec_decode` reads the header first
 * and refuses an image of more than `max_pixels` before it allocates pixels.
 */
#ifndef CELLHOST_IMAGEDECODE_H
#define CELLHOST_IMAGEDECODE_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/** What a probe or a decode gave. */
typedef enum imgdec_status {
    IMGDEC_OK = 0,
    IMGDEC_UNKNOWN_FORMAT = 1, /**< not PNG, JPEG, WebP or GIF */
    IMGDEC_CORRUPT = 2,        /**< a known format, but bad or truncated data */
    IMGDEC_TOO_LARGE = 3,      /**< more pixels than allowed (from the header) */
    IMGDEC_NO_MEMORY = 4,
} imgdec_status;

typedef enum imgdec_format {
    IMGDEC_FORMAT_NONE = 0,
    IMGDEC_FORMAT_PNG = 1,
    IMGDEC_FORMAT_JPEG = 2,
    IMGDEC_FORMAT_WEBP = 3,
    IMGDEC_FORMAT_GIF = 4,
} imgdec_format;

/** The size an image's header declares. */
typedef struct imgdec_info {
    imgdec_format format;
    uint32_t width;
    uint32_t height;
} imgdec_info;

/** Decoded pixels: RGBA, 8 bits per channel, not premultiplied. */
typedef struct imgdec_image {
    uint8_t *pixels; /**< free with imgdec_free */
    uint32_t width;
    uint32_t height;
    uint32_t rowstride; /**< bytes per row, width * 4 */
} imgdec_image;

/** The format of `data` from its first bytes. */
imgdec_format imgdec_sniff(const uint8_t *data, size_t size);

/** Reads the header only: the format and the declared size. */
imgdec_status imgdec_probe(const uint8_t *data, size_t size, imgdec_info *out);

/**
 * Decodes the image (a GIF's or an animated WebP's first frame). Refuses an
 * image whose header declares more than `max_pixels` pixels, or a zero
 * width or height, before allocating pixels. `want_width` × `want_height`
 * is the smallest size the caller needs: a JPEG is decoded at the smallest
 * DCT scale (1/8 … 8/8) that gives at least that, a WebP scaled to it;
 * other formats at full size. 0 means full size.
 */
imgdec_status imgdec_decode(const uint8_t *data, size_t size, uint64_t max_pixels,
                            uint32_t want_width, uint32_t want_height, imgdec_image *out);

/** Frees what imgdec_decode allocated; `image` may be all zero. */
void imgdec_free(imgdec_image *image);

#ifdef __cplusplus
}
#endif

#endif
