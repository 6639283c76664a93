// libmagic (file(1)'s content detection), for FileCell only: the host and the
// other plugins never link it.
#include <magic.h>
