/* A plugin linked against libcellhostdep.so (which the test deletes): loading
 * it fails in dlopen with the missing library's name. */
#include <cellhost/cellhost.h>

int cellhost_dep_greeting_length(void);

static int32_t render(cellhost_object *self, cellhost_sel cmd, const cellhost_message *msg,
                      const cellhost_context *ctx, cellhost_builder *out) {
    ctx->host->append(out, "hello", (size_t)cellhost_dep_greeting_length(), CELLHOST_STYLE_PLAIN);
    return CELLHOST_RENDERED;
}

static const cellhost_method methods[] = {
    { CELLHOST_SEL_RENDER, CELLHOST_TYPES_RENDER, (cellhost_imp)render },
};
static const cellhost_class classes[] = {
    { .name = "NeedsDependencyCell", .methods = methods, .method_count = 1 },
};
static const cellhost_plugin_descriptor descriptor = {
    .abi = CELLHOST_ABI_VERSION_INIT,
    .id = "test.needs-dependency",
    .version = "1.0.0",
    .classes = classes,
    .class_count = 1,
};

CELLHOST_EXPORT const cellhost_plugin_descriptor *cellhost_plugin_entry(void) {
    return &descriptor;
}
