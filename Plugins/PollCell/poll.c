/*
 * Plugins/PollCell/poll.c: the "poll" plugin shipped with CellHost.
 *
 * This is also the worked example of a plugin written in plain C99 against
 * the contract header and nothing else. There is no SDK, no Swift and no host
 * library to link against. Everything the plugin can do goes through the host
 * function table that the host hands over. It builds on its own:
 *
 *     cc -std=c99 -Wall -Wextra -Werror -shared -fPIC \
 *        -I Sources/CellHostABI/include Plugins/PollCell/poll.c -o libPollCell.so
 *
 * and `swift build` builds it as the C target "PollCell" (a .so beside the
 * cellhost executable).
 *
 * It registers one cell class, PollMessageCell, for the message class "poll".
 * A poll message looks like this:
 *
 *     {"type":"poll","text":"Lunch?","poll":{"question":"Lunch where?",
 *      "options":[{"text":"Pizza","votes":3},{"text":"Sushi","votes":1}]}}
 *
 * and is rendered as
 *
 *     📊 Lunch where?                  (strong)
 *       Pizza
 *       ████████████████████ 3 (75%)   (bar in accent)
 *       Sushi
 *       ███████ 1 (25%)
 *     4 votes                          (muted)
 *
 * See docs/plugin-abi.md for the guide to the contract.
 */
#include <cellhost/cellhost.h>

#include <stdio.h>    /* snprintf */
#include <string.h>   /* strlen */

/* ------------------------------------------------------------------------ */
/* Limits                                                                    */
/* ------------------------------------------------------------------------ */

/* The most options drawn. Any more are summed into the total and listed as
 * "… and N more". */
#define POLL_MAX_SHOWN_OPTIONS 64

/* A bar is appended in chunks of this many blocks (one append for any bar
 * of a terminal up to 268 columns), so no buffer has to be as wide as the
 * widest terminal. */
#define POLL_BAR_CHUNK 256

/* UTF-8 spelled out as bytes so the source does not depend on the
 * compiler's execution character set. */
#define POLL_ICON "\xF0\x9F\x93\x8A " /* U+1F4CA BAR CHART, then a space */
#define POLL_BLOCK "\xE2\x96\x88"      /* U+2588 FULL BLOCK, one column */
#define POLL_BLOCK_BYTES 3
#define POLL_ELLIPSIS "\xE2\x80\xA6"   /* U+2026 HORIZONTAL ELLIPSIS */

/* ------------------------------------------------------------------------ */
/* The host table                                                            */
/* ------------------------------------------------------------------------ */

/*
 * The host's extensions, asked for once in `init` and kept: extension tables
 * are host-owned and valid for the life of the process (host.h). They are
 * written once, in `init`, before any method runs, and only read after: the
 * methods keep nothing else between calls, so the plugin is thread-safe
 * (CELLHOST_PLUGIN_THREAD_SAFE) and the host may render polls on several
 * threads at once.
 */
static const cellhost_message_api *g_message;
static const cellhost_builder_api *g_builder;
static const cellhost_log_api *g_log;

static int32_t poll_init(const cellhost_host *host, const char **reason)
{
    g_message = (const cellhost_message_api *)host->get_extension(host, CELLHOST_EXT_MESSAGE);
    g_builder = (const cellhost_builder_api *)host->get_extension(host, CELLHOST_EXT_BUILDER);
    g_log = (const cellhost_log_api *)host->get_extension(host, CELLHOST_EXT_LOG);
    if (g_message == NULL || g_builder == NULL || g_log == NULL) {
        *reason = "the host lacks the message, builder or log extension";
        return 1;
    }
    return 0;
}

static void poll_deinit(const cellhost_host *host)
{
    (void)host;
    g_message = NULL;
    g_builder = NULL;
    g_log = NULL;
}

/* ------------------------------------------------------------------------ */
/* Small helpers around the host table                                       */
/* ------------------------------------------------------------------------ */

/* Append a NUL-terminated literal (our own text, never message text). */
static void append_cstr(cellhost_builder *out,
                        const char *s, cellhost_style_bits style)
{
    g_builder->append(out, s, strlen(s), style);
}

/*
 * Append a string read from the message. Message strings may contain NUL
 * bytes, so `length` is used, never strlen(). They are not sanitized yet.
 * That is fine, because the builder sanitizes everything appended to it.
 */
static void append_string(cellhost_builder *out,
                          cellhost_string s, cellhost_style_bits style)
{
    g_builder->append(out, s.data, s.length, style);
}

