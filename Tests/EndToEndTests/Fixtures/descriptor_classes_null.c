/* An inconsistent descriptor: class_count says 2 but classes is NULL. */
#include <cellhost/cellhost.h>

static const cellhost_plugin_descriptor descriptor = {
    .abi = CELLHOST_ABI_VERSION_INIT,
    .struct_size = sizeof(cellhost_plugin_descriptor),
    .id = "test.classes-null",
    .version = "1.0.0",
    .classes = NULL,
    .class_count = 2,
};

CELLHOST_EXPORT const cellhost_plugin_descriptor *cellhost_plugin_entry(void) {
    return &descriptor;
}
