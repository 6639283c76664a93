//! Rust binding of the CellHost plugin ABI 2.0, written by hand, no crates.
//!
//! Every item mirrors one declaration of the C headers in
//! `Sources/CellHostABI/include/cellhost/`; those headers are the contract
//! and their comments the specification. Each item's doc comment names the
//! header it comes from. Names are the C names, so the headers and the C
//! examples read the same in Rust.
//!
//! Use it from a plugin crate without Cargo:
//!
//! ```text
//! #[path = "../../Sources/CellHostABI/bindings/rust/cellhost.rs"]
//! mod cellhost;
//! ```
//!
//! and build with `rustc --edition 2021 --crate-type cdylib -O`
//! (`Examples/plugins/hello.rs` is a complete plugin).
//!
//! Compatibility: Rust 1.63 or newer (Debian bookworm's `rustc`), so this file
//! avoids `core::ffi::c_char` (1.64), `offset_of!` and C string literals.
//!
//! Layout: every struct is `#[repr(C)]` with the fields, in the order, of the
//! C struct; the end-to-end test `BindingsTests.test_rustBinding_layoutAndConstants_matchTheCHeaders`
//! compares sizes, alignments, offsets and constants with the C compiler's.
//!
//! Conventions:
//! - C strings (`#define CELLHOST_SEL_RENDER "..."`) are `&'static CStr`
//!   constants; pass `.as_ptr()` to the host, compare incoming `const char *`
//!   with `CStr::from_ptr(p) == CONSTANT`.
//! - C function pointers are `Option<unsafe extern "C" fn(...)>`: NULL is `None`.
//! - Constants of an integer typedef (`cellhost_lookup`, `cellhost_style_bits`
//!   …) have that type; flag bits without a typedef are `u32`, the type of
//!   the field they go in.
//! - Structs that a plugin hands to the host as static data
//!   (`cellhost_method`, `cellhost_class`, `cellhost_message_class`,
//!   `cellhost_samples`, `cellhost_plugin_descriptor`) are `Sync`, so they can
//!   be `static`s; `cellhost_static` does the same for arrays of C strings.
#![allow(non_camel_case_types, non_upper_case_globals, dead_code)]
#![warn(unsafe_op_in_unsafe_fn)]

use std::ffi::CStr;
use std::marker::{PhantomData, PhantomPinned};
use std::mem::size_of;
use std::os::raw::{c_char, c_void};

/// Builds a `&'static CStr` from a byte literal that ends in its only NUL.
/// Used for constants, so a malformed literal is a compile-time error.
const fn cstr(bytes: &'static [u8]) -> &'static CStr {
    let mut i = 0;
    while i + 1 < bytes.len() {
        if bytes[i] == 0 {
            panic!("interior NUL in a C string constant");
        }
        i += 1;
    }
    if bytes.is_empty() || bytes[bytes.len() - 1] != 0 {
        panic!("a C string constant must end in a NUL");
    }
    // SAFETY: checked just above: one NUL, at the end.
    unsafe { CStr::from_bytes_with_nul_unchecked(bytes) }
}

// ===========================================================================
// version.h — the ABI version and the compatibility rule
// ===========================================================================

/// `CELLHOST_ABI_MAJOR` (version.h): major version of the contract these bindings describe.
pub const CELLHOST_ABI_MAJOR: u32 = 2;
/// `CELLHOST_ABI_MINOR` (version.h): minor version of the contract these bindings describe.
pub const CELLHOST_ABI_MINOR: u32 = 0;

/// `cellhost_version` (version.h): a contract version. Plain data.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct cellhost_version {
    /// Incompatible changes bump this.
    pub major: u32,
    /// Backwards-compatible additions bump this.
    pub minor: u32,
}

/// `CELLHOST_ABI_VERSION_INIT` (version.h): the version of these bindings,
/// for a descriptor's `abi` field.
pub const CELLHOST_ABI_VERSION_INIT: cellhost_version =
    cellhost_version { major: CELLHOST_ABI_MAJOR, minor: CELLHOST_ABI_MINOR };

/// `cellhost_version_is_compatible` (version.h, a static inline function in
/// C): true when a host implementing `host` can load a plugin compiled
/// against `plugin`: same major, plugin minor no newer than the host's.
pub const fn cellhost_version_is_compatible(host: cellhost_version, plugin: cellhost_version) -> bool {
    plugin.major == host.major && plugin.minor <= host.minor
}

// ===========================================================================
// types.h — opaque handles and the IMP type
// ===========================================================================

/// `cellhost_object` (types.h): an instance of a cell class (encoding `@`).
/// Opaque and host-owned: only ever behind a pointer.
#[repr(C)]
pub struct cellhost_object {
    _opaque: [u8; 0],
    _marker: PhantomData<(*mut u8, PhantomPinned)>,
}

/// `cellhost_message` (types.h): one parsed message (encoding
/// `^{cellhost_message}`), read with the message extension. Opaque.
#[repr(C)]
pub struct cellhost_message {
    _opaque: [u8; 0],
    _marker: PhantomData<(*mut u8, PhantomPinned)>,
}

/// `cellhost_builder` (types.h): the content being built for one message
/// (encoding `^{cellhost_builder}`), appended to with the builder extension. Opaque.
#[repr(C)]
pub struct cellhost_builder {
    _opaque: [u8; 0],
    _marker: PhantomData<(*mut u8, PhantomPinned)>,
}

