/*
 * cellhost/host.h — the host table given to a plugin: extensions, objects and
 * dynamic dispatch, run-time registration.
 *
 * The host passes a `const cellhost_host *` to the plugin's `init` and
 * `deinit` and in every `cellhost_context`. Each plugin receives its own
 * table (so the host knows who logs and who registers); keep the pointer, it
 * stays valid until the plugin's `deinit` returns.
 *
 * Everything else the host offers is an extension, asked for by id:
 *
 *     CELLHOST_EXT_LOG      "cellhost.log"      log.h      logging
 *     CELLHOST_EXT_MESSAGE  "cellhost.message"  message.h  reading messages
 *     CELLHOST_EXT_BUILDER  "cellhost.builder"  builder.h  building content
 *     CELLHOST_EXT_OUTPUT   "cellhost.output"   output.h   format, colours, image settings
 *
 * Ask once (in `init`, or on first use) and keep the pointer: an extension
 * table is host-owned and valid for the life of the process.
 *
 * Threading, in the manner of CLAP:
 *   [any-thread]     may be called from any thread, at any time the table is valid;
 *   [init-thread]    only from inside the plugin's `init`, on that thread;
 *   [render-thread]  only from inside a call the host made into the plugin
 *                    (`init`, `deinit`, a method), on that thread.
 * A plugin without CELLHOST_PLUGIN_THREAD_SAFE (plugin.h) is called from one
 * thread for the whole run. The methods of a plugin that sets it may run on
 * several threads at once; every [render-thread] function here, in log.h,
 * message.h, builder.h and output.h may then be called from each of those
 * calls concurrently (with the message and builder of that call only): the
 * host makes them safe to call so. `object_ivars` gives every thread the same
 * storage: guarding it is the plugin's affair.
 */
#ifndef CELLHOST_HOST_H
#define CELLHOST_HOST_H

#include "builder.h"
#include "class.h"
#include "log.h"
#include "message.h"
#include "version.h"

