//! layout.rs: the Rust side of the binding's layout test (BindingsTests).
//! Prints what layout.c prints, computed from
//! Sources/CellHostABI/bindings/rust/cellhost.rs: sizes and alignments of the
//! structs, each field's offset (its address in a `MaybeUninit` minus the
//! struct's address; no `offset_of!`, which Rust 1.63 lacks) and size, the
//! typedefs, and the constants. The test compares the two outputs line for
//! line.
//!
//!     rustc --edition 2021 layout.rs -o layout && ./layout
#![warn(unsafe_op_in_unsafe_fn)]

#[path = "../../../../Sources/CellHostABI/bindings/rust/cellhost.rs"]
mod cellhost;

use cellhost::*;
use std::mem::{align_of, size_of, MaybeUninit};
use std::ptr::addr_of;

fn pointee_size<T>(_: *const T) -> usize {
    size_of::<T>()
}

/// `struct T size S align A`, then `field T.f offset O size S` for each field.
macro_rules! layout {
    ($t:ident { $($f:ident),* $(,)? }) => {{
        println!("struct {} size {} align {}", stringify!($t), size_of::<$t>(), align_of::<$t>());
        let value = MaybeUninit::<$t>::uninit();
        let base = value.as_ptr();
        $(
            // SAFETY: addr_of! takes the field's address without reading the uninitialised value.
            let field = unsafe { addr_of!((*base).$f) };
            println!("field {}.{} offset {} size {}", stringify!($t), stringify!($f).trim_start_matches("r#"),
                     field as usize - base as usize, pointee_size(field));
        )*
    }};
}

macro_rules! int {
    ($c:ident) => {
        println!("const {} {}", stringify!($c), $c as i64)
    };
}

macro_rules! string {
    ($c:ident) => {
        println!("string {} {}", stringify!($c), $c.to_str().expect("UTF-8"))
    };
}

macro_rules! integer_type {
    ($t:ident) => {
        println!("typedef {} size {} signed {}", stringify!($t), size_of::<$t>(), (<$t>::MIN != 0) as i32)
    };
}

macro_rules! pointer_type {
    ($t:ident) => {
        println!("typedef {} size {}", stringify!($t), size_of::<$t>())
    };
}

fn compatibility() {
    let init = CELLHOST_ABI_VERSION_INIT;
    println!("version CELLHOST_ABI_VERSION_INIT {}.{}", init.major, init.minor);
    let v = [(2, 0), (2, 1), (1, 9), (3, 0)].map(|(major, minor)| cellhost_version { major, minor });
    for h in v {
        for p in v {
            println!("compatible host {}.{} plugin {}.{} {}", h.major, h.minor, p.major, p.minor,
                     cellhost_version_is_compatible(h, p) as i32);
        }
    }
}

