/* libchafa (pkg-config "chafa", which also brings glib-2.0): draws the image
 * cell's previews as character cells. Only the ImageCell plugin depends on
 * this module, so the cellhost binary never links chafa or glib. */
#include <chafa.h>
