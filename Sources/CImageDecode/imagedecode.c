/*
 * The image cell's decoders (see include/imagedecode.h).
 *
 * Rules every decoder follows:
 *  - the size comes from the header and is checked (non-zero, at most
 *    `max_pixels`, the buffer size computed without overflow) before the
 *    pixel buffer is allocated;
 *  - nothing is printed: libjpeg's message output is replaced, libpng's
 *    simplified API keeps its messages in the png_image, libwebp and giflib
 *    return codes;
 *  - a truncated file is an error (libjpeg's "premature end of data" warning
 *    included, which libjpeg would otherwise paper over with grey rows).
 */
#include "imagedecode.h"

#include <setjmp.h>
#include <stdio.h> /* jpeglib.h needs FILE */
#include <stdlib.h>
#include <string.h>

#include <gif_lib.h>
#include <jerror.h>
#include <jpeglib.h>
#include <png.h>
#include <webp/decode.h>
#include <webp/demux.h>

/* The most scans a progressive JPEG may have: real files have about 10; a
 * file with thousands of tiny scans costs a full pass over the coefficients
 * per scan (a known way to make decoders slow). */
#define IMGDEC_MAX_JPEG_SCANS 256
/* libjpeg's working memory (progressive coefficient buffers) at most. */
#define IMGDEC_MAX_JPEG_MEMORY (384L * 1024 * 1024)

imgdec_format imgdec_sniff(const uint8_t *data, size_t size) {
    static const uint8_t png[8] = {0x89, 'P', 'N', 'G', 0x0D, 0x0A, 0x1A, 0x0A};
    if (data == NULL) return IMGDEC_FORMAT_NONE;
    if (size >= 8 && memcmp(data, png, 8) == 0) return IMGDEC_FORMAT_PNG;
    if (size >= 3 && data[0] == 0xFF && data[1] == 0xD8 && data[2] == 0xFF) return IMGDEC_FORMAT_JPEG;
    if (size >= 6 && (memcmp(data, "GIF87a", 6) == 0 || memcmp(data, "GIF89a", 6) == 0)) return IMGDEC_FORMAT_GIF;
    if (size >= 12 && memcmp(data, "RIFF", 4) == 0 && memcmp(data + 8, "WEBP", 4) == 0) return IMGDEC_FORMAT_WEBP;
    return IMGDEC_FORMAT_NONE;
}

/* width * height * 4 as a size_t, or 0 when it is not a valid size or over
 * the limit. */
static size_t rgba_size(uint64_t width, uint64_t height, uint64_t max_pixels) {
    if (width == 0 || height == 0 || width > UINT32_MAX || height > UINT32_MAX) return 0;
    uint64_t pixels = width * height; /* < 2^64: both < 2^32 */
    if (pixels > max_pixels || pixels > (uint64_t)(SIZE_MAX / 4)) return 0;
    return (size_t)(pixels * 4);
}

static int too_many(uint64_t width, uint64_t height, uint64_t max_pixels) {
    return width != 0 && height != 0 && (width > UINT32_MAX || height > UINT32_MAX || width * height > max_pixels);
}

void imgdec_free(imgdec_image *image) {
    if (image == NULL) return;
    free(image->pixels);
    memset(image, 0, sizeof *image);
}

/* ---- PNG: libpng's simplified API (no longjmp reaches this code) -------- */

static imgdec_status png_probe(const uint8_t *data, size_t size, imgdec_info *out) {
    png_image image;
    memset(&image, 0, sizeof image);
    image.version = PNG_IMAGE_VERSION;
    if (!png_image_begin_read_from_memory(&image, data, size)) return IMGDEC_CORRUPT;
    out->width = image.width;
    out->height = image.height;
    png_image_free(&image);
    return IMGDEC_OK;
}

static imgdec_status png_decode(const uint8_t *data, size_t size, uint64_t max_pixels, imgdec_image *out) {
    png_image image;
    memset(&image, 0, sizeof image);
    image.version = PNG_IMAGE_VERSION;
    if (!png_image_begin_read_from_memory(&image, data, size)) return IMGDEC_CORRUPT;
    if (too_many(image.width, image.height, max_pixels)) {
        png_image_free(&image);
        return IMGDEC_TOO_LARGE;
    }
    size_t bytes = rgba_size(image.width, image.height, max_pixels);
    if (bytes == 0) {
        png_image_free(&image);
        return IMGDEC_CORRUPT;
    }
    image.format = PNG_FORMAT_RGBA;
    uint8_t *pixels = malloc(bytes);
    if (pixels == NULL) {
        png_image_free(&image);
        return IMGDEC_NO_MEMORY;
    }
    /* finish_read frees the image's internals whether it succeeds or not. */
    if (!png_image_finish_read(&image, NULL, pixels, (png_int_32)(image.width * 4), NULL)) {
        free(pixels);
        return IMGDEC_CORRUPT;
    }
    out->pixels = pixels;
    out->width = image.width;
    out->height = image.height;
    out->rowstride = image.width * 4;
    return IMGDEC_OK;
}

