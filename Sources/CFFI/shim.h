#include <ffi.h>

/* libffi describes its scalar types with C globals (ffi_type_sint32, ...).
 * `&ffi_type_void` in Swift is a modifying access to a C global: Swift 6
 * rejects it, and ThreadSanitizer reports two threads preparing call
 * interfaces at once (two CellHost instances loading plugins) as a race.
 * Swift takes their addresses through these accessors instead; libffi never
 * writes to them. */
static inline ffi_type *cellhost_ffi_void(void) { return &ffi_type_void; }
static inline ffi_type *cellhost_ffi_uint8(void) { return &ffi_type_uint8; }
static inline ffi_type *cellhost_ffi_sint8(void) { return &ffi_type_sint8; }
static inline ffi_type *cellhost_ffi_uint16(void) { return &ffi_type_uint16; }
static inline ffi_type *cellhost_ffi_sint16(void) { return &ffi_type_sint16; }
static inline ffi_type *cellhost_ffi_uint32(void) { return &ffi_type_uint32; }
static inline ffi_type *cellhost_ffi_sint32(void) { return &ffi_type_sint32; }
static inline ffi_type *cellhost_ffi_uint64(void) { return &ffi_type_uint64; }
static inline ffi_type *cellhost_ffi_sint64(void) { return &ffi_type_sint64; }
static inline ffi_type *cellhost_ffi_float(void) { return &ffi_type_float; }
static inline ffi_type *cellhost_ffi_double(void) { return &ffi_type_double; }
static inline ffi_type *cellhost_ffi_pointer(void) { return &ffi_type_pointer; }
