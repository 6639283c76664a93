/* QuietPollCell: a C subclass of the shipped PollMessageCell (rank 10) whose
 * plainTextForMessage:context:into: always declines, so a reply quote must
 * get the superclass's summary ("Poll: …"), not the message's text. */
#include <cellhost/cellhost.h>

static int32_t plain_text(cellhost_object *self, cellhost_sel cmd, const cellhost_message *msg,
                          const cellhost_context *ctx, cellhost_builder *out) {
    return CELLHOST_DECLINED;
}

static const cellhost_method methods[] = {
    CELLHOST_METHOD(CELLHOST_SEL_PLAIN_TEXT, CELLHOST_TYPES_PLAIN_TEXT, plain_text),
};
static const char *const renders[] = { "poll", NULL };
static const cellhost_class classes[] = {
    { .struct_size = sizeof(cellhost_class), .name = "QuietPollCell", .superclass = "PollMessageCell",
      .message_classes = renders, .rank = 10, .methods = methods, .method_count = 1 },
};
static const cellhost_plugin_descriptor descriptor = {
    .abi = CELLHOST_ABI_VERSION_INIT,
    .struct_size = sizeof(cellhost_plugin_descriptor),
    .id = "test.quietpoll",
    .version = "1.0.0",
    .classes = classes,
    .class_count = 1,
};

CELLHOST_EXPORT const cellhost_plugin_descriptor *cellhost_plugin_entry(void) {
    return &descriptor;
}
