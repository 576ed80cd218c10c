#!/usr/bin/env python3
"""Measures upgrades side by side (issue 34): what assetpack, casync and zsync fetch and how long they take to turn
a client's copy of v1 into v2, from one nginx on loopback, on four seeded corpora.

  files-1pc   the benchmark's app tree (make-corpus.py's, same seed), 1% of its files changed: in each, 64 bytes at
              a seeded offset replaced by 128 new ones (the rest of the file shifts by 64 bytes)
  bytes-1pc   three files of 100 MB (text; text and random bytes in alternating 64 KiB blocks, twice), 1% of each
              file's bytes changed in place by edits of 2-6 KiB at seeded offsets (never overlapping)
  insert-1k   one 100 MB file (the first of bytes-1pc) with 1 KiB of new bytes inserted at its start
  renames     the app tree with 10 files renamed in their folder and 10 moved to another folder, nothing else

Every file and folder of v1 and v2 has the same fixed mtime, so the tar and casync archives are the same bytes on
every machine. Per scenario and tool, v2 is published on nginx (access log: `$bytes_sent $status "$request"`, the
response headers included) and each timed run upgrades a fresh client copy of v1:

  assetpack      `assetpack build V1 -o x.bundle --sign KEY`, a copy of it built again from V2 (the packer reuses
                 the archives of the bundle at its output), both served at the same URL (a symbolic link switched
                 from v1 to v2); untimed: `assetpack expand URL/x.bundle --to OUT` of v1; timed: the same command
                 after the switch to v2: durable (the default), `--in-place` (durable; only what changed is
                 written into the installed tree) and `--no-sync` (write-back left to the kernel, as the peers
                 leave it)
  casync         `casync make --store=STORE v2.caidx V2` (default chunk sizes, zstd); timed:
                 `casync extract --seed=V1 --store=URL/STORE URL/v2.caidx OUT` (chunks over HTTP by casync-http)
  zsync          v2.tar (GNU tar, sorted, mtime 0, owner 0) and `zsyncmake -u v2.tar`; the client keeps v1.tar
                 (made alike, untimed); timed: `zsync -i v1.tar -o OUT/v2.tar URL/v2.tar.zsync && tar -xf` into
                 OUT/tree. One tar per tree, also for the large files (a file's blocks are found anywhere in v1.tar)

A run counts the requests the access log gained while it ran, and the bytes nginx sent for them (indexes,
manifests, signatures, chunks, patches, ranges: everything), and the bytes written to the block device holding the
output (from the `sync` before the run to one after it: data, metadata, journal); per scenario, also what a copy of
v1 made of hard links (`cp -al`) writes, the least any upgrade that switches a whole new tree in writes (each file's
inode is written again for its link count, each folder made). On a file system with reflinks an
upgrade starts each changed file as a clone of the installed one; to measure that, put WORK on one, e.g.
  truncate -s 20G /var/tmp/x.img && mkfs.xfs -m reflink=1 /var/tmp/x.img && mount -o loop /var/tmp/x.img /mnt/x
  python3 Tools/Benchmarks/deltas.py --work /mnt/x ... Wall time is the median of RUNS runs, round-robin over the
tools, `sync` before each, inputs read into the page cache first; outputs are renamed aside and deleted at the end
of the scenario. After each run the tree is compared with v2 (SHA-256 of every file, and every folder; assetpack's
install record `.assetpack` left out): a tree that differs fails the call (exit 1) and shows no numbers.

Corpora, published peers and the client's tars are kept in WORK/deltas (WORK/quick/deltas with --quick, every size
divided by 20) while the seed and scale stay the same; assetpack's bundles are built again on every call.

Usage: Tools/Benchmarks/run.sh --only deltas --runs 3 [--assetpack BIN] [--quick]
       python3 Tools/Benchmarks/deltas.py [--assetpack BIN] [--runs 3] [--work DIR] [--quick]
       python3 Tools/Benchmarks/deltas.py --setup    # apt-get install -y casync zsync nginx
Exits 2 when casync, zsync, zsyncmake, nginx or GNU tar is missing.
"""
import argparse
import hashlib
import importlib.util
import json
import os
import random
import re
import resource
import shutil
import statistics
import subprocess
import sys
import time
from dataclasses import dataclass, field

import remote
import run

HERE = os.path.dirname(os.path.abspath(__file__))
KiB, MiB = 1024, 1024 * 1024
VERSION = 1
SEED = 20261129
MTIME = 1_767_225_600  # 2026-01-01 00:00 UTC: every file and folder of every corpus
TAR = ["tar", "--sort=name", "--mtime=@0", "--owner=0", "--group=0", "--numeric-owner", "--format=gnu"]
PEERS = {"casync": "casync", "zsync": "zsync", "zsyncmake": "zsync", "nginx": "nginx", "tar": "tar"}
CASYNC_HTTP = "/usr/lib/casync/protocols/casync-http"
SETUP = ["apt-get", "install", "-y", "casync", "zsync", "nginx"]
RECORD = ".assetpack"  # assetpack's install record inside the destination, not part of the tree