/* ---- JPEG: libjpeg(-turbo) with longjmp error handling ------------------- */

typedef struct jpeg_failure {
    struct jpeg_error_mgr pub;
    jmp_buf jump;
} jpeg_failure;

static void jpeg_fail(j_common_ptr cinfo) {
    longjmp(((jpeg_failure *)cinfo->err)->jump, 1);
}

/* Warnings are silent, except that running out of data is an error. */
static void jpeg_message(j_common_ptr cinfo, int level) {
    if (level < 0 && cinfo->err->msg_code == JWRN_JPEG_EOF) jpeg_fail(cinfo);
}

static void jpeg_print_nothing(j_common_ptr cinfo) { (void)cinfo; }

static void jpeg_progress(j_common_ptr cinfo) {
    if (cinfo->is_decompressor && ((j_decompress_ptr)cinfo)->input_scan_number > IMGDEC_MAX_JPEG_SCANS) {
        jpeg_fail(cinfo);
    }
}

static void jpeg_setup(struct jpeg_decompress_struct *cinfo, jpeg_failure *failure,
                       struct jpeg_progress_mgr *progress) {
    cinfo->err = jpeg_std_error(&failure->pub);
    failure->pub.error_exit = jpeg_fail;
    failure->pub.emit_message = jpeg_message;
    failure->pub.output_message = jpeg_print_nothing;
    memset(progress, 0, sizeof *progress);
    progress->progress_monitor = jpeg_progress;
}

static imgdec_status jpeg_probe(const uint8_t *data, size_t size, imgdec_info *out) {
    struct jpeg_decompress_struct cinfo;
    jpeg_failure failure;
    struct jpeg_progress_mgr progress;
    memset(&cinfo, 0, sizeof cinfo);
    jpeg_setup(&cinfo, &failure, &progress);
    if (setjmp(failure.jump)) {
        jpeg_destroy_decompress(&cinfo);
        return IMGDEC_CORRUPT;
    }
    jpeg_create_decompress(&cinfo);
    cinfo.progress = &progress;
    jpeg_mem_src(&cinfo, data, (unsigned long)size);
    jpeg_read_header(&cinfo, TRUE);
    out->width = cinfo.image_width;
    out->height = cinfo.image_height;
    jpeg_destroy_decompress(&cinfo);
    return IMGDEC_OK;
}

/* The smallest n in 1…8 for which the image scaled by n/8 is at least the
 * wanted size (8 when nothing is wanted or the image is smaller). */
static unsigned jpeg_scale(uint32_t width, uint32_t height, uint32_t want_width, uint32_t want_height) {
    if (want_width == 0 || want_height == 0) return 8;
    for (unsigned n = 1; n < 8; n++) {
        uint64_t w = ((uint64_t)width * n + 7) / 8, h = ((uint64_t)height * n + 7) / 8;
        if (w >= want_width && h >= want_height) return n;
    }
    return 8;
}