fn main() {
    // version.h
    layout!(cellhost_version { major, minor });
    int!(CELLHOST_ABI_MAJOR);
    int!(CELLHOST_ABI_MINOR);
    compatibility();
    // types.h
    pointer_type!(cellhost_sel);
    pointer_type!(cellhost_imp);
    // context.h
    int!(CELLHOST_CONTEXT_COLOR);
    int!(CELLHOST_CONTEXT_OUTGOING);
    int!(CELLHOST_CONTEXT_JSON);
    layout!(cellhost_context { struct_size, width, flags, reserved, message_class, host, base_directory });
    // log.h
    string!(CELLHOST_EXT_LOG);
    integer_type!(cellhost_log_level);
    int!(CELLHOST_LOG_DEBUG);
    int!(CELLHOST_LOG_INFO);
    int!(CELLHOST_LOG_WARNING);
    int!(CELLHOST_LOG_ERROR);
    layout!(cellhost_log_api { struct_size, log });
    // message.h
    string!(CELLHOST_EXT_MESSAGE);
    integer_type!(cellhost_lookup);
    int!(CELLHOST_FOUND);
    int!(CELLHOST_MISSING);
    int!(CELLHOST_WRONG_TYPE);
    integer_type!(cellhost_direction);
    int!(CELLHOST_INCOMING);
    int!(CELLHOST_OUTGOING);
    integer_type!(cellhost_status);
    int!(CELLHOST_STATUS_NONE);
    int!(CELLHOST_STATUS_SENDING);
    int!(CELLHOST_STATUS_SENT);
    int!(CELLHOST_STATUS_DELIVERED);
    int!(CELLHOST_STATUS_READ);
    int!(CELLHOST_STATUS_FAILED);
    layout!(cellhost_string { data, length });
    layout!(cellhost_message_info { struct_size, direction, status, has_time, edited, time, r#type, id, sender_id, sender_name, text });
    layout!(cellhost_message_api { struct_size, info, string, number, integer, boolean, count, numbers });
    // builder.h
    string!(CELLHOST_EXT_BUILDER);
    integer_type!(cellhost_style_bits);
    int!(CELLHOST_STYLE_PLAIN);
    int!(CELLHOST_STYLE_STRONG);
    int!(CELLHOST_STYLE_EMPHASIS);
    int!(CELLHOST_STYLE_CODE);
    int!(CELLHOST_STYLE_LINK);
    int!(CELLHOST_STYLE_MUTED);
    int!(CELLHOST_STYLE_ACCENT);
    int!(CELLHOST_STYLE_SUCCESS);
    int!(CELLHOST_STYLE_WARNING);
    int!(CELLHOST_STYLE_ERROR);
    int!(CELLHOST_STYLE_QUOTE);
    int!(CELLHOST_BLOCK_HAS_FG);
    int!(CELLHOST_BLOCK_HAS_BG);
    layout!(cellhost_block_cell { codepoint, fg, bg, flags });
    layout!(cellhost_builder_api { struct_size, append, line_break, append_row });
    // output.h
    string!(CELLHOST_EXT_OUTPUT);
    integer_type!(cellhost_output_format);
    int!(CELLHOST_FORMAT_ANSI);
    int!(CELLHOST_FORMAT_PLAIN);
    int!(CELLHOST_FORMAT_JSON);
    int!(CELLHOST_FORMAT_HTML);
    integer_type!(cellhost_color_depth);
    int!(CELLHOST_COLORS_NONE);
    int!(CELLHOST_COLORS_16);
    int!(CELLHOST_COLORS_256);
    int!(CELLHOST_COLORS_TRUECOLOR);
    integer_type!(cellhost_image_mode);
    int!(CELLHOST_IMAGES_NONE);
    int!(CELLHOST_IMAGES_SYMBOLS);
    layout!(cellhost_output_info { struct_size, format, colors, images, image_rows });
    layout!(cellhost_output_api { struct_size, info });
    // class.h
    layout!(cellhost_method { struct_size, selector, types, imp });
    layout!(cellhost_class { struct_size, flags, name, superclass, message_classes, rank, method_count, methods, instance_size });
    layout!(cellhost_message_class { struct_size, name, parent });
    // selectors.h
    integer_type!(cellhost_render_result);
    int!(CELLHOST_RENDERED);
    int!(CELLHOST_DECLINED);
    int!(CELLHOST_ERROR);
    string!(CELLHOST_SEL_RENDER);
    string!(CELLHOST_TYPES_RENDER);
    string!(CELLHOST_SEL_CAN_RENDER);
    string!(CELLHOST_TYPES_CAN_RENDER);
    string!(CELLHOST_SEL_WILL_BEGIN);
    string!(CELLHOST_SEL_DID_END);
    string!(CELLHOST_TYPES_CONVERSATION);
    string!(CELLHOST_SEL_PLAIN_TEXT);
    string!(CELLHOST_TYPES_PLAIN_TEXT);
    // host.h
    integer_type!(cellhost_status_code);
    int!(CELLHOST_OK);
    int!(CELLHOST_E_UNRECOGNIZED_SELECTOR);
    int!(CELLHOST_E_SIGNATURE_MISMATCH);
    int!(CELLHOST_E_NO_SUCH_CLASS);
    int!(CELLHOST_E_INVALID_ARGUMENT);
    int!(CELLHOST_E_REJECTED);
    int!(CELLHOST_E_TOO_LATE);
    int!(CELLHOST_E_WRONG_THREAD);
    layout!(cellhost_host { abi, struct_size, reserved, host_data, get_extension, object_ivars, object_class_name, instance_of, responds_to, send, send_super, register_class, register_message_class });
    // samples.h
    string!(CELLHOST_EXT_SAMPLES);
    layout!(cellhost_samples { struct_size, count, messages });
    // plugin.h
    string!(CELLHOST_PLUGIN_ENTRY_SYMBOL);
    int!(CELLHOST_PLUGIN_REGISTERS_AT_INIT);
    int!(CELLHOST_PLUGIN_THREAD_SAFE);
    pointer_type!(cellhost_plugin_entry_fn);
    layout!(cellhost_plugin_descriptor { abi, struct_size, flags, id, version, description, author, license, init, deinit, classes, class_count, message_class_count, message_classes, get_extension });
}
