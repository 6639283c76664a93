/* SuperCallingTextCell: a C subclass of TextMessageCell whose render calls the
 * inherited render through send_super, then appends " [sub]". */
#include <cellhost/cellhost.h>

static const cellhost_builder_api *builder_api(const cellhost_host *host) {
    return (const cellhost_builder_api *)host->get_extension(host, CELLHOST_EXT_BUILDER);
}
static const cellhost_log_api *log_api(const cellhost_host *host) {
    return (const cellhost_log_api *)host->get_extension(host, CELLHOST_EXT_LOG);
}

static const char class_name[] = "SuperCallingTextCell";

static int32_t render(cellhost_object *self, cellhost_sel cmd, const cellhost_message *msg,
                      const cellhost_context *ctx, cellhost_builder *out) {
    int32_t inherited = CELLHOST_ERROR;
    void *args[] = { &msg, &ctx, &out };
    int32_t status = ctx->host->send_super(class_name, self, CELLHOST_SEL_RENDER,
                                           CELLHOST_TYPES_RENDER, &inherited, args);
    if (status != CELLHOST_OK) {
        log_api(ctx->host)->log(ctx->host, CELLHOST_LOG_ERROR, "send_super to TextMessageCell failed");
        return CELLHOST_ERROR;
    }
    if (inherited != CELLHOST_RENDERED) {
        return inherited;
    }
    builder_api(ctx->host)->append(out, " [sub]", 6, CELLHOST_STYLE_PLAIN);
    return CELLHOST_RENDERED;
}

static const cellhost_method methods[] = {
    CELLHOST_METHOD(CELLHOST_SEL_RENDER, CELLHOST_TYPES_RENDER, render),
};
static const char *const renders[] = { "text", NULL };
static const cellhost_class classes[] = {
    { .struct_size = sizeof(cellhost_class), .name = class_name, .superclass = "TextMessageCell", .message_classes = renders,
      .rank = 10, .methods = methods, .method_count = 1 },
};
static const cellhost_plugin_descriptor descriptor = {
    .abi = CELLHOST_ABI_VERSION_INIT,
    .struct_size = sizeof(cellhost_plugin_descriptor),
    .id = "test.supertext",
    .version = "1.0.0",
    .classes = classes,
    .class_count = 1,
};

CELLHOST_EXPORT const cellhost_plugin_descriptor *cellhost_plugin_entry(void) {
    return &descriptor;
}