/// `cellhost_sel` (types.h): a selector, a NUL-terminated name (encoding `:`).
/// Compare by content, never write through it.
pub type cellhost_sel = *const c_char;

/// `cellhost_imp` (types.h): a method implementation, stored type-erased.
/// The host calls it with the signature its type encoding describes, `self`
/// and `_cmd` first. Use the typed constructors of `cellhost_method` rather
/// than transmuting by hand.
pub type cellhost_imp = Option<unsafe extern "C" fn()>;

// ===========================================================================
// context.h — the rendering context
// ===========================================================================

/// `CELLHOST_CONTEXT_COLOR` (context.h): the output will carry colours.
pub const CELLHOST_CONTEXT_COLOR: u32 = 1 << 0;
/// `CELLHOST_CONTEXT_OUTGOING` (context.h): the message is outgoing.
pub const CELLHOST_CONTEXT_OUTGOING: u32 = 1 << 1;
/// `CELLHOST_CONTEXT_JSON` (context.h): the output is JSON for programs.
pub const CELLHOST_CONTEXT_JSON: u32 = 1 << 2;

/// `cellhost_context` (context.h): the rendering context (encoding
/// `r^{cellhost_context}`), passed to every well-known selector. Host-owned,
/// read-only, valid until the call that received it returns. Read a field
/// only when `struct_size` covers it.
#[repr(C)]
#[derive(Debug)]
pub struct cellhost_context {
    /// sizeof(cellhost_context) as the host compiled it.
    pub struct_size: u32,
    /// Columns available to the content, >= 1 (0 in the conversation selectors).
    pub width: u32,
    /// A set of `CELLHOST_CONTEXT_*` bits.
    pub flags: u32,
    /// Reserved, zero.
    pub reserved: u32,
    /// The message class the message is rendered as ("" in the conversation selectors).
    pub message_class: *const c_char,
    /// The host table of the plugin that owns the called method.
    pub host: *const cellhost_host,
    /// Absolute directory that relative paths in the message are relative to.
    pub base_directory: *const c_char,
}

// ===========================================================================
// log.h — the "cellhost.log" extension
// ===========================================================================

/// `CELLHOST_EXT_LOG` (log.h): id of the logging extension of the host.
pub const CELLHOST_EXT_LOG: &CStr = cstr(b"cellhost.log\0");

/// `cellhost_log_level` (log.h): severity of a log line, a `CELLHOST_LOG_*` value.
pub type cellhost_log_level = i32;
/// `CELLHOST_LOG_DEBUG` (log.h): shown with `--verbose`.
pub const CELLHOST_LOG_DEBUG: cellhost_log_level = 0;
/// `CELLHOST_LOG_INFO` (log.h): shown with `--verbose`.
pub const CELLHOST_LOG_INFO: cellhost_log_level = 1;
/// `CELLHOST_LOG_WARNING` (log.h): shown on stderr, prefixed with the plugin id.
pub const CELLHOST_LOG_WARNING: cellhost_log_level = 2;
/// `CELLHOST_LOG_ERROR` (log.h): shown on stderr; kept as the reason of a render that returns `CELLHOST_ERROR`.
pub const CELLHOST_LOG_ERROR: cellhost_log_level = 3;

/// `cellhost_log_api` (log.h): the logging functions. Host-owned, valid for
/// the life of the process.
#[repr(C)]
pub struct cellhost_log_api {
    /// sizeof(cellhost_log_api) as the host compiled it.
    pub struct_size: u32,
    /// [render-thread] Log one line as the plugin that owns `host`.
    pub log: Option<unsafe extern "C" fn(host: *const cellhost_host, level: cellhost_log_level, message: *const c_char)>,
}

// ===========================================================================
// message.h — the "cellhost.message" extension
// ===========================================================================

/// `CELLHOST_EXT_MESSAGE` (message.h): id of the message-reading extension of the host.
pub const CELLHOST_EXT_MESSAGE: &CStr = cstr(b"cellhost.message\0");

/// `cellhost_lookup` (message.h): the answer of a typed look-up.
pub type cellhost_lookup = i32;
/// `CELLHOST_FOUND` (message.h): found with the asked type; the out-parameter is set.
pub const CELLHOST_FOUND: cellhost_lookup = 0;
/// `CELLHOST_MISSING` (message.h): no value at that path (or JSON null); out-parameter untouched.
pub const CELLHOST_MISSING: cellhost_lookup = 1;
/// `CELLHOST_WRONG_TYPE` (message.h): a value of another type; out-parameter untouched.
pub const CELLHOST_WRONG_TYPE: cellhost_lookup = 2;

/// `cellhost_direction` (message.h): which way a message goes.
pub type cellhost_direction = u32;
/// `CELLHOST_INCOMING` (message.h).
pub const CELLHOST_INCOMING: cellhost_direction = 0;
/// `CELLHOST_OUTGOING` (message.h).
pub const CELLHOST_OUTGOING: cellhost_direction = 1;

