/* The descriptor lists no classes; init declares the message class "runtime"
 * and registers RuntimeCell for it through the host table. */
#include <cellhost/cellhost.h>

static const cellhost_builder_api *builder_api(const cellhost_host *host) {
    return (const cellhost_builder_api *)host->get_extension(host, CELLHOST_EXT_BUILDER);
}

static int32_t render(cellhost_object *self, cellhost_sel cmd, const cellhost_message *msg,
                      const cellhost_context *ctx, cellhost_builder *out) {
    builder_api(ctx->host)->append(out, "registered at run time", 22, CELLHOST_STYLE_PLAIN);
    return CELLHOST_RENDERED;
}

static const cellhost_method methods[] = {
    CELLHOST_METHOD(CELLHOST_SEL_RENDER, CELLHOST_TYPES_RENDER, render),
};
static const char *const renders[] = { "runtime", NULL };
static const cellhost_class runtime_cell = {
    .struct_size = sizeof(cellhost_class),
    .name = "RuntimeCell", .message_classes = renders, .rank = 0,
    .methods = methods, .method_count = 1,
};
static const cellhost_message_class runtime_message_class = { .struct_size = sizeof(cellhost_message_class), .name = "runtime", .parent = NULL };

static int32_t init(const cellhost_host *host, const char **reason) {
    if (host->register_message_class(host, &runtime_message_class) != CELLHOST_OK) {
        *reason = "register_message_class failed";
        return 1;
    }
    if (host->register_class(host, &runtime_cell) != CELLHOST_OK) {
        *reason = "register_class failed";
        return 1;
    }
    return 0;
}

static const cellhost_plugin_descriptor descriptor = {
    .abi = CELLHOST_ABI_VERSION_INIT,
    .struct_size = sizeof(cellhost_plugin_descriptor),
    .id = "test.runtime",
    .version = "1.0.0",
    .flags = CELLHOST_PLUGIN_REGISTERS_AT_INIT,
    .init = init,
};

CELLHOST_EXPORT const cellhost_plugin_descriptor *cellhost_plugin_entry(void) {
    return &descriptor;
}
