/* libFuzzer target `imagedecode`: the bytes as an image file, through the
 * image cell's decoder (Sources/CImageDecode): sniff, probe the header, and
 * decode scaled to a preview size, with the cell's pixel limit. Crashes,
 * leaks and out-of-bounds accesses are found by ASan; the decoder's own
 * promises are checked here: a decoded image has the size it reports, within
 * the limit, and a header that probes as too large never decodes. */
#include <stdlib.h>
#include <string.h>
#include "imagedecode.h"

static void fail(const char *why) {
    (void)why;
    abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    const uint64_t max_pixels = 1u << 22; /* smaller than the cell's, to reach the refusal often */
    imgdec_info info;
    memset(&info, 0, sizeof info);
    imgdec_status probed = imgdec_probe(data, size, &info);
    imgdec_image image;
    memset(&image, 0, sizeof image);
    imgdec_status decoded = imgdec_decode(data, size, max_pixels, 64, 48, &image);
    if (decoded == IMGDEC_OK) {
        if (image.pixels == NULL || image.width == 0 || image.height == 0) fail("empty image decoded");
        if ((uint64_t)image.width * image.height > max_pixels) fail("decoded past the pixel limit");
        if (image.rowstride != image.width * 4) fail("rowstride is not width * 4");
        /* Touch every pixel: ASan reports a buffer smaller than it says. */
        volatile uint8_t sum = 0;
        for (size_t i = 0; i < (size_t)image.rowstride * image.height; i++) sum ^= image.pixels[i];
        if (probed == IMGDEC_TOO_LARGE) fail("a header refused as too large decoded");
        imgdec_free(&image);
    }
    (void)imgdec_sniff(data, size);
    return 0;
}