/*
 * Log a warning about one message, naming its id so the user can find it.
 * The id comes from the input and may be long or contain NULs. Only its
 * first 64 bytes are shown, and the host sanitizes log lines.
 */
static void warn(const cellhost_host *host, const cellhost_message *msg,
                 const char *what)
{
    cellhost_message_info info;
    char line[256];

    memset(&info, 0, sizeof info);
    info.struct_size = (uint32_t)sizeof info; /* required before the call */
    g_message->info(msg, &info);

    if (info.id.length > 0) {
        int idlen = info.id.length > 64 ? 64 : (int)info.id.length;
        snprintf(line, sizeof line, "poll message %.*s: %s; not rendered as a poll",
                 idlen, info.id.data, what);
    } else {
        snprintf(line, sizeof line, "poll message: %s; not rendered as a poll", what);
    }
    g_log->log(host, CELLHOST_LOG_WARNING, line);
}

/* ------------------------------------------------------------------------ */
/* Numbers and paths, written by hand                                        */
/* ------------------------------------------------------------------------ */

/*
 * The render path writes a dozen numbers and paths per poll. snprintf parses
 * its format every time (about 1000 instructions a call); these write the
 * same characters directly. snprintf stays for the rare warning lines.
 */

/* The most characters put_u64 writes: UINT64_MAX has 20 digits. */
#define POLL_U64_DIGITS 20

/* Writes `v` in decimal at `dst` (no NUL) and returns the characters written. */
static size_t put_u64(char *dst, uint64_t v)
{
    char digits[POLL_U64_DIGITS];
    size_t n = 0, i;

    do {
        digits[n++] = (char)('0' + (int)(v % 10u));
        v /= 10u;
    } while (v > 0);
    for (i = 0; i < n; i++)
        dst[i] = digits[n - 1 - i];
    return n;
}

/* Writes `v` in decimal, with a '-' when negative (as "%" PRId64 does). */
static size_t put_i64(char *dst, int64_t v)
{
    if (v >= 0)
        return put_u64(dst, (uint64_t)v);
    dst[0] = '-';
    /* -(v + 1) + 1 cannot overflow, even for INT64_MIN. */
    return 1 + put_u64(dst + 1, (uint64_t)(-(v + 1)) + 1u);
}

/* Copies the NUL-terminated `s` to `dst` (without the NUL); returns its length. */
static size_t put_str(char *dst, const char *s)
{
    size_t n = strlen(s);
    memcpy(dst, s, n);
    return n;
}

/* "<votes> (<pct>%)", as "%" PRId64 " (%d%%)" writes it; returns the length.
 * `dst` needs 1 + 20 + 2 + 11 + 2 characters at most. */
#define POLL_VOTES_SIZE 36
static size_t put_votes(char *dst, int64_t votes, int pct)
{
    size_t n = put_i64(dst, votes);
    dst[n++] = ' ';
    dst[n++] = '(';
    n += put_i64(dst + n, (int64_t)pct);
    dst[n++] = '%';
    dst[n++] = ')';
    return n;
}

/* "poll.options.<i><field>" with a NUL: the path of one option's field. */
#define POLL_OPTIONS_PREFIX "poll.options."
#define OPTION_PATH_SIZE 64
static void option_path(char path[OPTION_PATH_SIZE], size_t i, const char *field)
{
    size_t n = put_str(path, POLL_OPTIONS_PREFIX);
    n += put_u64(path + n, (uint64_t)i);
    n += put_str(path + n, field); /* ".votes" or ".text": fits in 64 */
    path[n] = '\0';
}

/*
 * The vote count of option `i`. Every look-up answers FOUND, MISSING or
 * WRONG_TYPE, and the out-parameter is written only on FOUND. "votes" is
 * optional: missing, wrong type (a string, a fraction, a number beyond
 * int64) and negative values all count as 0.
 */
static int64_t option_votes(const cellhost_message *msg,
                            size_t i)
{
    char path[OPTION_PATH_SIZE];
    int64_t votes = 0;

    option_path(path, i, ".votes");
    if (g_message->integer(msg, path, &votes) != CELLHOST_FOUND || votes < 0)
        return 0;
    return votes;
}