#ifdef __cplusplus
extern "C" {
#endif

/**
 * What `send`, `send_super`, `register_class` and `register_message_class`
 * return: CELLHOST_OK or one of the CELLHOST_E_* codes.
 */
typedef int32_t cellhost_status_code;
enum {
    CELLHOST_OK = 0,
    /** `send`: the receiver's class chain has no method for the selector. */
    CELLHOST_E_UNRECOGNIZED_SELECTOR = 1,
    /** `send`: `types` was given and differs from the method's encoding. */
    CELLHOST_E_SIGNATURE_MISMATCH = 2,
    /** `send_super`: `current_class` is not a class of the receiver's chain. */
    CELLHOST_E_NO_SUCH_CLASS = 3,
    /** A NULL or otherwise unusable argument. */
    CELLHOST_E_INVALID_ARGUMENT = 4,
    /** `register_*`: the class or message class was refused; the reason was logged. */
    CELLHOST_E_REJECTED = 5,
    /** `register_*`: called outside `init`. */
    CELLHOST_E_TOO_LATE = 6,
    /**
     * `send`, `send_super`: the method found belongs to a class that is not
     * thread-safe (plugin.h, CELLHOST_PLUGIN_THREAD_SAFE) and the calling
     * method runs concurrently, off the run's one thread. Nothing was called.
     */
    CELLHOST_E_WRONG_THREAD = 7,
};

typedef struct cellhost_host cellhost_host;

struct cellhost_host {
    /** The contract version the host implements. Always first. */
    cellhost_version abi;
    /** sizeof(cellhost_host) as the host compiled it. */
    uint32_t struct_size;
    /** Reserved, zero. */
    uint32_t reserved;
    /** Host-private; do not touch. */
    void *host_data;

    /**
     * [any-thread] The host extension named `id` (CELLHOST_EXT_*), or NULL
     * when this host does not offer it. Each extension's header documents
     * its table.
     */
    const void *(*get_extension)(const cellhost_host *host, const char *id);

    /* ---- objects ------------------------------------------------------- */

    /**
     * [render-thread] The zeroed instance storage that class `cls` owns in
     * `self`: `cls->instance_size` bytes, 16-byte aligned. `cls` is the
     * address of the class struct the plugin described (in its descriptor or
     * to `register_class`), so each class of a chain finds its own block,
     * wherever the subclass came from. NULL when `cls` is not a class of
     * `self`'s chain or its instance_size is 0.
     */
    void *(*object_ivars)(cellhost_object *self, const cellhost_class *cls);
    /** [render-thread] The class name of `self`, host-owned, valid until the plugin's deinit. */
    const char *(*object_class_name)(cellhost_object *self);
    /**
     * [render-thread] The current conversation's instance of the class named
     * `class_name` (created on first use), or NULL when no such class is
     * registered, or when it is not thread-safe and the calling method runs
     * concurrently (plugin.h). Use it to send to another plugin's class.
     */
    cellhost_object *(*instance_of)(const cellhost_host *host, const char *class_name);

    /* ---- dynamic dispatch ---------------------------------------------- */

    /**
     * [render-thread] True when the class chain of `receiver` implements
     * `selector`; false when the calling method runs concurrently and the
     * receiver's class is not thread-safe (plugin.h), as `send` would refuse.
     */
    bool (*responds_to)(cellhost_object *receiver, const char *selector);
    /**
     * [render-thread] Call `selector` on `receiver`, looked up along its
     * class chain, through libffi. `args` points to an array with one
     * pointer per argument after `self` and `_cmd` (as libffi's avalue);
     * `ret` points to storage of the return type's size, or is NULL to
     * ignore it. When `types` is non-NULL the call is refused with
     * CELLHOST_E_SIGNATURE_MISMATCH unless it equals the method's encoding;
     * pass it whenever you can. Returns CELLHOST_OK,
     * CELLHOST_E_UNRECOGNIZED_SELECTOR, CELLHOST_E_SIGNATURE_MISMATCH,
     * CELLHOST_E_WRONG_THREAD (plugin.h, CELLHOST_PLUGIN_THREAD_SAFE) or
     * CELLHOST_E_INVALID_ARGUMENT (NULL receiver or selector).
     */
    cellhost_status_code (*send)(cellhost_object *receiver, const char *selector, const char *types,
                                 void *ret, void *const *args);
    /**
     * [render-thread] Like `send`, but starts the look-up at the superclass
     * of the class named `current_class` (the class whose method is
     * calling), exactly as Objective-C's `[super …]`. Returns what `send`
     * returns, or CELLHOST_E_NO_SUCH_CLASS when `current_class` is not on the
     * receiver's chain.
     */
    cellhost_status_code (*send_super)(const char *current_class, cellhost_object *receiver,
                                       const char *selector, const char *types,
                                       void *ret, void *const *args);

    /* ---- run-time registration ----------------------------------------- */

    /**
     * [init-thread] Register a class as if it were listed in the descriptor.
     * Only for plugins whose descriptor sets CELLHOST_PLUGIN_REGISTERS_AT_INIT
     * (plugin.h). The class and everything it points to stay plugin-owned and
     * must outlive `deinit`. Returns CELLHOST_OK; CELLHOST_E_REJECTED when the
     * class is invalid (bad name or struct_size, unparsable or wrong method
     * encoding, NULL IMP) or the descriptor lacks the flag, the reason logged
     * at CELLHOST_LOG_ERROR; CELLHOST_E_INVALID_ARGUMENT for NULL;
     * CELLHOST_E_TOO_LATE outside `init`. A class accepted here may still be
     * refused when the loaded classes are checked together (say, its
     * superclass does not exist): `cellhost list-plugins` shows those.
     */
    cellhost_status_code (*register_class)(const cellhost_host *host, const cellhost_class *cls);
    /**
     * [init-thread] Declare a message class, as the descriptor's
     * `message_classes` do. Same flag and return codes as `register_class`.
     */
    cellhost_status_code (*register_message_class)(const cellhost_host *host,
                                                   const cellhost_message_class *mc);
};

#ifdef __cplusplus
}
#endif

#endif /* CELLHOST_HOST_H */
