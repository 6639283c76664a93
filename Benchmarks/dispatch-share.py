#!/usr/bin/env python3
"""Dispatch's share of a render profile.

Reads `callgrind_annotate --inclusive=yes` output of a `cellhost render` run
(in-process plugins, `--isolation none` or `auto` with the shipped plugins)
and splits the plugin calls into the renderers' own work and everything
around it:

- dispatch: everything `MessageRenderer.advance` runs that is not a
  renderer's own `render(_:into:context:)` (Swift plugins), render function
  (C plugins) or the host's `UnknownMessageCell`: walking the fallback
  chain, making the call context, the call itself (typed direct call, IMP
  entry: CellKit's plain C IMPs or libffi closures) and CellKit's per-call
  wrapper (`RenderMethod.callResult`: calls in progress, the context value);
  opening libraries on first use (`bindChain`) is left out;
- of which CellKit's wrapper: `RenderMethod.callResult` minus the renderers'
  `render` inside it.

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
    # `render(_ arguments:)` before 2026-12-03, then `render(_:_:_:_:)`
    # (the IMP's own arguments), now `callResult(_:_:_:_:)`.
    swift_wrapper = total(lines, r"CellKit12RenderMethodC(?:6render|10callResult)ys5Int32V\S*(?:ArgumentsV|t)F$")
    renderers = total(lines, r"0B3Kit07MessageB8RendererAacDP6render_4into7context.*TW$")
    c_render = total(lines, r"poll_render$")
    # The host's fallback cell: its C entry thunk (`...To`) includes the
    # closure it runs, so take the largest entry, not the sum.
    unknown = inclusive(lines, r"unknownA6Render")
    own = renderers + c_render + unknown
    dispatch = advance - bind - own
    wrapper = swift_wrapper - renderers
    print(f"total instructions:                {program:>14,}")
    print(f"dispatch in all:                   {dispatch:>14,}  {100 * dispatch / program:5.2f} %")
    print(f"  of which CellKit's wrapper:      {wrapper:>14,}  {100 * wrapper / program:5.2f} %")
    print(f"  chain walk, call and IMP entry:  {dispatch - wrapper:>14,}  {100 * (dispatch - wrapper) / program:5.2f} %")
    print(f"renderers' own render calls:       {own:>14,}  {100 * own / program:5.2f} %")


if __name__ == "__main__":
    main()
