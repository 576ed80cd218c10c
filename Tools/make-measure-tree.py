#!/usr/bin/env python3
"""Writes a deterministic ~300 MB asset tree for Tools/measure-build.sh.

Mix (sizes in MB of 10^6 bytes): 96 incompressible "media" files (12 x 8 MB, like MP4/JPEG), 120 compressible
text files (20 x 6 MB, like dictionaries and CSV tables), 40 MB of half-compressible binary "models"
(4 x 10 MB), and 40 MB of small JSON files (4,000 x 10 KB, under the packing threshold), in nested folders.
The same seed gives the same bytes on every machine (random.Random with an integer seed is stable).

Usage: python3 Tools/make-measure-tree.py OUTPUT_DIR
"""
import os
import random
import sys

MB = 1_000_000


def write(path, data):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "wb") as out:
        out.write(data)


def text_pool(rng, count):
    words = ["asset", "pack", "level", "river", "stone", "lantern", "market", "garden", "north", "harbour", "count",
             "value", "name", "id", "score", "time", "red", "green", "blue", "small", "large", "the", "of", "and"]
    return [(",".join(rng.choice(words) + str(rng.randrange(1000)) for _ in range(8)) + "\n").encode() for _ in range(count)]


def main():
    root = sys.argv[1]
    rng = random.Random(20241122)
    pool = text_pool(rng, 50_000)
    for n in range(12):
        write(f"{root}/media/clips/clip-{n:02d}.mp4", rng.randbytes(8 * MB))
    for n in range(20):
        lines = rng.choices(pool, k=6 * MB // 60)
        write(f"{root}/data/tables/table-{n:02d}.csv", b"".join(lines)[: 6 * MB])
    for n in range(4):
        noise = rng.randbytes(5 * MB)
        # Float-like: every other byte random, the rest from a tiny alphabet (deflate saves ~40%).
        data = bytearray(10 * MB)
        data[0::2] = noise
        data[1::2] = bytes(b & 0x03 for b in rng.randbytes(5 * MB))
        write(f"{root}/models/model-{n}.bin", bytes(data))
    for n in range(4000):
        lines = rng.choices(pool, k=10_000 // 60 + 1)
        write(f"{root}/small/group-{n // 100:02d}/item-{n:04d}.json", b"".join(lines)[:10_000])


if __name__ == "__main__":
    main()