/* POLL_BAR_CHUNK full blocks, spelled out once (and a NUL). */
#define POLL_BLOCKS_4 POLL_BLOCK POLL_BLOCK POLL_BLOCK POLL_BLOCK
#define POLL_BLOCKS_16 POLL_BLOCKS_4 POLL_BLOCKS_4 POLL_BLOCKS_4 POLL_BLOCKS_4
#define POLL_BLOCKS_64 POLL_BLOCKS_16 POLL_BLOCKS_16 POLL_BLOCKS_16 POLL_BLOCKS_16
static const char bar_blocks[POLL_BAR_CHUNK * POLL_BLOCK_BYTES + 1] =
    POLL_BLOCKS_64 POLL_BLOCKS_64 POLL_BLOCKS_64 POLL_BLOCKS_64;

/* Append `blocks` full-block characters in the accent style. */
static void append_bar(cellhost_builder *out, uint32_t blocks)
{
    while (blocks > 0) {
        uint32_t n = blocks < POLL_BAR_CHUNK ? blocks : POLL_BAR_CHUNK;
        g_builder->append(out, bar_blocks, (size_t)n * POLL_BLOCK_BYTES, CELLHOST_STYLE_ACCENT);
        blocks -= n;
    }
}

/* round(100 * part / whole), 0 when whole is 0. The division is done in
 * double, so no product can overflow. Huge counts lose only low digits,
 * which a percentage does not show. */
static int percent(int64_t part, int64_t whole)
{
    if (whole <= 0)
        return 0;
    return (int)(100.0 * (double)part / (double)whole + 0.5);
}

/* ------------------------------------------------------------------------ */
/* renderMessage:context:into:                                               */
/* ------------------------------------------------------------------------ */

/*
 * The IMP for CELLHOST_SEL_RENDER. Its C signature must match the encoding
 * registered with it (CELLHOST_TYPES_RENDER, "i@:r^{cellhost_message}
 * r^{cellhost_context}^{cellhost_builder}"): int32_t return, then self and
 * _cmd as every IMP has, then the message, the context and the builder.
 *
 * Returns CELLHOST_RENDERED, or CELLHOST_DECLINED when the payload is not a
 * usable poll. The host then drops whatever was appended and goes down the
 * fallback chain: the next "poll" candidate, then the parent message class,
 * then UnknownMessageCell, which shows the message's text.
 */