static imgdec_status jpeg_decode(const uint8_t *data, size_t size, uint64_t max_pixels,
                                 uint32_t want_width, uint32_t want_height, imgdec_image *out) {
    struct jpeg_decompress_struct cinfo;
    jpeg_failure failure;
    struct jpeg_progress_mgr progress;
    uint8_t *volatile pixels = NULL;
    volatile imgdec_status refusal = IMGDEC_CORRUPT;
    memset(&cinfo, 0, sizeof cinfo);
    jpeg_setup(&cinfo, &failure, &progress);
    if (setjmp(failure.jump)) {
        jpeg_destroy_decompress(&cinfo);
        free(pixels);
        return refusal;
    }
    jpeg_create_decompress(&cinfo);
    cinfo.progress = &progress;
    cinfo.mem->max_memory_to_use = IMGDEC_MAX_JPEG_MEMORY;
    jpeg_mem_src(&cinfo, data, (unsigned long)size);
    jpeg_read_header(&cinfo, TRUE);
    if (too_many(cinfo.image_width, cinfo.image_height, max_pixels)) {
        refusal = IMGDEC_TOO_LARGE;
        longjmp(failure.jump, 1);
    }
    int cmyk = cinfo.jpeg_color_space == JCS_CMYK || cinfo.jpeg_color_space == JCS_YCCK;
    cinfo.out_color_space = cmyk ? JCS_CMYK : JCS_EXT_RGBA;
    cinfo.scale_num = jpeg_scale(cinfo.image_width, cinfo.image_height, want_width, want_height);
    cinfo.scale_denom = 8;
    jpeg_calc_output_dimensions(&cinfo);
    size_t bytes = rgba_size(cinfo.output_width, cinfo.output_height, max_pixels);
    if (bytes == 0 || cinfo.output_components != 4) longjmp(failure.jump, 1);
    pixels = malloc(bytes);
    if (pixels == NULL) {
        refusal = IMGDEC_NO_MEMORY;
        longjmp(failure.jump, 1);
    }
    jpeg_start_decompress(&cinfo);
    size_t stride = (size_t)cinfo.output_width * 4;
    while (cinfo.output_scanline < cinfo.output_height) {
        JSAMPROW target = pixels + (size_t)cinfo.output_scanline * stride;
        if (jpeg_read_scanlines(&cinfo, &target, 1) != 1) longjmp(failure.jump, 1);
    }
    if (cmyk) {
        /* Adobe writes CMYK inverted (which is what libjpeg hands back). */
        int inverted = cinfo.saw_Adobe_marker;
        size_t count = bytes / 4;
        for (size_t i = 0; i < count; i++) {
            uint8_t *p = pixels + i * 4;
            unsigned c = p[0], m = p[1], y = p[2], k = p[3];
            if (!inverted) { c = 255 - c; m = 255 - m; y = 255 - y; k = 255 - k; }
            p[0] = (uint8_t)(c * k / 255);
            p[1] = (uint8_t)(m * k / 255);
            p[2] = (uint8_t)(y * k / 255);
            p[3] = 255;
        }
    }
    jpeg_finish_decompress(&cinfo);
    out->width = cinfo.output_width;
    out->height = cinfo.output_height;
    out->rowstride = (uint32_t)stride;
    out->pixels = pixels;
    jpeg_destroy_decompress(&cinfo);
    return IMGDEC_OK;
}

/* ---- WebP: libwebp, an animation's first frame through libwebpdemux ------ */

static imgdec_status webp_probe(const uint8_t *data, size_t size, imgdec_info *out) {
    WebPBitstreamFeatures features;
    if (WebPGetFeatures(data, size, &features) != VP8_STATUS_OK) return IMGDEC_CORRUPT;
    if (features.width <= 0 || features.height <= 0) return IMGDEC_CORRUPT;
    out->width = (uint32_t)features.width;
    out->height = (uint32_t)features.height;
    return IMGDEC_OK;
}

static imgdec_status webp_decode_still(const uint8_t *data, size_t size, uint64_t max_pixels,
                                       uint32_t want_width, uint32_t want_height, imgdec_image *out) {
    WebPDecoderConfig config;
    if (!WebPInitDecoderConfig(&config)) return IMGDEC_CORRUPT;
    if (WebPGetFeatures(data, size, &config.input) != VP8_STATUS_OK) return IMGDEC_CORRUPT;
    uint64_t width = (uint64_t)(config.input.width > 0 ? config.input.width : 0);
    uint64_t height = (uint64_t)(config.input.height > 0 ? config.input.height : 0);
    if (too_many(width, height, max_pixels)) return IMGDEC_TOO_LARGE;
    if (width == 0 || height == 0) return IMGDEC_CORRUPT;
    /* Scaled down (never up) to the smallest size covering what is wanted. */
    if (want_width > 0 && want_height > 0 && want_width < width && want_height < height) {
        double sx = (double)want_width / (double)width, sy = (double)want_height / (double)height;
        double s = sx > sy ? sx : sy;
        uint64_t sw = (uint64_t)((double)width * s + 0.999), sh = (uint64_t)((double)height * s + 0.999);
        if (sw >= 1 && sh >= 1 && sw <= width && sh <= height) {
            config.options.use_scaling = 1;
            config.options.scaled_width = (int)sw;
            config.options.scaled_height = (int)sh;
            width = sw;
            height = sh;
        }
    }
    size_t bytes = rgba_size(width, height, max_pixels);
    if (bytes == 0) return IMGDEC_CORRUPT;
    uint8_t *pixels = malloc(bytes);
    if (pixels == NULL) return IMGDEC_NO_MEMORY;
    config.output.colorspace = MODE_RGBA;
    config.output.is_external_memory = 1;
    config.output.u.RGBA.rgba = pixels;
    config.output.u.RGBA.stride = (int)(width * 4);
    config.output.u.RGBA.size = bytes;
    VP8StatusCode status = WebPDecode(data, size, &config);
    WebPFreeDecBuffer(&config.output);
    if (status != VP8_STATUS_OK) {
        free(pixels);
        return status == VP8_STATUS_OUT_OF_MEMORY ? IMGDEC_NO_MEMORY : IMGDEC_CORRUPT;
    }
    out->pixels = pixels;
    out->width = (uint32_t)width;
    out->height = (uint32_t)height;
    out->rowstride = (uint32_t)(width * 4);
    return IMGDEC_OK;
}