/// `cellhost_status` (message.h): delivery status of a message.
pub type cellhost_status = u32;
/// `CELLHOST_STATUS_NONE` (message.h).
pub const CELLHOST_STATUS_NONE: cellhost_status = 0;
/// `CELLHOST_STATUS_SENDING` (message.h).
pub const CELLHOST_STATUS_SENDING: cellhost_status = 1;
/// `CELLHOST_STATUS_SENT` (message.h).
pub const CELLHOST_STATUS_SENT: cellhost_status = 2;
/// `CELLHOST_STATUS_DELIVERED` (message.h).
pub const CELLHOST_STATUS_DELIVERED: cellhost_status = 3;
/// `CELLHOST_STATUS_READ` (message.h).
pub const CELLHOST_STATUS_READ: cellhost_status = 4;
/// `CELLHOST_STATUS_FAILED` (message.h).
pub const CELLHOST_STATUS_FAILED: cellhost_status = 5;

/// `cellhost_string` (message.h): a host-owned UTF-8 string, NUL-terminated,
/// `length` bytes before the NUL.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct cellhost_string {
    /// Never NULL; "" when absent.
    pub data: *const c_char,
    /// Bytes, not counting the NUL.
    pub length: usize,
}

impl cellhost_string {
    /// The bytes of the string (without the NUL).
    ///
    /// # Safety
    /// `self` must come from the host and the call that produced it must not
    /// have returned yet (message.h: strings live as long as the message).
    pub unsafe fn as_bytes<'a>(&self) -> &'a [u8] {
        if self.data.is_null() {
            &[]
        } else {
            // SAFETY: the host guarantees `length` readable bytes at `data`.
            unsafe { std::slice::from_raw_parts(self.data as *const u8, self.length) }
        }
    }
}

/// `cellhost_message_info` (message.h): the common fields of a message,
/// filled by `cellhost_message_api::info`. Set `struct_size` first
/// (`cellhost_message_info::new()` does).
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct cellhost_message_info {
    /// sizeof(cellhost_message_info) as the plugin compiled it; set by the caller.
    pub struct_size: u32,
    pub direction: cellhost_direction,
    pub status: cellhost_status,
    /// True when `time` holds a time.
    pub has_time: bool,
    /// True when the message was edited.
    pub edited: bool,
    /// Seconds since the Unix epoch (UTC).
    pub time: f64,
    /// Message class as given ("" when missing). `type` in C.
    pub r#type: cellhost_string,
    pub id: cellhost_string,
    pub sender_id: cellhost_string,
    pub sender_name: cellhost_string,
    /// The body and every type's fallback text.
    pub text: cellhost_string,
}

impl cellhost_message_info {
    /// A zeroed info with `struct_size` set, ready for `cellhost_message_api::info`.
    pub const fn new() -> Self {
        const EMPTY: cellhost_string = cellhost_string { data: std::ptr::null(), length: 0 };
        cellhost_message_info {
            struct_size: size_of::<cellhost_message_info>() as u32,
            direction: CELLHOST_INCOMING,
            status: CELLHOST_STATUS_NONE,
            has_time: false,
            edited: false,
            time: 0.0,
            r#type: EMPTY,
            id: EMPTY,
            sender_id: EMPTY,
            sender_name: EMPTY,
            text: EMPTY,
        }
    }
}

/// `cellhost_message_api` (message.h): the message-reading functions.
/// Host-owned, valid for the life of the process. [render-thread]
#[repr(C)]
pub struct cellhost_message_api {
    /// sizeof(cellhost_message_api) as the host compiled it.
    pub struct_size: u32,
    /// Fill `out` with the common fields of `msg` (set `out.struct_size` first).
    pub info: Option<unsafe extern "C" fn(msg: *const cellhost_message, out: *mut cellhost_message_info)>,
    /// String at `path`; numbers are WRONG_TYPE, not converted.
    pub string: Option<unsafe extern "C" fn(msg: *const cellhost_message, path: *const c_char, out: *mut cellhost_string) -> cellhost_lookup>,
    /// Number at `path` (any JSON number, as a double).
    pub number: Option<unsafe extern "C" fn(msg: *const cellhost_message, path: *const c_char, out: *mut f64) -> cellhost_lookup>,
    /// Integer at `path`: a JSON number with no fraction that fits i64.
    pub integer: Option<unsafe extern "C" fn(msg: *const cellhost_message, path: *const c_char, out: *mut i64) -> cellhost_lookup>,
    /// Boolean at `path`.
    pub boolean: Option<unsafe extern "C" fn(msg: *const cellhost_message, path: *const c_char, out: *mut bool) -> cellhost_lookup>,
    /// Element count of the array (or member count of the object) at `path`.
    pub count: Option<unsafe extern "C" fn(msg: *const cellhost_message, path: *const c_char, out: *mut usize) -> cellhost_lookup>,
    /// Every element of the array of numbers at `path`, in one call.
    pub numbers: Option<unsafe extern "C" fn(msg: *const cellhost_message, path: *const c_char, out: *mut f64, capacity: usize, count: *mut usize) -> cellhost_lookup>,
}

// ===========================================================================
// builder.h — the "cellhost.builder" extension
// ===========================================================================

/// `CELLHOST_EXT_BUILDER` (builder.h): id of the content-building extension of the host.
pub const CELLHOST_EXT_BUILDER: &CStr = cstr(b"cellhost.builder\0");

