#!/usr/bin/env python3
"""Opens a `bench report --html` page in headless Chromium and checks that
every chart is drawn.

    python3 tests/html_check.py PAGE.html OUTDIR RESULTS [SCREENSHOT.png]

RESULTS is how many results the page draws. Loads the page with --dump-dom
(the DOM after load) and checks the three charts: chart-throughput with one
rect.bar per result (non-zero width), chart-latency with one path.series per
result, chart-drift with one g.panel per result each holding a path.line.p50
and a path.line.p99 (non-empty d). Then takes a 1200-pixel-wide screenshot
and checks it is not blank and that each bar's colour is painted. Exit 0 when
all hold, 1 with the reasons when not, 77 when Chromium is not installed
(the caller skips). Nothing is fetched: the page must not need a network."""
import html.parser
import os
import shutil
import struct
import subprocess
import sys
import tempfile
import zlib

SKIP = 77


def chromium():
    for name in ("chromium", "chromium-browser", "google-chrome"):
        path = shutil.which(name)
        if path:
            return path
    return None


def run_chromium(exe, args, page, outdir):
    profile = tempfile.mkdtemp(prefix="chromium-profile-", dir=outdir)
    cmd = [exe, "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic",
           "--no-first-run", "--disable-background-networking", "--disable-component-update",
           "--disable-sync", "--hide-scrollbars", "--user-data-dir=" + profile] + args + [
               "file://" + os.path.abspath(page)]
    try:
        done = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=180)
    finally:
        shutil.rmtree(profile, ignore_errors=True)
    return done


class Dom(html.parser.HTMLParser):
    """Collects the SVG elements of the three charts."""

    def __init__(self):
        super().__init__()
        self.stack = []      # open svg ids / panel markers
        self.svgs = {}       # id -> dict of counts
        self.svg = None
        self.panel = None
        self.problems = []

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        cls = (a.get("class") or "").split()
        if tag == "svg":
            self.svg = a.get("id")
            self.svgs[self.svg] = {"role": a.get("role"), "title": False, "bars": [],
                                   "ranges": 0, "series": [], "panels": []}
            return
        if self.svg is None:
            return
        s = self.svgs[self.svg]
        if tag == "title":
            s["title"] = True
        elif tag == "rect" and "bar" in cls:
            s["bars"].append((float(a.get("width", "0")), a.get("fill")))
        elif tag == "line" and "range" in cls:
            s["ranges"] += 1
        elif tag == "path" and "series" in cls:
            s["series"].append(a.get("d", ""))
        elif tag == "g" and "panel" in cls:
            self.panel = {"p50": "", "p99": ""}
            s["panels"].append(self.panel)
        elif tag == "path" and "line" in cls and self.panel is not None:
            for k in ("p50", "p99"):
                if k in cls:
                    self.panel[k] = a.get("d", "")

    def handle_endtag(self, tag):
        if tag == "svg":
            self.svg = None
            self.panel = None


def check_dom(text, n):
    dom = Dom()
    dom.feed(text)
    bad = []
    for sid in ("chart-throughput", "chart-latency", "chart-drift"):
        s = dom.svgs.get(sid)
        if s is None:
            bad.append("no <svg id=%s> in the loaded page" % sid)
            continue
        if s["role"] != "img" or not s["title"]:
            bad.append("%s lacks role=img or a <title>" % sid)
    if bad:
        return bad, []
    t, l, d = (dom.svgs[k] for k in ("chart-throughput", "chart-latency", "chart-drift"))
    if len(t["bars"]) != n or any(w <= 0 for w, _ in t["bars"]):
        bad.append("chart-throughput: %d bars (want %d, each wider than 0)" % (len(t["bars"]), n))
    if t["ranges"] < n:
        bad.append("chart-throughput: %d range lines (want at least %d)" % (t["ranges"], n))
    if len(l["series"]) != n or any(p.count("L") < 10 for p in l["series"]):
        bad.append("chart-latency: %d series paths (want %d with their points)"
                   % (len(l["series"]), n))
    if len(d["panels"]) != n or any(not p["p50"] or not p["p99"] for p in d["panels"]):
        bad.append("chart-drift: %d panels (want %d, each with a p50 and a p99 line)"
                   % (len(d["panels"]), n))
    return bad, [c for _, c in t["bars"]]


