//! hello.rs: the plugin of hello.c in Rust, against the hand-written binding
//! `Sources/CellHostABI/bindings/rust/cellhost.rs` (no crates, no Cargo).
//!
//! It adds the message class "hello" and renders it as
//!
//!     Hello, <hello.name>! (greeting <n>)
//!
//! Rust notes: the descriptor, the class and the samples are `static`s the
//! host reads; C strings are byte literals ending in `\0`; the extension
//! tables are kept in atomics set by `init`. A panic must never unwind into
//! the host, so the render method runs its body under `catch_unwind` and
//! reports a panic as CELLHOST_ERROR (and the body avoids panicking, since
//! a panic message would go to stderr, which plugins must not write to).
//!
//! Build from the repository root (Rust 1.63 or newer), then try it:
//!
//!     rustc --edition 2021 --crate-type cdylib -O Examples/plugins/hello.rs -o /tmp/hello/libhello.so
//!     echo '{"type":"hello","hello":{"name":"Ann"}}' | cellhost render - --plugin-path /tmp/hello

// Every unsafe operation in its own `unsafe` block, even inside an `unsafe fn`.
#![warn(unsafe_op_in_unsafe_fn)]

#[path = "../../Sources/CellHostABI/bindings/rust/cellhost.rs"]
mod cellhost;

use cellhost::*;
use std::ffi::CStr;
use std::mem::size_of;
use std::os::raw::{c_char, c_void};
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::ptr;
use std::sync::atomic::{AtomicPtr, Ordering};

/// A NUL-terminated literal as a C string pointer.
macro_rules! c {
    ($s:literal) => {
        concat!($s, "\0").as_ptr() as *const c_char
    };
}

// The host's extension tables, asked for once in `init`; valid for the life of the process.
static MESSAGE_API: AtomicPtr<cellhost_message_api> = AtomicPtr::new(ptr::null_mut());
static BUILDER_API: AtomicPtr<cellhost_builder_api> = AtomicPtr::new(ptr::null_mut());
static LOG_API: AtomicPtr<cellhost_log_api> = AtomicPtr::new(ptr::null_mut());

fn api<T>(table: &AtomicPtr<T>) -> Option<&'static T> {
    // SAFETY: set once by `init` from the host's tables, which outlive the plugin.
    unsafe { table.load(Ordering::Acquire).as_ref() }
}

/// The instance variables of HelloMessageCell: one zeroed block per
/// instance, and the host makes one instance per class per conversation.
#[repr(C)]
struct HelloIvars {
    greetings: u32,
}

/// renderMessage:context:into: gets self and _cmd first, like every IMP.
unsafe extern "C" fn render(
    this: *mut cellhost_object,
    _cmd: cellhost_sel,
    msg: *const cellhost_message,
    ctx: *const cellhost_context,
    out: *mut cellhost_builder,
) -> cellhost_render_result {
    catch_unwind(AssertUnwindSafe(|| unsafe { greet(this, msg, ctx, out) }.unwrap_or(CELLHOST_ERROR)))
        .unwrap_or(CELLHOST_ERROR)
}

/// The body of `render`; `None` when a table or function is missing.
///
/// # Safety
/// The arguments are the ones the host passed to `render`.
unsafe fn greet(
    this: *mut cellhost_object,
    msg: *const cellhost_message,
    ctx: *const cellhost_context,
    out: *mut cellhost_builder,
) -> Option<cellhost_render_result> {
    let (message, builder) = (api(&MESSAGE_API)?, api(&BUILDER_API)?);
    // SAFETY: the host passes a valid context and table for this call.
    let host = unsafe { ctx.as_ref()?.host.as_ref()? };

    let mut found = cellhost_string { data: ptr::null(), length: 0 };
    // SAFETY: the message handle is valid during this call; `found` too.
    let name: &[u8] = match unsafe { (message.string?)(msg, c!("hello.name"), &mut found) } {
        CELLHOST_FOUND => unsafe { found.as_bytes() },
        CELLHOST_MISSING => b"world",
        _ => {
            // CELLHOST_WRONG_TYPE: log why, then let the next candidate try.
            let log = api(&LOG_API)?;
            unsafe { (log.log?)(host, CELLHOST_LOG_ERROR, c!("hello.name is not a string")) };
            return Some(CELLHOST_ERROR);
        }
    };

    // SAFETY: the block HELLO_CLASS owns in `this`: `instance_size` zeroed,
    // aligned bytes that only this class's methods touch.
    let ivars = unsafe { ((host.object_ivars?)(this, &HELLO_CLASS) as *mut HelloIvars).as_mut()? };
    ivars.greetings = ivars.greetings.wrapping_add(1); // wraps like the C and C++ versions

    let count = format!("! (greeting {})", ivars.greetings);
    let append = builder.append?;
    // SAFETY: the builder is valid during this call; the host copies the bytes.
    unsafe {
        append(out, c!("Hello, "), 7, CELLHOST_STYLE_PLAIN);
        append(out, name.as_ptr() as *const c_char, name.len(), CELLHOST_STYLE_STRONG);
        append(out, count.as_ptr() as *const c_char, count.len(), CELLHOST_STYLE_MUTED);
    }
    Some(CELLHOST_RENDERED)
}

