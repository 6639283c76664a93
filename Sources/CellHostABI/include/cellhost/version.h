/*
 * cellhost/version.h — the ABI version of the plugin contract.
 *
 * A plugin states the version of these headers it was compiled against in its
 * descriptor (see plugin.h). The host accepts a plugin when
 *
 *     plugin.major == host.major  &&  plugin.minor <= host.minor
 *
 * and refuses it otherwise, naming both versions and the file. A minor version
 * only ever appends fields at the end of structs and functions at the end of
 * the host table, so a plugin built against 1.0 runs on a 1.3 host; a major
 * version may change anything.
 */
#ifndef CELLHOST_VERSION_H
#define CELLHOST_VERSION_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/** Major version of the contract these headers describe. */
#define CELLHOST_ABI_MAJOR 1
/** Minor version of the contract these headers describe. */
#define CELLHOST_ABI_MINOR 0

/** A contract version. Plain data, copied freely. */
typedef struct cellhost_version {
    uint32_t major; /**< Incompatible changes bump this. */
    uint32_t minor; /**< Backwards-compatible additions bump this. */
} cellhost_version;

/** The version of the headers being compiled, for a descriptor's `abi` field. */
#define CELLHOST_ABI_VERSION_INIT { CELLHOST_ABI_MAJOR, CELLHOST_ABI_MINOR }

#ifdef __cplusplus
}
#endif

#endif /* CELLHOST_VERSION_H */
