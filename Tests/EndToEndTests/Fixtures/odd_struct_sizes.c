/* Two classes whose struct_size differ (the second claims 8 bytes less): the
 * host reads an array with the stride of its first element, so the
 * descriptor is invalid. */
#include <cellhost/cellhost.h>

static int32_t render(cellhost_object *s, cellhost_sel c, const cellhost_message *m,
                      const cellhost_context *x, cellhost_builder *o) { return CELLHOST_DECLINED; }
static const cellhost_method methods[] = { CELLHOST_METHOD(CELLHOST_SEL_RENDER, CELLHOST_TYPES_RENDER, render) };
static const cellhost_class classes[] = {
    { .struct_size = sizeof(cellhost_class), .name = "FirstCell", .methods = methods, .method_count = 1 },
    { .struct_size = sizeof(cellhost_class) - 8, .name = "SecondCell", .methods = methods, .method_count = 1 },
};
static const cellhost_plugin_descriptor descriptor = {
    .abi = CELLHOST_ABI_VERSION_INIT, .struct_size = sizeof descriptor, .id = "test.oddsize", .version = "1",
    .classes = classes, .class_count = 2,
};
CELLHOST_EXPORT const cellhost_plugin_descriptor *cellhost_plugin_entry(void) { return &descriptor; }
