/* The entry symbol exists but returns NULL ("cannot work at all"). */
#include <cellhost/cellhost.h>

CELLHOST_EXPORT const cellhost_plugin_descriptor *cellhost_plugin_entry(void) {
    return NULL;
}
