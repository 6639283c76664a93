/*
 * cellhost/version.h — the ABI version of the plugin contract and the rule
 * that decides whether a plugin and a host can work together.
 *
 * A plugin states the version of these headers it was compiled against in the
 * first member of its descriptor (plugin.h); the host states its own in the
 * first member of the host table (host.h). They work together when
 * `cellhost_version_is_compatible(host, plugin)` is true: the same major
 * version, and a plugin minor version no newer than the host's.
 *
 * Within a major version the contract only grows, and only in these ways:
 *   - a struct that carries `struct_size` gains fields at its end; the reader
 *     of a struct reads only the fields that fit in `struct_size` (an older,
 *     smaller struct is valid and its missing fields read as zero / NULL);
 *   - new features are new extensions (`get_extension`, host.h), never new
 *     members in the middle of a struct;
 *   - new constants are added; existing values never change meaning.
 * Anything else is a new major version. ABI 2.0 is frozen under these rules.
 *
 * Threading: everything here is [any-thread]: plain data and pure functions.
 */
#ifndef CELLHOST_VERSION_H
#define CELLHOST_VERSION_H

#include <stdbool.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/** Major version of the contract these headers describe. */
#define CELLHOST_ABI_MAJOR 2
/** Minor version of the contract these headers describe. */
#define CELLHOST_ABI_MINOR 0

/** A contract version. Plain data, copied freely. */
typedef struct cellhost_version {
    uint32_t major; /**< Incompatible changes bump this. */
    uint32_t minor; /**< Backwards-compatible additions bump this. */
} cellhost_version;

/** The version of the headers being compiled, for a descriptor's `abi` field. */
#define CELLHOST_ABI_VERSION_INIT { CELLHOST_ABI_MAJOR, CELLHOST_ABI_MINOR }

/**
 * The compatibility rule, in code: true when a host implementing `host` can
 * load a plugin compiled against `plugin`. The host calls exactly this; a
 * plugin may call it on `cellhost_host.abi` to refuse an older host itself.
 */
static inline bool cellhost_version_is_compatible(cellhost_version host, cellhost_version plugin) {
    return plugin.major == host.major && plugin.minor <= host.minor;
}

#ifdef __cplusplus
}
#endif

#endif /* CELLHOST_VERSION_H */
