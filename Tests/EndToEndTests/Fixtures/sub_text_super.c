/* SuperCallingTextCell: a C subclass of TextMessageCell whose render calls the
 * inherited render through send_super, then appends " [sub]". */
#include <cellhost/cellhost.h>

static const char class_name[] = "SuperCallingTextCell";

static int32_t render(cellhost_object *self, cellhost_sel cmd, const cellhost_message *msg,
                      const cellhost_context *ctx, cellhost_builder *out) {
    int32_t inherited = CELLHOST_ERROR;
    void *args[] = { &msg, &ctx, &out };
    int32_t status = ctx->host->send_super(class_name, self, CELLHOST_SEL_RENDER,
                                           CELLHOST_TYPES_RENDER, &inherited, args);
    if (status != CELLHOST_OK) {
        ctx->host->log(ctx->host, CELLHOST_LOG_ERROR, "send_super to TextMessageCell failed");
        return CELLHOST_ERROR;
    }
    if (inherited != CELLHOST_RENDERED) {
        return inherited;
    }
    ctx->host->append(out, " [sub]", 6, CELLHOST_STYLE_PLAIN);
    return CELLHOST_RENDERED;
}

static const cellhost_method methods[] = {
    { CELLHOST_SEL_RENDER, CELLHOST_TYPES_RENDER, (cellhost_imp)render },
};
static const char *const renders[] = { "text", NULL };
static const cellhost_class classes[] = {
    { .name = class_name, .superclass = "TextMessageCell", .message_classes = renders,
      .rank = 10, .methods = methods, .method_count = 1 },
};
static const cellhost_plugin_descriptor descriptor = {
    .abi = CELLHOST_ABI_VERSION_INIT,
    .id = "test.supertext",
    .version = "1.0.0",
    .classes = classes,
    .class_count = 1,
};

CELLHOST_EXPORT const cellhost_plugin_descriptor *cellhost_plugin_entry(void) {
    return &descriptor;
}
