/* layout.c: the C side of the Rust binding's layout test (BindingsTests).
 * Prints, for every struct of the headers, its size and alignment and each
 * field's offset and size; the size and signedness of every typedef; and the
 * value of every constant. layout.rs prints the same from
 * Sources/CellHostABI/bindings/rust/cellhost.rs; the test compares the two
 * outputs line for line, and checks against the headers' text that no
 * struct, field or constant is missing here.
 *
 *     cc -std=c99 -I Sources/CellHostABI/include layout.c -o layout && ./layout
 */
#include <cellhost/cellhost.h>
#include <stdio.h>

#define STRUCT(T) printf("struct %s size %zu align %zu\n", #T, sizeof(T), _Alignof(T))
#define FIELD(T, f) printf("field %s.%s offset %zu size %zu\n", #T, #f, offsetof(T, f), sizeof(((T *)0)->f))
#define INTEGER_TYPE(T) printf("typedef %s size %zu signed %d\n", #T, sizeof(T), negative((long long)(T)-1))
#define POINTER_TYPE(T) printf("typedef %s size %zu\n", #T, sizeof(T))
#define CONST(c) printf("const %s %lld\n", #c, (long long)(c))
#define STRING(c) printf("string %s %s\n", #c, c)

/* (T)-1 read back as a wider signed integer: negative only for a signed T. */
static int negative(long long value) { return value < 0; }

