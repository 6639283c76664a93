/* C classes in a chain with the CellKit classes of MixedSwiftCells
 * (Tests/Plugins/MixedSwiftCells), for MixedSubclassTests:
 *
 *     CBaseCell    : MessageCell      SwiftOnCCell subclasses it
 *     COnSwiftCell : SwiftBaseCell    (mixa)
 *
 * Each class keeps its own instance variables (reached with object_ivars and
 * the address of its own class struct): a render count and whether its
 * conversationWillBegin: ran. Every method calls super. */
#include <cellhost/cellhost.h>
#include <stdio.h>
#include <string.h>

static const cellhost_class classes[2];

typedef struct { int32_t renders; int32_t began; } base_ivars;
typedef struct { int32_t renders; int32_t began; double padding; } sub_ivars;

static void append(const cellhost_context *ctx, cellhost_builder *out, const char *text) {
    const cellhost_builder_api *b = ctx->host->get_extension(ctx->host, CELLHOST_EXT_BUILDER);
    b->append(out, text, strlen(text), CELLHOST_STYLE_PLAIN);
}

static void begin_super(const char *cls, cellhost_object *self, const cellhost_context *ctx) {
    void *args[] = { &ctx };
    ctx->host->send_super(cls, self, CELLHOST_SEL_WILL_BEGIN, CELLHOST_TYPES_CONVERSATION, NULL, args);
}

/* CBaseCell */

static int32_t base_render(cellhost_object *self, cellhost_sel cmd, const cellhost_message *msg,
                           const cellhost_context *ctx, cellhost_builder *out) {
    base_ivars *iv = ctx->host->object_ivars(self, &classes[0]);
    if (iv == NULL) return CELLHOST_ERROR;
    iv->renders++;
    char text[64];
    snprintf(text, sizeof text, "c-base#%d%s", (int)iv->renders, iv->began ? " began" : "");
    append(ctx, out, text);
    return CELLHOST_RENDERED;
}

static void base_begin(cellhost_object *self, cellhost_sel cmd, const cellhost_context *ctx) {
    base_ivars *iv = ctx->host->object_ivars(self, &classes[0]);
    if (iv != NULL) iv->began = 1;
    begin_super("CBaseCell", self, ctx);
}

/* COnSwiftCell */

static int32_t sub_render(cellhost_object *self, cellhost_sel cmd, const cellhost_message *msg,
                          const cellhost_context *ctx, cellhost_builder *out) {
    sub_ivars *iv = ctx->host->object_ivars(self, &classes[1]);
    if (iv == NULL) return CELLHOST_ERROR;
    iv->renders++;
    int32_t inherited = CELLHOST_ERROR;
    void *args[] = { &msg, &ctx, &out };
    if (ctx->host->send_super("COnSwiftCell", self, CELLHOST_SEL_RENDER, CELLHOST_TYPES_RENDER,
                              &inherited, args) != CELLHOST_OK || inherited != CELLHOST_RENDERED) {
        return CELLHOST_ERROR;
    }
    char text[64];
    snprintf(text, sizeof text, " c-sub#%d%s", (int)iv->renders, iv->began ? " began" : "");
    append(ctx, out, text);
    return CELLHOST_RENDERED;
}

static void sub_begin(cellhost_object *self, cellhost_sel cmd, const cellhost_context *ctx) {
    begin_super("COnSwiftCell", self, ctx);
    sub_ivars *iv = ctx->host->object_ivars(self, &classes[1]);
    if (iv != NULL) iv->began = 1;
}

static const cellhost_method base_methods[] = {
    CELLHOST_METHOD(CELLHOST_SEL_RENDER, CELLHOST_TYPES_RENDER, base_render),
    CELLHOST_METHOD(CELLHOST_SEL_WILL_BEGIN, CELLHOST_TYPES_CONVERSATION, base_begin),
};
static const cellhost_method sub_methods[] = {
    CELLHOST_METHOD(CELLHOST_SEL_RENDER, CELLHOST_TYPES_RENDER, sub_render),
    CELLHOST_METHOD(CELLHOST_SEL_WILL_BEGIN, CELLHOST_TYPES_CONVERSATION, sub_begin),
};
static const char *const sub_renders[] = { "mixa", NULL };

static const cellhost_class classes[2] = {
    { .struct_size = sizeof(cellhost_class), .name = "CBaseCell", .superclass = "MessageCell",
      .methods = base_methods, .method_count = 2, .instance_size = sizeof(base_ivars) },
    { .struct_size = sizeof(cellhost_class), .name = "COnSwiftCell", .superclass = "SwiftBaseCell",
      .message_classes = sub_renders, .methods = sub_methods, .method_count = 2,
      .instance_size = sizeof(sub_ivars) },
};

static const cellhost_plugin_descriptor descriptor = {
    .abi = CELLHOST_ABI_VERSION_INIT,
    .struct_size = sizeof(cellhost_plugin_descriptor),
    .id = "test.mixed.c",
    .version = "1.0.0",
    .classes = classes,
    .class_count = 2,
};

CELLHOST_EXPORT const cellhost_plugin_descriptor *cellhost_plugin_entry(void) {
    return &descriptor;
}
