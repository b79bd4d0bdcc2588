#!/usr/bin/env python3
"""Checks what onnxcc wrote for the model of hostile_names.py.

  check_hostile.py source FILE...        C/C++ files: no identifier or directive
                                         came from a name (a lexer of its own
                                         skips comments and literals)
  check_hostile.py graph SVG HTML DOT    the pictures are well-formed
  check_hostile.py optimize ORIG OUT...  the optimized models keep the names
Prints one OK line per check and exits 1 on the first failure.
"""
import json
import re
import sys
import xml.etree.ElementTree as ET

# Words that exist only inside the model's names.
FORBIDDEN = {"injected", "pwned", "passwd"}
DIRECTIVES = re.compile(r'#\s*(include\s+("[A-Za-z0-9_.]+"|<[a-z0-9_./]+>)|define\s+\w+|'
                        r'ifn?def\s+\w+|if\b|elif\b|else\b|endif\b|error\s+"onnxcc: )')


def fail(msg):
    print("FAIL: " + msg)
    sys.exit(1)


def tokens(text, path):
    """Identifiers and directive lines of C/C++ source outside comments and literals."""
    i, n, line_start = 0, len(text), True
    while i < n:
        c = text[i]
        if text.startswith("//", i):
            j = text.find("\n", i)
            if j < 0:
                return
            if text[j - 1] == "\\":
                fail(f"{path}: a line comment ends in a backslash (splices the next line)")
            i = j
            continue
        if text.startswith("/*", i):
            j = text.find("*/", i + 2)
            if j < 0:
                fail(f"{path}: unterminated block comment")
            i = j + 2
            continue
        if c in "\"'":
            j = i + 1
            while j < n and text[j] != c:
                if text[j] == "\n":
                    fail(f"{path}: a newline inside a literal at byte {j}")
                j += 2 if text[j] == "\\" else 1
            i = j + 1
            line_start = False
            continue
        if c == "\n":
            line_start = True
            i += 1
            continue
        if c == "#" and line_start:
            j = text.find("\n", i)
            yield ("directive", text[i:j if j >= 0 else n])
            line_start = False
            i += 1
            continue
        if c.isalpha() or c == "_":
            j = i
            while j < n and (text[j].isalnum() or text[j] == "_"):
                j += 1
            yield ("ident", text[i:j])
            i = j
            line_start = False
            continue
        if not c.isspace():
            line_start = False
        i += 1


def check_source(paths):
    for path in paths:
        raw = open(path, "rb").read()
        if any(b >= 0x80 or (b < 0x20 and b not in (9, 10)) for b in raw):
            fail(f"{path}: a control or non-ASCII byte in the source")
        text = raw.decode("ascii")
        if "??" in text:
            fail(f"{path}: '??' (a trigraph where they are on)")
        for kind, value in tokens(text, path):
            if kind == "ident" and value in FORBIDDEN:
                fail(f"{path}: identifier '{value}' came from a name")
            if kind == "directive" and not DIRECTIVES.match(value):
                fail(f"{path}: unexpected directive {value!r}")
        print(f"OK source {path.rsplit('/', 1)[-1]}")


def check_graph(svg, html, dot):
    root = ET.parse(svg).getroot()
    titles = [t.text or "" for t in root.iter("{http://www.w3.org/2000/svg}title")]
    if not any("a.b" in t for t in titles):
        fail("svg: no title names tensor a.b")
    print("OK svg parses")
    page = open(html, encoding="utf-8").read()
    m = re.search(r'<script type="application/json" id="graph-data">(.*?)</script>', page, re.S)
    if not m:
        fail("html: no graph data")
    data = json.loads(m.group(1))
    if "</script" in m.group(1).lower():
        fail("html: the data closes its script element")
    print(f"OK html data parses ({len(data['nodes'])} nodes)")
    text = open(dot, encoding="utf-8").read()
    # Outside strings a DOT file here holds only ids, keywords and punctuation.
    outside = re.sub(r'"(\\.|[^"\\\n])*"', '""', text)
    if '"' in outside.replace('""', ""):
        fail("dot: an unbalanced or multi-line string")
    if re.search(r"[^\w\s\[\]{};=,\"\->.:]", outside):
        fail("dot: stray characters outside strings: " +
             repr(re.findall(r"[^\w\s\[\]{};=,\"\->.:]", outside)[:5]))
    print("OK dot strings balanced")


def check_optimize(orig, outs):
    import onnx
    from google.protobuf import text_format
    want = onnx.load(orig)
    names = lambda m: ([i.name for i in m.graph.input], [o.name for o in m.graph.output])
    for out in outs:
        if out.endswith(".onnxtxt"):
            model = onnx.ModelProto()
            text_format.Parse(open(out, encoding="utf-8").read(), model)
        else:
            model = onnx.load(out)
        if names(model) != names(want):
            fail(f"{out}: names differ: {names(model)!r:.300} vs {names(want)!r:.300}")
        print(f"OK optimize {out.rsplit('/', 1)[-1]} keeps {sum(map(len, names(want)))} names")


def main():
    kind, args = sys.argv[1], sys.argv[2:]
    {"source": lambda: check_source(args), "graph": lambda: check_graph(*args),
     "optimize": lambda: check_optimize(args[0], args[1:])}[kind]()


if __name__ == "__main__":
    main()
