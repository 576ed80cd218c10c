#!/usr/bin/env python3
"""Writes assets/images/logo.png: a small (48x48, 4-colour palette) PNG for the sample tree.

The image is drawn from arithmetic alone (a rounded box with a zip-like zigzag), so the script is its
own source. A few hundred bytes; the PNG is valid (signature, IHDR, PLTE, IDAT, IEND, CRCs).

Usage: python3 Tools/make-sample-logo.py [OUTPUT]   (default: assets/images/logo.png)
"""
import os
import struct
import sys
import zlib

SIZE = 48
PALETTE = [(0, 0, 0), (38, 84, 166), (242, 178, 51), (255, 255, 255)]  # transparent, blue, amber, white


def pixel(x, y):
    """Palette index of one pixel: 0 outside the rounded box, 1 box, 2 zigzag, 3 highlight."""
    margin, radius = 3, 8
    inner = SIZE - 1 - margin
    cx = min(max(x, margin + radius), inner - radius)
    cy = min(max(y, margin + radius), inner - radius)
    if (x - cx) ** 2 + (y - cy) ** 2 > radius ** 2:
        return 0
    if 21 <= x <= 26 and 6 <= y <= 41:
        return 2 if (y // 3) % 2 == (1 if x < 24 else 0) else 3
    if y < 12 and x > 8 and x < 39:
        return 3 if (x + y) % 7 == 0 else 1
    return 1


def chunk(kind, data):
    body = kind + data
    return struct.pack(">I", len(data)) + body + struct.pack(">I", zlib.crc32(body) & 0xFFFFFFFF)


def main():
    output = sys.argv[1] if len(sys.argv) > 1 else os.path.join("assets", "images", "logo.png")
    rows = b"".join(b"\x00" + bytes(pixel(x, y) for x in range(SIZE)) for y in range(SIZE))
    png = b"\x89PNG\r\n\x1a\n"
    png += chunk(b"IHDR", struct.pack(">IIBBBBB", SIZE, SIZE, 8, 3, 0, 0, 0))
    png += chunk(b"PLTE", b"".join(bytes(rgb) for rgb in PALETTE))
    png += chunk(b"tRNS", b"\x00")
    png += chunk(b"IDAT", zlib.compress(rows, 9))
    png += chunk(b"IEND", b"")
    os.makedirs(os.path.dirname(output) or ".", exist_ok=True)
    with open(output, "wb") as out:
        out.write(png)


if __name__ == "__main__":
    main()
