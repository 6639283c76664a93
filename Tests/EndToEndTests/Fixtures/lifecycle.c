/* LifecycleCell renders "lifecycle" messages as "alive". Its descriptor lists
 * the class, so describing it needs no init; the entry, init and deinit
 * append "entry\n", "init\n" and "deinit\n" to the file named by
 * $LIFECYCLE_MARKER, so tests can see what ran, and how often. */
#include <cellhost/cellhost.h>
#include <stdio.h>
#include <stdlib.h>

static void mark(const char *what) {
    const char *path = getenv("LIFECYCLE_MARKER");
    if (path == NULL) return;
    FILE *f = fopen(path, "a");
    if (f) { fprintf(f, "%s\n", what); fclose(f); }
}

static const cellhost_builder_api *builder;

static int32_t render(cellhost_object *self, cellhost_sel cmd, const cellhost_message *msg,
                      const cellhost_context *ctx, cellhost_builder *out) {
    builder->append(out, "alive", 5, CELLHOST_STYLE_PLAIN);
    return CELLHOST_RENDERED;
}

static int32_t init(const cellhost_host *host, const char **reason) {
    mark("init");
    builder = (const cellhost_builder_api *)host->get_extension(host, CELLHOST_EXT_BUILDER);
    return builder != NULL ? 0 : 1;
}

static void deinit(const cellhost_host *host) {
    mark("deinit");
}

static const cellhost_method methods[] = {
    CELLHOST_METHOD(CELLHOST_SEL_RENDER, CELLHOST_TYPES_RENDER, render),
};
static const char *const renders[] = { "lifecycle", NULL };
static const cellhost_class classes[] = {
    { .struct_size = sizeof(cellhost_class), .name = "LifecycleCell", .message_classes = renders,
      .methods = methods, .method_count = 1 },
};
static const cellhost_message_class tree[] = {
    { .struct_size = sizeof(cellhost_message_class), .name = "lifecycle" },
};
static const cellhost_plugin_descriptor descriptor = {
    .abi = CELLHOST_ABI_VERSION_INIT,
    .struct_size = sizeof(cellhost_plugin_descriptor),
    .id = "test.lifecycle",
    .version = "1.0.0",
    .init = init,
    .deinit = deinit,
    .classes = classes,
    .class_count = 1,
    .message_classes = tree,
    .message_class_count = 1,
};

CELLHOST_EXPORT const cellhost_plugin_descriptor *cellhost_plugin_entry(void) {
    mark("entry");
    return &descriptor;
}