static imgdec_status webp_decode(const uint8_t *data, size_t size, uint64_t max_pixels,
                                 uint32_t want_width, uint32_t want_height, imgdec_image *out) {
    WebPBitstreamFeatures features;
    if (WebPGetFeatures(data, size, &features) != VP8_STATUS_OK) return IMGDEC_CORRUPT;
    if (too_many((uint64_t)(features.width > 0 ? features.width : 0),
                 (uint64_t)(features.height > 0 ? features.height : 0), max_pixels)) return IMGDEC_TOO_LARGE;
    if (!features.has_animation) return webp_decode_still(data, size, max_pixels, want_width, want_height, out);
    /* An animation: decode the first frame's bitstream on its own. */
    WebPData whole = {data, size};
    WebPDemuxer *demux = WebPDemux(&whole);
    if (demux == NULL) return IMGDEC_CORRUPT;
    WebPIterator frame;
    imgdec_status status = IMGDEC_CORRUPT;
    if (WebPDemuxGetFrame(demux, 1, &frame)) {
        status = webp_decode_still(frame.fragment.bytes, frame.fragment.size, max_pixels,
                                   want_width, want_height, out);
        WebPDemuxReleaseIterator(&frame);
    }
    WebPDemuxDelete(demux);
    return status;
}

/* ---- GIF: giflib, the first frame only (never DGifSlurp) ---------------- */

typedef struct gif_source {
    const uint8_t *data;
    size_t size;
    size_t offset;
} gif_source;

static int gif_read(GifFileType *gif, GifByteType *buffer, int length) {
    gif_source *source = gif->UserData;
    if (length <= 0) return 0;
    size_t left = source->size - source->offset;
    size_t count = (size_t)length < left ? (size_t)length : left;
    memcpy(buffer, source->data + source->offset, count);
    source->offset += count;
    return (int)count;
}

static imgdec_status gif_probe(const uint8_t *data, size_t size, imgdec_info *out) {
    gif_source source = {data, size, 0};
    int error = 0;
    GifFileType *gif = DGifOpen(&source, gif_read, &error);
    if (gif == NULL) return IMGDEC_CORRUPT;
    imgdec_status status = IMGDEC_CORRUPT;
    if (gif->SWidth > 0 && gif->SHeight > 0) {
        out->width = (uint32_t)gif->SWidth;
        out->height = (uint32_t)gif->SHeight;
        status = IMGDEC_OK;
    }
    DGifCloseFile(gif, &error);
    return status;
}

