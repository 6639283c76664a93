/* A plugin built against ABI 1.0, the contract before 2.0: the host must
 * refuse it before reading anything but the version, naming both versions
 * and telling the author to rebuild. */
#include <cellhost/cellhost.h>

static const cellhost_plugin_descriptor descriptor = {
    .abi = { 1, 0 },
    .struct_size = sizeof(cellhost_plugin_descriptor),
    .id = "test.abi-major-1",
    .version = "1.0.0",
};

CELLHOST_EXPORT const cellhost_plugin_descriptor *cellhost_plugin_entry(void) {
    return &descriptor;
}