def png_pixels(path):
    """Decodes an 8-bit RGB or RGBA, non-interlaced PNG: (width, height, rows)."""
    data = open(path, "rb").read()
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        raise ValueError("not a PNG")
    pos, idat, w = 8, b"", None
    while pos < len(data):
        length, kind = struct.unpack(">I4s", data[pos:pos + 8])
        chunk = data[pos + 8:pos + 8 + length]
        if kind == b"IHDR":
            w, h, depth, ctype, _, _, interlace = struct.unpack(">IIBBBBB", chunk)
            if depth != 8 or ctype not in (2, 6) or interlace:
                raise ValueError("unsupported PNG (depth %d, type %d)" % (depth, ctype))
            bpp = 3 if ctype == 2 else 4
        elif kind == b"IDAT":
            idat += chunk
        pos += 12 + length
    raw = zlib.decompress(idat)
    stride = w * bpp
    rows, prev, i = [], bytearray(stride), 0
    for _ in range(h):
        f, line = raw[i], bytearray(raw[i + 1:i + 1 + stride])
        i += 1 + stride
        for x in range(stride):
            a = line[x - bpp] if x >= bpp else 0
            b = prev[x]
            c = prev[x - bpp] if x >= bpp else 0
            if f == 1:
                line[x] = (line[x] + a) & 255
            elif f == 2:
                line[x] = (line[x] + b) & 255
            elif f == 3:
                line[x] = (line[x] + ((a + b) >> 1)) & 255
            elif f == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                pr = a if pa <= pb and pa <= pc else (b if pb <= pc else c)
                line[x] = (line[x] + pr) & 255
        rows.append(bytes(line))
        prev = line
    return w, h, bpp, rows


def check_png(path, colours):
    try:
        w, h, bpp, rows = png_pixels(path)
    except (OSError, ValueError, zlib.error) as e:
        return ["the screenshot %s cannot be read: %s" % (path, e)]
    counts, ink = {}, 0
    for row in rows:
        for x in range(0, w * bpp, bpp):
            px = row[x:x + 3]
            if px != b"\xff\xff\xff":
                ink += 1
            counts[px] = counts.get(px, 0) + 1
    bad = []
    if ink < w * h // 50:
        bad.append("the screenshot is blank (%d of %d pixels not white)" % (ink, w * h))
    for c in colours:
        rgb = bytes.fromhex(c.lstrip("#"))
        if counts.get(rgb, 0) < 100:
            bad.append("the colour %s of a bar is not painted (%d pixels)"
                       % (c, counts.get(rgb, 0)))
    return bad


def main():
    if len(sys.argv) not in (4, 5):
        print(__doc__, file=sys.stderr)
        return 2
    page, outdir, n = sys.argv[1], sys.argv[2], int(sys.argv[3])
    shot = sys.argv[4] if len(sys.argv) == 5 else os.path.join(outdir, "page.png")
    exe = chromium()
    if not exe:
        print("chromium is not installed (Debian package chromium; scripts/install-deps.sh "
              "installs it): the page was not rendered")
        return SKIP
    done = run_chromium(exe, ["--dump-dom"], page, outdir)
    if done.returncode != 0 or b"<svg" not in done.stdout:
        print("chromium --dump-dom failed (%d): %s" % (done.returncode, done.stderr[-2000:]))
        return 1
    bad, colours = check_dom(done.stdout.decode("utf-8", "replace"), n)
    done = run_chromium(exe, ["--screenshot=" + os.path.abspath(shot), "--window-size=1200,2400"],
                        page, outdir)
    if done.returncode != 0 or not os.path.exists(shot):
        bad.append("chromium --screenshot failed (%d): %s"
                   % (done.returncode, done.stderr[-2000:].decode("utf-8", "replace")))
    else:
        bad += check_png(shot, colours)
    for b in bad:
        print(b)
    if not bad:
        print("ok: %d results drawn in each of the three charts; screenshot %s" % (n, shot))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