/// `cellhost_style_bits` (builder.h): semantic styles, combinable as bits.
pub type cellhost_style_bits = u32;
/// `CELLHOST_STYLE_PLAIN` (builder.h).
pub const CELLHOST_STYLE_PLAIN: cellhost_style_bits = 0;
/// `CELLHOST_STYLE_STRONG` (builder.h): bold.
pub const CELLHOST_STYLE_STRONG: cellhost_style_bits = 1 << 0;
/// `CELLHOST_STYLE_EMPHASIS` (builder.h): italic.
pub const CELLHOST_STYLE_EMPHASIS: cellhost_style_bits = 1 << 1;
/// `CELLHOST_STYLE_CODE` (builder.h): inline code.
pub const CELLHOST_STYLE_CODE: cellhost_style_bits = 1 << 2;
/// `CELLHOST_STYLE_LINK` (builder.h): a URL.
pub const CELLHOST_STYLE_LINK: cellhost_style_bits = 1 << 3;
/// `CELLHOST_STYLE_MUTED` (builder.h): secondary information.
pub const CELLHOST_STYLE_MUTED: cellhost_style_bits = 1 << 4;
/// `CELLHOST_STYLE_ACCENT` (builder.h): titles, icons.
pub const CELLHOST_STYLE_ACCENT: cellhost_style_bits = 1 << 5;
/// `CELLHOST_STYLE_SUCCESS` (builder.h).
pub const CELLHOST_STYLE_SUCCESS: cellhost_style_bits = 1 << 6;
/// `CELLHOST_STYLE_WARNING` (builder.h).
pub const CELLHOST_STYLE_WARNING: cellhost_style_bits = 1 << 7;
/// `CELLHOST_STYLE_ERROR` (builder.h).
pub const CELLHOST_STYLE_ERROR: cellhost_style_bits = 1 << 8;
/// `CELLHOST_STYLE_QUOTE` (builder.h): quoted text.
pub const CELLHOST_STYLE_QUOTE: cellhost_style_bits = 1 << 9;

/// `CELLHOST_BLOCK_HAS_FG` (builder.h): `cellhost_block_cell.fg` is meaningful.
pub const CELLHOST_BLOCK_HAS_FG: u32 = 1 << 0;
/// `CELLHOST_BLOCK_HAS_BG` (builder.h): `cellhost_block_cell.bg` is meaningful.
pub const CELLHOST_BLOCK_HAS_BG: u32 = 1 << 1;

/// `cellhost_block_cell` (builder.h): one terminal cell of a preformatted
/// row. Colours are 0xRRGGBB. Plain data; never grows.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct cellhost_block_cell {
    /// A printable character one column wide.
    pub codepoint: u32,
    pub fg: u32,
    pub bg: u32,
    /// `CELLHOST_BLOCK_*` bits.
    pub flags: u32,
}

/// `cellhost_builder_api` (builder.h): the content-building functions.
/// Host-owned, valid for the life of the process. [render-thread]
#[repr(C)]
pub struct cellhost_builder_api {
    /// sizeof(cellhost_builder_api) as the host compiled it.
    pub struct_size: u32,
    /// Append `length` bytes of UTF-8 text in `style` (copied before it returns).
    pub append: Option<unsafe extern "C" fn(out: *mut cellhost_builder, utf8: *const c_char, length: usize, style: cellhost_style_bits)>,
    /// End the current line; an empty line when called twice.
    pub line_break: Option<unsafe extern "C" fn(out: *mut cellhost_builder)>,
    /// Append one preformatted row of `count` cells, never wrapped.
    pub append_row: Option<unsafe extern "C" fn(out: *mut cellhost_builder, cells: *const cellhost_block_cell, count: usize)>,
}

// ===========================================================================
// output.h — the "cellhost.output" extension
// ===========================================================================

/// `CELLHOST_EXT_OUTPUT` (output.h): id of the output-settings extension of the host.
pub const CELLHOST_EXT_OUTPUT: &CStr = cstr(b"cellhost.output\0");

/// `cellhost_output_format` (output.h): a `CELLHOST_FORMAT_*` value.
pub type cellhost_output_format = u32;
/// `CELLHOST_FORMAT_ANSI` (output.h): styled terminal output.
pub const CELLHOST_FORMAT_ANSI: cellhost_output_format = 0;
/// `CELLHOST_FORMAT_PLAIN` (output.h): text only.
pub const CELLHOST_FORMAT_PLAIN: cellhost_output_format = 1;
/// `CELLHOST_FORMAT_JSON` (output.h): JSON for programs.
pub const CELLHOST_FORMAT_JSON: cellhost_output_format = 2;
/// `CELLHOST_FORMAT_HTML` (output.h): an HTML page; the host shows pictures itself.
pub const CELLHOST_FORMAT_HTML: cellhost_output_format = 3;

/// `cellhost_color_depth` (output.h): a `CELLHOST_COLORS_*` value.
pub type cellhost_color_depth = u32;
/// `CELLHOST_COLORS_NONE` (output.h): no colours; block cells show their characters only.
pub const CELLHOST_COLORS_NONE: cellhost_color_depth = 0;
/// `CELLHOST_COLORS_16` (output.h): the 16 ANSI colours.
pub const CELLHOST_COLORS_16: cellhost_color_depth = 1;
/// `CELLHOST_COLORS_256` (output.h): the xterm 256-colour palette.
pub const CELLHOST_COLORS_256: cellhost_color_depth = 2;
/// `CELLHOST_COLORS_TRUECOLOR` (output.h): 24-bit colour.
pub const CELLHOST_COLORS_TRUECOLOR: cellhost_color_depth = 3;

