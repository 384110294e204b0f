#!/usr/bin/env python3
"""Check a page written by `zlbench report` and summarise it as JSON.

Checks (any failure: a message on stderr, exit 1):
  - it parses with html.parser and every tag is closed in order (a strict balance
    check: no implied end tags; void elements and self-closed SVG elements aside);
  - one doctype, <html>, <head>, <title>, <style>, <body>, <main>;
  - self-contained: no <script>, <link>, <iframe>, <object>, <embed>, no element with a
    src attribute, no href other than a #fragment, no url( or @import in the CSS, and
    no "http://" or "https://" anywhere in the file;
  - every <svg> has a viewBox, no fixed width/height attribute, and a <title> first.

The summary (stdout, or --json FILE) holds what the CLI tests assert on:
  svgs: [{"title", "class", "viewbox", "counts": {tag: n}, "classes": {class: n},
          "texts": [text of each <text>], "tips": [each nested <title>]}],
  figures: [{"id", "caption"}], headings: {"h1": [...], "h2": [...], "h3": [...]},
  tables: n, table_rows: [rows per table], text: the page's visible text (one string),
  bytes: file size.

usage: html_check.py PAGE [--json OUT]
"""
import html.parser
import json
import re
import sys

VOID = {"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source", "track", "wbr"}
FORBIDDEN = {"script", "link", "iframe", "object", "embed", "img", "frame", "frameset", "applet", "base"}


class Checker(html.parser.HTMLParser):
    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.stack = []
        self.errors = []
        self.seen = {}
        self.doctype = 0
        self.svgs = []
        self.svg = None
        self.figures = []
        self.figure = None
        self.in_caption = False
        self.headings = {"h1": [], "h2": [], "h3": []}
        self.heading = None
        self.tables = 0
        self.table_rows = []
        self.text = []
        self.in_style = False
        self.style = []
        self.capture = None   # ("text"|"tip", list) while inside an svg <text> or nested <title>

    def error_at(self, msg):
        line, col = self.getpos()
        self.errors.append("line %d col %d: %s" % (line, col, msg))

    def handle_decl(self, decl):
        if decl.lower() == "doctype html":
            self.doctype += 1

    def check_attrs(self, tag, attrs):
        for k, v in attrs:
            if k == "src":
                self.error_at("<%s> has a src attribute" % tag)
            if k in ("href", "xlink:href") and v is not None and not v.startswith("#"):
                self.error_at("<%s> links to %r" % (tag, v))
            if v and ("http://" in v or "https://" in v):
                self.error_at("<%s %s=%r> names a URL" % (tag, k, v))

    def start(self, tag, attrs, closed):
        self.check_attrs(tag, attrs)
        self.seen[tag] = self.seen.get(tag, 0) + 1
        a = dict(attrs)
        if tag in FORBIDDEN:
            self.error_at("<%s> is not allowed in a self-contained page" % tag)
        if tag == "svg":
            if self.svg is not None:
                self.error_at("nested <svg>")
            if "viewbox" not in a:
                self.error_at("<svg> without a viewBox")
            if "width" in a or "height" in a:
                self.error_at("<svg> with a fixed width or height attribute")
            self.svg = {"title": None, "class": a.get("class"), "viewbox": a.get("viewbox"),
                        "counts": {}, "classes": {}, "texts": [], "tips": [], "first": True}
        elif self.svg is not None:
            if self.svg["first"] and tag != "title":
                self.error_at("<svg> does not start with its <title>")
            self.svg["counts"][tag] = self.svg["counts"].get(tag, 0) + 1
            for c in (a.get("class") or "").split():
                self.svg["classes"][c] = self.svg["classes"].get(c, 0) + 1
            if tag == "text" and not closed:
                self.capture = ("text", [])
            elif tag == "title" and not closed:
                self.capture = ("title", [])
        if tag == "figure":
            self.figure = {"id": a.get("id"), "caption": None}
        if tag == "figcaption":
            self.in_caption = True
            self.caption = []
        if tag in self.headings and not closed:
            self.heading = (tag, [])
        if tag == "table":
            self.tables += 1
            self.table_rows.append(0)
        if tag == "tr" and self.table_rows:
            self.table_rows[-1] += 1
        if tag == "style":
            self.in_style = True
        if not closed and tag not in VOID:
            self.stack.append((tag, self.getpos()))

    def handle_starttag(self, tag, attrs):
        self.start(tag, attrs, False)

    def handle_startendtag(self, tag, attrs):
        if self.svg is None and tag not in VOID:
            self.error_at("<%s/> self-closed outside an svg" % tag)
        self.start(tag, attrs, True)

    def handle_endtag(self, tag):
        if not self.stack:
            self.error_at("</%s> closes nothing" % tag)
            return
        top, pos = self.stack.pop()
        if top != tag:
            self.error_at("</%s> closes <%s> opened at line %d" % (tag, top, pos[0]))
            return
        if tag == "svg":
            self.svg.pop("first")
            self.svgs.append(self.svg)
            self.svg = None
        elif self.svg is not None and self.capture and tag in ("text", "title"):
            kind, buf = self.capture
            s = "".join(buf)
            if kind == "title" and self.svg["title"] is None and self.svg["first"]:
                self.svg["title"] = s
            elif kind == "title":
                self.svg["tips"].append(s)
            else:
                self.svg["texts"].append(s)
            self.capture = None
        if self.svg is not None and tag == "title":
            self.svg["first"] = False
        if tag == "figcaption":
            self.in_caption = False
            if self.figure is not None:
                self.figure["caption"] = "".join(self.caption)
        if tag == "figure" and self.figure is not None:
            self.figures.append(self.figure)
            self.figure = None
        if self.heading and tag == self.heading[0]:
            self.headings[tag].append("".join(self.heading[1]).strip())
            self.heading = None
        if tag == "style":
            self.in_style = False

    def handle_data(self, data):
        if self.in_style:
            self.style.append(data)
            return
        if self.capture:
            self.capture[1].append(data)
        if self.in_caption:
            self.caption.append(data)
        if self.heading:
            self.heading[1].append(data)
        self.text.append(data)


def main():
    path = sys.argv[1]
    out = sys.argv[sys.argv.index("--json") + 1] if "--json" in sys.argv else None
    raw = open(path, "rb").read()
    page = raw.decode("utf-8")
    c = Checker()
    c.feed(page)
    c.close()
    errors = c.errors
    for tag, pos in c.stack:
        errors.append("<%s> opened at line %d is never closed" % (tag, pos[0]))
    if c.doctype != 1:
        errors.append("expected one <!DOCTYPE html>, got %d" % c.doctype)
    for tag in ("html", "head", "title", "style", "body", "main"):
        if c.seen.get(tag, 0) < 1 or (tag != "title" and c.seen.get(tag, 0) != 1):
            errors.append("expected one <%s>, got %d" % (tag, c.seen.get(tag, 0)))
    css = "".join(c.style)
    if re.search(r"url\s*\(|@import", css):
        errors.append("the stylesheet fetches something (url( or @import)")
    for scheme in ("http://", "https://"):
        if scheme in page:
            errors.append("the page contains %r" % scheme)
    if errors:
        for e in errors[:40]:
            print("html_check: %s: %s" % (path, e), file=sys.stderr)
        return 1
    summary = {"svgs": c.svgs, "figures": c.figures, "headings": c.headings, "tables": c.tables,
               "table_rows": c.table_rows, "text": " ".join(" ".join(c.text).split()), "bytes": len(raw)}
    text = json.dumps(summary, indent=1)
    if out:
        open(out, "w").write(text)
    else:
        print(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
