/*
 * cellhost/selectors.h — the well-known selectors and the type encodings the
 * host requires for them.
 *
 * A class may implement any selector with any valid encoding, but when it
 * implements one of the selectors below its encoding must equal the one given
 * here (stack-offset digits, as the Objective-C runtime prints them, are
 * ignored). Otherwise the host rejects the whole class at load time and names
 * both encodings.
 *
 * Type encoding letters the host understands (Objective-C style):
 *   v void   B bool   c char   C unsigned char   s short   S unsigned short
 *   i int32  I uint32 l long   L unsigned long   q int64   Q uint64
 *   f float  d double *  char*  @ cellhost_object*   : cellhost_sel
 *   ^T pointer to T   {name} opaque struct (behind ^ only)
 *   {name=T...} struct passed by value   r const (ignored for calling)
 */
#ifndef CELLHOST_SELECTORS_H
#define CELLHOST_SELECTORS_H

#include "types.h"

#ifdef __cplusplus
extern "C" {
#endif

/** What `renderMessage:context:into:` and `plainTextForMessage:into:` return. */
typedef enum cellhost_render_result {
    /** The builder holds the cell's content; the host lays it out. */
    CELLHOST_RENDERED = 0,
    /**
     * The cell chooses not to render this message. Whatever it appended is
     * discarded and the next candidate is tried.
     */
    CELLHOST_DECLINED = 1,
    /**
     * The cell failed (say, a malformed payload). Log the reason with
     * `cellhost_host.log` first. Whatever it appended is discarded and the
     * next candidate is tried; the reason is shown in `--format json`.
     */
    CELLHOST_ERROR = 2,
} cellhost_render_result;

/**
 * Render the content of one message (required of every renderer; the host's
 * `MessageCell` renders the message's `text`).
 *
 *     int32_t render(cellhost_object *self, cellhost_sel _cmd,
 *                    const cellhost_message *msg, const cellhost_context *ctx,
 *                    cellhost_builder *out);          returns cellhost_render_result
 */
#define CELLHOST_SEL_RENDER "renderMessage:context:into:"
#define CELLHOST_TYPES_RENDER "i@:r^{cellhost_message}r^{cellhost_context}^{cellhost_builder}"

/**
 * Optional: a quick check before rendering. Returning false is a decline.
 *
 *     bool can_render(cellhost_object *self, cellhost_sel _cmd,
 *                     const cellhost_message *msg, const cellhost_context *ctx);
 */
#define CELLHOST_SEL_CAN_RENDER "canRenderMessage:context:"
#define CELLHOST_TYPES_CAN_RENDER "B@:r^{cellhost_message}r^{cellhost_context}"

/**
 * Optional: how many content rows the message needs at a content width, like
 * `sizeForMessageModel:withCollectionViewWidth:`. The host's `MessageCell`
 * answers by rendering; override it when you know cheaper.
 *
 *     int32_t rows(cellhost_object *self, cellhost_sel _cmd,
 *                  const cellhost_message *msg, uint32_t width);
 */
#define CELLHOST_SEL_ROWS "rowsForMessage:width:"
#define CELLHOST_TYPES_ROWS "i@:r^{cellhost_message}I"

/**
 * Optional: a conversation (one `cellhost render` run, or one embedding
 * session) begins or ends. Reset per-conversation state here.
 *
 *     void begin(cellhost_object *self, cellhost_sel _cmd, const cellhost_context *ctx);
 */
#define CELLHOST_SEL_WILL_BEGIN "conversationWillBegin:"
#define CELLHOST_SEL_DID_END "conversationDidEnd:"
#define CELLHOST_TYPES_CONVERSATION "v@:r^{cellhost_context}"

/**
 * Optional: a one-line plain-text summary of the message, for previews and
 * reply quotes. Append unstyled text to `out`.
 *
 *     int32_t plain(cellhost_object *self, cellhost_sel _cmd,
 *                   const cellhost_message *msg, cellhost_builder *out);
 */
#define CELLHOST_SEL_PLAIN_TEXT "plainTextForMessage:into:"
#define CELLHOST_TYPES_PLAIN_TEXT "i@:r^{cellhost_message}^{cellhost_builder}"

#ifdef __cplusplus
}
#endif

#endif /* CELLHOST_SELECTORS_H */