/// `cellhost_image_mode` (output.h): a `CELLHOST_IMAGES_*` value.
pub type cellhost_image_mode = u32;
/// `CELLHOST_IMAGES_NONE` (output.h): no previews.
pub const CELLHOST_IMAGES_NONE: cellhost_image_mode = 0;
/// `CELLHOST_IMAGES_SYMBOLS` (output.h): previews made of characters and colours.
pub const CELLHOST_IMAGES_SYMBOLS: cellhost_image_mode = 1;

/// `cellhost_output_info` (output.h): the run's output settings, filled by
/// `cellhost_output_api::info`; set `struct_size` first.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default)]
pub struct cellhost_output_info {
    /// sizeof(cellhost_output_info) as the plugin compiled it; set by the caller.
    pub struct_size: u32,
    pub format: cellhost_output_format,
    pub colors: cellhost_color_depth,
    pub images: cellhost_image_mode,
    /// The most rows a picture may take; >= 1.
    pub image_rows: u32,
}

/// `cellhost_output_api` (output.h): the output-settings functions.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct cellhost_output_api {
    /// sizeof(cellhost_output_api) as the host compiled it.
    pub struct_size: u32,
    /// [render-thread] Fill `out` with the run's output settings.
    pub info: Option<unsafe extern "C" fn(host: *const cellhost_host, out: *mut cellhost_output_info)>,
}

// ===========================================================================
// class.h — cell classes, methods, message classes
// ===========================================================================

/// `cellhost_method` (class.h): one method: selector, type encoding and
/// implementation. Build it with `cellhost_method::new` (the
/// `CELLHOST_METHOD` macro of C) or a typed constructor such as
/// `cellhost_method::render`.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct cellhost_method {
    /// sizeof(cellhost_method).
    pub struct_size: u32,
    /// Selector name, e.g. `CELLHOST_SEL_RENDER`. NUL-terminated, non-NULL.
    pub selector: *const c_char,
    /// Objective-C style type encoding of the IMP (selectors.h). Non-NULL.
    pub types: *const c_char,
    /// The implementation, type-erased. Non-NULL.
    pub imp: cellhost_imp,
}

/// `cellhost_class` (class.h): a cell class. `instance_size` bytes of zeroed
/// storage per instance are reached with `cellhost_host::object_ivars(self, &CLASS)`.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct cellhost_class {
    /// sizeof(cellhost_class) as the plugin compiled it.
    pub struct_size: u32,
    /// Reserved for flags; 0 in ABI 2.0.
    pub flags: u32,
    /// Class name, unique across all plugins; printable ASCII without spaces.
    pub name: *const c_char,
    /// Name of the superclass; NULL means "MessageCell".
    pub superclass: *const c_char,
    /// NULL-terminated array of message class names; NULL registers for none.
    pub message_classes: *const *const c_char,
    /// Rank among the candidates of each of its message classes; highest wins.
    pub rank: i32,
    /// Number of entries in `methods`.
    pub method_count: u32,
    /// The methods; `method_count` entries.
    pub methods: *const cellhost_method,
    /// Bytes of this class's own zeroed per-instance storage; 0 for none, at most 1 MiB.
    pub instance_size: u32,
}

/// `cellhost_message_class` (class.h): a message class declared by a plugin.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct cellhost_message_class {
    /// sizeof(cellhost_message_class) as the plugin compiled it.
    pub struct_size: u32,
    /// The new class, e.g. "gif".
    pub name: *const c_char,
    /// Its parent, e.g. "image"; NULL for a root class.
    pub parent: *const c_char,
}

// ===========================================================================
// selectors.h — well-known selectors and their encodings
// ===========================================================================

/// `cellhost_render_result` (selectors.h): what render and plain-text return.
pub type cellhost_render_result = i32;
/// `CELLHOST_RENDERED` (selectors.h): the builder holds the cell's content.
pub const CELLHOST_RENDERED: cellhost_render_result = 0;
/// `CELLHOST_DECLINED` (selectors.h): the cell chooses not to render; the next candidate is tried.
pub const CELLHOST_DECLINED: cellhost_render_result = 1;
/// `CELLHOST_ERROR` (selectors.h): the cell failed; log the reason at `CELLHOST_LOG_ERROR` first.
pub const CELLHOST_ERROR: cellhost_render_result = 2;

