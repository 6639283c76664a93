/* SubTextCell: a C subclass of the shipped Swift class TextMessageCell that
 * overrides only plainTextForMessage:into:, so its rendering is inherited. */
#include <cellhost/cellhost.h>

static const cellhost_host *the_host; /* plainTextForMessage:into: gets no context */

static int32_t plain_text(cellhost_object *self, cellhost_sel cmd, const cellhost_message *msg,
                          cellhost_builder *out) {
    cellhost_message_info info = { .struct_size = sizeof info };
    the_host->message_info(msg, &info);
    the_host->append(out, "sub: ", 5, CELLHOST_STYLE_PLAIN);
    the_host->append(out, info.text.data, info.text.length, CELLHOST_STYLE_PLAIN);
    return CELLHOST_RENDERED;
}

static int32_t init(const cellhost_host *host, const char **reason) {
    the_host = host;
    return 0;
}

static const cellhost_method methods[] = {
    { CELLHOST_SEL_PLAIN_TEXT, CELLHOST_TYPES_PLAIN_TEXT, (cellhost_imp)plain_text },
};
static const char *const renders[] = { "text", NULL };
static const cellhost_class classes[] = {
    { .name = "SubTextCell", .superclass = "TextMessageCell", .message_classes = renders,
      .rank = 10, .methods = methods, .method_count = 1 },
};
static const cellhost_plugin_descriptor descriptor = {
    .abi = CELLHOST_ABI_VERSION_INIT,
    .id = "test.subtext",
    .version = "1.0.0",
    .init = init,
    .classes = classes,
    .class_count = 1,
};

CELLHOST_EXPORT const cellhost_plugin_descriptor *cellhost_plugin_entry(void) {
    return &descriptor;
}
