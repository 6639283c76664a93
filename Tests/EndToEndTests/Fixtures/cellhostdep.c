/* libcellhostdep.so: a library that needs_dependency.c links against. The
 * test deletes it before running the host, so dlopen cannot resolve it. */
__attribute__((visibility("default"))) int cellhost_dep_greeting_length(void) {
    return 5;
}
