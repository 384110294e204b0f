#!/usr/bin/env python3
"""Check a report page's layout in a real browser, from its DOM.

The report pages carry no script, and keep none: this helper copies the page into a
temporary directory beside a test-only wrapper page that holds it in an <iframe> of the
size asked for (so the page sees a viewport exactly that wide, its media queries
included) and a script that measures the page once it has loaded and writes what it
found into the wrapper's DOM. Headless chromium (--dump-dom, file access between the
two local files allowed) prints that DOM; the measurements are read back from it.

Measured, at W x H:
  verdict: the box of the page's <p id="verdict"> (top and bottom, in px from the top);
  order:   the page's landmarks in DOM order: each <h2> (its text) and each table (its
           caption or first header cell), so a test can ask what comes first;
  cut:     every element whose right edge passes the viewport's width without a scrolling
           box (overflow-x auto or scroll) around it: content that cannot be reached;
  page:    the document's scrollWidth against the viewport's width (a page that scrolls
           sideways as a whole);
  fits:    for each element matching --fits SELECTOR, whether its box stays inside the
           viewport without scrolling (its scrollWidth within its clientWidth and its
           right edge within the viewport).

Checks (any failure: a line on stderr and exit 1):
  --verdict-above-fold   the verdict exists and ends within the first H px
  --first-h2 TEXT        the first <h2> is TEXT and the first table comes right after it,
                         before any other <h2>
  --no-cut               nothing cut and the page does not scroll sideways
  --fits SELECTOR        (repeatable) every match fits (see above)
--json OUT writes the measurements.

usage: dom_check.py PAGE --width W --height H [checks] [--json OUT]
"""
import argparse
import html
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

WRAPPER = """<!DOCTYPE html>
<html><head><meta charset="utf-8"><style>body{margin:0}iframe{border:0;display:block}</style></head>
<body><iframe id="page" src="page.html" style="width:%(w)dpx;height:%(h)dpx"></iframe>
<pre id="zl-dom-check"></pre>
<script>
var FITS = %(fits)s;
function measure() {
  var f = document.getElementById("page"), d = f.contentDocument, w = d.defaultView;
  var vw = d.documentElement.clientWidth, out = {viewport: [vw, w.innerHeight], cut: [], order: [], fits: {}};
  var v = d.getElementById("verdict");
  out.verdict = v ? {top: v.getBoundingClientRect().top, bottom: v.getBoundingClientRect().bottom,
                     text: v.textContent.slice(0, 200)} : null;
  out.page = {scroll_width: d.documentElement.scrollWidth, width: vw};
  function scrolled(el) {
    for (var p = el.parentElement; p && p !== d.body; p = p.parentElement) {
      var o = w.getComputedStyle(p).overflowX;
      if (o === "auto" || o === "scroll") return true;
    }
    return false;
  }
  var all = d.body.getElementsByTagName("*");
  for (var i = 0; i < all.length; i++) {
    var el = all[i], r = el.getBoundingClientRect();
    if (r.width === 0 && r.height === 0) continue;
    if (el.closest("svg") && el.tagName.toLowerCase() !== "svg") continue;
    if (r.right > vw + 1 && !scrolled(el))
      out.cut.push({tag: el.tagName.toLowerCase(), cls: el.getAttribute("class") || "",
                    right: Math.round(r.right), text: (el.textContent || "").trim().slice(0, 60)});
  }
  var marks = d.querySelectorAll("h2, table");
  for (var j = 0; j < marks.length; j++) {
    var m = marks[j];
    if (m.tagName === "H2") out.order.push({kind: "h2", text: m.textContent.trim()});
    else {
      var cap = m.querySelector("caption"), th = m.querySelector("th");
      out.order.push({kind: "table", text: (cap ? cap.textContent : th ? th.textContent : "").trim().slice(0, 80)});
    }
  }
  FITS.forEach(function (sel) {
    var els = d.querySelectorAll(sel), res = [];
    for (var k = 0; k < els.length; k++) {
      var e = els[k], b = e.getBoundingClientRect(), box = e.parentElement;
      res.push({fits: e.scrollWidth <= e.clientWidth + 1 && b.right <= vw + 1 &&
                      (!box || box.scrollWidth <= box.clientWidth + 1),
                width: Math.round(b.width), scroll_width: e.scrollWidth});
    }
    out.fits[sel] = res;
  });
  document.getElementById("zl-dom-check").textContent = JSON.stringify(out);
}
document.getElementById("page").addEventListener("load", measure);
</script></body></html>
"""