/// `CELLHOST_SEL_RENDER` (selectors.h): render the content of one message.
pub const CELLHOST_SEL_RENDER: &CStr = cstr(b"renderMessage:context:into:\0");
/// `CELLHOST_TYPES_RENDER` (selectors.h): the encoding of `cellhost_render_imp`.
pub const CELLHOST_TYPES_RENDER: &CStr = cstr(b"i@:r^{cellhost_message}r^{cellhost_context}^{cellhost_builder}\0");
/// `CELLHOST_SEL_CAN_RENDER` (selectors.h): optional quick check before rendering.
pub const CELLHOST_SEL_CAN_RENDER: &CStr = cstr(b"canRenderMessage:context:\0");
/// `CELLHOST_TYPES_CAN_RENDER` (selectors.h): the encoding of `cellhost_can_render_imp`.
pub const CELLHOST_TYPES_CAN_RENDER: &CStr = cstr(b"B@:r^{cellhost_message}r^{cellhost_context}\0");
/// `CELLHOST_SEL_WILL_BEGIN` (selectors.h): a conversation begins.
pub const CELLHOST_SEL_WILL_BEGIN: &CStr = cstr(b"conversationWillBegin:\0");
/// `CELLHOST_SEL_DID_END` (selectors.h): a conversation ends.
pub const CELLHOST_SEL_DID_END: &CStr = cstr(b"conversationDidEnd:\0");
/// `CELLHOST_TYPES_CONVERSATION` (selectors.h): the encoding of `cellhost_conversation_imp`.
pub const CELLHOST_TYPES_CONVERSATION: &CStr = cstr(b"v@:r^{cellhost_context}\0");
/// `CELLHOST_SEL_PLAIN_TEXT` (selectors.h): a one-line plain-text summary, for reply quotes.
pub const CELLHOST_SEL_PLAIN_TEXT: &CStr = cstr(b"plainTextForMessage:context:into:\0");
/// `CELLHOST_TYPES_PLAIN_TEXT` (selectors.h): the encoding of `cellhost_render_imp` for plain text.
pub const CELLHOST_TYPES_PLAIN_TEXT: &CStr = cstr(b"i@:r^{cellhost_message}r^{cellhost_context}^{cellhost_builder}\0");

/// The IMP signature of `renderMessage:context:into:` and
/// `plainTextForMessage:context:into:` (selectors.h). Not a C typedef.
pub type cellhost_render_imp = unsafe extern "C" fn(
    this: *mut cellhost_object,
    cmd: cellhost_sel,
    msg: *const cellhost_message,
    ctx: *const cellhost_context,
    out: *mut cellhost_builder,
) -> cellhost_render_result;
/// The IMP signature of `canRenderMessage:context:` (selectors.h). Not a C typedef.
pub type cellhost_can_render_imp = unsafe extern "C" fn(
    this: *mut cellhost_object,
    cmd: cellhost_sel,
    msg: *const cellhost_message,
    ctx: *const cellhost_context,
) -> bool;
/// The IMP signature of `conversationWillBegin:` / `conversationDidEnd:`
/// (selectors.h). Not a C typedef.
pub type cellhost_conversation_imp =
    unsafe extern "C" fn(this: *mut cellhost_object, cmd: cellhost_sel, ctx: *const cellhost_context);

impl cellhost_method {
    /// `CELLHOST_METHOD(selector, types, imp)` (class.h). `imp` must have
    /// the signature `types` describes; prefer the typed constructors.
    pub const fn new(selector: &'static CStr, types: &'static CStr, imp: cellhost_imp) -> Self {
        cellhost_method {
            struct_size: size_of::<cellhost_method>() as u32,
            selector: selector.as_ptr(),
            types: types.as_ptr(),
            imp,
        }
    }
    /// `renderMessage:context:into:` with its required encoding.
    pub const fn render(imp: cellhost_render_imp) -> Self {
        // SAFETY: only erases the signature; the host calls it back with the
        // signature CELLHOST_TYPES_RENDER describes, which is `imp`'s.
        Self::new(CELLHOST_SEL_RENDER, CELLHOST_TYPES_RENDER, Some(unsafe {
            std::mem::transmute::<cellhost_render_imp, unsafe extern "C" fn()>(imp)
        }))
    }
    /// `plainTextForMessage:context:into:` with its required encoding.
    pub const fn plain_text(imp: cellhost_render_imp) -> Self {
        // SAFETY: as in `render`.
        Self::new(CELLHOST_SEL_PLAIN_TEXT, CELLHOST_TYPES_PLAIN_TEXT, Some(unsafe {
            std::mem::transmute::<cellhost_render_imp, unsafe extern "C" fn()>(imp)
        }))
    }
    /// `canRenderMessage:context:` with its required encoding.
    pub const fn can_render(imp: cellhost_can_render_imp) -> Self {
        // SAFETY: as in `render`.
        Self::new(CELLHOST_SEL_CAN_RENDER, CELLHOST_TYPES_CAN_RENDER, Some(unsafe {
            std::mem::transmute::<cellhost_can_render_imp, unsafe extern "C" fn()>(imp)
        }))
    }
    /// `conversationWillBegin:` with its required encoding.
    pub const fn will_begin(imp: cellhost_conversation_imp) -> Self {
        // SAFETY: as in `render`.
        Self::new(CELLHOST_SEL_WILL_BEGIN, CELLHOST_TYPES_CONVERSATION, Some(unsafe {
            std::mem::transmute::<cellhost_conversation_imp, unsafe extern "C" fn()>(imp)
        }))
    }
    /// `conversationDidEnd:` with its required encoding.
    pub const fn did_end(imp: cellhost_conversation_imp) -> Self {
        // SAFETY: as in `render`.
        Self::new(CELLHOST_SEL_DID_END, CELLHOST_TYPES_CONVERSATION, Some(unsafe {
            std::mem::transmute::<cellhost_conversation_imp, unsafe extern "C" fn()>(imp)
        }))
    }
}

