/* A plugin built against a newer minor version (2.7) than the host's 2.0: it
 * may use fields the host does not have, so the host must refuse it. */
#include <cellhost/cellhost.h>

static const cellhost_plugin_descriptor descriptor = {
    .abi = { CELLHOST_ABI_MAJOR, 7 },
    .struct_size = sizeof(cellhost_plugin_descriptor),
    .id = "test.abi-minor-7",
    .version = "1.0.0",
};

CELLHOST_EXPORT const cellhost_plugin_descriptor *cellhost_plugin_entry(void) {
    return &descriptor;
}
