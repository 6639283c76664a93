/* init refuses to start with the reason "no licence key". LicensedCell
 * renders message class "licensed" (declared, child of "text"), so a render
 * of such a message opens the plugin and runs init. With -DREGISTERS_AT_INIT
 * the scanner runs init too. */
#include <cellhost/cellhost.h>

static int32_t init(const cellhost_host *host, const char **reason) {
    *reason = "no licence key";
    return 1;
}

static int32_t render(cellhost_object *self, cellhost_sel cmd, const cellhost_message *msg,
                      const cellhost_context *ctx, cellhost_builder *out) {
    return CELLHOST_ERROR; /* never reached: init failed */
}

static const cellhost_method methods[] = {
    CELLHOST_METHOD(CELLHOST_SEL_RENDER, CELLHOST_TYPES_RENDER, render),
};
static const char *const renders[] = { "licensed", NULL };
static const cellhost_class classes[] = {
    { .struct_size = sizeof(cellhost_class), .name = "LicensedCell", .message_classes = renders,
      .methods = methods, .method_count = 1 },
};
static const cellhost_message_class tree[] = {
    { .struct_size = sizeof(cellhost_message_class), .name = "licensed", .parent = "text" },
};

static const cellhost_plugin_descriptor descriptor = {
    .abi = CELLHOST_ABI_VERSION_INIT,
    .struct_size = sizeof(cellhost_plugin_descriptor),
#ifdef REGISTERS_AT_INIT
    .flags = CELLHOST_PLUGIN_REGISTERS_AT_INIT,
#endif
    .id = "test.init-fails",
    .version = "1.0.0",
    .init = init,
    .classes = classes,
    .class_count = 1,
    .message_classes = tree,
    .message_class_count = 1,
};

CELLHOST_EXPORT const cellhost_plugin_descriptor *cellhost_plugin_entry(void) {
    return &descriptor;
}
