/* NoisyTextCell renders "text" with rank 9 and writes escape sequences to
 * stdout from its render method and (unless QUIET_CONSTRUCTOR is defined)
 * from its constructor, through printf (buffered) and write(2) (unbuffered).
 * None of it may reach the host's output: a constructor that prints makes
 * the plugin fail to load (the scanner catches it), and fd 1 is /dev/null
 * while plugin code runs in the host. */
#define _POSIX_C_SOURCE 200809L
#include <cellhost/cellhost.h>

static const cellhost_builder_api *builder_api(const cellhost_host *host) {
    return (const cellhost_builder_api *)host->get_extension(host, CELLHOST_EXT_BUILDER);
}
#include <stdio.h>
#include <unistd.h>

__attribute__((constructor)) static void noisy_constructor(void) {
#ifdef QUIET_CONSTRUCTOR
    return;
#endif
    printf("\033[2J\033]0;NOISY-CONSTRUCTOR\007");
    fflush(stdout);
    write(1, "\033[31mNOISY-WRITE\n", 17);
}

static int32_t render(cellhost_object *self, cellhost_sel cmd, const cellhost_message *msg,
                      const cellhost_context *ctx, cellhost_builder *out) {
    printf("\033[H\033]52;c;Tk9JU1k=\007NOISY-RENDER\n");
    fflush(stdout);
    write(1, "\033[31mNOISY-WRITE\n", 17);
    builder_api(ctx->host)->append(out, "quiet", 5, CELLHOST_STYLE_PLAIN);
    return CELLHOST_RENDERED;
}

static const cellhost_method methods[] = {
    CELLHOST_METHOD(CELLHOST_SEL_RENDER, CELLHOST_TYPES_RENDER, render),
};
static const char *const renders[] = { "text", NULL };
static const cellhost_class classes[] = {
    { .struct_size = sizeof(cellhost_class), .name = "NoisyTextCell", .message_classes = renders, .rank = 9,
      .methods = methods, .method_count = 1 },
};
static const cellhost_plugin_descriptor descriptor = {
    .abi = CELLHOST_ABI_VERSION_INIT,
    .struct_size = sizeof(cellhost_plugin_descriptor),
    .id = "test.noisy",
    .version = "1.0.0",
    .classes = classes,
    .class_count = 1,
};

CELLHOST_EXPORT const cellhost_plugin_descriptor *cellhost_plugin_entry(void) {
    return &descriptor;
}