static imgdec_status gif_decode(const uint8_t *data, size_t size, uint64_t max_pixels, imgdec_image *out) {
    gif_source source = {data, size, 0};
    int error = 0;
    GifFileType *gif = DGifOpen(&source, gif_read, &error);
    if (gif == NULL) return IMGDEC_CORRUPT;
    imgdec_status status = IMGDEC_CORRUPT;
    uint8_t *pixels = NULL;
    GifByteType *line = NULL;
    int transparent = NO_TRANSPARENT_COLOR;
    uint64_t width = (uint64_t)(gif->SWidth > 0 ? gif->SWidth : 0);
    uint64_t height = (uint64_t)(gif->SHeight > 0 ? gif->SHeight : 0);
    if (too_many(width, height, max_pixels)) {
        status = IMGDEC_TOO_LARGE;
        goto done;
    }
    size_t bytes = rgba_size(width, height, max_pixels);
    if (bytes == 0) goto done;
    for (;;) {
        GifRecordType type;
        if (DGifGetRecordType(gif, &type) != GIF_OK) goto done;
        if (type == TERMINATE_RECORD_TYPE) goto done; /* no image at all */
        if (type == EXTENSION_RECORD_TYPE) {
            int code = 0;
            GifByteType *extension = NULL;
            if (DGifGetExtension(gif, &code, &extension) != GIF_OK) goto done;
            if (code == GRAPHICS_EXT_FUNC_CODE && extension != NULL && extension[0] >= 4) {
                GraphicsControlBlock control;
                if (DGifExtensionToGCB(extension[0], extension + 1, &control) == GIF_OK) {
                    transparent = control.TransparentColor;
                }
            }
            while (extension != NULL) {
                if (DGifGetExtensionNext(gif, &extension) != GIF_OK) goto done;
            }
            continue;
        }
        if (type != IMAGE_DESC_RECORD_TYPE) continue;
        if (DGifGetImageDesc(gif) != GIF_OK) goto done;
        GifImageDesc desc = gif->Image;
        ColorMapObject *colors = desc.ColorMap != NULL ? desc.ColorMap : gif->SColorMap;
        if (colors == NULL || colors->Colors == NULL || desc.Width <= 0 || desc.Height <= 0
            || desc.Left < 0 || desc.Top < 0) goto done;
        pixels = calloc(1, bytes); /* transparent where the frame does not reach */
        line = malloc((size_t)desc.Width);
        if (pixels == NULL || line == NULL) {
            status = IMGDEC_NO_MEMORY;
            goto done;
        }
        static const int starts[4] = {0, 4, 2, 1}, steps[4] = {8, 8, 4, 2};
        int passes = desc.Interlace ? 4 : 1;
        for (int pass = 0; pass < passes; pass++) {
            int start = desc.Interlace ? starts[pass] : 0, step = desc.Interlace ? steps[pass] : 1;
            for (int y = start; y < desc.Height; y += step) {
                if (DGifGetLine(gif, line, desc.Width) != GIF_OK) goto done;
                uint64_t row = (uint64_t)desc.Top + (uint64_t)y;
                if (row >= height) continue;
                for (int x = 0; x < desc.Width; x++) {
                    uint64_t column = (uint64_t)desc.Left + (uint64_t)x;
                    int index = line[x];
                    if (column >= width || index == transparent || index >= colors->ColorCount) continue;
                    uint8_t *p = pixels + (row * width + column) * 4;
                    p[0] = colors->Colors[index].Red;
                    p[1] = colors->Colors[index].Green;
                    p[2] = colors->Colors[index].Blue;
                    p[3] = 255;
                }
            }
        }
        out->pixels = pixels;
        out->width = (uint32_t)width;
        out->height = (uint32_t)height;
        out->rowstride = (uint32_t)(width * 4);
        pixels = NULL;
        status = IMGDEC_OK;
        goto done;
    }
done:
    free(line);
    free(pixels);
    DGifCloseFile(gif, &error);
    return status;
}

/* ---- Entry points -------------------------------------------------------- */

imgdec_status imgdec_probe(const uint8_t *data, size_t size, imgdec_info *out) {
    if (out == NULL) return IMGDEC_CORRUPT;
    memset(out, 0, sizeof *out);
    out->format = imgdec_sniff(data, size);
    imgdec_status status;
    switch (out->format) {
    case IMGDEC_FORMAT_PNG: status = png_probe(data, size, out); break;
    case IMGDEC_FORMAT_JPEG: status = jpeg_probe(data, size, out); break;
    case IMGDEC_FORMAT_WEBP: status = webp_probe(data, size, out); break;
    case IMGDEC_FORMAT_GIF: status = gif_probe(data, size, out); break;
    default: return IMGDEC_UNKNOWN_FORMAT;
    }
    if (status == IMGDEC_OK && (out->width == 0 || out->height == 0)) status = IMGDEC_CORRUPT;
    return status;
}

imgdec_status imgdec_decode(const uint8_t *data, size_t size, uint64_t max_pixels,
                            uint32_t want_width, uint32_t want_height, imgdec_image *out) {
    if (out == NULL) return IMGDEC_CORRUPT;
    memset(out, 0, sizeof *out);
    switch (imgdec_sniff(data, size)) {
    case IMGDEC_FORMAT_PNG: return png_decode(data, size, max_pixels, out);
    case IMGDEC_FORMAT_JPEG: return jpeg_decode(data, size, max_pixels, want_width, want_height, out);
    case IMGDEC_FORMAT_WEBP: return webp_decode(data, size, max_pixels, want_width, want_height, out);
    case IMGDEC_FORMAT_GIF: return gif_decode(data, size, max_pixels, out);
    default: return IMGDEC_UNKNOWN_FORMAT;
    }
}
