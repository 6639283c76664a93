/*
 * cellhost/cellhost.h — the whole plugin contract in one include.
 *
 *     #include <cellhost/cellhost.h>
 *
 * Headers, one per concept:
 *   version.h    ABI version and the compatibility rule
 *   types.h      opaque handles (object, selector, message, builder) and IMPs
 *   context.h    the rendering context passed to cells
 *   log.h        extension "cellhost.log": logging
 *   message.h    extension "cellhost.message": message fields and typed look-ups
 *   builder.h    extension "cellhost.builder": styles and preformatted rows
 *   output.h     extension "cellhost.output": format, colours, image settings
 *   class.h      cell classes, methods, message classes
 *   selectors.h  well-known selectors, when they are sent, their encodings
 *   host.h       the host table: extensions, objects, dispatch, registration
 *   samples.h    plugin extension "cellhost.samples": messages for check-plugin
 *   plugin.h     the descriptor and the entry symbol
 */
#ifndef CELLHOST_CELLHOST_H
#define CELLHOST_CELLHOST_H

#include "version.h"
#include "types.h"
#include "context.h"
#include "log.h"
#include "message.h"
#include "builder.h"
#include "output.h"
#include "class.h"
#include "selectors.h"
#include "host.h"
#include "samples.h"
#include "plugin.h"

#endif /* CELLHOST_CELLHOST_H */
