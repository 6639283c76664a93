/* EndlessRowsCell renders "endless" by appending 100 000 lines
 * ("row 0" … "row 99999"), each ended with line_break. */
#include <cellhost/cellhost.h>
#include <stdio.h>

static int32_t render(cellhost_object *self, cellhost_sel cmd, const cellhost_message *msg,
                      const cellhost_context *ctx, cellhost_builder *out) {
    char text[32];
    for (int i = 0; i < 100000; i++) {
        int length = snprintf(text, sizeof text, "row %d", i);
        ctx->host->append(out, text, (size_t)length, CELLHOST_STYLE_PLAIN);
        ctx->host->line_break(out);
    }
    return CELLHOST_RENDERED;
}

static const cellhost_method methods[] = {
    { CELLHOST_SEL_RENDER, CELLHOST_TYPES_RENDER, (cellhost_imp)render },
};
static const char *const renders[] = { "endless", NULL };
static const cellhost_class classes[] = {
    { .name = "EndlessRowsCell", .message_classes = renders, .methods = methods, .method_count = 1 },
};
static const cellhost_message_class message_classes[] = {
    { .name = "endless", .parent = NULL },
};
static const cellhost_plugin_descriptor descriptor = {
    .abi = CELLHOST_ABI_VERSION_INIT,
    .id = "test.endless",
    .version = "1.0.0",
    .classes = classes,
    .class_count = 1,
    .message_classes = message_classes,
    .message_class_count = 1,
};

CELLHOST_EXPORT const cellhost_plugin_descriptor *cellhost_plugin_entry(void) {
    return &descriptor;
}