@dataclass
class Delta:
    """One scenario: the client holds `v1`, the server publishes `v2` (folders of the corpus)."""
    name: str
    title: str
    v1: str
    v2: str


SCENARIOS = [
    Delta("files-1pc", "1% of the app tree's files changed (64 bytes replaced by 128 in each)", "app-v1",
          "files-1pc-v2"),
    Delta("bytes-1pc", "1% of the bytes changed in three 100 MB files (edits of 2-6 KiB)", "large-v1", "bytes-1pc-v2"),
    Delta("insert-1k", "1 KiB inserted at the start of a 100 MB file", "insert-v1", "insert-v2"),
    Delta("renames", "10 files of the app tree renamed, 10 moved to other folders", "app-v1", "renames-v2"),
]


class Deltas:
    """Paths, binaries and the server of one call."""

    def __init__(self, args, ap):
        self.root = os.path.join(args.work, "quick" if args.quick else "", "deltas")
        self.scale = 20 if args.quick else 1
        self.runs, self.ap = args.runs, ap
        self.build_args = getattr(args, "build_args", "").split()
        self.corpus, self.site = os.path.join(self.root, "corpus"), os.path.join(self.root, "site")
        self.client, self.bundles = os.path.join(self.root, "client"), os.path.join(self.root, "bundles")
        self.outputs, self.logs = os.path.join(self.root, "out"), os.path.join(self.root, "logs")
        self.trash = os.path.join(self.root, f"trash-{os.getpid()}")
        self.key = os.path.join(self.root, "remote.key")
        self.access_log = os.path.join(self.root, "nginx", "access.log")
        self.url = ""
        self.moved = 0
        self.built = set()  # scenarios whose bundles this call built
        for folder in (self.root, self.logs):
            os.makedirs(folder, exist_ok=True)

    def set_aside(self, path):
        """Renames `path` into the trash folder (emptied after each scenario)."""
        if os.path.lexists(path):
            self.moved += 1
            os.makedirs(self.trash, exist_ok=True)
            os.rename(path, os.path.join(self.trash, f"{self.moved:05d}-{os.path.basename(path)}"))

    def empty_trash(self):
        shutil.rmtree(self.trash, ignore_errors=True)


# The corpora.

