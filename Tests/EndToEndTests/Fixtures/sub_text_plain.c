/* SubTextCell: a C subclass of the shipped Swift class TextMessageCell that
 * overrides only plainTextForMessage:context:into:, so its rendering is inherited. */
#include <cellhost/cellhost.h>

static const cellhost_builder_api *builder_api(const cellhost_host *host) {
    return (const cellhost_builder_api *)host->get_extension(host, CELLHOST_EXT_BUILDER);
}
static const cellhost_message_api *message_api(const cellhost_host *host) {
    return (const cellhost_message_api *)host->get_extension(host, CELLHOST_EXT_MESSAGE);
}

static int32_t plain_text(cellhost_object *self, cellhost_sel cmd, const cellhost_message *msg,
                          const cellhost_context *ctx, cellhost_builder *out) {
    cellhost_message_info info = { .struct_size = sizeof info };
    message_api(ctx->host)->info(msg, &info);
    builder_api(ctx->host)->append(out, "sub: ", 5, CELLHOST_STYLE_PLAIN);
    builder_api(ctx->host)->append(out, info.text.data, info.text.length, CELLHOST_STYLE_PLAIN);
    return CELLHOST_RENDERED;
}

static const cellhost_method methods[] = {
    CELLHOST_METHOD(CELLHOST_SEL_PLAIN_TEXT, CELLHOST_TYPES_PLAIN_TEXT, plain_text),
};
static const char *const renders[] = { "text", NULL };
static const cellhost_class classes[] = {
    { .struct_size = sizeof(cellhost_class), .name = "SubTextCell", .superclass = "TextMessageCell", .message_classes = renders,
      .rank = 10, .methods = methods, .method_count = 1 },
};
static const cellhost_plugin_descriptor descriptor = {
    .abi = CELLHOST_ABI_VERSION_INIT,
    .struct_size = sizeof(cellhost_plugin_descriptor),
    .id = "test.subtext",
    .version = "1.0.0",
    .classes = classes,
    .class_count = 1,
};

CELLHOST_EXPORT const cellhost_plugin_descriptor *cellhost_plugin_entry(void) {
    return &descriptor;
}
