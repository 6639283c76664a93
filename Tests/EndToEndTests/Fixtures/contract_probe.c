/* ContractProbeCell checks the status codes the host table promises (host.h)
 * and reports them, so a test can compare them with the header:
 *
 *   init   logs (warning) "init: A B C D E" for register_class(NULL),
 *          register_class(a class named "has space"),
 *          register_class(a render method with encoding "v@:"),
 *          register_message_class(an empty name), and
 *          register_class(ContractProbeCell) — expected "4 5 5 5 0";
 *          built with -DNO_FLAG the descriptor lacks
 *          CELLHOST_PLUGIN_REGISTERS_AT_INIT (and lists ContractProbeCell
 *          itself, so that rendering a "probe" message opens the plugin)
 *          and the last code is 5.
 *   render (message class "probe") appends "render: A B C D E" for
 *          register_class after init, send of an unknown selector, send with
 *          a wrong encoding, send_super naming a class off the chain, and
 *          send to NULL — expected "6 1 2 3 4" — then a line "base: DIR"
 *          with the context's base_directory.
 *
 * init and deinit append "init\n" / "deinit\n" to the file named by
 * $CONTRACT_MARKER. */
#include <cellhost/cellhost.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const cellhost_builder_api *builder_api(const cellhost_host *host) {
    return (const cellhost_builder_api *)host->get_extension(host, CELLHOST_EXT_BUILDER);
}

static void mark(const char *what) {
    const char *path = getenv("CONTRACT_MARKER");
    if (path == NULL) return;
    FILE *f = fopen(path, "a");
    if (f) { fprintf(f, "%s\n", what); fclose(f); }
}

static int32_t render(cellhost_object *self, cellhost_sel cmd, const cellhost_message *msg,
                      const cellhost_context *ctx, cellhost_builder *out);

static const cellhost_method methods[] = {
    CELLHOST_METHOD(CELLHOST_SEL_RENDER, CELLHOST_TYPES_RENDER, render),
};
static const cellhost_method bad_methods[] = {
    CELLHOST_METHOD(CELLHOST_SEL_RENDER, "v@:", render),
};
static const char *const renders[] = { "probe", NULL };
static const cellhost_class probe_class = {
    .struct_size = sizeof(cellhost_class), .name = "ContractProbeCell", .message_classes = renders,
    .methods = methods, .method_count = 1,
};
static const cellhost_class spaced_class = {
    .struct_size = sizeof(cellhost_class), .name = "has space", .methods = methods, .method_count = 1,
};
static const cellhost_class bad_encoding_class = {
    .struct_size = sizeof(cellhost_class), .name = "BadEncodingCell", .methods = bad_methods, .method_count = 1,
};
static const cellhost_message_class probe_tree = { .struct_size = sizeof(cellhost_message_class), .name = "probe" };
static const cellhost_message_class unnamed_tree = { .struct_size = sizeof(cellhost_message_class), .name = "" };

static const cellhost_host *the_host;

static int32_t render(cellhost_object *self, cellhost_sel cmd, const cellhost_message *msg,
                      const cellhost_context *ctx, cellhost_builder *out) {
    const cellhost_host *h = ctx->host;
    int32_t ignored = 0;
    void *args[] = { &msg, &ctx, &out };
    char text[512];
    int length = snprintf(text, sizeof text, "render: %d %d %d %d %d",
                          h->register_class(h, &probe_class),
                          h->send(self, "noSuchSelector", NULL, NULL, NULL),
                          h->send(self, CELLHOST_SEL_RENDER, "v@:", &ignored, args),
                          h->send_super("NotOnTheChain", self, CELLHOST_SEL_RENDER, CELLHOST_TYPES_RENDER, &ignored, args),
                          h->send(NULL, CELLHOST_SEL_RENDER, NULL, NULL, NULL));
    builder_api(h)->append(out, text, (size_t)length, CELLHOST_STYLE_PLAIN);
    builder_api(h)->line_break(out);
    length = snprintf(text, sizeof text, "base: %s", ctx->base_directory);
    builder_api(h)->append(out, text, (size_t)length, CELLHOST_STYLE_PLAIN);
    return CELLHOST_RENDERED;
}

static int32_t init(const cellhost_host *host, const char **reason) {
    char line[128];
    the_host = host;
    mark("init");
    snprintf(line, sizeof line, "init: %d %d %d %d %d",
             host->register_class(host, NULL),
             host->register_class(host, &spaced_class),
             host->register_class(host, &bad_encoding_class),
             host->register_message_class(host, &unnamed_tree),
             host->register_class(host, &probe_class));
    host->register_message_class(host, &probe_tree);
    ((const cellhost_log_api *)host->get_extension(host, CELLHOST_EXT_LOG))->log(host, CELLHOST_LOG_WARNING, line);
    return 0;
}

static void deinit(const cellhost_host *host) {
    if (host == the_host) mark("deinit");
    else mark("deinit with another host table");
}

static const cellhost_plugin_descriptor descriptor = {
    .abi = CELLHOST_ABI_VERSION_INIT,
    .struct_size = sizeof(cellhost_plugin_descriptor),
#ifndef NO_FLAG
    .flags = CELLHOST_PLUGIN_REGISTERS_AT_INIT,
#else
    .classes = &probe_class,
    .class_count = 1,
    .message_classes = &probe_tree,
    .message_class_count = 1,
#endif
    .id = "test.contract",
    .version = "1.0.0",
    .init = init,
    .deinit = deinit,
};

CELLHOST_EXPORT const cellhost_plugin_descriptor *cellhost_plugin_entry(void) {
    return &descriptor;
}
