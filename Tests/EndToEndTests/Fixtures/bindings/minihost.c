/* minihost.c: a stand-in host of a few dozen lines for BindingsTests. It
 * opens one plugin built from Examples/plugins/hello.{c,cpp,rs}, prints its
 * descriptor and samples, and calls its render method against fake
 * extension tables, printing what the plugin appended. The output must be
 * the same byte for byte for the three languages. It checks what the real
 * host cannot show: that each struct_size is the C sizeof (so the Rust
 * binding's layout agrees), and that object_ivars receives the very class
 * struct the descriptor lists.
 *
 *     cc -std=c99 -I Sources/CellHostABI/include minihost.c -o minihost -ldl
 *     ./minihost libhello.so
 */
#include <cellhost/cellhost.h>
#include <dlfcn.h>
#include <stdio.h>
#include <string.h>

struct cellhost_object { unsigned char ivars[64] __attribute__((aligned(16))); };
struct cellhost_message { const char *name; int kind; }; /* kind: 0 string, 1 missing, 2 number */
struct cellhost_builder { char text[512]; size_t length; };

static const cellhost_class *expected_class;

static const char *str(const char *s) { return s ? s : "(null)"; }
static const char *size_check(uint32_t size, size_t expected) { return size == expected ? "sizeof" : "WRONG"; }

static void fake_log(const cellhost_host *host, cellhost_log_level level, const char *message) {
    (void)host;
    printf("  log %d: %s\n", (int)level, message);
}
static const cellhost_log_api log_api = { sizeof log_api, fake_log };

static cellhost_lookup fake_string(const cellhost_message *msg, const char *path, cellhost_string *out) {
    if (strcmp(path, "hello.name") != 0 || msg->kind == 1) return CELLHOST_MISSING;
    if (msg->kind == 2) return CELLHOST_WRONG_TYPE;
    out->data = msg->name;
    out->length = strlen(msg->name);
    return CELLHOST_FOUND;
}
static const cellhost_message_api message_api = { sizeof message_api, NULL, fake_string, NULL, NULL, NULL, NULL, NULL };

static void fake_append(cellhost_builder *out, const char *utf8, size_t length, cellhost_style_bits style) {
    out->length += (size_t)snprintf(out->text + out->length, sizeof out->text - out->length,
                                    "{%u:%.*s}", (unsigned)style, (int)length, utf8);
}
static const cellhost_builder_api builder_api = { sizeof builder_api, fake_append, NULL, NULL };

static const void *fake_get_extension(const cellhost_host *host, const char *id) {
    (void)host;
    if (strcmp(id, CELLHOST_EXT_LOG) == 0) return &log_api;
    if (strcmp(id, CELLHOST_EXT_MESSAGE) == 0) return &message_api;
    if (strcmp(id, CELLHOST_EXT_BUILDER) == 0) return &builder_api;
    return NULL;
}

static void *fake_object_ivars(cellhost_object *self, const cellhost_class *cls) {
    if (cls != expected_class) {
        printf("  object_ivars: not the descriptor's class struct\n");
        return NULL;
    }
    return self->ivars;
}

static const cellhost_host host = {
    .abi = CELLHOST_ABI_VERSION_INIT, .struct_size = sizeof host,
    .get_extension = fake_get_extension, .object_ivars = fake_object_ivars,
};

typedef int32_t (*render_fn)(cellhost_object *, cellhost_sel, const cellhost_message *,
                             const cellhost_context *, cellhost_builder *);

int main(int argc, char **argv) {
    if (argc != 2) return 2;
    void *library = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
    if (!library) { printf("dlopen: %s\n", dlerror()); return 1; }
    cellhost_plugin_entry_fn entry = (cellhost_plugin_entry_fn)dlsym(library, CELLHOST_PLUGIN_ENTRY_SYMBOL);
    if (!entry) { printf("no entry symbol\n"); return 1; }
    const cellhost_plugin_descriptor *d = entry();
    if (!d || d != entry()) { printf("entry returned NULL or another descriptor\n"); return 1; }

    printf("abi %u.%u compatible %d\n", d->abi.major, d->abi.minor,
           (int)cellhost_version_is_compatible(host.abi, d->abi));
    printf("descriptor struct_size %s flags %u\n", size_check(d->struct_size, sizeof *d), d->flags);
    printf("id %s\nversion %s\ndescription %s\nauthor %s\nlicense %s\n", str(d->id), str(d->version),
           str(d->description), str(d->author), str(d->license));
    printf("init %s deinit %s get_extension %s\n", d->init ? "yes" : "no", d->deinit ? "yes" : "no",
           d->get_extension ? "yes" : "no");
    for (uint32_t i = 0; i < d->message_class_count; i++)
        printf("message class %s parent %s struct_size %s\n", str(d->message_classes[i].name),
               str(d->message_classes[i].parent), size_check(d->message_classes[i].struct_size, sizeof(cellhost_message_class)));
    render_fn render = NULL;
    for (uint32_t i = 0; i < d->class_count; i++) {
        const cellhost_class *c = &d->classes[i];
        printf("class %s superclass %s rank %d flags %u instance_size %u struct_size %s\n", str(c->name),
               str(c->superclass), (int)c->rank, c->flags, c->instance_size, size_check(c->struct_size, sizeof *c));
        for (const char *const *m = c->message_classes; m && *m; m++) printf("  renders %s\n", *m);
        for (uint32_t j = 0; j < c->method_count; j++) {
            const cellhost_method *m = &c->methods[j];
            printf("  method %s %s imp %s struct_size %s\n", str(m->selector), str(m->types),
                   m->imp ? "set" : "NULL", size_check(m->struct_size, sizeof *m));
            if (i == 0 && strcmp(m->selector, CELLHOST_SEL_RENDER) == 0 && strcmp(m->types, CELLHOST_TYPES_RENDER) == 0)
                render = (render_fn)m->imp;
        }
    }
    if (d->get_extension) {
        const cellhost_samples *s = d->get_extension(CELLHOST_EXT_SAMPLES);
        printf("unknown extension %s\n", d->get_extension("org.example.none") ? "found" : "NULL");
        if (s) {
            printf("samples struct_size %s count %u\n", size_check(s->struct_size, sizeof *s), s->count);
            for (uint32_t i = 0; i < s->count && i < 256; i++) printf("  sample %s\n", s->messages[i]);
        }
    }
    if (d->class_count == 0 || !render) { printf("no render method\n"); return 1; }
    expected_class = &d->classes[0];

    const char *reason = NULL;
    int32_t status = d->init ? d->init(&host, &reason) : 0;
    printf("init %d %s\n", (int)status, str(reason));
    if (status != 0) return 1;

    static const cellhost_message messages[] = { {"Ann", 0}, {NULL, 1}, {NULL, 2}, {"Zoë", 0} };
    for (int conversation = 1; conversation <= 2; conversation++) {
        cellhost_object self;
        memset(&self, 0, sizeof self);
        printf("conversation %d\n", conversation);
        for (size_t i = 0; i < sizeof messages / sizeof messages[0]; i++) {
            if (conversation == 2 && i > 0) break;
            cellhost_builder out = { "", 0 };
            cellhost_context ctx = { sizeof ctx, 60, 0, 0, "hello", &host, "/" };
            int32_t result = render(&self, CELLHOST_SEL_RENDER, &messages[i], &ctx, &out);
            printf("  render %d %s\n", (int)result, out.text);
        }
    }
    if (d->deinit) d->deinit(&host);
    printf("done\n");
    return 0;
}
