/* A class implementing the well-known render selector with the encoding "v@:"
 * instead of CELLHOST_TYPES_RENDER: the class is rejected at load time. */
#include <cellhost/cellhost.h>

static void render(cellhost_object *self, cellhost_sel cmd) {
}

static const cellhost_method methods[] = {
    CELLHOST_METHOD(CELLHOST_SEL_RENDER, "v@:", render),
};
static const char *const renders[] = { "text", NULL };
static const cellhost_class classes[] = {
    { .struct_size = sizeof(cellhost_class), .name = "VoidRenderCell", .message_classes = renders, .rank = 100,
      .methods = methods, .method_count = 1 },
};
static const cellhost_plugin_descriptor descriptor = {
    .abi = CELLHOST_ABI_VERSION_INIT,
    .struct_size = sizeof(cellhost_plugin_descriptor),
    .id = "test.void-render",
    .version = "1.0.0",
    .classes = classes,
    .class_count = 1,
};

CELLHOST_EXPORT const cellhost_plugin_descriptor *cellhost_plugin_entry(void) {
    return &descriptor;
}
