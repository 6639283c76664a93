/* The poll plugin exports nothing but cellhost_plugin_entry (declared in
 * <cellhost/plugin.h>); this header exists because SwiftPM C targets need a
 * public include directory. */
#include <cellhost/cellhost.h>
