/* A class with a method whose type encoding "i@:^" is malformed (a pointer to
 * nothing): the class is rejected at load time. The selector is not a
 * well-known one, so only the parser can object. */
#include <cellhost/cellhost.h>

static int32_t frobnicate(cellhost_object *self, cellhost_sel cmd) {
    return 0;
}

static const cellhost_method methods[] = {
    CELLHOST_METHOD("frobnicate", "i@:^", frobnicate),
};
static const char *const renders[] = { "text", NULL };
static const cellhost_class classes[] = {
    { .struct_size = sizeof(cellhost_class), .name = "MalformedEncodingCell", .message_classes = renders, .rank = 100,
      .methods = methods, .method_count = 1 },
};
static const cellhost_plugin_descriptor descriptor = {
    .abi = CELLHOST_ABI_VERSION_INIT,
    .struct_size = sizeof(cellhost_plugin_descriptor),
    .id = "test.malformed-encoding",
    .version = "1.0.0",
    .classes = classes,
    .class_count = 1,
};

CELLHOST_EXPORT const cellhost_plugin_descriptor *cellhost_plugin_entry(void) {
    return &descriptor;
}
