/* init refuses to start with the reason "no licence key". */
#include <cellhost/cellhost.h>

static int32_t init(const cellhost_host *host, const char **reason) {
    *reason = "no licence key";
    return 1;
}

static const cellhost_plugin_descriptor descriptor = {
    .abi = CELLHOST_ABI_VERSION_INIT,
    .struct_size = sizeof(cellhost_plugin_descriptor),
    .id = "test.init-fails",
    .version = "1.0.0",
    .init = init,
};

CELLHOST_EXPORT const cellhost_plugin_descriptor *cellhost_plugin_entry(void) {
    return &descriptor;
}
