/*
 * cellhost/selectors.h — the well-known selectors, when the host sends them,
 * and the type encodings it requires for them.
 *
 * A class may implement any selector with any valid encoding (other plugins
 * can call it with `cellhost_host.send`), but when it implements one of the
 * selectors below its encoding must equal the one given here (stack-offset
 * digits, as the Objective-C runtime prints them, are ignored). Otherwise the
 * host rejects the whole class at load time and names both encodings.
 *
 * Every well-known selector receives the rendering context (context.h).
 *
 * Type encoding letters the host understands (Objective-C style):
 *   v void   B bool   c char   C unsigned char   s short   S unsigned short
 *   i int32  I uint32 l long   L unsigned long   q int64   Q uint64
 *   f float  d double *  char*  @ cellhost_object*   : cellhost_sel
 *   ^T pointer to T   {name} opaque struct (behind ^ only)
 *   {name=T...} struct passed by value   r const (ignored for calling)
 *
 * Threading: the host sends every selector to a plugin without
 * CELLHOST_PLUGIN_THREAD_SAFE on one thread, one call at a time; to a plugin
 * with it, on several threads at once, each call on its own message
 * (plugin.h).
 */
#ifndef CELLHOST_SELECTORS_H
#define CELLHOST_SELECTORS_H

#include "types.h"

#ifdef __cplusplus
extern "C" {
#endif

/** What `renderMessage:context:into:` and `plainTextForMessage:context:into:` return. */
typedef int32_t cellhost_render_result;
enum {
    /** The builder holds the cell's content; the host lays it out. */
    CELLHOST_RENDERED = 0,
    /**
     * The cell chooses not to render this message. Whatever it appended is
     * discarded and the next candidate is tried.
     */
    CELLHOST_DECLINED = 1,
    /**
     * The cell failed (say, a malformed payload). Log the reason at
     * CELLHOST_LOG_ERROR first. Whatever it appended is discarded and the
     * next candidate is tried; the reason is shown in `--format json`.
     * Any other value is treated as CELLHOST_ERROR.
     */
    CELLHOST_ERROR = 2,
};

/**
 * Render the content of one message (required of every renderer; the host's
 * `MessageCell` renders the message's `text`). Sent for every message the
 * class is chosen for, after `canRenderMessage:context:` said yes.
 *
 *     int32_t render(cellhost_object *self, cellhost_sel _cmd,
 *                    const cellhost_message *msg, const cellhost_context *ctx,
 *                    cellhost_builder *out);          returns cellhost_render_result
 */
#define CELLHOST_SEL_RENDER "renderMessage:context:into:"
#define CELLHOST_TYPES_RENDER "i@:r^{cellhost_message}r^{cellhost_context}^{cellhost_builder}"

/**
 * Optional: a quick check, sent before `renderMessage:context:into:` for each
 * candidate. Returning false is a decline (the next candidate is tried).
 *
 *     bool can_render(cellhost_object *self, cellhost_sel _cmd,
 *                     const cellhost_message *msg, const cellhost_context *ctx);
 */
#define CELLHOST_SEL_CAN_RENDER "canRenderMessage:context:"
#define CELLHOST_TYPES_CAN_RENDER "B@:r^{cellhost_message}r^{cellhost_context}"

/**
 * Optional: a conversation (one `cellhost render` run over one input, or one
 * embedding session) begins or ends. Sent to an instance when it is created
 * (before its first other call) and when the conversation ends. Reset
 * per-conversation state here. `ctx->width` is 0 and `ctx->message_class` "".
 *
 *     void begin(cellhost_object *self, cellhost_sel _cmd, const cellhost_context *ctx);
 */
#define CELLHOST_SEL_WILL_BEGIN "conversationWillBegin:"
#define CELLHOST_SEL_DID_END "conversationDidEnd:"
#define CELLHOST_TYPES_CONVERSATION "v@:r^{cellhost_context}"

/**
 * Optional: a one-line plain-text summary of the message, for the quote of a
 * reply to it. Sent when a later message replies to this one, to the class
 * that would render it. Append unstyled text to `out` and return
 * CELLHOST_RENDERED, or CELLHOST_DECLINED for the superclass's summary (the
 * host's `MessageCell` uses the message's `text`).
 *
 *     int32_t plain(cellhost_object *self, cellhost_sel _cmd,
 *                   const cellhost_message *msg, const cellhost_context *ctx,
 *                   cellhost_builder *out);        returns cellhost_render_result
 */
#define CELLHOST_SEL_PLAIN_TEXT "plainTextForMessage:context:into:"
#define CELLHOST_TYPES_PLAIN_TEXT "i@:r^{cellhost_message}r^{cellhost_context}^{cellhost_builder}"

#ifdef __cplusplus
}
#endif

#endif /* CELLHOST_SELECTORS_H */