// ===========================================================================
// host.h — the host table
// ===========================================================================

/// `cellhost_status_code` (host.h): what `send`, `send_super` and the
/// `register_*` functions return.
pub type cellhost_status_code = i32;
/// `CELLHOST_OK` (host.h).
pub const CELLHOST_OK: cellhost_status_code = 0;
/// `CELLHOST_E_UNRECOGNIZED_SELECTOR` (host.h): no method for the selector on the receiver's chain.
pub const CELLHOST_E_UNRECOGNIZED_SELECTOR: cellhost_status_code = 1;
/// `CELLHOST_E_SIGNATURE_MISMATCH` (host.h): `types` differs from the method's encoding.
pub const CELLHOST_E_SIGNATURE_MISMATCH: cellhost_status_code = 2;
/// `CELLHOST_E_NO_SUCH_CLASS` (host.h): `current_class` is not on the receiver's chain.
pub const CELLHOST_E_NO_SUCH_CLASS: cellhost_status_code = 3;
/// `CELLHOST_E_INVALID_ARGUMENT` (host.h): a NULL or otherwise unusable argument.
pub const CELLHOST_E_INVALID_ARGUMENT: cellhost_status_code = 4;
/// `CELLHOST_E_REJECTED` (host.h): the class or message class was refused; the reason was logged.
pub const CELLHOST_E_REJECTED: cellhost_status_code = 5;
/// `CELLHOST_E_TOO_LATE` (host.h): `register_*` called outside `init`.
pub const CELLHOST_E_TOO_LATE: cellhost_status_code = 6;
/// `CELLHOST_E_WRONG_THREAD` (host.h): `send`/`send_super` from a method on a
/// render worker thread to a class that is not thread-safe; nothing was called.
pub const CELLHOST_E_WRONG_THREAD: cellhost_status_code = 7;

/// `cellhost_host` (host.h): the host table given to a plugin (to `init`,
/// `deinit` and in every context). Each plugin gets its own; it stays valid
/// until the plugin's `deinit` returns. See host.h for each function's
/// threading rule.
#[repr(C)]
pub struct cellhost_host {
    /// The contract version the host implements. Always first.
    pub abi: cellhost_version,
    /// sizeof(cellhost_host) as the host compiled it.
    pub struct_size: u32,
    /// Reserved, zero.
    pub reserved: u32,
    /// Host-private; do not touch.
    pub host_data: *mut c_void,
    /// [any-thread] The host extension named `id` (`CELLHOST_EXT_*`), or NULL.
    pub get_extension: Option<unsafe extern "C" fn(host: *const cellhost_host, id: *const c_char) -> *const c_void>,
    /// [render-thread] The zeroed instance storage that class `cls` owns in `self`.
    pub object_ivars: Option<unsafe extern "C" fn(this: *mut cellhost_object, cls: *const cellhost_class) -> *mut c_void>,
    /// [render-thread] The class name of `self`.
    pub object_class_name: Option<unsafe extern "C" fn(this: *mut cellhost_object) -> *const c_char>,
    /// [render-thread] The current conversation's instance of the class named `class_name`, or NULL.
    pub instance_of: Option<unsafe extern "C" fn(host: *const cellhost_host, class_name: *const c_char) -> *mut cellhost_object>,
    /// [render-thread] True when the class chain of `receiver` implements `selector`.
    pub responds_to: Option<unsafe extern "C" fn(receiver: *mut cellhost_object, selector: *const c_char) -> bool>,
    /// [render-thread] Call `selector` on `receiver` through libffi (`args`: one pointer per argument).
    pub send: Option<unsafe extern "C" fn(
        receiver: *mut cellhost_object,
        selector: *const c_char,
        types: *const c_char,
        ret: *mut c_void,
        args: *const *mut c_void,
    ) -> cellhost_status_code>,
    /// [render-thread] Like `send`, starting at the superclass of `current_class`.
    pub send_super: Option<unsafe extern "C" fn(
        current_class: *const c_char,
        receiver: *mut cellhost_object,
        selector: *const c_char,
        types: *const c_char,
        ret: *mut c_void,
        args: *const *mut c_void,
    ) -> cellhost_status_code>,
    /// [init-thread] Register a class (needs `CELLHOST_PLUGIN_REGISTERS_AT_INIT`).
    pub register_class: Option<unsafe extern "C" fn(host: *const cellhost_host, cls: *const cellhost_class) -> cellhost_status_code>,
    /// [init-thread] Declare a message class (needs `CELLHOST_PLUGIN_REGISTERS_AT_INIT`).
    pub register_message_class: Option<unsafe extern "C" fn(host: *const cellhost_host, mc: *const cellhost_message_class) -> cellhost_status_code>,
}

impl cellhost_host {
    /// `get_extension` typed: the host extension `id` as a `&'static T`, or
    /// `None` when the host does not offer it (or lacks the function).
    ///
    /// # Safety
    /// `T` must be the table type that the header of `id` documents
    /// (`CELLHOST_EXT_MESSAGE` → `cellhost_message_api`, …).
    pub unsafe fn extension<T>(&self, id: &CStr) -> Option<&'static T> {
        let get = self.get_extension?;
        // SAFETY: a host function; the caller vouches for `T`.
        unsafe { (get(self, id.as_ptr()) as *const T).as_ref() }
    }
}

