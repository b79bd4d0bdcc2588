#!/usr/bin/python3
"""Renders a page `onnxcc graph` wrote in headless Chromium and checks it.

Usage: check_page.py CHROMIUM PAGE [--model MODEL.onnx] [--screenshot OUT.png]
                     [--profile DIR]

- Chromium's log must show no console message and no uncaught exception
  (the page itself never logs, so any console line is an error).
- With --model: the DOM after the scripts ran must hold one `node op`
  element per node of the model's main graph, one `node initializer` per
  initializer and one `node input`/`node output` per graph input/output,
  all counted here with the onnx package, independently of onnxcc.
- With --interact: a copy of the page with a test script appended zooms with
  a wheel event, pans with a pointer drag and clicks the first op node (or
  the first node of a graph without ops); the
  view must change each time and the panel must then name the node. Any
  failure is a console error; the script marks the body when it is done.
- With --screenshot: a 1200x800 screenshot must not be blank (enough
  non-white pixels and distinct colours); the PNG is decoded here with zlib.

Prints one line per check and exits 1 on the first failure.
"""
import argparse
import os
import re
import struct
import subprocess
import sys
import zlib


def fail(message):
    print("FAIL: " + message)
    sys.exit(1)


def chromium(binary, profile, args, page):
    command = [binary, "--headless", "--disable-gpu", "--no-sandbox", "--no-first-run",
               "--disable-extensions", "--user-data-dir=" + profile,
               "--enable-logging=stderr", "--v=0"] + args + ["file://" + os.path.abspath(page)]
    result = subprocess.run(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            timeout=60)
    return result.stdout.decode("utf-8", "replace"), result.stderr.decode("utf-8", "replace")


def console_errors(log):
    """Console messages and uncaught exceptions in Chromium's log."""
    return [line for line in log.splitlines()
            if "CONSOLE" in line or "Uncaught" in line or "SyntaxError" in line]


# Appended to a copy of the page: drives it as a user would.
INTERACT = r"""
(function () {
  function transform() { return document.getElementById('viewport').getAttribute('transform'); }
  var view = document.getElementById('view');
  var t0 = transform();
  view.dispatchEvent(new WheelEvent('wheel', {deltaY: -300, clientX: 200, clientY: 200,
                                              bubbles: true, cancelable: true}));
  var t1 = transform();
  if (t1 === t0) console.error('selftest: the wheel did not zoom');
  view.dispatchEvent(new PointerEvent('pointerdown', {clientX: 200, clientY: 200, bubbles: true}));
  window.dispatchEvent(new PointerEvent('pointermove', {clientX: 260, clientY: 240, bubbles: true}));
  window.dispatchEvent(new PointerEvent('pointerup', {clientX: 260, clientY: 240, bubbles: true}));
  var t2 = transform();
  if (t2 === t1) console.error('selftest: dragging did not pan');
  var node = document.querySelector('g.node.op') || document.querySelector('g.node');
  if (!node) { document.body.setAttribute('data-selftest', 'done'); return; }
  var box = node.getBoundingClientRect();
  var at = {clientX: box.left + 2, clientY: box.top + 2, bubbles: true};
  node.dispatchEvent(new PointerEvent('pointerdown', at));
  node.dispatchEvent(new PointerEvent('pointerup', at));
  var title = document.querySelector('#panel h1');
  var want = node.querySelector('text').textContent;
  if (!title || title.textContent !== want)
    console.error('selftest: the panel does not show the clicked node');
  if (!node.classList.contains('selected')) console.error('selftest: node not selected');
  document.body.setAttribute('data-selftest', 'done');
})();
"""


