#!/usr/bin/env python3
"""Writes the benchmark corpus of Tools/Benchmarks/run.py: the same bytes on every machine for a given scale.

  WORKDIR/app/        ~300 MB in ~3,000 files, like an app's assets:
                        2,900 files of 1-64 KiB (log-uniform): JSON, XML, text, random binary
                        48 files of 100 KiB-1 MiB: "images"/"audio" (random bytes), CSV and JSON (text)
                        12 files of 2-60 MiB, cycling text (~3:1), random bytes, half-and-half
                        24 empty files, 12 empty folders
  WORKDIR/small/      50,000 files of 100 B-4 KiB (90% text, 10% random), 50 per folder
  WORKDIR/huge-dir/   huge.bin: 1.5 GiB of pseudo-random words, 1 block in 16 random bytes (~3:1 with deflate)
  WORKDIR/small1m/    only with --only small1m: 1,000,000 tiny files of 10-200 B of text, 100 per folder
                      (its own stamp; the default trees are not touched)

Text is cut from one 8 MiB pool of Zipf-distributed pseudo-words at random offsets: fast to write, and deflate
(32 KiB window) sees it as ordinary text. --quick divides every count and size by 20 (about 15 MB, 2,500 small
files, 77 MiB huge). A stamp file records the scale; a second call with the same scale does nothing.

Usage: python3 Tools/Benchmarks/make-corpus.py WORKDIR [--quick] [--only small1m]
"""
import argparse
import itertools
import json
import os
import random
import shutil
import sys

KiB, MiB = 1024, 1024 * 1024
VERSION = 1
SEED = 20251122
STAMP = ".corpus-stamp"
TREES = ("app", "small", "huge-dir")
SYLLABLES = ["ka", "to", "ri", "mo", "ne", "sa", "lu", "vi", "de", "po",
             "ga", "shi", "ten", "ber", "al", "or", "um", "ex", "qu", "zy"]


class Content:
    """Deterministic file contents: text slices of a word pool, random bytes, JSON and XML records."""

    def __init__(self, rng):
        self.rng = rng
        self.vocabulary = self.make_vocabulary()
        self.pool = self.make_pool(8 * MiB)

    def make_vocabulary(self):
        words = sorted({"".join(self.rng.choice(SYLLABLES) for _ in range(self.rng.randint(1, 4)))
                        for _ in range(8000)})
        self.rng.shuffle(words)
        return words

    def make_pool(self, size):
        weights = list(itertools.accumulate(1 / (rank + 1) ** 0.9 for rank in range(len(self.vocabulary))))
        words = self.rng.choices(self.vocabulary, cum_weights=weights, k=size // 6)
        for i in range(0, len(words), 10):
            words[i] += ".\n" if self.rng.random() < 0.5 else f" {self.rng.randrange(100_000)},"
        return " ".join(words).encode()[:size]

    def text(self, size):
        """`size` bytes of text: slices of up to 64 KiB from random places in the pool."""
        parts, left = [], size
        while left > 0:
            length = min(left, 64 * KiB)
            start = self.rng.randrange(len(self.pool) - length + 1)
            parts.append(self.pool[start:start + length])
            left -= length
        return b"".join(parts)

    def random(self, size):
        return self.rng.randbytes(size)

    def half(self, size):
        """Alternating 64 KiB blocks of text and random bytes (deflate saves about a third)."""
        blocks = [(self.text if n % 2 == 0 else self.random)(min(64 * KiB, size - offset))
                  for n, offset in enumerate(range(0, size, 64 * KiB))]
        return b"".join(blocks)

    def words(self, count):
        return " ".join(self.rng.choices(self.vocabulary, k=count))

    def json(self, size):
        records, length = [], 2
        while length < size:
            record = json.dumps({"id": len(records), "name": self.words(2), "score": self.rng.randrange(10_000),
                                 "tags": self.words(3).split(), "text": self.words(self.rng.randint(3, 20))})
            records.append(record)
            length += len(record) + 2
        return ("[\n" + ",\n".join(records) + "\n]\n").encode()

    def xml(self, size):
        lines, length = ['<?xml version="1.0" encoding="UTF-8"?>', "<layout>"], 60
        while length < size:
            line = (f'  <view id="v{len(lines)}" kind="{self.words(1)}" width="{self.rng.randrange(2048)}">'
                    f"{self.words(self.rng.randint(2, 12))}</view>")
            lines.append(line)
            length += len(line) + 1
        return ("\n".join(lines + ["</layout>"]) + "\n").encode()


def write(path, data):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "wb") as out:
        out.write(data)


def log_uniform(rng, low, high):
    return int(low * (high / low) ** rng.random())


