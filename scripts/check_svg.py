#!/usr/bin/env python3
"""Checks that each SVG parses as XML and draws: renders it with rsvg-convert and decodes
the PNG (stdlib only: zlib and the PNG filters) to count pixels that are not background.

    python3 scripts/check_svg.py FILE.svg...

Exits non-zero naming the first file that fails.
"""

import os
import struct
import subprocess
import sys
import tempfile
import xml.etree.ElementTree as ET
import zlib

MIN_INK = 2000  # pixels not white: a chart's lines, axes and text are many more


def png_pixels(data):
    """Returns (width, height, channels, rows of bytes) of an 8-bit RGB(A) PNG."""
    assert data[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG"
    pos, idat, ihdr = 8, b"", None
    while pos < len(data):
        n, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + n]
        if kind == b"IHDR":
            ihdr = struct.unpack(">IIBBBBB", body)
        elif kind == b"IDAT":
            idat += body
        pos += 12 + n
    width, height, depth, colour, _, _, interlace = ihdr
    assert depth == 8 and colour in (2, 6) and interlace == 0, f"PNG kind {ihdr}"
    ch = 3 if colour == 2 else 4
    raw = zlib.decompress(idat)
    stride = width * ch
    rows, prev = [], bytearray(stride)
    for y in range(height):
        f = raw[y * (stride + 1)]
        line = bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        for i in range(stride):
            a = line[i - ch] if i >= ch else 0
            b = prev[i]
            c = prev[i - ch] if i >= ch else 0
            if f == 1:
                line[i] = (line[i] + a) & 255
            elif f == 2:
                line[i] = (line[i] + b) & 255
            elif f == 3:
                line[i] = (line[i] + (a + b) // 2) & 255
            elif f == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                pred = a if pa <= pb and pa <= pc else (b if pb <= pc else c)
                line[i] = (line[i] + pred) & 255
        rows.append(bytes(line))
        prev = line
    return width, height, ch, rows


def check(svg):
    ET.parse(svg)  # raises on malformed XML
    with tempfile.TemporaryDirectory() as tmp:
        png = os.path.join(tmp, "out.png")
        subprocess.run(["rsvg-convert", "-b", "white", "-o", png, svg], check=True)
        with open(png, "rb") as f:
            width, height, ch, rows = png_pixels(f.read())
    ink, colours = 0, set()
    for row in rows:
        for x in range(width):
            px = row[x * ch:x * ch + 3]
            colours.add(px)
            if px != b"\xff\xff\xff":
                ink += 1
    if ink < MIN_INK or len(colours) < 4:
        sys.exit(f"{svg}: looks blank ({ink} pixels drawn, {len(colours)} colours)")
    print(f"{svg}: XML ok, {width}x{height} PNG, {ink} pixels drawn, {len(colours)} colours")


if __name__ == "__main__":
    for path in sys.argv[1:]:
        check(path)
