#!/usr/bin/env python3
"""Check a headless-chromium screenshot of a report page for blankness and overflow.

The page was rendered with a test-only stylesheet appended (static CSS, no script):
    html { width: W px; background: #ff00ff }
in a window wider than W. The root box is W px wide and paints the canvas magenta;
body (the page's own background) covers x < W. Whatever the page draws beyond its
root box (content wider than W px that is not inside a scrolling box) paints over
the magenta band to the right of W. So:
  - overflow: every pixel of the columns [W + 2, window width - 20) (the last 20
    leave room for a vertical scrollbar) must be magenta;
  - not blank: the columns [0, W) must hold at least 8 distinct colours, and at least
    1 % of their pixels must differ from the most common one.

usage: png_check.py PNG W [--crop OUT MAXH]   (--crop: save [0, W) x [0, MAXH) of the content)
"""
import sys

from PIL import Image

MAGENTA = (255, 0, 255)


def main():
    path, w = sys.argv[1], int(sys.argv[2])
    img = Image.open(path).convert("RGB")
    width, height = img.size
    errors = []
    if width < w + 40:
        errors.append("screenshot is %d px wide, expected more than %d" % (width, w + 40))
    band = img.crop((w + 2, 0, width - 20, height))
    colors = band.getcolors(maxcolors=1 << 16) or []
    foreign = sum(n for n, c in colors if c != MAGENTA)
    if foreign:
        # where: the first row with a foreign pixel
        px = band.load()
        bw, bh = band.size
        row = next(y for y in range(bh) if any(px[x, y] != MAGENTA for x in range(bw)))
        errors.append("%d pixels drawn right of %d px (first at row %d): the page overflows horizontally" %
                      (foreign, w, row))
    page = img.crop((0, 0, w, height))
    pcolors = page.getcolors(maxcolors=1 << 20) or []
    total = w * height
    top = max(pcolors)[0] if pcolors else total
    if len(pcolors) < 8 or total - top < total // 100:
        errors.append("the page looks blank: %d colours, %d of %d pixels differ from the commonest" %
                      (len(pcolors), total - top, total))
    if "--crop" in sys.argv:
        i = sys.argv.index("--crop")
        out, maxh = sys.argv[i + 1], int(sys.argv[i + 2])
        px = page.load()
        # the content ends where the rows turn all magenta (the canvas below the body)
        end = height
        while end > 1 and all(px[x, end - 1] == MAGENTA for x in range(0, w, 7)):
            end -= 1
        # a palette keeps the kept screenshots small; text stays sharp at 128 colours
        page.crop((0, 0, w, min(end, maxh))).quantize(colors=128).save(out, optimize=True)
    if errors:
        for e in errors:
            print("png_check: %s: %s" % (path, e), file=sys.stderr)
        return 1
    print("png_check: %s: %d x %d, %d colours, nothing right of %d px" % (path, width, height, len(pcolors), w))
    return 0


if __name__ == "__main__":
    sys.exit(main())
