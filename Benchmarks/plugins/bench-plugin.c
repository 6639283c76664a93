/* A small C plugin for the start-up and dispatch benchmarks, built against
 * the public header only. One source, many plugins: compile it with
 *
 *   -DPLUGIN_NUMBER=N   (default 0)
 *
 * and it becomes plugin "bench.pN", declaring message class "benchN" (child
 * of "text") with two classes for it: BenchNCell (rank 50) and its subclass
 * BenchNPlainCell (rank 10, a fallback), so linking resolves a superclass
 * across classes. Rendering appends one fixed line; nothing is allocated. */
#include <cellhost/cellhost.h>

#ifndef PLUGIN_NUMBER
#define PLUGIN_NUMBER 0
#endif
#define STRINGIFY2(x) #x
#define STRINGIFY(x) STRINGIFY2(x)
#define NUMBER STRINGIFY(PLUGIN_NUMBER)

/* The render IMP: exported (bench_render) so that the dispatch benchmark can
 * also call it through a plain C function pointer. */
CELLHOST_EXPORT int32_t bench_render(cellhost_object *self, cellhost_sel cmd, const cellhost_message *msg,
                                     const cellhost_context *ctx, cellhost_builder *out) {
    (void)self; (void)cmd; (void)msg;
    if (!out || !ctx || !ctx->host) return CELLHOST_RENDERED;  /* the dispatch benchmark passes no builder */
    const cellhost_builder_api *builder =
        (const cellhost_builder_api *)ctx->host->get_extension(ctx->host, CELLHOST_EXT_BUILDER);
    static const char text[] = "bench plugin " NUMBER;
    builder->append(out, text, sizeof text - 1, CELLHOST_STYLE_PLAIN);
    return CELLHOST_RENDERED;
}

static const cellhost_method methods[] = {
    CELLHOST_METHOD(CELLHOST_SEL_RENDER, CELLHOST_TYPES_RENDER, bench_render),
};
static const char *const renders[] = { "bench" NUMBER, NULL };
static const cellhost_class classes[] = {
    { .struct_size = sizeof(cellhost_class), .name = "Bench" NUMBER "Cell", .superclass = "MessageCell",
      .message_classes = renders, .rank = 50, .methods = methods, .method_count = 1 },
    { .struct_size = sizeof(cellhost_class), .name = "Bench" NUMBER "PlainCell", .superclass = "Bench" NUMBER "Cell",
      .message_classes = renders, .rank = 10, .methods = methods, .method_count = 1 },
};
static const cellhost_message_class message_classes[] = {
    { .struct_size = sizeof(cellhost_message_class), .name = "bench" NUMBER, .parent = "text" },
};
static const cellhost_plugin_descriptor descriptor = {
    .abi = CELLHOST_ABI_VERSION_INIT,
    .struct_size = sizeof(cellhost_plugin_descriptor),
    .id = "bench.p" NUMBER,
    .version = "1.0.0",
    .classes = classes,
    .class_count = 2,
    .message_classes = message_classes,
    .message_class_count = 1,
};

CELLHOST_EXPORT const cellhost_plugin_descriptor *cellhost_plugin_entry(void) {
    return &descriptor;
}
