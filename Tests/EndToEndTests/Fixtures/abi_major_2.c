/* A plugin built against a future major version of the contract (2.0): the
 * 1.0 host must refuse it, naming both versions. */
#include <cellhost/cellhost.h>

static const cellhost_plugin_descriptor descriptor = {
    .abi = { 2, 0 },
    .id = "test.abi-major-2",
    .version = "1.0.0",
};

CELLHOST_EXPORT const cellhost_plugin_descriptor *cellhost_plugin_entry(void) {
    return &descriptor;
}
