#!/usr/bin/env python3
"""Opens a `bench report --html` page in headless Chromium and checks that
every chart is drawn and every row can be told apart.

    python3 tests/html_check.py PAGE.html OUTDIR RESULTS [SCREENSHOT.png] [--sweep] [--baseline]

RESULTS is how many results the page draws. Loads the page with --dump-dom
(the DOM after load) and checks: chart-throughput with one rect.bar per
result, each at least MIN_BAR pixels wide (the scale is logarithmic, so a
slow target is not a sliver), each in a colour of its own that differs from
every other bar's by a CIELAB distance of at least MIN_DELTA_E;
chart-latency with one path.series per result; chart-drift with one g.panel
per result each holding a path.line.p50 and a path.line.p99 (non-empty d);
the per-verb table with a row per verb of every result. With --sweep:
chart-cost with a line through two sizes or more and a point per result.
With --baseline: the baseline table and a line.baseline on some bar. Then
takes a 1200-pixel-wide screenshot and checks it is not blank and that each
bar is painted: its colour fills a block at least MIN_BAR pixels wide and
16 pixels tall (a bar is 18; no legend swatch or line is that big). Exit 0
when all hold, 1 with the reasons when not, 77 when Chromium is not
installed (the caller skips). Nothing is fetched: the page must not need a
network."""
import html.parser
import os
import shutil
import struct
import subprocess
import sys
import tempfile
import zlib

SKIP = 77
MIN_BAR = 10       # pixels: the narrowest bar that still shows
MIN_DELTA_E = 10   # CIELAB 1976: two bars' colours at least this far apart


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
    """Collects the SVG elements of the charts and the rows of the tables."""

    def __init__(self):
        super().__init__()
        self.svgs = {}       # id -> dict of counts
        self.svg = None
        self.panel = None
        self.tables = {}     # id -> rows in its tbody
        self.table = None
        self.problems = []

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        cls = (a.get("class") or "").split()
        if tag == "table":
            self.table = a.get("id")
            self.tables.setdefault(self.table, 0)
        elif tag == "tr" and self.table is not None and not self.in_head:
            self.tables[self.table] += 1
        if tag in ("thead", "tbody"):
            self.in_head = tag == "thead"
        if tag == "svg":
            self.svg = a.get("id")
            self.svgs[self.svg] = {"role": a.get("role"), "title": False, "bars": [],
                                   "ranges": 0, "series": [], "panels": [], "cost": [],
                                   "points": 0, "baselines": 0}
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
        elif tag == "line" and "baseline" in cls:
            s["baselines"] += 1
        elif tag == "path" and "series" in cls and "cost" in cls:
            s["cost"].append(a.get("d", ""))
        elif tag == "path" and "series" in cls:
            s["series"].append(a.get("d", ""))
        elif tag == "circle" and "point" in cls:
            s["points"] += 1
        elif tag == "g" and "panel" in cls:
            self.panel = {"p50": "", "p99": ""}
            s["panels"].append(self.panel)
        elif tag == "path" and "line" in cls and self.panel is not None:
            for k in ("p50", "p99"):
                if k in cls:
                    self.panel[k] = a.get("d", "")

    in_head = False

    def handle_endtag(self, tag):
        if tag == "svg":
            self.svg = None
            self.panel = None
        elif tag == "table":
            self.table = None


def lab(colour):
    """sRGB "#rrggbb" to CIELAB (D65)."""
    def lin(c):
        c /= 255
        return c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4
    r, g, b = (lin(int(colour[i:i + 2], 16)) for i in (1, 3, 5))
    x = (0.4124 * r + 0.3576 * g + 0.1805 * b) / 0.95047
    y = 0.2126 * r + 0.7152 * g + 0.0722 * b
    z = (0.0193 * r + 0.1192 * g + 0.9505 * b) / 1.08883
    f = [t ** (1 / 3) if t > 0.008856 else 7.787 * t + 16 / 116 for t in (x, y, z)]
    return (116 * f[1] - 16, 500 * (f[0] - f[1]), 200 * (f[1] - f[2]))


def delta_e(a, b):
    return sum((p - q) ** 2 for p, q in zip(lab(a), lab(b))) ** 0.5


def check_colours(colours):
    bad = []
    for i, a in enumerate(colours):
        for b in colours[i + 1:]:
            if a == b:
                bad.append("two bars share the colour %s" % a)
            elif delta_e(a, b) < MIN_DELTA_E:
                bad.append("the bars' colours %s and %s are too close (delta E %.1f < %d)"
                           % (a, b, delta_e(a, b), MIN_DELTA_E))
    return bad