static int32_t poll_render(cellhost_object *self, cellhost_sel _cmd,
                           const cellhost_message *msg, const cellhost_context *ctx,
                           cellhost_builder *out)
{
    /* The context carries the host table of this plugin. */
    const cellhost_host *host = ctx->host;
    cellhost_string question;
    size_t option_count = 0, shown, i;
    int64_t total = 0, max_votes = 0;
    int64_t votes[POLL_MAX_SHOWN_OPTIONS];
    /* " <votes> (<pct>%)" of each option drawn, written once: measured in
     * step 3, appended in step 5 (without its space when there is no bar). */
    char suffixes[POLL_MAX_SHOWN_OPTIONS][1 + POLL_VOTES_SIZE];
    size_t suffix_lengths[POLL_MAX_SHOWN_OPTIONS];
    size_t longest_suffix = 0;
    uint32_t bar_columns;
    char buf[96];
    size_t n;

    (void)self; /* no per-instance state: instance_size is 0 */
    (void)_cmd;

    if (host == NULL)
        return CELLHOST_ERROR; /* cannot happen with a conforming host */

    /* 1. Validate the payload. The poll needs a question (a string) and a
     *    non-empty array of options. Otherwise decline, with a warning.  */
    switch (g_message->string(msg, "poll.question", &question)) {
    case CELLHOST_FOUND:
        break;
    case CELLHOST_MISSING:
        warn(host, msg, "poll.question is missing");
        return CELLHOST_DECLINED;
    case CELLHOST_WRONG_TYPE:
    default:
        warn(host, msg, "poll.question is not a string");
        return CELLHOST_DECLINED;
    }
    switch (g_message->count(msg, "poll.options", &option_count)) {
    case CELLHOST_FOUND:
        if (option_count == 0) {
            warn(host, msg, "poll.options is empty");
            return CELLHOST_DECLINED;
        }
        break;
    case CELLHOST_MISSING:
        warn(host, msg, "poll.options is missing");
        return CELLHOST_DECLINED;
    case CELLHOST_WRONG_TYPE:
    default:
        warn(host, msg, "poll.options is not an array");
        return CELLHOST_DECLINED;
    }

    /* 2. Count the votes. The total covers every option, including those
     *    past the display limit. The largest count, which scales the bars,
     *    covers only the options drawn. The input controls the counts, so
     *    the sum saturates at INT64_MAX rather than overflow.             */
    shown = option_count < POLL_MAX_SHOWN_OPTIONS ? option_count : POLL_MAX_SHOWN_OPTIONS;
    for (i = 0; i < option_count; i++) {
        int64_t v = option_votes(msg, i);
        if (i < shown) {
            votes[i] = v;
            if (v > max_votes)
                max_votes = v;
        }
        total = (INT64_MAX - total < v) ? INT64_MAX : total + v;
    }

    /* 3. Choose the bar width. The basic rule is max(1, width - 12). When
     *    the text after a bar (" 1234567 (100%)") is longer than that rule
     *    allows for, the bars shrink so that every bar line still fits the
     *    width. All bars share one scale, so they can be compared.          */
    for (i = 0; i < shown; i++) {
        suffixes[i][0] = ' ';
        n = 1 + put_votes(suffixes[i] + 1, votes[i], percent(votes[i], total));
        suffix_lengths[i] = n;
        if (n > longest_suffix)
            longest_suffix = n;
    }
    {
        int64_t w = (int64_t)ctx->width;
        int64_t cols = w - 12;
        int64_t fits = w - 2 /* indent */ - (int64_t)longest_suffix;
        if (fits < cols)
            cols = fits;
        bar_columns = cols < 1 ? 1u : (uint32_t)cols;
    }

    /* 4. Title line: "📊 <question>" in the strong style.                  */
    append_cstr(out, POLL_ICON, CELLHOST_STYLE_STRONG);
    append_string(out, question, CELLHOST_STYLE_STRONG);
    g_builder->line_break(out);

    /* 5. One option per two lines: "  <text>", then "  <bar> <votes> (<pct>%)". */
    for (i = 0; i < shown; i++) {
        char path[OPTION_PATH_SIZE];
        cellhost_string text;
        uint32_t blocks = 0;

        append_cstr(out, "  ", CELLHOST_STYLE_PLAIN);
        option_path(path, i, ".text");
        if (g_message->string(msg, path, &text) == CELLHOST_FOUND) {
            append_string(out, text, CELLHOST_STYLE_PLAIN);
        } else {
            /* An option without a usable text still gets its line and bar:
             * "(option <i + 1>)" (i < POLL_MAX_SHOWN_OPTIONS: no overflow). */
            n = put_str(buf, "(option ");
            n += put_u64(buf + n, (uint64_t)i + 1u);
            buf[n++] = ')';
            g_builder->append(out, buf, n, CELLHOST_STYLE_MUTED);
        }
        g_builder->line_break(out);

        if (max_votes > 0) {
            /* Proportional to the largest count. Rounded, and at least one
             * block for any vote, so that 1 vote out of 10^6 still shows. */
            blocks = (uint32_t)((double)bar_columns * (double)votes[i] / (double)max_votes + 0.5);
            if (blocks == 0 && votes[i] > 0)
                blocks = 1;
        }
        append_cstr(out, "  ", CELLHOST_STYLE_PLAIN);
        append_bar(out, blocks);
        /* With no bar there is no separating space (the line reads "  0 (0%)"). */
        if (blocks > 0)
            g_builder->append(out, suffixes[i], suffix_lengths[i], CELLHOST_STYLE_PLAIN);
        else
            g_builder->append(out, suffixes[i] + 1, suffix_lengths[i] - 1, CELLHOST_STYLE_PLAIN);
        g_builder->line_break(out);
    }

    /* 6. Options beyond the limit are summarized, not dropped silently.   */
    if (option_count > shown) {
        n = put_str(buf, "  " POLL_ELLIPSIS " and ");
        n += put_u64(buf + n, (uint64_t)(option_count - shown));
        n += put_str(buf + n, " more");
        g_builder->append(out, buf, n, CELLHOST_STYLE_MUTED);
        g_builder->line_break(out);
    }

    /* 7. Footer: "<total> vote(s)". There is no trailing line break, because
     *    the host ends the content after the last line.                    */
    n = put_i64(buf, total);
    n += put_str(buf + n, total == 1 ? " vote" : " votes");
    g_builder->append(out, buf, n, CELLHOST_STYLE_MUTED);

    return CELLHOST_RENDERED;
}

/* ------------------------------------------------------------------------ */
/* plainTextForMessage:context:into:                                         */
/* ------------------------------------------------------------------------ */

/*
 * The IMP for CELLHOST_SEL_PLAIN_TEXT, used for the quote of a reply to a
 * poll. Declining here makes the host use its default summary (the
 * message's text).
 */