int main(void) {
    /* version.h */
    STRUCT(cellhost_version);
    FIELD(cellhost_version, major);
    FIELD(cellhost_version, minor);
    CONST(CELLHOST_ABI_MAJOR);
    CONST(CELLHOST_ABI_MINOR);
    {
        cellhost_version init = CELLHOST_ABI_VERSION_INIT;
        printf("version CELLHOST_ABI_VERSION_INIT %u.%u\n", init.major, init.minor);
        cellhost_version v[] = { {2, 0}, {2, 1}, {1, 9}, {3, 0} };
        for (int h = 0; h < 4; h++)
            for (int p = 0; p < 4; p++)
                printf("compatible host %u.%u plugin %u.%u %d\n", v[h].major, v[h].minor, v[p].major,
                       v[p].minor, (int)cellhost_version_is_compatible(v[h], v[p]));
    }

    /* types.h */
    POINTER_TYPE(cellhost_sel);
    POINTER_TYPE(cellhost_imp);

    /* context.h */
    CONST(CELLHOST_CONTEXT_COLOR);
    CONST(CELLHOST_CONTEXT_OUTGOING);
    CONST(CELLHOST_CONTEXT_JSON);
    STRUCT(cellhost_context);
    FIELD(cellhost_context, struct_size);
    FIELD(cellhost_context, width);
    FIELD(cellhost_context, flags);
    FIELD(cellhost_context, reserved);
    FIELD(cellhost_context, message_class);
    FIELD(cellhost_context, host);
    FIELD(cellhost_context, base_directory);

    /* log.h */
    STRING(CELLHOST_EXT_LOG);
    INTEGER_TYPE(cellhost_log_level);
    CONST(CELLHOST_LOG_DEBUG);
    CONST(CELLHOST_LOG_INFO);
    CONST(CELLHOST_LOG_WARNING);
    CONST(CELLHOST_LOG_ERROR);
    STRUCT(cellhost_log_api);
    FIELD(cellhost_log_api, struct_size);
    FIELD(cellhost_log_api, log);

    /* message.h */
    STRING(CELLHOST_EXT_MESSAGE);
    INTEGER_TYPE(cellhost_lookup);
    CONST(CELLHOST_FOUND);
    CONST(CELLHOST_MISSING);
    CONST(CELLHOST_WRONG_TYPE);
    INTEGER_TYPE(cellhost_direction);
    CONST(CELLHOST_INCOMING);
    CONST(CELLHOST_OUTGOING);
    INTEGER_TYPE(cellhost_status);
    CONST(CELLHOST_STATUS_NONE);
    CONST(CELLHOST_STATUS_SENDING);
    CONST(CELLHOST_STATUS_SENT);
    CONST(CELLHOST_STATUS_DELIVERED);
    CONST(CELLHOST_STATUS_READ);
    CONST(CELLHOST_STATUS_FAILED);
    STRUCT(cellhost_string);
    FIELD(cellhost_string, data);
    FIELD(cellhost_string, length);
    STRUCT(cellhost_message_info);
    FIELD(cellhost_message_info, struct_size);
    FIELD(cellhost_message_info, direction);
    FIELD(cellhost_message_info, status);
    FIELD(cellhost_message_info, has_time);
    FIELD(cellhost_message_info, edited);
    FIELD(cellhost_message_info, time);
    FIELD(cellhost_message_info, type);
    FIELD(cellhost_message_info, id);
    FIELD(cellhost_message_info, sender_id);
    FIELD(cellhost_message_info, sender_name);
    FIELD(cellhost_message_info, text);
    STRUCT(cellhost_message_api);
    FIELD(cellhost_message_api, struct_size);
    FIELD(cellhost_message_api, info);
    FIELD(cellhost_message_api, string);
    FIELD(cellhost_message_api, number);
    FIELD(cellhost_message_api, integer);
    FIELD(cellhost_message_api, boolean);
    FIELD(cellhost_message_api, count);
    FIELD(cellhost_message_api, numbers);

    /* builder.h */
    STRING(CELLHOST_EXT_BUILDER);
    INTEGER_TYPE(cellhost_style_bits);
    CONST(CELLHOST_STYLE_PLAIN);
    CONST(CELLHOST_STYLE_STRONG);
    CONST(CELLHOST_STYLE_EMPHASIS);
    CONST(CELLHOST_STYLE_CODE);
    CONST(CELLHOST_STYLE_LINK);
    CONST(CELLHOST_STYLE_MUTED);
    CONST(CELLHOST_STYLE_ACCENT);
    CONST(CELLHOST_STYLE_SUCCESS);
    CONST(CELLHOST_STYLE_WARNING);
    CONST(CELLHOST_STYLE_ERROR);
    CONST(CELLHOST_STYLE_QUOTE);
    CONST(CELLHOST_BLOCK_HAS_FG);
    CONST(CELLHOST_BLOCK_HAS_BG);
    STRUCT(cellhost_block_cell);
    FIELD(cellhost_block_cell, codepoint);
    FIELD(cellhost_block_cell, fg);
    FIELD(cellhost_block_cell, bg);
    FIELD(cellhost_block_cell, flags);
    STRUCT(cellhost_builder_api);
    FIELD(cellhost_builder_api, struct_size);
    FIELD(cellhost_builder_api, append);
    FIELD(cellhost_builder_api, line_break);
    FIELD(cellhost_builder_api, append_row);

    /* output.h */
    STRING(CELLHOST_EXT_OUTPUT);
    INTEGER_TYPE(cellhost_output_format);
    CONST(CELLHOST_FORMAT_ANSI);
    CONST(CELLHOST_FORMAT_PLAIN);
    CONST(CELLHOST_FORMAT_JSON);
    CONST(CELLHOST_FORMAT_HTML);
    INTEGER_TYPE(cellhost_color_depth);
    CONST(CELLHOST_COLORS_NONE);
    CONST(CELLHOST_COLORS_16);
    CONST(CELLHOST_COLORS_256);
    CONST(CELLHOST_COLORS_TRUECOLOR);
    INTEGER_TYPE(cellhost_image_mode);
    CONST(CELLHOST_IMAGES_NONE);
    CONST(CELLHOST_IMAGES_SYMBOLS);
    STRUCT(cellhost_output_info);
    FIELD(cellhost_output_info, struct_size);
    FIELD(cellhost_output_info, format);
    FIELD(cellhost_output_info, colors);
    FIELD(cellhost_output_info, images);
    FIELD(cellhost_output_info, image_rows);
    STRUCT(cellhost_output_api);
    FIELD(cellhost_output_api, struct_size);
    FIELD(cellhost_output_api, info);

    /* class.h */
    STRUCT(cellhost_method);
    FIELD(cellhost_method, struct_size);
    FIELD(cellhost_method, selector);
    FIELD(cellhost_method, types);
    FIELD(cellhost_method, imp);
    STRUCT(cellhost_class);
    FIELD(cellhost_class, struct_size);
    FIELD(cellhost_class, flags);
    FIELD(cellhost_class, name);
    FIELD(cellhost_class, superclass);
    FIELD(cellhost_class, message_classes);
    FIELD(cellhost_class, rank);
    FIELD(cellhost_class, method_count);
    FIELD(cellhost_class, methods);
    FIELD(cellhost_class, instance_size);
    STRUCT(cellhost_message_class);
    FIELD(cellhost_message_class, struct_size);
    FIELD(cellhost_message_class, name);
    FIELD(cellhost_message_class, parent);

    /* selectors.h */
    INTEGER_TYPE(cellhost_render_result);
    CONST(CELLHOST_RENDERED);
    CONST(CELLHOST_DECLINED);
    CONST(CELLHOST_ERROR);
    STRING(CELLHOST_SEL_RENDER);
    STRING(CELLHOST_TYPES_RENDER);
    STRING(CELLHOST_SEL_CAN_RENDER);
    STRING(CELLHOST_TYPES_CAN_RENDER);
    STRING(CELLHOST_SEL_WILL_BEGIN);
    STRING(CELLHOST_SEL_DID_END);
    STRING(CELLHOST_TYPES_CONVERSATION);
    STRING(CELLHOST_SEL_PLAIN_TEXT);
    STRING(CELLHOST_TYPES_PLAIN_TEXT);

    /* host.h */
    INTEGER_TYPE(cellhost_status_code);
    CONST(CELLHOST_OK);
    CONST(CELLHOST_E_UNRECOGNIZED_SELECTOR);
    CONST(CELLHOST_E_SIGNATURE_MISMATCH);
    CONST(CELLHOST_E_NO_SUCH_CLASS);
    CONST(CELLHOST_E_INVALID_ARGUMENT);
    CONST(CELLHOST_E_REJECTED);
    CONST(CELLHOST_E_TOO_LATE);
    CONST(CELLHOST_E_WRONG_THREAD);
    STRUCT(cellhost_host);
    FIELD(cellhost_host, abi);
    FIELD(cellhost_host, struct_size);
    FIELD(cellhost_host, reserved);
    FIELD(cellhost_host, host_data);
    FIELD(cellhost_host, get_extension);
    FIELD(cellhost_host, object_ivars);
    FIELD(cellhost_host, object_class_name);
    FIELD(cellhost_host, instance_of);
    FIELD(cellhost_host, responds_to);
    FIELD(cellhost_host, send);
    FIELD(cellhost_host, send_super);
    FIELD(cellhost_host, register_class);
    FIELD(cellhost_host, register_message_class);

    /* samples.h */
    STRING(CELLHOST_EXT_SAMPLES);
    STRUCT(cellhost_samples);
    FIELD(cellhost_samples, struct_size);
    FIELD(cellhost_samples, count);
    FIELD(cellhost_samples, messages);

    /* plugin.h */
    STRING(CELLHOST_PLUGIN_ENTRY_SYMBOL);
    CONST(CELLHOST_PLUGIN_REGISTERS_AT_INIT);
    CONST(CELLHOST_PLUGIN_THREAD_SAFE);
    POINTER_TYPE(cellhost_plugin_entry_fn);
    STRUCT(cellhost_plugin_descriptor);
    FIELD(cellhost_plugin_descriptor, abi);
    FIELD(cellhost_plugin_descriptor, struct_size);
    FIELD(cellhost_plugin_descriptor, flags);
    FIELD(cellhost_plugin_descriptor, id);
    FIELD(cellhost_plugin_descriptor, version);
    FIELD(cellhost_plugin_descriptor, description);
    FIELD(cellhost_plugin_descriptor, author);
    FIELD(cellhost_plugin_descriptor, license);
    FIELD(cellhost_plugin_descriptor, init);
    FIELD(cellhost_plugin_descriptor, deinit);
    FIELD(cellhost_plugin_descriptor, classes);
    FIELD(cellhost_plugin_descriptor, class_count);
    FIELD(cellhost_plugin_descriptor, message_class_count);
    FIELD(cellhost_plugin_descriptor, message_classes);
    FIELD(cellhost_plugin_descriptor, get_extension);
    return 0;
}