def make_app(root, content, scale):
    rng = content.rng
    kinds = [("json", content.json, "data/levels"), ("xml", content.xml, "ui/layouts"),
             ("txt", content.text, "text/strings"), ("bin", content.random, "sprites/frames")]
    for n in range(2900 // scale):
        ext, make, area = rng.choices(kinds, weights=[35, 20, 25, 20])[0]
        write(f"{root}/{area}/group-{n % 23:02d}/set-{n % 7}/item-{n:04d}.{ext}",
              make(log_uniform(rng, 1 * KiB, 64 * KiB)))
    media = [("png", content.random, "images"), ("ogg", content.random, "audio"),
             ("csv", content.text, "tables"), ("json", content.json, "atlases")]
    for n in range(max(3, 48 // scale)):
        ext, make, area = media[n % len(media)]
        write(f"{root}/media/{area}/asset-{n:02d}.{ext}", make(log_uniform(rng, 100 * KiB, 1 * MiB)))
    large = [("dictionary.txt", content.text), ("video.mp4", content.random), ("model.bin", content.half)]
    for n, mib in enumerate([2, 3, 4, 6, 8, 12, 16, 20, 28, 36, 44, 60]):
        name, make = large[n % len(large)]
        write(f"{root}/large/{n:02d}-{name}", make(mib * MiB // scale))
    for n in range(max(2, 24 // scale)):
        write(f"{root}/data/levels/group-{n:02d}/empty-{n}.json", b"")
    for n in range(max(2, 12 // scale)):
        os.makedirs(f"{root}/cache/slot-{n:02d}/empty", exist_ok=True)


def make_small(root, content, scale):
    rng = content.rng
    for n in range(50_000 // scale):
        size = rng.randint(100, 4 * KiB)
        data, ext = (content.random(size), "bin") if rng.random() < 0.1 else (content.text(size), "txt")
        write(f"{root}/d{n // 500:03d}/g{n // 50 % 10}/f{n:05d}.{ext}", data)


def make_small1m(root, content, scale):
    rng = content.rng
    for n in range(1_000_000 // scale):
        write(f"{root}/d{n // 10_000:03d}/g{n // 100 % 100:02d}/f{n:07d}.txt", content.text(rng.randint(10, 200)))


def make_huge(root, content, scale):
    os.makedirs(root, exist_ok=True)
    blocks = 1536 * MiB // scale // (64 * KiB)
    with open(f"{root}/huge.bin", "wb") as out:
        for first in range(0, blocks, 16):
            out.write(b"".join(content.random(64 * KiB) if n % 16 == 15 else content.text(64 * KiB)
                               for n in range(first, min(first + 16, blocks))))


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("workdir")
    parser.add_argument("--quick", action="store_true", help="scale everything down 20x")
    parser.add_argument("--only", choices=["small1m"], help="write only this opt-in tree")
    args = parser.parse_args()
    scale = 20 if args.quick else 1
    if args.only:
        return make_opt_in(args.workdir, args.only, scale)
    stamp_path = os.path.join(args.workdir, STAMP)
    wanted = {"version": VERSION, "seed": SEED, "scale": scale}
    if os.path.exists(stamp_path):
        with open(stamp_path) as stamp:
            if json.load(stamp) == wanted:
                print(f"corpus in {args.workdir} is up to date", file=sys.stderr)
                return
    os.makedirs(args.workdir, exist_ok=True)
    if os.path.exists(stamp_path):
        os.remove(stamp_path)
    for tree in TREES:
        shutil.rmtree(os.path.join(args.workdir, tree), ignore_errors=True)
    content = Content(random.Random(SEED))
    for tree, make in zip(TREES, (make_app, make_small, make_huge)):
        print(f"writing {args.workdir}/{tree} ...", file=sys.stderr)
        make(os.path.join(args.workdir, tree), content, scale)
    with open(stamp_path, "w") as stamp:
        json.dump(wanted, stamp)


def make_opt_in(workdir, tree, scale):
    """Writes the opt-in `tree` (its own stamp, its own seed), unless it is up to date."""
    stamp_path = os.path.join(workdir, f"{STAMP}-{tree}")
    wanted = {"version": VERSION, "seed": SEED, "scale": scale, "tree": tree}
    if os.path.exists(stamp_path):
        with open(stamp_path) as stamp:
            if json.load(stamp) == wanted:
                print(f"{tree} in {workdir} is up to date", file=sys.stderr)
                return
        os.remove(stamp_path)
    shutil.rmtree(os.path.join(workdir, tree), ignore_errors=True)
    print(f"writing {workdir}/{tree} ...", file=sys.stderr)
    make_small1m(os.path.join(workdir, tree), Content(random.Random(SEED + 1)), scale)
    with open(stamp_path, "w") as stamp:
        json.dump(wanted, stamp)


if __name__ == "__main__":
    main()