static int32_t poll_plain_text(cellhost_object *self, cellhost_sel _cmd,
                               const cellhost_message *msg, const cellhost_context *ctx,
                               cellhost_builder *out)
{
    cellhost_string question;

    (void)self;
    (void)_cmd;
    (void)ctx;

    if (g_message->string(msg, "poll.question", &question) != CELLHOST_FOUND)
        return CELLHOST_DECLINED;

    append_cstr(out, "Poll: ", CELLHOST_STYLE_PLAIN);
    append_string(out, question, CELLHOST_STYLE_PLAIN);
    return CELLHOST_RENDERED;
}

/* ------------------------------------------------------------------------ */
/* The class and the descriptor: static const data, valid until deinit       */
/* ------------------------------------------------------------------------ */

/*
 * The method list. Each entry pairs a selector with the type encoding of its
 * IMP. For the well-known selectors the encoding must be exactly the one in
 * selectors.h, otherwise the host rejects the class at load time. Using the
 * CELLHOST_TYPES_* macros rules that mistake out. An IMP is stored as the
 * generic cellhost_imp, and the host calls it with the real signature, which
 * it reads from the encoding.
 */
static const cellhost_method poll_methods[] = {
    CELLHOST_METHOD(CELLHOST_SEL_RENDER,     CELLHOST_TYPES_RENDER,     poll_render),
    CELLHOST_METHOD(CELLHOST_SEL_PLAIN_TEXT, CELLHOST_TYPES_PLAIN_TEXT, poll_plain_text),
};

/* registerClass:forMessageClass: for "poll". A NULL-terminated list. */
static const char *const poll_message_classes[] = { "poll", NULL };

static const cellhost_class poll_classes[] = {
    {
        .struct_size     = sizeof(cellhost_class),
        .name            = "PollMessageCell",
        .superclass      = "MessageCell", /* the host draws the chrome */
        .message_classes = poll_message_classes,
        .rank            = 0,             /* shipped plugins use 0 */
        .methods         = poll_methods,
        .method_count    = (uint32_t)(sizeof poll_methods / sizeof poll_methods[0]),
        .instance_size   = 0,             /* stateless: no object_ivars */
    },
};

/*
 * Sample messages for `cellhost check-plugin` (samples.h): the payloads this
 * cell reads, so the validator exercises them besides its own corpus.
 */
static const char *const poll_sample_messages[] = {
    "{\"type\":\"poll\",\"text\":\"Lunch?\",\"poll\":{\"question\":\"Lunch?\","
    "\"options\":[{\"text\":\"Noodles\",\"votes\":3},{\"text\":\"Tacos\",\"votes\":1},{\"text\":\"Salad\"}]}}",
    "{\"type\":\"poll\",\"text\":\"Empty\",\"poll\":{\"question\":\"Nobody voted\",\"options\":[{\"text\":\"A\",\"votes\":0}]}}",
};

static const cellhost_samples poll_samples = {
    .struct_size = sizeof(cellhost_samples),
    .count = (uint32_t)(sizeof poll_sample_messages / sizeof poll_sample_messages[0]),
    .messages = poll_sample_messages,
};

static const void *poll_get_extension(const char *id)
{
    return strcmp(id, CELLHOST_EXT_SAMPLES) == 0 ? &poll_samples : NULL;
}

static const cellhost_plugin_descriptor poll_descriptor = {
    .abi                 = CELLHOST_ABI_VERSION_INIT, /* always first */
    .struct_size         = sizeof(cellhost_plugin_descriptor),
    .flags               = CELLHOST_PLUGIN_THREAD_SAFE,
    .id                  = "org.cellhost.poll",
    .version             = "1.0.0",
    .description         = "Polls: question, options, votes as bars",
    .author              = "CellHost",
    .license             = "MIT",
    .init                = poll_init,
    .deinit              = poll_deinit,
    .classes             = poll_classes,
    .class_count         = (uint32_t)(sizeof poll_classes / sizeof poll_classes[0]),
    .message_classes     = NULL, /* "poll" is declared by the host */
    .message_class_count = 0,
    .get_extension       = poll_get_extension,
};

/*
 * The one exported symbol. The host looks it up with dlsym, calls it once and
 * reads the descriptor. The header shows its signature only in a comment, so
 * it is declared here first. The declaration lets the compiler check the
 * definition against it and keeps -Wmissing-prototypes quiet.
 */
CELLHOST_EXPORT const cellhost_plugin_descriptor *cellhost_plugin_entry(void);

CELLHOST_EXPORT const cellhost_plugin_descriptor *cellhost_plugin_entry(void)
{
    return &poll_descriptor;
}