def decode_png(path):
    """(width, height, rows of RGB(A) tuples) of an 8-bit RGB or RGBA PNG."""
    with open(path, "rb") as f:
        data = f.read()
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        fail("%s is not a PNG" % path)
    pos, idat, width, height, channels = 8, b"", 0, 0, 0
    while pos < len(data):
        length, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + length]
        pos += 12 + length
        if kind == b"IHDR":
            width, height, depth, color, _, _, interlace = struct.unpack(">IIBBBBB", body)
            if depth != 8 or color not in (2, 6) or interlace:
                fail("unexpected PNG format depth=%d color=%d" % (depth, color))
            channels = 3 if color == 2 else 4
        elif kind == b"IDAT":
            idat += body
    raw = zlib.decompress(idat)
    stride = width * channels
    rows, prev, i = [], bytearray(stride), 0
    for _ in range(height):
        kind = raw[i]
        line = bytearray(raw[i + 1:i + 1 + stride])
        i += 1 + stride
        for x in range(stride):
            a = line[x - channels] if x >= channels else 0
            b = prev[x]
            c = prev[x - channels] if x >= channels else 0
            if kind == 1:
                line[x] = (line[x] + a) & 255
            elif kind == 2:
                line[x] = (line[x] + b) & 255
            elif kind == 3:
                line[x] = (line[x] + (a + b) // 2) & 255
            elif kind == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                pred = a if pa <= pb and pa <= pc else (b if pb <= pc else c)
                line[x] = (line[x] + pred) & 255
        rows.append(line)
        prev = line
    return width, height, channels, rows


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("chromium")
    parser.add_argument("page")
    parser.add_argument("--model")
    parser.add_argument("--screenshot")
    parser.add_argument("--profile", default=None)
    parser.add_argument("--interact", action="store_true")
    args = parser.parse_args()
    profile = args.profile or os.path.join(os.path.dirname(os.path.abspath(args.page)),
                                           "chromium-profile")

    dom, log = chromium(args.chromium, profile, ["--dump-dom"], args.page)
    errors = console_errors(log)
    if errors:
        fail("console errors:\n" + "\n".join(errors))
    print("no console errors")
    if not dom.strip():
        fail("empty DOM")

    if args.model:
        import onnx
        graph = onnx.load(args.model, load_external_data=False).graph
        initializers = {t.name for t in graph.initializer}
        expected = {
            "op": len(graph.node),
            "initializer": len(graph.initializer),
            "input": len([i for i in graph.input if i.name not in initializers]),
            "output": len(graph.output),
        }
        for kind, count in sorted(expected.items()):
            found = len(re.findall(r'<g class="node %s"' % kind, dom))
            if found != count:
                fail("%d %s nodes in the DOM, the model has %d" % (found, kind, count))
            print("%s nodes: %d" % (kind, found))
        # The page's script ran to its end.
        ready = re.search(r'<body[^>]*data-ready="(\d+)"', dom)
        if not ready or int(ready.group(1)) != sum(expected.values()):
            fail("the page's script did not finish (data-ready=%s)" %
                 (ready.group(1) if ready else None))
        print("script ran: data-ready=%s" % ready.group(1))

    if args.interact:
        with open(args.page, encoding="utf-8") as f:
            page = f.read()
        if page.count("</body>") != 1:
            fail("the page has no single </body>")
        page = page.replace("</body>", "<script>" + INTERACT + "</script></body>")
        copy = args.page + ".interact.html"
        with open(copy, "w", encoding="utf-8") as f:
            f.write(page)
        dom2, log = chromium(args.chromium, profile, ["--dump-dom"], copy)
        errors = console_errors(log)
        if errors:
            fail("interaction errors:\n" + "\n".join(errors))
        if 'data-selftest="done"' not in dom2:
            fail("the interaction script did not finish")
        panel = re.search(r'<div id="panel">(.*?)</div>', dom2, re.S)
        print("interaction: zoom, pan and click work")
        print("panel: " + (panel.group(1) if panel else "(none)"))

    if args.screenshot:
        _, log = chromium(args.chromium, profile,
                          ["--screenshot=" + os.path.abspath(args.screenshot),
                           "--window-size=1200,800", "--hide-scrollbars"], args.page)
        errors = console_errors(log)
        if errors:
            fail("console errors:\n" + "\n".join(errors))
        if not os.path.exists(args.screenshot):
            fail("no screenshot written")
        width, height, channels, rows = decode_png(args.screenshot)
        # Only the drawing's area counts: the panel on the right has text of
        # its own whatever the drawing holds.
        view = min(width, 1200 - 340) if args.page.endswith(".html") else width
        colors, dark = set(), 0
        for line in rows:
            for x in range(0, view * channels, channels):
                rgb = (line[x], line[x + 1], line[x + 2])
                colors.add(rgb)
                if min(rgb) < 240:
                    dark += 1
        fraction = dark / float(view * height)
        print("screenshot %dx%d: %d colours, %.3f non-white" % (width, height, len(colors),
                                                                 fraction))
        if len(colors) < 8 or fraction < 0.002:
            fail("the screenshot is blank")
    print("OK")


if __name__ == "__main__":
    main()
