#!/usr/bin/env python3
"""Where a render's CPU time goes, from a `perf script` of a cpu-clock profile.

Instruction counts (callgrind) say how much work the code does; they do not
say what an instruction costs. Atomic reference counting, cache lines that
move between the two render threads, and system calls cost far more per
instruction than the parser's loops, so this script reads a sampled time
profile (`perf record -e cpu-clock -g`, which needs no hardware counters)
and splits the samples:

- by thread: the owning thread (the first one sampled: it reads, lays
  out and writes) and the others (render workers: parse and plugins);
- by stage: a sample counts for the innermost stage on its call stack (the
  owning thread does its in-order work from inside `submit`, so "read and
  submit" is what is left of it);
- by cost class, exclusive: reference counting (`swift_retain`,
  `swift_release`, `swift_isUniquelyReferenced…`, `swift_bridgeObject…`),
  allocation, the kernel (with the system calls that lead there).

Usage: time-profile.py PERF-SCRIPT.txt
"""
import collections
import re
import sys

STAGES = [
    ("read and submit", r"ChatReader|InputReader|RenderPipelineC6submit|RenderWorkersC6submit"),
    ("taking and handing back (workers)", r"RenderWorkersC7prepare|RenderWorkersC3run"),
    # `RenderSession.load` may be inlined into the worker's `prepare`: the
    # parser and the field pass are named too (a reply quote's re-parse is
    # told apart below).
    ("parse and load", r"RenderSessionC4load|TapeParser|JSONDocumentV5parse|MessageC4load|MessageC10readFields"),
    ("plugin walk", r"RenderSessionC4walk"),
    ("reply quotes, remembering", r"RenderSessionC8complete"),
    ("wrap", r"WrapperV4wrap"),
    ("chrome", r"ChromeC6layout"),
    ("encode (and emit's own work)", r"LineEncoder|RenderSessionC4emit"),
    ("write", r"OutputBuffer.*flush|OutputBufferC5flush|__libc_write|\bwrite\b"),
]
# Innermost first: the order a stack is searched in.
STAGE_ORDER = ["write", "chrome", "wrap", "encode (and emit's own work)", "reply quotes, remembering", "plugin walk",
               "parse and load", "taking and handing back (workers)", "read and submit"]
REFCOUNT = re.compile(r"^(swift_retain|swift_release|swift_isUniquelyReferenced\w*|swift_bridgeObjectRe\w+|"
                      r"swift_unknownObjectRe\w+|swift_unownedRe\w+|_swift_release_dealloc)$")
ALLOCATION = re.compile(r"^(malloc|free|_int_malloc|_int_free\w*|cfree|realloc|swift_allocObject|"
                        r"swift_deallocClassInstance|swift_slowAlloc|swift_slowDealloc|malloc_consolidate)$")
SYSCALLS = [
    ("stat (media paths)", r"fstatat|statx|vfs_statx"),
    ("futex (threads waiting and waking)", r"futex"),
    ("read", r"ksys_read|sys_read"),
    ("write", r"ksys_write|sys_write"),
    ("page faults", r"page_fault"),
]


def samples(path):
    """Yields (thread id, [symbols, innermost first], is kernel) per sample."""
    thread, stack, kernel = None, [], False
    with open(path, errors="replace") as lines:
        for line in lines:
            if not line.strip():
                if thread is not None and stack:
                    yield thread, stack, kernel
                thread, stack, kernel = None, [], False
                continue
            if not line[0].isspace():
                fields = line.split()
                thread = fields[1] if len(fields) > 1 else fields[0]
                continue
            parts = line.strip().split(None, 1)
            if len(parts) < 2:
                continue
            if not stack:
                kernel = "[kernel.kallsyms]" in parts[1]
            symbol = re.sub(r"\+0x[0-9a-f]+ \(.*\)$", "", parts[1])
            stack.append(re.sub(r" \(.*\)$", "", symbol))
    if thread is not None and stack:
        yield thread, stack, kernel


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    threads = collections.Counter()
    owner = None
    stages = collections.Counter()
    classes = collections.Counter()
    kernel_by_call = collections.Counter()
    total = 0
    for thread, stack, kernel in samples(sys.argv[1]):
        total += 1
        owner = owner or thread
        threads["owning thread" if thread == owner else "thread " + thread] += 1
        patterns = dict(STAGES)
        for position, symbol in enumerate(stack):
            stage = next((name for name in STAGE_ORDER if re.search(patterns[name], symbol)), None)
            if stage == "parse and load" and any(re.search(patterns["reply quotes, remembering"], outer)
                                                 for outer in stack[position + 1:]):
                stage = "reply quotes, remembering"
            if stage:
                stages[stage] += 1
                break
        else:
            stages["other (start-up, waiting, waking)"] += 1
        if kernel:
            classes["kernel"] += 1
            for name, pattern in SYSCALLS:
                if any(re.search(pattern, symbol) for symbol in stack):
                    kernel_by_call[name] += 1
                    break
            else:
                kernel_by_call["other"] += 1
        elif REFCOUNT.match(stack[0]):
            classes["reference counting"] += 1
        elif ALLOCATION.match(stack[0]):
            classes["allocation"] += 1
        else:
            classes["everything else"] += 1
    if total == 0:
        sys.exit("time-profile.py: no samples in " + sys.argv[1])

    def share(count):
        return f"{100 * count / total:5.1f} %"

    print(f"samples: {total}")
    print("by thread:")
    for name, count in threads.most_common():
        print(f"  {share(count)}  {name}")
    print("by stage:")
    for name, _ in STAGES + [("other (start-up, waiting, waking)", "")]:
        print(f"  {share(stages[name])}  {name}")
    print("by cost (exclusive):")
    for name in ("reference counting", "allocation", "kernel", "everything else"):
        print(f"  {share(classes[name])}  {name}")
        if name == "kernel":
            for call, count in kernel_by_call.most_common():
                print(f"      {share(count)}  {call}")


if __name__ == "__main__":
    main()