// ===========================================================================
// samples.h — the plugin extension "cellhost.samples"
// ===========================================================================

/// `CELLHOST_EXT_SAMPLES` (samples.h): id of the sample-messages extension of a plugin.
pub const CELLHOST_EXT_SAMPLES: &CStr = cstr(b"cellhost.samples\0");

/// `cellhost_samples` (samples.h): sample messages `cellhost check-plugin`
/// renders with the plugin's classes. Plugin-owned, valid until `deinit` returns.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct cellhost_samples {
    /// sizeof(cellhost_samples) as the plugin compiled it.
    pub struct_size: u32,
    /// Number of entries in `messages`; the host reads at most 256.
    pub count: u32,
    /// Each entry one message: a JSON object, NUL-terminated UTF-8, at most 64 KiB.
    pub messages: *const *const c_char,
}

// ===========================================================================
// plugin.h — the descriptor and the entry symbol
// ===========================================================================

/// `CELLHOST_PLUGIN_ENTRY_SYMBOL` (plugin.h): the name of the entry symbol.
/// A Rust plugin defines it as
/// `#[no_mangle] pub extern "C" fn cellhost_plugin_entry() -> *const cellhost_plugin_descriptor`.
pub const CELLHOST_PLUGIN_ENTRY_SYMBOL: &CStr = cstr(b"cellhost_plugin_entry\0");

/// `CELLHOST_PLUGIN_REGISTERS_AT_INIT` (plugin.h): the plugin registers
/// classes or message classes from `init`.
pub const CELLHOST_PLUGIN_REGISTERS_AT_INIT: u32 = 1 << 0;

/// `CELLHOST_PLUGIN_THREAD_SAFE` (plugin.h): the methods of the plugin's
/// classes may be called from several threads at once, each call on its own
/// message; without it the host calls them from one thread for the whole run.
pub const CELLHOST_PLUGIN_THREAD_SAFE: u32 = 1 << 1;

/// `cellhost_plugin_descriptor` (plugin.h): the description of a plugin.
/// Plugin-owned; it and everything it points to stay valid until `deinit`.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct cellhost_plugin_descriptor {
    /// `CELLHOST_ABI_VERSION_INIT`. Always first.
    pub abi: cellhost_version,
    /// sizeof(cellhost_plugin_descriptor) as the plugin compiled it.
    pub struct_size: u32,
    /// A set of `CELLHOST_PLUGIN_*` bits.
    pub flags: u32,
    /// Unique id, reverse-DNS or a short name; [A-Za-z0-9._-].
    pub id: *const c_char,
    /// The plugin's own version, e.g. "1.2.0".
    pub version: *const c_char,
    /// One line saying what it renders. May be NULL.
    pub description: *const c_char,
    /// May be NULL.
    pub author: *const c_char,
    /// SPDX identifier. May be NULL.
    pub license: *const c_char,
    /// Optional: called once before any class is used; 0 on success, else set `*reason`.
    pub init: Option<unsafe extern "C" fn(host: *const cellhost_host, reason: *mut *const c_char) -> i32>,
    /// Optional: called once for every `init` that succeeded.
    pub deinit: Option<unsafe extern "C" fn(host: *const cellhost_host)>,
    /// The cell classes; `class_count` entries.
    pub classes: *const cellhost_class,
    pub class_count: u32,
    /// Message classes the plugin adds to the tree; `message_class_count` entries.
    pub message_class_count: u32,
    pub message_classes: *const cellhost_message_class,
    /// Optional: the plugin extension named `id` (such as `CELLHOST_EXT_SAMPLES`), or NULL.
    pub get_extension: Option<unsafe extern "C" fn(id: *const c_char) -> *const c_void>,
}

/// `cellhost_plugin_entry_fn` (plugin.h): the type of the entry symbol.
pub type cellhost_plugin_entry_fn = unsafe extern "C" fn() -> *const cellhost_plugin_descriptor;

// ===========================================================================
// Static plugin data
// ===========================================================================

// The plugin-owned structs hold raw pointers, which are not `Sync`, so Rust
// would not let them be `static`. The contract makes them immutable data the
// host only reads (class.h, samples.h, plugin.h: "valid and unchanged"), so
// sharing them between threads is sound.
unsafe impl Sync for cellhost_method {}
unsafe impl Sync for cellhost_class {}
unsafe impl Sync for cellhost_message_class {}
unsafe impl Sync for cellhost_samples {}
unsafe impl Sync for cellhost_plugin_descriptor {}

/// A wrapper that makes immutable plugin data with raw pointers usable as a
/// `static`, such as a NULL-terminated array of C strings:
///
/// ```text
/// static RENDERS: cellhost_static<[*const c_char; 2]> =
///     cellhost_static([b"hello\0".as_ptr() as *const c_char, std::ptr::null()]);
/// ```
///
/// Not part of the C headers. `#[repr(transparent)]`: `&RENDERS.0` is the array.
#[repr(transparent)]
pub struct cellhost_static<T>(pub T);
// SAFETY: only for data that is never written after initialisation, which is
// what the contract requires of everything a plugin hands the host.
unsafe impl<T> Sync for cellhost_static<T> {}
