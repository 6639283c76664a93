/*
 * cellhost/cellhost.h — the whole plugin contract in one include.
 *
 *     #include <cellhost/cellhost.h>
 *
 * Headers, one per concept:
 *   version.h    ABI version and the compatibility rule
 *   types.h      opaque handles (object, selector, message, builder) and IMPs
 *   context.h    the rendering context passed to cells
 *   message.h    message fields and typed look-ups
 *   builder.h    styles and preformatted cells for building content
 *   class.h      cell classes, methods, message classes
 *   selectors.h  well-known selectors and their required type encodings
 *   host.h       the host function table
 *   plugin.h     the descriptor and the entry symbol
 */
#ifndef CELLHOST_CELLHOST_H
#define CELLHOST_CELLHOST_H

#include "version.h"
#include "types.h"
#include "context.h"
#include "message.h"
#include "builder.h"
#include "class.h"
#include "selectors.h"
#include "host.h"
#include "plugin.h"

#endif /* CELLHOST_CELLHOST_H */
