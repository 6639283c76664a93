// The parse limit for the throughput benchmark: reads a JSON Lines file with
// simdjson's On-Demand API (Debian's libsimdjson-dev) and touches the fields
// the render path reads first — type, text, sender.name, time — doing nothing
// else with them. `cellhost render` cannot be faster than this; the benchmark
// reports render ÷ parse-only in CPU time.
//
//   g++ -O2 -std=c++17 Benchmarks/parse-only.cpp -lsimdjson -o parse-only
//   ./parse-only messages.jsonl      # prints: messages, bytes of text touched
#include <simdjson.h>
#include <cstdio>

int main(int argc, char **argv) {
    if (argc != 2) { std::fprintf(stderr, "usage: parse-only FILE.jsonl\n"); return 2; }
    simdjson::padded_string json;
    if (simdjson::padded_string::load(argv[1]).get(json)) { std::fprintf(stderr, "parse-only: cannot read %s\n", argv[1]); return 1; }
    simdjson::ondemand::parser parser;
    simdjson::ondemand::document_stream stream;
    if (parser.iterate_many(json, 1 << 20).get(stream)) { std::fprintf(stderr, "parse-only: not JSON Lines\n"); return 1; }
    size_t messages = 0, touched = 0;
    for (auto document : stream) {
        simdjson::ondemand::object object;
        if (document.get_object().get(object)) continue;
        messages++;
        // Fields in any order: look each one up (On-Demand rewinds as needed).
        std::string_view value;
        if (!object.find_field_unordered("type").get_string().get(value)) touched += value.size();
        if (!object.find_field_unordered("text").get_string().get(value)) touched += value.size();
        simdjson::ondemand::object sender;
        if (!object.find_field_unordered("sender").get_object().get(sender)) {
            if (!sender.find_field_unordered("name").get_string().get(value)) touched += value.size();
        }
        if (!object.find_field_unordered("time").get_string().get(value)) touched += value.size();
    }
    std::printf("%zu messages, %zu bytes of fields\n", messages, touched);
    return 0;
}