def check_dom(text, n, sweep, baseline):
    dom = Dom()
    dom.feed(text)
    bad = []
    ids = ["chart-throughput", "chart-latency", "chart-drift"] + (["chart-cost"] if sweep else [])
    for sid in ids:
        s = dom.svgs.get(sid)
        if s is None:
            bad.append("no <svg id=%s> in the loaded page" % sid)
            continue
        if s["role"] != "img" or not s["title"]:
            bad.append("%s lacks role=img or a <title>" % sid)
    if bad:
        return bad, []
    t, l, d = (dom.svgs[k] for k in ("chart-throughput", "chart-latency", "chart-drift"))
    if len(t["bars"]) != n or any(w < MIN_BAR for w, _ in t["bars"]):
        bad.append("chart-throughput: %d bars, widths %s (want %d, each at least %d wide)"
                   % (len(t["bars"]), [w for w, _ in t["bars"]], n, MIN_BAR))
    if t["ranges"] < n:
        bad.append("chart-throughput: %d range lines (want at least %d)" % (t["ranges"], n))
    if len(l["series"]) != n or any(p.count("L") < 10 for p in l["series"]):
        bad.append("chart-latency: %d series paths (want %d with their points)"
                   % (len(l["series"]), n))
    if len(d["panels"]) != n or any(not p["p50"] or not p["p99"] for p in d["panels"]):
        bad.append("chart-drift: %d panels (want %d, each with a p50 and a p99 line)"
                   % (len(d["panels"]), n))
    if sweep:
        c = dom.svgs["chart-cost"]
        if not any(p.count("L") >= 1 for p in c["cost"]) or c["points"] < n:
            bad.append("chart-cost: %d lines, none through two sizes, or %d points (want %d)"
                       % (len(c["cost"]), c["points"], n))
    if dom.tables.get("verbs", 0) < n:
        bad.append("the verbs table has %d rows (want at least one per result, %d)"
                   % (dom.tables.get("verbs", 0), n))
    if baseline and (dom.tables.get("baseline-table", 0) == 0 or t["baselines"] == 0):
        bad.append("no baseline table rows (%d) or no baseline tick on a bar (%d)"
                   % (dom.tables.get("baseline-table", 0), t["baselines"]))
    colours = [c for _, c in t["bars"]]
    bad += check_colours(colours)
    return bad, colours


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


def tallest_block(rows, w, bpp, rgb, min_width):
    """The most rows in a block where rgb runs at least min_width pixels
    (allowing 3 rows without, where a whisker crosses the bar)."""
    best = streak = miss = 0
    for row in rows:
        run = longest = 0
        for x in range(0, w * bpp, bpp):
            run = run + 1 if row[x:x + 3] == rgb else 0
            longest = max(longest, run)
        if longest >= min_width:
            streak, miss = streak + 1, 0
            best = max(best, streak)
        else:
            miss += 1
            if miss > 3:
                streak = 0
    return best


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
            continue
        # only rows that hold the colour at all: the scan is per pixel
        held = [r for r in rows if rgb in r]
        tall = tallest_block(held, w, bpp, rgb, MIN_BAR)
        if tall < 16:
            bad.append("the bar in %s is not visible: no block of it %d pixels wide and 16 "
                       "tall (the tallest is %d)" % (c, MIN_BAR, tall))
    return bad


def main():
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    flags = {a for a in sys.argv[1:] if a.startswith("--")}
    if len(args) not in (3, 4) or flags - {"--sweep", "--baseline"}:
        print(__doc__, file=sys.stderr)
        return 2
    page, outdir, n = args[0], args[1], int(args[2])
    shot = args[3] if len(args) == 4 else os.path.join(outdir, "page.png")
    exe = chromium()
    if not exe:
        print("chromium is not installed (Debian package chromium; scripts/install-deps.sh "
              "installs it): the page was not rendered")
        return SKIP
    done = run_chromium(exe, ["--dump-dom"], page, outdir)
    if done.returncode != 0 or b"<svg" not in done.stdout:
        print("chromium --dump-dom failed (%d): %s" % (done.returncode, done.stderr[-2000:]))
        return 1
    bad, colours = check_dom(done.stdout.decode("utf-8", "replace"), n, "--sweep" in flags,
                             "--baseline" in flags)
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
        print("ok: %d results drawn, each bar at least %d pixels wide in a colour of its own; "
              "screenshot %s" % (n, MIN_BAR, shot))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
