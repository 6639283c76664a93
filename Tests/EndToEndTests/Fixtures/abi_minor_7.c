/* A plugin built against a newer minor version (1.7) than the host's 1.0: it
 * may use fields the host does not have, so the host must refuse it. */
#include <cellhost/cellhost.h>

static const cellhost_plugin_descriptor descriptor = {
    .abi = { 1, 7 },
    .id = "test.abi-minor-7",
    .version = "1.0.0",
};

CELLHOST_EXPORT const cellhost_plugin_descriptor *cellhost_plugin_entry(void) {
    return &descriptor;
}
