/* A plugin compiled against older, smaller versions of the growable structs,
 * as one built against ABI 2.0 will look to a host of a later 2.x:
 *   - its descriptor ends before `get_extension`;
 *   - its classes end before `instance_size` (a smaller stride in the array);
 *   - its cellhost_message_info ends before `text`, with guard bytes after.
 * OldCellA and OldCellB render "old" / "older" as
 * "TYPE a|b: guard intact|guard overwritten". */
#include <cellhost/cellhost.h>
#include <stddef.h>
#include <string.h>

typedef struct old_class {
    uint32_t struct_size;
    uint32_t flags;
    const char *name;
    const char *superclass;
    const char *const *message_classes;
    int32_t rank;
    uint32_t method_count;
    const cellhost_method *methods;
} old_class;

typedef struct old_descriptor {
    cellhost_version abi;
    uint32_t struct_size;
    uint32_t flags;
    const char *id, *version, *description, *author, *license;
    int32_t (*init)(const cellhost_host *host, const char **reason);
    void (*deinit)(const cellhost_host *host);
    const old_class *classes;
    uint32_t class_count;
    uint32_t message_class_count;
    const cellhost_message_class *message_classes;
} old_descriptor;

/* The old message info: everything before `text`. */
#define OLD_INFO_SIZE offsetof(cellhost_message_info, text)

static int32_t render(cellhost_object *self, cellhost_sel cmd, const cellhost_message *msg,
                      const cellhost_context *ctx, cellhost_builder *out, const char *which) {
    const cellhost_message_api *m = ctx->host->get_extension(ctx->host, CELLHOST_EXT_MESSAGE);
    const cellhost_builder_api *b = ctx->host->get_extension(ctx->host, CELLHOST_EXT_BUILDER);
    unsigned char storage[sizeof(cellhost_message_info) + 64];
    memset(storage, 0xAB, sizeof storage);
    cellhost_message_info *info = (cellhost_message_info *)(void *)storage;
    info->struct_size = (uint32_t)OLD_INFO_SIZE;
    m->info(msg, info);
    int intact = 1;
    for (size_t i = OLD_INFO_SIZE; i < sizeof storage; i++) if (storage[i] != 0xAB) intact = 0;
    b->append(out, info->type.data, info->type.length, CELLHOST_STYLE_PLAIN);
    b->append(out, which, strlen(which), CELLHOST_STYLE_PLAIN);
    const char *verdict = intact ? ": guard intact" : ": guard overwritten";
    b->append(out, verdict, strlen(verdict), CELLHOST_STYLE_PLAIN);
    return CELLHOST_RENDERED;
}

static int32_t render_a(cellhost_object *self, cellhost_sel cmd, const cellhost_message *msg,
                        const cellhost_context *ctx, cellhost_builder *out) {
    return render(self, cmd, msg, ctx, out, " a");
}

static int32_t render_b(cellhost_object *self, cellhost_sel cmd, const cellhost_message *msg,
                        const cellhost_context *ctx, cellhost_builder *out) {
    return render(self, cmd, msg, ctx, out, " b");
}

static const cellhost_method methods_a[] = { CELLHOST_METHOD(CELLHOST_SEL_RENDER, CELLHOST_TYPES_RENDER, render_a) };
static const cellhost_method methods_b[] = { CELLHOST_METHOD(CELLHOST_SEL_RENDER, CELLHOST_TYPES_RENDER, render_b) };
static const char *const renders_a[] = { "old", NULL };
static const char *const renders_b[] = { "older", NULL };
static const old_class classes[] = {
    { .struct_size = sizeof(old_class), .name = "OldCellA", .message_classes = renders_a,
      .methods = methods_a, .method_count = 1 },
    { .struct_size = sizeof(old_class), .name = "OldCellB", .message_classes = renders_b,
      .methods = methods_b, .method_count = 1 },
};
static const cellhost_message_class tree[] = {
    { .struct_size = sizeof(cellhost_message_class), .name = "old" },
    { .struct_size = sizeof(cellhost_message_class), .name = "older", .parent = "old" },
};
static const old_descriptor descriptor = {
    .abi = CELLHOST_ABI_VERSION_INIT,
    .struct_size = sizeof(old_descriptor),
    .id = "test.old-structs",
    .version = "1.0.0",
    .classes = classes,
    .class_count = 2,
    .message_classes = tree,
    .message_class_count = 2,
};

_Static_assert(sizeof(old_class) < sizeof(cellhost_class), "the old class struct is smaller");
_Static_assert(sizeof(old_descriptor) < sizeof(cellhost_plugin_descriptor), "the old descriptor is smaller");

CELLHOST_EXPORT const cellhost_plugin_descriptor *cellhost_plugin_entry(void) {
    return (const cellhost_plugin_descriptor *)(const void *)&descriptor;
}
