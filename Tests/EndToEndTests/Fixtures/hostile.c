/* A plugin that misbehaves on purpose, as chosen by -D flags at compile time:
 *
 *   loading:   CTOR_SEGV CTOR_ABORT CTOR_EXIT=N CTOR_UNDERSCORE_EXIT=N CTOR_HANG
 *              CTOR_RAISE=SIG CTOR_PRINT CTOR_PRINT_STDERR INIT_SEGV INIT_HANG INIT_PRINT
 *   rendering: RENDER_SEGV RENDER_HANG RENDER_ALLOC RENDER_PRINT RENDER_GARBAGE
 *              RENDER_WARN="text" (logs text as a warning, then renders)
 *              (each only for messages whose integer field "n" is a multiple of 3)
 *   PLUGIN_ID="..." (default "test.hostile"), CLASS_NAME="..." (default "HostileCell")
 *   REGISTERS_AT_INIT: set CELLHOST_PLUGIN_REGISTERS_AT_INIT, so that the
 *              scanner runs init to describe the plugin (INIT_* then fire while
 *              scanning; without it init runs first when a class is used)
 *   THREAD_SAFE: set CELLHOST_PLUGIN_THREAD_SAFE (the class keeps no state),
 *              so that render worker threads call it
 *
 * Its class HostileCell renders message class "hostile" (declared, child of
 * "text") at rank 50. The constructor appends "ctor\n" to the file named by
 * $HOSTILE_MARKER, so tests can count how often the library was opened. */
#define _GNU_SOURCE
#include <cellhost/cellhost.h>

static const cellhost_builder_api *builder_api(const cellhost_host *host) {
    return (const cellhost_builder_api *)host->get_extension(host, CELLHOST_EXT_BUILDER);
}
static const cellhost_message_api *message_api(const cellhost_host *host) {
    return (const cellhost_message_api *)host->get_extension(host, CELLHOST_EXT_MESSAGE);
}
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#ifndef PLUGIN_ID
#define PLUGIN_ID "test.hostile"
#endif
#ifndef CLASS_NAME
#define CLASS_NAME "HostileCell"
#endif

__attribute__((unused)) static volatile int *volatile nowhere = 0;

__attribute__((unused)) static void spin(void) { for (;;) { } }

__attribute__((constructor)) static void on_load(void) {
    const char *marker = getenv("HOSTILE_MARKER");
    if (marker) {
        FILE *f = fopen(marker, "a");
        if (f) { fputs("ctor\n", f); fclose(f); }
    }
#ifdef CTOR_SEGV
    *nowhere = 1;
#endif
#ifdef CTOR_ABORT
    abort();
#endif
#ifdef CTOR_EXIT
    exit(CTOR_EXIT);
#endif
#ifdef CTOR_UNDERSCORE_EXIT
    _exit(CTOR_UNDERSCORE_EXIT);
#endif
#ifdef CTOR_HANG
    spin();
#endif
#ifdef CTOR_RAISE
    raise(CTOR_RAISE);
#endif
#ifdef CTOR_PRINT
    printf("\033[2J\033]52;c;cHduZWQ=\a\033]0;pwned\a");
#endif
#ifdef CTOR_PRINT_STDERR
    fprintf(stderr, "hello from the constructor\n");
#endif
}

static int32_t init(const cellhost_host *host, const char **reason) {
    (void)host; (void)reason;
#ifdef INIT_SEGV
    *nowhere = 2;
#endif
#ifdef INIT_HANG
    spin();
#endif
#ifdef INIT_PRINT
    puts("pwned by init");
#endif
    return 0;
}

static int32_t render(cellhost_object *self, cellhost_sel cmd, const cellhost_message *msg,
                      const cellhost_context *ctx, cellhost_builder *out) {
    (void)self; (void)cmd;
    int64_t n = 1;
    message_api(ctx->host)->integer(msg, "n", &n);
    if (n % 3 == 0) {
#ifdef RENDER_SEGV
        *nowhere = 3;
#endif
#ifdef RENDER_HANG
        spin();
#endif
#ifdef RENDER_ALLOC
        for (;;) { char *p = malloc(1 << 20); if (p) memset(p, 1, 1 << 20); }
#endif
#ifdef RENDER_PRINT
        printf("\033[2J\033]0;pwned\a");
        fflush(stdout);
#endif
#ifdef RENDER_GARBAGE
        return 12345;
#endif
#ifdef RENDER_WARN
        ((const cellhost_log_api *)ctx->host->get_extension(ctx->host, CELLHOST_EXT_LOG))
            ->log(ctx->host, CELLHOST_LOG_WARNING, RENDER_WARN);
#endif
    }
    char text[64];
    int length = snprintf(text, sizeof text, "hostile cell rendered %lld", (long long)n);
    builder_api(ctx->host)->append(out, text, (size_t)length, CELLHOST_STYLE_PLAIN);
    return CELLHOST_RENDERED;
}

static const cellhost_method methods[] = {
    CELLHOST_METHOD(CELLHOST_SEL_RENDER, CELLHOST_TYPES_RENDER, render),
};
static const char *const renders[] = { "hostile", NULL };
static const cellhost_class classes[] = {
    { .struct_size = sizeof(cellhost_class), .name = CLASS_NAME, .message_classes = renders, .rank = 50, .methods = methods, .method_count = 1 },
};
static const cellhost_message_class message_classes[] = {
    { .struct_size = sizeof(cellhost_message_class), .name = "hostile", .parent = "text" },
};
static const cellhost_plugin_descriptor descriptor = {
    .abi = CELLHOST_ABI_VERSION_INIT,
    .struct_size = sizeof(cellhost_plugin_descriptor),
    .id = PLUGIN_ID,
    .version = "1.0.0",
    .init = init,
    .flags = 0
#ifdef REGISTERS_AT_INIT
        | CELLHOST_PLUGIN_REGISTERS_AT_INIT
#endif
#ifdef THREAD_SAFE
        | CELLHOST_PLUGIN_THREAD_SAFE
#endif
        ,
    .classes = classes,
    .class_count = 1,
    .message_classes = message_classes,
    .message_class_count = 1,
};

CELLHOST_EXPORT const cellhost_plugin_descriptor *cellhost_plugin_entry(void) {
    return &descriptor;
}
