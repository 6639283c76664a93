/* Records the thread of every call: a line "<id> init <tid>" from `init` and
 * "<id> render <tid>" from each render, appended to the file named by
 * $THREAD_PROBE_FILE. Built twice by ThreadingTests: without THREAD_SAFE
 * (plugin test.threads.serial, class SerialProbeCell, message class
 * "serial-probe") and with -DTHREAD_SAFE (test.threads.safe, SafeProbeCell,
 * "safe-probe"), which sets CELLHOST_PLUGIN_THREAD_SAFE. The methods keep
 * nothing between calls, so the flag is true.
 *
 * With -DASK_HELPER too, SafeProbeCell reaches for SerialProbeCell (of the
 * plugin without the flag): its render appends whether `instance_of` gave an
 * instance, and, once a quote (`plainTextForMessage:`, called on the run's
 * one thread) kept one, what `send` to it returns. */
#define _GNU_SOURCE
#include <cellhost/cellhost.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/syscall.h>

#ifdef THREAD_SAFE
#define PROBE_ID "test.threads.safe"
#define PROBE_CLASS "SafeProbeCell"
#define PROBE_TYPE "safe-probe"
#define PROBE_FLAGS CELLHOST_PLUGIN_THREAD_SAFE
#else
#define PROBE_ID "test.threads.serial"
#define PROBE_CLASS "SerialProbeCell"
#define PROBE_TYPE "serial-probe"
#define PROBE_FLAGS 0
#endif

static void record(const char *what) {
    const char *path = getenv("THREAD_PROBE_FILE");
    if (!path) return;
    char line[128];
    int length = snprintf(line, sizeof line, "%s %s %ld\n", PROBE_ID, what, (long)syscall(SYS_gettid));
    int fd = open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0600);
    if (fd < 0) return;
    /* One write of a short line to an O_APPEND file: lines never interleave. */
    if (write(fd, line, (size_t)length) < 0) { /* nothing to do */ }
    close(fd);
}

static int32_t probe_init(const cellhost_host *host, const char **reason) {
    (void)host; (void)reason;
    record("init");
    return 0;
}

#ifdef ASK_HELPER
/* The helper instance a quote kept (written on one thread, read on others). */
static cellhost_object *kept;
#endif

static int32_t render(cellhost_object *self, cellhost_sel cmd, const cellhost_message *msg,
                      const cellhost_context *ctx, cellhost_builder *out) {
    (void)self; (void)cmd;
    const cellhost_message_api *messages = ctx->host->get_extension(ctx->host, CELLHOST_EXT_MESSAGE);
    const cellhost_builder_api *builder = ctx->host->get_extension(ctx->host, CELLHOST_EXT_BUILDER);
    cellhost_message_info info = { .struct_size = sizeof info };
    messages->info(msg, &info);
    record("render");
    builder->append(out, PROBE_TYPE ": ", sizeof PROBE_TYPE + 1, CELLHOST_STYLE_ACCENT);
    builder->append(out, info.text.data, info.text.length, CELLHOST_STYLE_PLAIN);
#ifdef ASK_HELPER
    cellhost_object *helper = ctx->host->instance_of(ctx->host, "SerialProbeCell");
    builder->append(out, helper ? " instance:yes" : " instance:no", helper ? 13 : 12, CELLHOST_STYLE_PLAIN);
    cellhost_object *held = __atomic_load_n(&kept, __ATOMIC_ACQUIRE);
    if (held) {
        cellhost_builder *scratch = out;
        void *args[3] = { &msg, &ctx, &scratch };
        int32_t result = 0;
        /* Renders the helper's text into this builder when it may be called. */
        cellhost_status_code status = ctx->host->send(held, CELLHOST_SEL_RENDER, CELLHOST_TYPES_RENDER, &result, args);
        char text[32];
        int length = snprintf(text, sizeof text, " send:%d", (int)status);
        builder->append(out, text, (size_t)length, CELLHOST_STYLE_PLAIN);
    }
#endif
    return CELLHOST_RENDERED;
}

#ifdef ASK_HELPER
static int32_t plain_text(cellhost_object *self, cellhost_sel cmd, const cellhost_message *msg,
                          const cellhost_context *ctx, cellhost_builder *out) {
    (void)self; (void)cmd; (void)msg;
    cellhost_object *helper = ctx->host->instance_of(ctx->host, "SerialProbeCell");
    if (helper) __atomic_store_n(&kept, helper, __ATOMIC_RELEASE);
    const cellhost_builder_api *builder = ctx->host->get_extension(ctx->host, CELLHOST_EXT_BUILDER);
    builder->append(out, "quoted", 6, CELLHOST_STYLE_PLAIN);
    return CELLHOST_RENDERED;
}
#endif

static const cellhost_method methods[] = {
    CELLHOST_METHOD(CELLHOST_SEL_RENDER, CELLHOST_TYPES_RENDER, render),
#ifdef ASK_HELPER
    CELLHOST_METHOD(CELLHOST_SEL_PLAIN_TEXT, CELLHOST_TYPES_PLAIN_TEXT, plain_text),
#endif
};
static const char *const renders[] = { PROBE_TYPE, NULL };
static const cellhost_class classes[] = {
    { .struct_size = sizeof(cellhost_class), .name = PROBE_CLASS, .superclass = NULL, .message_classes = renders,
      .rank = 0, .methods = methods, .method_count = sizeof methods / sizeof methods[0] },
};
static const cellhost_message_class message_classes[] = {
    { .struct_size = sizeof(cellhost_message_class), .name = PROBE_TYPE, .parent = NULL },
};
static const cellhost_plugin_descriptor descriptor = {
    .abi = CELLHOST_ABI_VERSION_INIT,
    .struct_size = sizeof(cellhost_plugin_descriptor),
    .flags = PROBE_FLAGS,
    .id = PROBE_ID,
    .version = "1.0.0",
    .description = "Records the thread of each call",
    .author = "CellHost tests",
    .license = "MIT",
    .init = probe_init,
    .classes = classes,
    .class_count = 1,
    .message_classes = message_classes,
    .message_class_count = 1,
};

CELLHOST_EXPORT const cellhost_plugin_descriptor *cellhost_plugin_entry(void) {
    return &descriptor;
}