def run_chromium(wrapper, w, h, tmp):
    cmd = ["chromium", "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
           "--disable-background-networking", "--disable-component-update", "--disable-sync",
           "--allow-file-access-from-files", "--hide-scrollbars", "--user-data-dir=" + os.path.join(tmp, "profile"),
           "--window-size=%d,%d" % (max(w + 40, 600), h + 200), "--virtual-time-budget=10000",
           "--dump-dom", "file://" + wrapper]
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=120)
    m = re.search(r'<pre id="zl-dom-check">(.*?)</pre>', p.stdout.decode("utf-8", "replace"), re.S)
    if p.returncode != 0 or not m or not m.group(1).strip():
        sys.stderr.write(p.stderr.decode("utf-8", "replace")[-2000:])
        raise SystemExit("dom_check: chromium measured nothing (exit %d)" % p.returncode)
    return json.loads(html.unescape(m.group(1)))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("page")
    ap.add_argument("--width", type=int, required=True)
    ap.add_argument("--height", type=int, required=True)
    ap.add_argument("--verdict-above-fold", action="store_true")
    ap.add_argument("--first-h2")
    ap.add_argument("--no-cut", action="store_true")
    ap.add_argument("--fits", action="append", default=[])
    ap.add_argument("--json")
    a = ap.parse_args()
    tmp = tempfile.mkdtemp(prefix="zl-dom-")
    try:
        shutil.copy(a.page, os.path.join(tmp, "page.html"))
        wrapper = os.path.join(tmp, "wrap.html")
        with open(wrapper, "w") as f:
            f.write(WRAPPER % {"w": a.width, "h": a.height, "fits": json.dumps(a.fits)})
        d = run_chromium(wrapper, a.width, a.height, tmp)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    if a.json:
        with open(a.json, "w") as f:
            json.dump(d, f, indent=1)
    errors = []
    if d["viewport"][0] != a.width:
        errors.append("the page saw a viewport %d px wide, not %d" % (d["viewport"][0], a.width))
    if a.verdict_above_fold:
        v = d["verdict"]
        if not v:
            errors.append("no verdict (<p id=\"verdict\">) on the page")
        elif v["bottom"] > a.height or v["top"] < 0:
            errors.append("the verdict is not above the fold: %d-%d px of %d" % (v["top"], v["bottom"], a.height))
    if a.first_h2:
        order = d["order"]
        h2 = [i for i, o in enumerate(order) if o["kind"] == "h2"]
        if not h2 or order[h2[0]]["text"] != a.first_h2:
            errors.append("the first section is %r, not %r" % (order[h2[0]]["text"] if h2 else None, a.first_h2))
        elif h2[0] + 1 >= len(order) or order[h2[0] + 1]["kind"] != "table" or \
                any(o["kind"] == "table" for o in order[:h2[0]]):
            errors.append("the first table is not the first section's: %r" % order[:h2[0] + 2])
    if a.no_cut:
        if d["page"]["scroll_width"] > d["page"]["width"] + 1:
            errors.append("the page scrolls sideways: %d px of %d" % (d["page"]["scroll_width"], d["page"]["width"]))
        for c in d["cut"][:10]:
            errors.append("cut at %d px: <%s class=%r> %r" % (c["right"], c["tag"], c["cls"], c["text"]))
    for sel in a.fits:
        bad = [x for x in d["fits"].get(sel, []) if not x["fits"]]
        if not d["fits"].get(sel):
            errors.append("nothing matches %r" % sel)
        for x in bad[:5]:
            errors.append("%r does not fit: %d px wide, %d px of content" % (sel, x["width"], x["scroll_width"]))
    if errors:
        for e in errors:
            print("dom_check: %s at %dx%d: %s" % (a.page, a.width, a.height, e), file=sys.stderr)
        return 1
    print("dom_check: %s at %dx%d: ok (verdict %s)" % (a.page, a.width, a.height,
                                                       "%d-%d px" % (d["verdict"]["top"], d["verdict"]["bottom"])
                                                       if d["verdict"] else "none"))
    return 0


if __name__ == "__main__":
    sys.exit(main())
