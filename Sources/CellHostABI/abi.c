/* CellHostABI is header-only: the headers under include/cellhost are the
 * plugin contract. SwiftPM needs one source file per C target. */
#include "cellhost/cellhost.h"
