#!/usr/bin/env python3
"""Dispatch's share of a render profile.

Reads `callgrind_annotate --inclusive=yes` output of a `cellhost render` run
(in-process plugins, `--isolation none` or `auto` with the shipped plugins)
and splits the plugin calls into the renderers' own work and everything
around it:

- chain walk: the host's `MessageRenderer.advance` (walking the fallback
  chain, the call context, the typed direct call or `ffi_call`) minus what it
  calls in the plugins, and minus opening libraries on first use (`bindChain`);
- call entry: the libffi closure trampolines CellKit's IMPs are, and CellKit's
  per-call wrapper (`closureHandler`, `RenderMethod.render`) minus the
  renderer's `render(_:into:context:)` itself.

Usage: dispatch-share.py INCLUSIVE.txt
"""
import re
import sys


def inclusive(lines, pattern):
    """The largest inclusive count of a function whose name matches `pattern`
    (callgrind_annotate lists a function once per source file its inlined
    code came from; the largest entry is the whole function)."""
    best = 0
    for line in lines:
        match = re.match(r"\s*([\d,]+)\s+(?:\([^)]*\)\s+)?(.*)$", line)
        if match and "=>" not in line and re.search(pattern, match.group(2)):
            best = max(best, int(match.group(1).replace(",", "")))
    return best


def total(lines, pattern):
    """The sum over distinct functions matching `pattern` of their largest entry."""
    names = {}
    for line in lines:
        match = re.match(r"\s*([\d,]+)\s+(?:\([^)]*\)\s+)?\S*?:(\S+)", line)
        if match and "=>" not in line and re.search(pattern, match.group(2)):
            name = match.group(2)
            names[name] = max(names.get(name, 0), int(match.group(1).replace(",", "")))
    return sum(names.values())


def main():
    lines = open(sys.argv[1], encoding="utf-8", errors="replace").read().splitlines()
    program = inclusive(lines, r"PROGRAM TOTALS")
    for line in lines:
        if "PROGRAM TOTALS" in line:
            program = int(line.split()[0].replace(",", ""))
    advance = inclusive(lines, r"MessageRenderer.*advance")
    bind = inclusive(lines, r"Runtime.*bindChain")
    # Everything the host called through the plugins' IMPs during advance:
    # Swift plugins (CellKit's closures: libffi's closure entry), C plugins
    # (PollCell) and the host's own UnknownMessageCell.
    closures = inclusive(lines, r"libffi\.so.*\]$|0x00000000000070c8")
    swift_wrapper = total(lines, r"CellKit12RenderMethodC6renderys5Int32VAA9ArgumentsVF$")
    renderers = total(lines, r"0B3Kit07MessageB8RendererAacDP6render_4into7context.*TW$")
    plain_wrapper = total(lines, r"CellKit15PlainTextMethodC05plainD0ys5Int32VAA9ArgumentsVF$")
    c_render = total(lines, r"poll_render$")
    unknown = total(lines, r"unknownA6Render")
    # The closures also run the plain-text calls of reply previews, which
    # are not part of advance.
    called = closures - plain_wrapper + c_render + unknown
    walk = advance - bind - called
    entry = (closures - plain_wrapper - swift_wrapper) + (swift_wrapper - renderers)
    print(f"total instructions:                {program:>14,}")
    print(f"chain walk and call (host):        {walk:>14,}  {100 * walk / program:5.2f} %")
    print(f"IMP entry and CellKit wrapper:     {entry:>14,}  {100 * entry / program:5.2f} %")
    print(f"dispatch in all:                   {walk + entry:>14,}  {100 * (walk + entry) / program:5.2f} %")
    print(f"renderers' own render calls:       {renderers + c_render + unknown:>14,}  "
          f"{100 * (renderers + c_render + unknown) / program:5.2f} %")


if __name__ == "__main__":
    main()