static METHODS: [cellhost_method; 1] = [cellhost_method::render(render)];
static RENDERS: cellhost_static<[*const c_char; 2]> = cellhost_static([c!("hello"), ptr::null()]);

static HELLO_CLASS: cellhost_class = cellhost_class {
    struct_size: size_of::<cellhost_class>() as u32,
    flags: 0,
    name: c!("HelloMessageCell"),
    superclass: c!("MessageCell"), // the host's class: chrome, replies, reactions
    message_classes: &RENDERS.0 as *const *const c_char,
    rank: 0,
    method_count: METHODS.len() as u32,
    methods: &METHODS as *const cellhost_method,
    instance_size: size_of::<HelloIvars>() as u32,
};

/// "hello" is new to the host, so declare it, as a root message class.
static TREE: [cellhost_message_class; 1] = [cellhost_message_class {
    struct_size: size_of::<cellhost_message_class>() as u32,
    name: c!("hello"),
    parent: ptr::null(),
}];

/// Messages `cellhost check-plugin` renders with this plugin (samples.h).
static SAMPLE_MESSAGES: cellhost_static<[*const c_char; 1]> =
    cellhost_static([c!(r#"{"type":"hello","text":"hi","hello":{"name":"Ann"}}"#)]);
static SAMPLES: cellhost_samples = cellhost_samples {
    struct_size: size_of::<cellhost_samples>() as u32,
    count: 1,
    messages: &SAMPLE_MESSAGES.0 as *const *const c_char,
};

unsafe extern "C" fn get_extension(id: *const c_char) -> *const c_void {
    // SAFETY: the host passes a NUL-terminated id.
    if !id.is_null() && unsafe { CStr::from_ptr(id) } == CELLHOST_EXT_SAMPLES {
        &SAMPLES as *const cellhost_samples as *const c_void
    } else {
        ptr::null()
    }
}

unsafe extern "C" fn init(host: *const cellhost_host, reason: *mut *const c_char) -> i32 {
    // SAFETY: the host table is valid until deinit; each id names the table type asked for.
    let host = match unsafe { host.as_ref() } {
        Some(host) => host,
        None => return 1,
    };
    let message = unsafe { host.extension::<cellhost_message_api>(CELLHOST_EXT_MESSAGE) };
    let builder = unsafe { host.extension::<cellhost_builder_api>(CELLHOST_EXT_BUILDER) };
    let log = unsafe { host.extension::<cellhost_log_api>(CELLHOST_EXT_LOG) };
    match (message, builder, log) {
        (Some(message), Some(builder), Some(log)) => {
            MESSAGE_API.store(message as *const _ as *mut _, Ordering::Release);
            BUILDER_API.store(builder as *const _ as *mut _, Ordering::Release);
            LOG_API.store(log as *const _ as *mut _, Ordering::Release);
            0
        }
        _ => {
            // SAFETY: the host passes a valid out-pointer.
            unsafe { *reason = c!("the host lacks the message, builder or log extension") };
            1
        }
    }
}

static DESCRIPTOR: cellhost_plugin_descriptor = cellhost_plugin_descriptor {
    abi: CELLHOST_ABI_VERSION_INIT,
    struct_size: size_of::<cellhost_plugin_descriptor>() as u32,
    flags: 0,
    id: c!("org.example.hello"),
    version: c!("2.0.0"),
    description: c!("Says hello to the name in a hello message"),
    author: c!("CellHost examples"),
    license: c!("MIT"),
    init: Some(init),
    deinit: None,
    classes: &HELLO_CLASS,
    class_count: 1,
    message_class_count: 1,
    message_classes: &TREE as *const cellhost_message_class,
    get_extension: Some(get_extension),
};

/// The entry symbol (plugin.h): the same descriptor every time.
#[no_mangle]
pub extern "C" fn cellhost_plugin_entry() -> *const cellhost_plugin_descriptor {
    &DESCRIPTOR
}
