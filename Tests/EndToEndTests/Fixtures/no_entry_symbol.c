/* A valid shared library that is not a plugin: it exports functions, but not
 * cellhost_plugin_entry. */
__attribute__((visibility("default"))) int not_a_plugin_entry(int x) {
    return x + 1;
}
