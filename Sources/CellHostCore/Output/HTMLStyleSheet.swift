/// The style sheet of `--format html`, inlined in the page's head. Colours
/// are custom properties with a light scheme and a dark one
/// (`prefers-color-scheme`); the six sender colours (`c0`…`c5`) are the
/// terminal's hues (`ANSIStyle.senderRGB`), darkened for the light scheme.
enum HTMLStyleSheet {
    static let css = """
    :root{color-scheme:light dark;--bg:#eef1f4;--fg:#1b1f23;--muted:#5c6670;--rule:#c9d0d7;--in:#ffffff;--out:#d9efff;\
    --edge:#d3d9df;--code:#e8ecf0;--link:#0a58b0;--accent:#7b2f9e;--ok:#23782c;--warn:#8a5a00;--err:#c21f1f;\
    --c0:#c62828;--c1:#2e7d32;--c2:#946200;--c3:#1565c0;--c4:#8e24aa;--c5:#00796b}
    @media (prefers-color-scheme:dark){:root{--bg:#101417;--fg:#e2e6ea;--muted:#96a1ab;--rule:#353d45;--in:#1c2227;\
    --out:#15334a;--edge:#2b333a;--code:#2a3239;--link:#79b8ff;--accent:#d39be6;--ok:#7cc784;--warn:#f2c14e;--err:#ff6b66;\
    --c0:#ef5350;--c1:#66bb6a;--c2:#ffca28;--c3:#42a5f5;--c4:#c77dd6;--c5:#26c6da}}
    *{box-sizing:border-box}
    body{margin:0;background:var(--bg);color:var(--fg);font:15px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,"Noto Sans",sans-serif}
    main{max-width:54rem;margin:0 auto;padding:1rem 1rem 2rem}
    .day{display:flex;align-items:center;gap:.8rem;margin:1.4rem 0 .4rem;color:var(--muted);font-size:.82em;font-weight:600}
    .day::before,.day::after{content:"";flex:1;border-top:1px solid var(--rule)}
    .system{margin:.9rem auto .3rem;text-align:center;color:var(--muted);font-size:.88em;white-space:pre-wrap;overflow-wrap:anywhere}
    .conversation{margin:1.6rem 0 .6rem;text-align:center;font-weight:700;font-size:1.1em;white-space:pre-wrap;overflow-wrap:anywhere;\
    border-bottom:3px double var(--rule);padding-bottom:.3rem}
    .msg{display:flex;flex-direction:column;align-items:flex-start;margin-top:.25rem}
    .msg.out{align-items:flex-end}
    .msg.start{margin-top:.9rem}
    .head{margin:0 .5rem .15rem;font-size:.82em;color:var(--muted)}
    .sender{font-weight:700}
    .bubble{max-width:85%;min-width:3rem;padding:.35rem .65rem .4rem;background:var(--in);border:1px solid var(--edge);\
    border-left:3px solid var(--muted);border-radius:.2rem .8rem .8rem .8rem;overflow:hidden}
    .out .bubble{background:var(--out);border-left-width:1px;border-right:3px solid var(--link);border-radius:.8rem .2rem .8rem .8rem}
    .msg.start .bubble{border-top-left-radius:.8rem}
    .msg.out.start .bubble{border-top-right-radius:.8rem}
    .c0 .sender{color:var(--c0)}.c0 .bubble{border-left-color:var(--c0)}
    .c1 .sender{color:var(--c1)}.c1 .bubble{border-left-color:var(--c1)}
    .c2 .sender{color:var(--c2)}.c2 .bubble{border-left-color:var(--c2)}
    .c3 .sender{color:var(--c3)}.c3 .bubble{border-left-color:var(--c3)}
    .c4 .sender{color:var(--c4)}.c4 .bubble{border-left-color:var(--c4)}
    .c5 .sender{color:var(--c5)}.c5 .bubble{border-left-color:var(--c5)}
    .text{white-space:pre-wrap;overflow-wrap:anywhere}
    .bars{font-family:ui-monospace,"DejaVu Sans Mono",monospace;white-space:pre}
    .rows{white-space:pre;font-family:ui-monospace,"DejaVu Sans Mono",monospace;line-height:1;overflow-x:auto;margin:.2rem 0}
    .quote{display:block;margin:.1rem 0 .3rem;padding-left:.5rem;border-left:2px solid var(--rule);color:var(--muted);\
    font-style:italic;font-size:.9em;text-decoration:none;white-space:nowrap;overflow:hidden;text-overflow:ellipsis}
    a.quote:hover{color:var(--fg)}
    .media{margin:.35rem 0}
    .media img{display:block;width:18rem;max-width:100%;height:auto;border-radius:.5rem;image-rendering:auto}
    .media audio{display:block;width:18rem;max-width:100%;height:2.2rem}
    a{color:var(--link)}
    a.file{color:inherit;text-decoration:none}
    a.file:hover{text-decoration:underline}
    code{font-family:ui-monospace,"DejaVu Sans Mono",monospace;font-size:.92em;background:var(--code);padding:0 .25em;border-radius:.25em}
    .muted{color:var(--muted)}.accent{color:var(--accent)}.ok{color:var(--ok)}.warn{color:var(--warn)}.err{color:var(--err)}
    .q{font-style:italic;color:var(--muted)}.link{text-decoration:underline}
    .more{color:var(--muted);font-style:italic;font-size:.9em}
    .foot{display:flex;flex-wrap:wrap;justify-content:flex-end;gap:.7em;margin-top:.15rem;font-size:.8em;color:var(--muted)}
    .reactions{color:var(--fg)}
    .edited{font-style:italic}
    .status.read{color:var(--ok)}
    .status.failed{color:var(--err);font-weight:700}

    """
}