def load_corpus_generator():
    """make-corpus.py as a module (its name has a hyphen): its Content and make_app make the app tree."""
    spec = importlib.util.spec_from_file_location("make_corpus", os.path.join(HERE, "make-corpus.py"))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def make_corpora(deltas):
    """Writes the v1 and v2 trees of every scenario into deltas.corpus unless its stamp says they are there; a
    new corpus sets aside what was made from the old one (the published peers, the client's tars)."""
    stamp = os.path.join(deltas.corpus, ".stamp")
    wanted = {"version": VERSION, "seed": SEED, "scale": deltas.scale}
    if os.path.exists(stamp):
        with open(stamp) as file:
            if json.load(file) == wanted:
                return
    for folder in (deltas.corpus, deltas.site, deltas.client):
        deltas.set_aside(folder)
    generator = load_corpus_generator()
    content = generator.Content(random.Random(generator.SEED))
    print(f"writing {deltas.corpus} ...", file=sys.stderr)
    app = os.path.join(deltas.corpus, "app-v1")
    generator.make_app(app, content, deltas.scale)  # make-corpus.py's app tree, byte for byte
    large = make_large(os.path.join(deltas.corpus, "large-v1"), content, 100 * MiB // deltas.scale)
    change_files(app, os.path.join(deltas.corpus, "files-1pc-v2"), random.Random(SEED + 1))
    change_bytes(large, os.path.join(deltas.corpus, "bytes-1pc-v2"), random.Random(SEED + 2))
    insert_at_start(large, deltas.corpus, random.Random(SEED + 3))
    rename_and_move(app, os.path.join(deltas.corpus, "renames-v2"), random.Random(SEED + 4))
    for delta in SCENARIOS:
        for tree in (delta.v1, delta.v2):
            fix_mtimes(os.path.join(deltas.corpus, tree))
    with open(stamp, "w") as file:
        json.dump(wanted, file)


def make_large(root, content, size):
    """Three files of `size` bytes: text (~3:1 with deflate), and twice text and random bytes in alternating
    64 KiB blocks."""
    os.makedirs(root)
    kinds = (("00-levels.pak", content.text), ("01-model.bin", content.half), ("02-voices.bin", content.half))
    for name, make in kinds:
        with open(os.path.join(root, name), "wb") as out:
            out.write(make(size))
    return root


def files_of(root):
    """The files below `root`, as sorted paths relative to it."""
    return sorted(os.path.relpath(os.path.join(folder, name), root)
                  for folder, _, names in os.walk(root) for name in names)


def linked_copy(source, target):
    """`target`: a copy of the tree `source` made of hard links (a file to change is replaced, never written)."""
    subprocess.run(["cp", "-al", source, target], check=True)


def replace_file(path, data):
    """Writes `data` as a new file at `path` (breaking its hard link to v1)."""
    os.unlink(path)
    with open(path, "wb") as out:
        out.write(data)


def change_files(v1, v2, rng):
    """v2: v1 with 1% of its non-empty files (seeded choice) changed: 64 bytes at a seeded offset replaced by 128."""
    linked_copy(v1, v2)
    files = [path for path in files_of(v2) if os.path.getsize(os.path.join(v2, path)) > 0]
    for path in rng.sample(files, max(1, len(files) // 100)):
        full = os.path.join(v2, path)
        with open(full, "rb") as file:
            data = file.read()
        offset = rng.randrange(max(1, len(data) - 64))
        replace_file(full, data[:offset] + rng.randbytes(128) + data[offset + 64:])


def change_bytes(v1, v2, rng):
    """v2: each file of v1 with 1% of its bytes replaced by random ones, in edits of 2-6 KiB at seeded offsets,
    one in each of as many distinct 8 KiB slots (so edits never overlap)."""
    os.makedirs(v2)
    for name in files_of(v1):
        with open(os.path.join(v1, name), "rb") as file:
            data = bytearray(file.read())
        left, sizes = len(data) // 100, []
        while left > 0:
            sizes.append(min(left, rng.randint(2 * KiB, 6 * KiB)))
            left -= sizes[-1]
        for slot, size in zip(rng.sample(range(len(data) // (8 * KiB)), len(sizes)), sizes):
            start = slot * 8 * KiB + rng.randrange(8 * KiB - size + 1)
            data[start:start + size] = rng.randbytes(size)
        with open(os.path.join(v2, name), "wb") as out:
            out.write(data)


def insert_at_start(large, corpus, rng):
    """insert-v1: the first large file (a hard link); insert-v2: the same file with 1 KiB of random bytes before
    its first byte."""
    name = files_of(large)[0]
    for tree in ("insert-v1", "insert-v2"):
        os.makedirs(os.path.join(corpus, tree))
    os.link(os.path.join(large, name), os.path.join(corpus, "insert-v1", name))
    with open(os.path.join(large, name), "rb") as source, open(os.path.join(corpus, "insert-v2", name), "wb") as out:
        out.write(rng.randbytes(KiB))
        shutil.copyfileobj(source, out, 8 * MiB)


def rename_and_move(v1, v2, rng):
    """v2: v1 with 10 non-empty files renamed in their folder (NAME-renamed.EXT) and 10 moved to another folder
    that holds files (seeded choices), nothing else changed."""
    linked_copy(v1, v2)
    files = [path for path in files_of(v2) if os.path.getsize(os.path.join(v2, path)) > 0]
    folders = sorted({os.path.dirname(path) for path in files})
    chosen = rng.sample(files, 20)
    for path in chosen[:10]:
        stem, ext = os.path.splitext(path)
        os.rename(os.path.join(v2, path), os.path.join(v2, f"{stem}-renamed{ext}"))
    for path in chosen[10:]:
        folder = rng.choice([f for f in folders if f != os.path.dirname(path)])
        target = os.path.join(v2, folder, os.path.basename(path))
        stem, ext = os.path.splitext(target)
        os.rename(os.path.join(v2, path), target if not os.path.lexists(target) else f"{stem}-moved{ext}")


def fix_mtimes(root):
    """Gives every file and folder below `root` (and `root`) the mtime MTIME."""
    for folder, folders, names in os.walk(root, topdown=False):
        for name in names + folders:
            os.utime(os.path.join(folder, name), (MTIME, MTIME), follow_symlinks=False)
    os.utime(root, (MTIME, MTIME))


# What a result must be.

def tree_digest(root, leave_out=()):
    """{relative path: SHA-256 hex of a file, or "folder"} of the tree at `root`, without the top-level names
    in `leave_out`."""
    digest = {}
    for folder, folders, names in os.walk(root):
        if folder == root:
            folders[:] = [name for name in folders if name not in leave_out]
            names = [name for name in names if name not in leave_out]
        for name in folders:
            digest[os.path.relpath(os.path.join(folder, name), root)] = "folder"
        for name in names:
            with open(os.path.join(folder, name), "rb") as file:
                sha256 = hashlib.file_digest(file, "sha256").hexdigest()
            digest[os.path.relpath(os.path.join(folder, name), root)] = sha256
    return digest


def difference(expected, found):
    """None when the trees are equal, else one line: how many paths are missing, extra, different, and the first."""
    missing = sorted(set(expected) - set(found))
    extra = sorted(set(found) - set(expected))
    different = sorted(path for path in set(expected) & set(found) if expected[path] != found[path])
    if not (missing or extra or different):
        return None
    first = (missing or extra or different)[0]
    return (f"the tree differs from v2: {len(missing)} missing, {len(extra)} extra, {len(different)} different "
            f"(first: {first})")


# The tools.

class Upgrader:
    """One tool's way to publish v2 and upgrade a client's v1 to it; the defaults suit a peer whose files are in
    site/SCENARIO/LABEL/ and whose client copy of v1 is the corpus's, read only."""

    peer = ""  # the name in ratios; empty for assetpack rows

    def __init__(self, deltas):
        self.deltas = deltas

    def publish(self, delta):
        """Makes what the server publishes for `delta`'s v2; returns an error line or None."""
        raise NotImplementedError

    def command(self, delta, out):
        """The timed command: upgrades the client's copy of v1 to v2, the tree coming out in tree(out)."""
        raise NotImplementedError

    def prepare(self, delta, out):
        """Makes the client's copy of v1 for one run (untimed); returns an error line or None."""
        return None

    def seed(self, delta):
        """The client's files the command reads, read into the page cache before it runs."""
        return [os.path.join(self.deltas.corpus, delta.v1)]

    def served(self, delta):
        """The folder of what the server sends, read into the page cache before a run."""
        return os.path.join(self.deltas.site, delta.name, self.label)

    def tree(self, out):
        """Where the upgraded tree is once command(delta, out) has run."""
        return out


class Assetpack(Upgrader):
    """`assetpack expand URL/x.bundle`: v1 installed (untimed), then upgraded to v2 at the same URL (timed)."""

    def __init__(self, deltas, *options):
        super().__init__(deltas)
        self.options = list(options)
        self.label = " ".join(["assetpack expand"] + self.options)

    def publish(self, delta):
        """Builds (every call: the binary may have changed) bundles/SCENARIO/v1/x.bundle from v1, and v2/x.bundle
        from v2 over a copy of it; site/SCENARIO/assetpack links to one of them."""
        deltas = self.deltas
        if delta.name in deltas.built:
            return None
        if not os.path.exists(deltas.key) and (error := run.sh([deltas.ap, "keygen", "--out", deltas.key, "-q"])):
            return f"keygen: {error}"
        folder = os.path.join(deltas.bundles, delta.name)
        deltas.set_aside(folder)
        v1, v2 = os.path.join(folder, "v1", "x.bundle"), os.path.join(folder, "v2", "x.bundle")
        for path in (v1, v2):
            os.makedirs(os.path.dirname(path))
        if error := self.build(delta.v1, v1):
            return f"build v1: {error}"
        subprocess.run(["cp", "-a", v1, v2], check=True)
        if error := self.build(delta.v2, v2):
            return f"build v2: {error}"
        deltas.built.add(delta.name)
        return None

    def build(self, tree, bundle):
        """`assetpack build CORPUS/TREE -o BUNDLE --sign KEY`: an error line or None."""
        deltas = self.deltas
        return run.sh([deltas.ap, "build", os.path.join(deltas.corpus, tree), "-o", bundle, "--sign", deltas.key, "-q"]
                      + deltas.build_args)

    def serve(self, delta, version):
        """Points site/SCENARIO/assetpack at the bundle of `version` (atomically: nginx may be serving)."""
        link = os.path.join(self.deltas.site, delta.name, "assetpack")
        os.makedirs(os.path.dirname(link), exist_ok=True)
        os.symlink(os.path.join(self.deltas.bundles, delta.name, version), link + ".new")
        os.replace(link + ".new", link)

    def command(self, delta, out):
        return [self.deltas.ap, "expand", f"{self.deltas.url}/{delta.name}/assetpack/x.bundle", "--to", out, "-q",
                "--allow-http", "--public-key", self.deltas.key + ".pub"] + self.options

    def prepare(self, delta, out):
        """Installs v1 into `out` the way the timed command installs (untimed), then serves v2."""
        self.serve(delta, "v1")
        error = run.sh(self.command(delta, out))
        self.serve(delta, "v2")
        return error and f"installing v1: {error}"

    def seed(self, delta):
        return []  # the client's copy is the install `prepare` just wrote

    def served(self, delta):
        return os.path.join(self.deltas.bundles, delta.name, "v2")


class Casync(Upgrader):
    """`casync extract --seed=V1` of v2.caidx with its chunk store on the server; the seed is v1 itself."""

    peer = label = "casync"

    def publish(self, delta):
        """site/SCENARIO/casync/{v2.caidx,store} (kept while the corpus is the same)."""
        folder = self.served(delta)
        if os.path.exists(os.path.join(folder, "v2.caidx")):
            return None
        self.deltas.set_aside(folder)
        os.makedirs(folder)
        return run.sh(["casync", "make", "--store=" + os.path.join(folder, "store"), os.path.join(folder, "v2.caidx"),
                       os.path.join(self.deltas.corpus, delta.v2)])

    def command(self, delta, out):
        url = f"{self.deltas.url}/{delta.name}/casync"
        return ["casync", "extract", "--seed=" + os.path.join(self.deltas.corpus, delta.v1), f"--store={url}/store",
                f"{url}/v2.caidx", out]


class Zsync(Upgrader):
    """`zsync -i v1.tar` of v2.tar.zsync, then `tar -xf` of the result; the client keeps v1 as client/V1.tar."""

    peer = label = "zsync"

    def client_tar(self, delta):
        return os.path.join(self.deltas.client, delta.v1 + ".tar")

    def publish(self, delta):
        """site/SCENARIO/zsync/{v2.tar,v2.tar.zsync} and the client's client/V1.tar (kept while the corpus is the
        same)."""
        folder, v1_tar = self.served(delta), self.client_tar(delta)
        if not os.path.exists(v1_tar):
            os.makedirs(self.deltas.client, exist_ok=True)
            if error := run.sh(TAR + ["-cf", v1_tar + ".part", "-C", os.path.join(self.deltas.corpus, delta.v1), "."]):
                return error
            os.rename(v1_tar + ".part", v1_tar)
        if os.path.exists(os.path.join(folder, "v2.tar.zsync")):
            return None
        self.deltas.set_aside(folder)
        os.makedirs(folder)
        v2 = os.path.join(self.deltas.corpus, delta.v2)
        return (run.sh(TAR + ["-cf", os.path.join(folder, "v2.tar"), "-C", v2, "."])
                or run.sh(["zsyncmake", "-u", "v2.tar", "-o", "v2.tar.zsync", "v2.tar"], cwd=folder))

    def command(self, delta, out):
        script = 'cd "$1" && zsync -q -i "$2" -o v2.tar "$3" && mkdir tree && tar -xf v2.tar -C tree'
        return ["sh", "-c", script, "zsync", out, self.client_tar(delta),
                f"{self.deltas.url}/{delta.name}/zsync/v2.tar.zsync"]

    def prepare(self, delta, out):
        os.makedirs(out)
        return None

    def seed(self, delta):
        return [self.client_tar(delta)]

    def tree(self, out):
        return os.path.join(out, "tree")


# Running.

@dataclass
class Row:
    """One tool's runs in one scenario."""
    label: str
    peer: str
    samples: list = field(default_factory=list)  # {"wall": s, "cpu": s, "writes": n, "bytes": n, "requests": n, "refused": n}
    error: str = None
    failed: bool = False  # a wrong tree, not just a failing command

    def median(self, key):
        return statistics.median(sample[key] for sample in self.samples) if self.samples and not self.error else None


def read_through(paths):
    """Reads every file below `paths` once, so that a run starts from the page cache."""
    for path in paths:
        files = [path] if os.path.isfile(path) else [os.path.join(folder, name)
                                                     for folder, _, names in os.walk(path, followlinks=True)
                                                     for name in names]
        for name in files:
            with open(name, "rb") as file:
                while file.read(8 * MiB):
                    pass


def requests_since(deltas, offset):
    """{"bytes": sent, "requests": n, "refused": responses of status 400 or more} of the access log's lines after
    byte `offset`, once nginx has written them all."""
    time.sleep(0.2)  # nginx logs a request when its last byte has gone out, the client may have ended first
    with open(deltas.access_log, "rb") as log:
        log.seek(offset)
        lines = [re.match(r"(\d+) (\d+) ", line) for line in log.read().decode().splitlines()]
    return {"bytes": sum(int(line.group(1)) for line in lines), "requests": len(lines),
            "refused": sum(int(line.group(2)) >= 400 for line in lines)}


def cpu_of_children():
    """User + system CPU seconds of every child process waited for so far (and of their children)."""
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def device_stat(path):
    """/sys/class/block/NAME/stat of the block device holding `path` (from /proc/mounts), or None (not a block device)."""
    path, best = os.path.realpath(path), ("", None)
    with open("/proc/mounts") as mounts:
        for line in mounts:
            fields = line.split()
            if len(fields) > 2 and (path + "/").startswith(fields[1].rstrip("/") + "/") and len(fields[1]) >= len(best[0]):
                best = (fields[1], fields[0])
    if not best[1] or not best[1].startswith("/dev/"):
        return None
    stat = f"/sys/class/block/{os.path.basename(os.path.realpath(best[1]))}/stat"
    return stat if os.path.exists(stat) else None


def sectors_written(stat):
    """Sectors of 512 bytes written to the device so far (field 7 of its stat), or None."""
    if not stat:
        return None
    with open(stat) as file:
        return int(file.read().split()[6])


def time_run(deltas, tool, delta, out, expected):
    """One timed upgrade by `tool` into `out`: a sample, or (None, error, failed)."""
    if error := tool.prepare(delta, out):
        return None, error, False
    read_through(tool.seed(delta) + [tool.served(delta)])
    os.sync()
    offset = os.path.getsize(deltas.access_log)
    log = os.path.join(deltas.logs, f"{delta.name}-{tool.label.replace(' ', '-')}.log")
    with open(log, "w") as output:
        stat = device_stat(out if os.path.exists(out) else os.path.dirname(out))
        written, cpu, start = sectors_written(stat), cpu_of_children(), time.perf_counter()
        status = subprocess.run(tool.command(delta, out), stdout=output, stderr=subprocess.STDOUT).returncode
        wall, cpu = time.perf_counter() - start, cpu_of_children() - cpu
    os.sync()  # untimed: what the run left for write-back reaches the device too
    sample = {"wall": wall, "cpu": cpu, **requests_since(deltas, offset)}
    if written is not None:
        sample["writes"] = (sectors_written(stat) - written) * 512
    if status != 0:
        with open(log) as output:
            lines = [line.strip() for line in output if line.strip()]
        return None, (lines[-1] if lines else f"exit status {status}")[:200], False
    if wrong := difference(expected, tree_digest(tool.tree(out), leave_out=(RECORD,))):
        return None, wrong, True
    return sample, None, False


def link_floor(deltas, delta):
    """The median bytes written (over RUNS) by a copy of v1 made of hard links, `sync` before and after: the least
    an upgrade that switches a whole new tree in costs, whatever changed (each linked file's inode is written
    again, for its link count, and each folder is made). None when the device's writes cannot be counted."""
    source = os.path.join(deltas.corpus, delta.v1)
    stat = device_stat(source)
    if stat is None:
        return None
    samples = []
    for _ in range(deltas.runs):
        out = os.path.join(deltas.outputs, "floor")
        os.makedirs(deltas.outputs, exist_ok=True)
        os.sync()
        written = sectors_written(stat)
        linked_copy(source, out)
        os.sync()
        samples.append((sectors_written(stat) - written) * 512)
        deltas.set_aside(out)
    deltas.empty_trash()
    return statistics.median(samples)


def measure(deltas, delta, tools):
    """Publishes v2 for every tool and times RUNS upgrades of each, round-robin, each round starting one tool
    later; returns the rows."""
    rows = [Row(tool.label, tool.peer) for tool in tools]
    for tool, row in zip(tools, rows):
        print(f"  publishing {delta.name} for {tool.label} ...", file=sys.stderr)
        row.error = tool.publish(delta)
    expected = tree_digest(os.path.join(deltas.corpus, delta.v2))
    deltas.set_aside(deltas.outputs)  # what a call that was stopped left there
    for round_ in range(deltas.runs):
        order = list(range(len(tools)))
        order = order[round_ % len(order):] + order[:round_ % len(order)]
        for index in (i for i in order if not rows[i].error):
            print(f"  {delta.name} run {round_ + 1}/{deltas.runs}: {tools[index].label}", file=sys.stderr)
            out = os.path.join(deltas.outputs, "x")
            os.makedirs(deltas.outputs, exist_ok=True)
            sample, rows[index].error, rows[index].failed = time_run(deltas, tools[index], delta, out, expected)
            if sample:
                rows[index].samples.append(sample)
            deltas.set_aside(deltas.outputs)
    deltas.empty_trash()
    return rows


# The report.

def size_of(path):
    return sum(os.path.getsize(os.path.join(folder, name)) for folder, _, names in os.walk(path, followlinks=True)
               for name in names)


def manifest_size(bundle):
    """Bytes of the bundle's manifest and its signature: what scenario `renames` may fetch at most."""
    meta = os.path.join(bundle, "assetpack-meta")
    return sum(os.path.getsize(os.path.join(meta, name)) for name in ("manifest.json", "manifest.sig")
               if os.path.exists(os.path.join(meta, name)))


def amount(count):
    return f"{count / 1e6:.2f} MB" if count >= 1e6 else f"{count / 1e3:.1f} kB"


def ratio(ours, theirs):
    return f"{ours / theirs:.2f}×" if ours is not None and theirs else "n/a"


def scenario_table(delta, rows, bundle_size):
    """The lines of one scenario's table: each tool's bytes, % of the v2 bundle, requests, median time, and for
    assetpack rows its bytes and time over each peer's."""
    peers = [row for row in rows if row.peer]
    lines = []
    for row in rows:
        if row.median("wall") is None:
            why = ("FAILED: " if row.failed else "n/a: ") + (row.error or "no runs")
            lines.append(f"| {delta.name} | {row.label} | {why} | | | | | | | |")
            continue
        sent, walls = row.median("bytes"), [sample["wall"] for sample in row.samples]
        share = f"{100 * sent / bundle_size:.2f}%" if bundle_size else "n/a"
        versus = "" if row.peer else ", ".join(
            f"{peer.label} {ratio(sent, peer.median('bytes'))} bytes, "
            f"{ratio(row.median('wall'), peer.median('wall'))} time"
            for peer in peers)
        refused = f" ({row.median('refused'):.0f} refused)" if row.median("refused") else ""
        lines.append(f"| {delta.name} | {row.label} | {amount(sent)} | {share} | "
                     f"{row.median('requests'):.0f}{refused} | {row.median('wall'):.2f} | "
                     f"{min(walls):.2f}–{max(walls):.2f} | {row.median('cpu'):.2f} | {writes(row)} | {versus} |")
    return lines


def writes(row):
    """The median bytes a row's runs made the file systems write ("n/a" for samples from before they were counted)."""
    return amount(row.median("writes")) if all("writes" in sample for sample in row.samples) else "n/a"


def goals(delta, rows, bundle_size, manifest, floor):
    """One line: whether assetpack's upgrade meets the issue's goals in this scenario (whose v2 bundle has
    `bundle_size` bytes, `manifest` of them its manifest and signature; `floor`: what linking v1 writes)."""
    name = f"{delta.name} ({amount(bundle_size)})"
    ours = [row for row in rows if not row.peer and row.median("bytes") is not None]
    peers = [row for row in rows if row.peer and row.median("bytes") is not None]
    if not ours or len(peers) < 2:
        return f"| {name} | n/a | n/a | n/a | n/a |"
    sent = min(row.median("bytes") for row in ours)
    fastest = min(row.median("wall") for row in peers)
    limit, what = ((manifest + 4 * KiB, "manifest + signature + 4 kB") if delta.name == "renames"
                   else (0.03 * bundle_size, "3% of the bundle"))
    walls = ", ".join(f"{row.label} {row.median('wall'):.2f} s" for row in ours)
    return (f"| {name} | {'yes' if all(sent <= row.median('bytes') for row in peers) else 'no'} "
            f"({amount(sent)}; casync, zsync: {', '.join(amount(row.median('bytes')) for row in peers)}) "
            f"| {'yes' if sent <= limit else 'no'} (≤ {amount(limit)}, {what}) "
            f"| {'yes' if any(row.median('wall') <= fastest for row in ours) else 'no'} ({walls}; fastest peer "
            f"{fastest:.2f} s) | {written(ours, floor)} |")


def written(ours, floor):
    """Whether assetpack's upgrade wrote at most twice the bytes it fetched (the goal's disk writes), and what a
    copy of v1 made of hard links wrote (`floor`, when known)."""
    if not all("writes" in sample for row in ours for sample in row.samples):
        return "n/a"

    def times(row):
        return row.median("writes") / max(1, row.median("bytes"))

    each = "; ".join(f"{row.label.removeprefix('assetpack expand').strip() or 'switched in'}: "
                     f"{amount(row.median('writes'))}, {times(row):.1f}×" for row in ours)
    linked = f"; linking v1's tree alone: {amount(floor)}" if floor is not None else ""
    return f"{'yes' if min(map(times, ours)) <= 2 else 'no'} ({each} the bytes fetched{linked})"


def report(deltas, results):
    """Prints the table (and writes it to DELTAS/results.md, the samples to results.json)."""
    git = subprocess.run(["git", "describe", "--always", "--dirty"], cwd=HERE, capture_output=True, text=True)
    version = subprocess.run([deltas.ap, "--version"], capture_output=True, text=True).stdout.strip()
    lines = [f"## Upgrades against casync and zsync ({'quick 1/20' if deltas.scale > 1 else 'full'} corpora, "
             f"{deltas.runs} runs each)", "",
             f"{time.strftime('%Y-%m-%d %H:%M')}, tools {git.stdout.strip()}, assetpack {deltas.ap} ({version}), "
             f"{os.cpu_count()} cores. Bytes and requests: everything nginx sent for the upgrade (headers, indexes, "
             "manifests, signatures, data), median over the runs; % of the v2 bundle's size; wall time median and "
             "min–max, and the median CPU (user + system, the tool's child processes included: the machine is "
             "shared, CPU moves less than wall time); disk writes: the median bytes written to the block device "
             "holding the output from the `sync` before the run to one after it (data, metadata and journal; "
             f"whatever else wrote there meanwhile too), here {filesystem_of(deltas.root)}.", "",
             "| scenario | tool | bytes sent | % of v2 bundle | requests | median wall (s) | min–max (s) "
             "| median CPU (s) | disk writes | assetpack ÷ peer |", "|" + " --- |" * 10]
    for delta, rows, bundle_size, *_ in results:
        lines += scenario_table(delta, rows, bundle_size)
    lines += ["", "| scenario (v2 bundle) | assetpack bytes ≤ casync's and zsync's | bytes within the goal "
              "| time ≤ the fastest peer's | disk writes ≤ 2× bytes fetched |", "| --- | --- | --- | --- | --- |"]
    lines += [goals(delta, rows, bundle_size, manifest, floor) for delta, rows, bundle_size, manifest, floor in results]
    markdown = "\n".join(lines) + "\n"
    print(markdown)
    with open(os.path.join(deltas.root, "results.md"), "w") as out:
        out.write(markdown)
    with open(os.path.join(deltas.root, "results.json"), "w") as out:
        json.dump([{"scenario": delta.name, "title": delta.title, "bundle_bytes": bundle_size,
                    "link_floor_writes": floor, "rows": [row.__dict__ for row in rows]}
                   for delta, rows, bundle_size, _, floor in results], out, indent=1)
    print(f"written to {deltas.root}/results.md and results.json", file=sys.stderr)


def filesystem_of(path):
    """The type of the file system holding `path` (from /proc/mounts: the longest mount point above it)."""
    path, best = os.path.realpath(path), ("", "unknown")
    with open("/proc/mounts") as mounts:
        for line in mounts:
            fields = line.split()
            if len(fields) > 2 and (path + "/").startswith(fields[1].rstrip("/") + "/") and len(fields[1]) >= len(best[0]):
                best = (fields[1], fields[2])
    return best[1]


# The call.

def missing_tools():
    """The programs the group needs and cannot find, each with the Debian package that has it."""
    absent = [f"{program} (Debian package {package})" for program, package in PEERS.items() if not shutil.which(program)
              and not (program == "nginx" and os.access(remote.NGINX, os.X_OK))]
    if shutil.which("casync") and not os.access(CASYNC_HTTP, os.X_OK):
        absent.append(f"{CASYNC_HTTP} (Debian package casync)")
    return absent


def setup():
    """Installs the peers and the server with apt-get (as root, or through sudo); returns its exit status."""
    command = SETUP if os.geteuid() == 0 else ["sudo"] + SETUP
    print(" ".join(command), file=sys.stderr)
    return subprocess.run(command).returncode


def parse_arguments():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--assetpack", help="the assetpack binary to measure (default: build one, as run.py does)")
    parser.add_argument("--runs", type=int, default=3, help="timed runs per tool and scenario (default 3)")
    parser.add_argument("--work", default="/tmp/assetpack-bench", help="work folder (default /tmp/assetpack-bench)")
    parser.add_argument("--quick", action="store_true", help="corpora 20x smaller, in WORK/quick/deltas")
    parser.add_argument("--only", help="comma-separated scenarios: " + ",".join(d.name for d in SCENARIOS))
    parser.add_argument("--setup", action="store_true", help="install casync, zsync and nginx (apt-get) and exit")
    parser.add_argument("--build-args", default="", help="more arguments for assetpack build, e.g. '--chunk-size 16K'")
    args = parser.parse_args()
    unknown = set((args.only or "").split(",")) - {d.name for d in SCENARIOS} - {""}
    if unknown or args.runs < 1:
        parser.error(f"unknown scenario {', '.join(sorted(unknown))}" if unknown else "--runs must be at least 1")
    args.work = os.path.abspath(args.work)
    return args


def assetpack_binary(args):
    """--assetpack, or a release build made as run.py makes it; exits 1 without a binary."""
    bench = run.Bench(argparse.Namespace(work=args.work, quick=args.quick, runs=args.runs, assetpack=args.assetpack,
                                         baseline=None))
    run.build_assetpack(bench)
    if bench.ap_error:
        sys.exit(f"deltas: {bench.ap_error}")
    return os.path.abspath(bench.ap)


def main():
    args = parse_arguments()
    if args.setup:
        return setup()
    if absent := missing_tools():
        print("deltas: missing " + ", ".join(absent) + ". Install them with `python3 Tools/Benchmarks/deltas.py "
              f"--setup` ({' '.join(SETUP)}).", file=sys.stderr)
        return 2
    deltas = Deltas(args, assetpack_binary(args))
    make_corpora(deltas)
    tools = [Assetpack(deltas), Assetpack(deltas, "--in-place"), Assetpack(deltas, "--no-sync"), Casync(deltas),
             Zsync(deltas)]
    results = []
    with remote.nginx(os.path.join(deltas.root, "nginx"), deltas.site, deltas.access_log) as url:
        deltas.url = url
        if not os.path.exists(deltas.access_log):
            sys.exit(f"deltas: nginx did not start (see {os.path.dirname(deltas.access_log)}/error.log)")
        for delta in (d for d in SCENARIOS if not args.only or d.name in args.only.split(",")):
            print(f"{delta.name}: {delta.title}", file=sys.stderr)
            rows = measure(deltas, delta, tools)
            bundle = os.path.join(deltas.bundles, delta.name, "v2", "x.bundle")
            results.append((delta, rows, size_of(bundle), manifest_size(bundle), link_floor(deltas, delta)))
    report(deltas, results)
    return 1 if any(row.failed for _, rows, *_ in results for row in rows) else 0


if __name__ == "__main__":
    sys.exit(main())
