/* A plugin with the fixed id "test.dup" and nothing else: the tests install it
 * twice to see which copy wins. */
#include <cellhost/cellhost.h>

static const cellhost_plugin_descriptor descriptor = {
    .abi = CELLHOST_ABI_VERSION_INIT,
    .struct_size = sizeof(cellhost_plugin_descriptor),
    .id = "test.dup",
    .version = "1.0.0",
    .description = "Installed twice by the tests",
};

CELLHOST_EXPORT const cellhost_plugin_descriptor *cellhost_plugin_entry(void) {
    return &descriptor;
}
