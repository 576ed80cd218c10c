#!/usr/bin/env python3
"""Times assetpack's build and expand against zip tools on a generated corpus, and writes a Markdown report.

One call does everything: builds assetpack (release) and the ZIPFoundation peer, writes the corpus
(make-corpus.py, skipped when present), prepares the inputs (zip -r -6 archives, assetpack bundles), then runs
every command of a scenario round-robin, RUNS times, under GNU time. Each run reads its inputs just before it
starts (so they are in the page cache), writes into a fresh folder that is renamed aside afterwards (deleting
thousands of files between runs would slow the next run down), and is followed by `sync` (untimed) so one
command's write-back does not land in the next command's time.

Usage: Tools/Benchmarks/run.sh [--quick] [--runs N] [--only expand-app,build-app] [--work DIR] [--assetpack BIN]
                               [--baseline BIN]

With --baseline, every assetpack row is also run with that binary (an earlier build, labelled "[baseline]"),
in the same rounds, so a change is measured before and after in one run.

`--only deltas` (never part of a call without --only) runs deltas.py, upgrades against casync and zsync, with
this call's binary, runs and work folder, after the other scenarios named; its report is its own.
"""
import argparse
import hashlib
import json
import re
import os
import platform
import shlex
import shutil
import statistics
import subprocess
import sys
import time
from dataclasses import dataclass, field

import remote

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
MiB = 1024 * 1024


@dataclass
class Tool:
    """One command of a scenario. `argv` may hold {ap} (assetpack), {zf} (the ZIPFoundation peer),
    {in} (the prepared inputs folder) and {out} (this run's output path); it runs in the corpus folder."""
    label: str
    argv: list
    reads: list                # inputs read before each run: corpus-relative or {in}/… paths
    peer: str = ""             # short name in ratios ("unzip"); empty for assetpack rows
    out: str = "x"             # the output's name inside the run's fresh folder
    mkdir: bool = False        # the command wants {out} to exist
    again: bool = False        # runs once untimed first, then times re-runs into the same {out}
    before: list = field(default_factory=list)  # runs untimed before each timed run, into the same {out}
    dirty_mib: int = 0         # MiB written (not synced, untimed) to a file in the work folder just before each run
    wall_from: str = ""        # a regular expression whose first group, found in the output, is the wall time


@dataclass
class Scenario:
    name: str
    title: str
    tools: list
    unit: str = "s"            # "ms" for short runs
    sizes: bool = False        # report output sizes and the ratio to zip's
    server: bool = False       # needs the loopback web server of remote.py ({url}) while it runs
    max_runs: int = 0          # at most this many runs per command (0: --runs); a long scenario
    baseline: bool = True      # with --baseline, also time the baseline binary's rows
    site: tuple = ()           # trees whose signed bundles (TREE.bundle, TREE-1pc.bundle) the site serves


def expand_peers(archive):
    """The peers that expand `archive` (a file in {in})."""
    source = "{in}/" + archive
    return [
        Tool("unzip -q", ["unzip", "-q", source, "-d", "{out}"], [source], peer="unzip"),
        Tool("bsdtar -xf", ["bsdtar", "-xf", source, "-C", "{out}"], [source], peer="bsdtar", mkdir=True),
        Tool("python3 -m zipfile -e", [sys.executable, "-m", "zipfile", "-e", source, "{out}"], [source],
             peer="python"),
        Tool("7z x", ["7z", "x", "-y", "-bd", "-o{out}", source], [source], peer="7z"),
        Tool("zipfoundation-peer unzip", ["{zf}", "unzip", source, "{out}"], [source], peer="ZIPFoundation"),
    ]


def bsdtar_and_unzip(archive):
    """The two peers of a large archive (`archive` in {in}), labelled with its name."""
    source = "{in}/" + archive
    return [Tool(f"bsdtar -xf {archive}", ["bsdtar", "-xf", source, "-C", "{out}"], [source], peer="bsdtar", mkdir=True),
            Tool(f"unzip -q {archive}", ["unzip", "-q", source, "-d", "{out}"], [source], peer="unzip")]


def durable_peers(archive):
    """The peers of `archive` followed by `sync -f OUT` in the timed command: durable against durable, for the
    default `assetpack expand` row (which flushes what it wrote before recording it)."""
    return [Tool(peer.label + " && sync -f", ["sh", "-c", shlex.join(peer.argv) + " && sync -f {out}"], peer.reads,
                 peer=peer.peer + "+sync", out=peer.out, mkdir=peer.mkdir) for peer in expand_peers(archive)]


def foreign_dirty(tools, mib=1024):
    """`tools` each run with `mib` MiB of another program's unsynced writes in the page cache."""
    return [Tool(t.label + f" ({mib} MiB foreign dirty)", t.argv, t.reads, peer=t.peer, out=t.out, mkdir=t.mkdir,
                 dirty_mib=mib) for t in tools]


def assetpack_expand(source, *options):
    """`assetpack expand SOURCE` (flushing the tree before recording it, the default), or with `options`."""
    return Tool(" ".join((f"assetpack expand {source}",) + options),
                ["{ap}", "expand", "{in}/" + source, "--to", "{out}", "-q", *options], ["{in}/" + source])


def assetpack_expands(source):
    """The default (flushed, power-loss safe) row and the `--no-sync` row, which like the peers leaves
    write-back to the kernel (still crash-safe)."""
    return [assetpack_expand(source), assetpack_expand(source, "--no-sync")]


def assetpack_archive(*options):
    return Tool(" ".join(("assetpack build --archive",) + options),
                ["{ap}", "build", "app", "--archive", "{out}", *options, "-q"], ["app"], out="x.zip")


def assetpack_remote(bundle, *options, before=()):
    """`assetpack expand {url}/BUNDLE` from the loopback server, trusting the benchmark's key."""
    return Tool(" ".join((f"assetpack expand http://…/{bundle}",) + options),
                ["{ap}", "expand", "{url}/" + bundle, "--to", "{out}", "--allow-http", "--public-key", "{in}/remote.key.pub",
                 "-q", *options], ["{in}/site/" + bundle], before=list(before))


def every_command(tree, files):
    """Each command of the CLI on TREE of FILES files (its bundle, served and local, and an install of it): time and
    peak RSS. The upgrade rows start from a tree installed as the row installs (untimed); the resume row from an
    install killed half way (untimed)."""
    bundle, changed, url = "{in}/site/" + tree + ".bundle", "{in}/site/" + tree + "-1pc.bundle", "{url}/" + tree
    install = ["{ap}", "expand", bundle, "--to", "{out}", "-q"]
    remote_install = ["{ap}", "expand", url + ".bundle", "--to", "{out}", "--allow-http", "--public-key",
                      "{in}/remote.key.pub", "-q"]
    return [
        Tool(f"build {tree}", ["{ap}", "build", tree, "-o", "{out}", "-q"], [tree]),
        Tool(f"build {tree} --archive", ["{ap}", "build", tree, "--archive", "{out}", "-q"], [tree], out="x.zip"),
        Tool(f"expand {tree}.bundle", install, [bundle]),
        Tool(f"expand {tree}-1pc.bundle (upgrade)", install[:2] + [changed] + install[3:], [changed], before=install),
        # The resume starts from the staging tree of an install killed (SIGKILL) once half the files were written.
        Tool(f"expand {tree}.bundle (resume after a kill)", install, [bundle], before=[
            "sh", "-c", f'ASSETPACK_TEST_KILL_AFTER_FILES={files // 2} "$0" expand "$1" --to "$2" -q; true', "{ap}", bundle, "{out}"]),
        Tool(f"list {tree}.bundle", ["{ap}", "list", bundle], [bundle]),
        Tool(f"list {tree}.bundle --json", ["{ap}", "list", bundle, "--json"], [bundle]),
        Tool(f"verify {tree}.bundle", ["{ap}", "verify", bundle, "-q"], [bundle]),
        Tool(f"status (installed {tree})", ["{ap}", "status", "{in}/" + tree + ".installed"], ["{in}/" + tree + ".installed"]),
        Tool(f"check {tree}-container.apk", ["{ap}", "check", "{in}/" + tree + "-container.apk"],
             ["{in}/" + tree + "-container.apk"]),
        Tool(f"expand http://…/{tree}.bundle", remote_install, [bundle]),
        Tool(f"expand http://…/{tree}-1pc.bundle (upgrade)", remote_install[:2] + [url + "-1pc.bundle"] + remote_install[3:],
             [changed], before=remote_install),
    ]


SCENARIOS = [
    Scenario("expand-app", "Expand app.zip (the app tree, zip -r -6)",
             assetpack_expands("app.zip") + expand_peers("app.zip")),
    Scenario("expand-app-durable", "Expand app.zip, durable: the peers followed by `sync -f OUT`",
             [assetpack_expand("app.zip")] + durable_peers("app.zip")),
    # The flush floor (flush-floor.c): what flushing the app tree's shape entry by entry costs the kernel alone,
    # its flush phase timed; a durable row should cost at most 1.2x that over its --no-sync row (targets.py).
    Scenario("expand-app-foreign-dirty", "Expand app.zip with 1 GiB of another program's writes not yet on disk",
             foreign_dirty(assetpack_expands("app.zip") + [
                 Tool("bsdtar -xf", ["bsdtar", "-xf", "{in}/app.zip", "-C", "{out}"], ["{in}/app.zip"], peer="bsdtar", mkdir=True),
                 Tool("flush floor of app (16 threads)", ["{floor}", "app", "{out}", "16"], ["app"], peer="floor",
                      wall_from=r"flushed on \d+ threads in ([0-9.]+) s")])),
    Scenario("expand-bundle", "Expand app.bundle (assetpack build) vs the peers on app.zip",
             assetpack_expands("app.bundle") + expand_peers("app.zip")
             + [Tool("cp -r app", ["cp", "-r", "app", "{out}"], ["app"], peer="cp -r")]),
    Scenario("expand-small", "Expand small.zip (many small files)",
             assetpack_expands("small.zip") + expand_peers("small.zip")),
    Scenario("expand-small-durable", "Expand small.zip, durable: the peers followed by `sync -f OUT`",
             [assetpack_expand("small.zip")] + durable_peers("small.zip")),
    Scenario("expand-small-bundle", "Expand small.bundle (assetpack build: pack archives) vs the peers on small.zip",
             assetpack_expands("small.bundle")
             + [assetpack_expand("small-deflated.bundle"), assetpack_expand("small-plain.bundle")]
             + expand_peers("small.zip")),
    Scenario("expand-small-bundle-durable", "Expand small.bundle, durable: the peers on small.zip followed by `sync -f OUT`",
             [assetpack_expand("small.bundle")] + durable_peers("small.zip")),
    # Each run writes 1,000,000 inodes: 2 runs, no baseline rows, and outputs removed when inodes run short.
    # The first 50,000 of those files (5 of the 100 top folders) in a zip and a bundle of their own: the same
    # kind of files and folders, so that the time a file at 1,000,000 is compared with like for like.
    Scenario("expand-small1m", "Expand 1,000,000 tiny files (small1m.zip, zip -r -D -6) and their bundle, and the "
             "first 50,000 of them alike (2 runs)",
             assetpack_expands("small1m.zip") + assetpack_expands("small1m.bundle")
             + assetpack_expands("small1m-50k.zip") + assetpack_expands("small1m-50k.bundle")
             + [Tool("bsdtar -xf", ["bsdtar", "-xf", "{in}/small1m.zip", "-C", "{out}"], ["{in}/small1m.zip"],
                     peer="bsdtar", mkdir=True),
                # The peer on the first 50,000 too: how much more a file costs at 1,000,000 on this file system
                # for a tool that is not assetpack.
                Tool("bsdtar -xf small1m-50k.zip", ["bsdtar", "-xf", "{in}/small1m-50k.zip", "-C", "{out}"],
                     ["{in}/small1m-50k.zip"], peer="bsdtar 50k", mkdir=True)], max_runs=2, baseline=False),
    Scenario("expand-huge", "Expand the huge file: huge.bundle (assetpack build) vs huge.zip (zip -r -6)",
             assetpack_expands("huge.bundle") + bsdtar_and_unzip("huge.zip")),
    # A foreign zip's one long deflate stream: no block index to split it by (the first 400 MB of huge.bin).
    Scenario("expand-stream", "Expand one 400 MB `zip -6` stream (stream.zip: the first 400 MB of huge.bin)",
             assetpack_expands("stream.zip") + bsdtar_and_unzip("stream.zip")),
    Scenario("build-app", "Build the app tree into one archive", [
        assetpack_archive("--level", "6"),
        assetpack_archive("--level", "6", "--threshold", "0"),
        Tool("zip -r -6 -q", ["zip", "-r", "-6", "-q", "{out}", "app"], ["app"], peer="zip", out="x.zip"),
        Tool("7z a -tzip -mx=5", ["7z", "a", "-tzip", "-mx=5", "-bd", "{out}", "app"], ["app"], peer="7z", out="x.zip"),
        Tool("zipfoundation-peer zip", ["{zf}", "zip", "app", "{out}"], ["app"], peer="ZIPFoundation", out="x.zip"),
    ], sizes=True),
    Scenario("build-huge", "Build the huge file", [
        Tool("assetpack build huge-dir -o", ["{ap}", "build", "huge-dir", "-o", "{out}", "-q"], ["huge-dir"]),
        Tool("zip -r -6 -q", ["zip", "-r", "-6", "-q", "{out}", "huge-dir"], ["huge-dir"], peer="zip", out="x.zip"),
    ], sizes=True),
    Scenario("expand-again", "Expand again into an up-to-date destination (whole process)", [
        Tool("assetpack expand app.bundle (again)", ["{ap}", "expand", "{in}/app.bundle", "--to", "{out}", "-q"],
             ["{in}/app.bundle"], again=True),
        Tool("assetpack expand app.zip (again)", ["{ap}", "expand", "{in}/app.zip", "--to", "{out}", "-q"],
             ["{in}/app.zip"], again=True),
        # The runner's own cost for a process that does nothing (Python's subprocess, GNU time): the floor of
        # these rows, which hyperfine and the like do not count.
        Tool("true (the runner's floor)", ["true"], [], peer="true", again=True),
    ], unit="ms"),
    Scenario("remote-app", "Install app.bundle from nginx on loopback, and upgrade it with 1% of its files changed, "
             "vs curl of app.zip and bsdtar -x", [
        *[assetpack_remote("app.bundle", *options) for options in ((), ("--no-sync",))],
        # The upgrade starts from a tree installed as the row installs (durable before the durable row).
        *[assetpack_remote("app-1pc.bundle", *options, before=assetpack_remote("app.bundle", *options).argv)
          for options in ((), ("--no-sync",))],
        Tool("curl -sf app.zip && bsdtar -xf", ["sh", "-c", "curl -sf {url}/app.zip -o {out}/app.zip && mkdir {out}/tree"
                                                " && bsdtar -xf {out}/app.zip -C {out}/tree"], ["{in}/app.zip"],
             peer="curl+bsdtar", mkdir=True),
        Tool("curl -sf app.zip && bsdtar -xf && sync -f", ["sh", "-c", "curl -sf {url}/app.zip -o {out}/app.zip && mkdir {out}/tree"
                                                           " && bsdtar -xf {out}/app.zip -C {out}/tree && sync -f {out}"],
             ["{in}/app.zip"], peer="curl+bsdtar+sync", mkdir=True),
    ], server=True, site=("app",)),
    Scenario("commands-50k", "Every command on 50,000 small files (the small tree): time and peak RSS",
             every_command("small", 50_000), server=True, site=("small",)),
    Scenario("commands-1m", "Every command on 1,000,000 tiny files (the small1m tree): time and peak RSS (2 runs)",
             every_command("small1m", 1_000_000), server=True, site=("small1m",), max_runs=2, baseline=False),
]

# How each prepared input is made (in the corpus folder); zips are kept while the corpus stays the same,
# bundles are made again on every call because the assetpack binary may have changed.
RECIPES = {
    "app.zip": ["zip", "-r", "-6", "-q", "{out}", "app"],
    "small.zip": ["zip", "-r", "-6", "-q", "{out}", "small"],
    "huge.zip": ["zip", "-r", "-6", "-q", "{out}", "huge-dir"],
    "stream.zip": ["sh", "-c", "mkdir -p stream-dir && head -c 400000000 huge-dir/huge.bin > stream-dir/stream.bin"
                   " && zip -r -6 -q {out} stream-dir"],
    "app.bundle": ["{ap}", "build", "app", "-o", "{out}", "-q"],
    "huge.bundle": ["{ap}", "build", "huge-dir", "-o", "{out}", "-q"],
    "small.bundle": ["{ap}", "build", "small", "-o", "{out}", "-q"],
    # The same tree in pack archives with its members deflated (smaller), and without pack archives (one file each).
    "small-deflated.bundle": ["{ap}", "build", "small", "-o", "{out}", "-q", "--pack-level", "6"],
    "small-plain.bundle": ["{ap}", "build", "small", "-o", "{out}", "-q", "--pack-limit", "0"],
    # An install of the served bundle (for `status`), and a zip holding it as an app would, stored and aligned (`check`); made on
    # every call (after the site), since the binary may have changed.
    **{f"{tree}.installed": ["{ap}", "expand", "{in}/site/" + tree + ".bundle", "--to", "{out}", "-q"]
       for tree in ("small", "small1m")},
    **{f"{tree}-container.apk": ["sh", "-c", "cd {in}/site && zip -r -0 -q {out}.zip " + tree + ".bundle"
                                 " && zipalign -f 4 {out}.zip {out} && rm {out}.zip"]
       for tree in ("small", "small1m")},
    # No folder entries: 1,000,000 file entries, the default entry limit.
    "small1m.zip": ["zip", "-r", "-D", "-6", "-q", "{out}", "small1m"],
    "small1m.bundle": ["{ap}", "build", "small1m", "-o", "{out}", "-q"],
    # Its first 50,000 files: the zip's entries named as small1m.zip's; the bundle built from a folder of hard
    # links to them (removed again), so its entries are named as small1m.bundle's.
    "small1m-50k.zip": ["zip", "-r", "-D", "-6", "-q", "{out}"] + [f"small1m/d{number:03d}" for number in range(5)],
    "small1m-50k.bundle": ["sh", "-c", "rm -rf {out}.tree && mkdir {out}.tree && cp -al "
                           + " ".join(f"small1m/d{number:03d}" for number in range(5))
                           + " {out}.tree/ && {ap} build {out}.tree -o {out} -q; status=$?; rm -rf {out}.tree; exit $status"],
}


class Bench:
    """Paths, binaries and the trash folder of one benchmark call."""

    def __init__(self, args):
        self.base = args.work
        self.work = os.path.join(args.work, "quick") if args.quick else args.work
        self.corpus = os.path.join(self.work, "corpus")
        self.inputs = os.path.join(self.work, "inputs")
        self.outputs = os.path.join(self.work, "out")
        self.trash = os.path.join(self.work, f"trash-{os.getpid()}")
        self.logs = os.path.join(self.work, "logs")
        self.quick, self.runs = args.quick, args.runs
        self.ap, self.ap_error = args.assetpack, None
        self.baseline = args.baseline
        self.zf, self.zf_error = None, None
        self.floor, self.floor_error = None, None
        self.moved = 0
        self.probe = 0.0  # seconds of creation_probe when the call starts
        self.notes = []  # lines the report prints under its header
        self.url = "http://127.0.0.1:0"  # the loopback server's, while a scenario that needs it runs
        for folder in (self.inputs, self.trash, self.logs):
            os.makedirs(folder, exist_ok=True)

    def fill(self, text, out=""):
        """`text` with its {ap}, {zf}, {in}, {url} and {out} placeholders filled in."""
        values = {"ap": self.ap or "assetpack", "apb": self.baseline or "assetpack", "zf": self.zf or "zipfoundation-peer", "in": self.inputs,
                  "out": out, "url": self.url, "floor": self.floor or "flush-floor"}
        return text.format(**values)

    def set_aside(self, path):
        """Renames `path` into the trash folder (deleted at the end of the call)."""
        if os.path.lexists(path):
            self.moved += 1
            os.makedirs(self.trash, exist_ok=True)  # another call in the same work folder may have emptied it
            os.rename(path, os.path.join(self.trash, f"{self.moved:05d}-{os.path.basename(path)}"))


def sh(argv, cwd=REPO, log=None):
    """Runs a preparation command; returns None or its last line of output on failure."""
    try:
        result = subprocess.run(argv, cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    except OSError as error:
        return f"{argv[0]}: {error.strerror}"
    if log:
        with open(log, "w") as out:
            out.write(result.stdout)
    if result.returncode == 0:
        return None
    lines = [line for line in result.stdout.splitlines() if line.strip()]
    return (lines[-1] if lines else f"exit status {result.returncode}")[:200]


def build_binaries(bench):
    """Builds assetpack (release) and the ZIPFoundation peer; a failure marks their rows n/a."""
    build_assetpack(bench)
    bench.floor = os.path.join(bench.work, "flush-floor")
    bench.floor_error = sh(["cc", "-O2", "-pthread", os.path.join(HERE, "flush-floor.c"), "-o", bench.floor])
    scratch = os.path.join(bench.base, ".build-zf")
    print("building zipfoundation-peer (release) ...", file=sys.stderr)
    bench.zf_error = sh(["nice", "swift", "build", "-c", "release", "--scratch-path", scratch],
                        cwd=os.path.join(HERE, "ZIPFoundationPeer"), log=os.path.join(bench.logs, "build-zf.log"))
    bench.zf = os.path.join(scratch, "release", "zipfoundation-peer")


def build_assetpack(bench):
    """Builds assetpack (release) into WORK/.build-release unless --assetpack named a binary; sets bench.ap, and
    bench.ap_error when there is no binary to run."""
    if not bench.ap:
        # The binary the README tells users to install: the Swift runtime linked in (--static-swift-stdlib),
        # which starts in about half the time and memory. Linking it needs libcurl's development files
        # (libcurl4-openssl-dev); without them, the plain build, and the report says so.
        scratch = os.path.join(bench.base, ".build-release")
        command = ["nice", "swift", "build", "-c", "release", "--product", "assetpack", "--scratch-path", scratch]
        print("building assetpack (release, --static-swift-stdlib) ...", file=sys.stderr)
        bench.ap_error = sh(command + ["--static-swift-stdlib"], log=os.path.join(bench.logs, "build-assetpack.log"))
        if bench.ap_error:
            print(f"  static build failed ({bench.ap_error}); building without --static-swift-stdlib ...", file=sys.stderr)
            bench.notes.append("assetpack was built without --static-swift-stdlib (its static link failed: "
                               f"{bench.ap_error}); install libcurl4-openssl-dev to measure the binary the README installs")
            bench.ap_error = sh(command, log=os.path.join(bench.logs, "build-assetpack.log"))
        bench.ap = os.path.join(scratch, "release", "assetpack")
        if bench.ap_error:
            bench.ap_error = "swift build failed: " + bench.ap_error
    elif not os.access(bench.ap, os.X_OK):
        bench.ap_error = f"{bench.ap} is not an executable"


def prepare_inputs(bench, scenarios):
    """Makes the inputs the chosen scenarios read: zips once per corpus, bundles on every call; and the
    served site of a scenario that needs the web server (remote.py), after the zips (it links app.zip) and before
    the rest (an installed tree is made from the site)."""
    needed = {path.removeprefix("{in}/") for s in scenarios for t in s.tools for path in t.reads if "{in}" in path} & set(RECIPES)
    zips = sorted(name for name in needed if name.endswith(".zip"))
    for name in zips:
        prepare_input(bench, name)
    if any(s.server for s in scenarios):
        remote.prepare_site(bench, sh, sorted({tree for s in scenarios for tree in s.site}))
    for name in sorted(needed - set(zips)):
        prepare_input(bench, name)


def prepare_input(bench, name):
    """Makes INPUTS/NAME by its recipe: a zip only when it is older than the corpus, anything else every time."""
    dest = os.path.join(bench.inputs, name)
    is_zip = name.endswith(".zip")
    stamp = os.path.getmtime(os.path.join(bench.corpus, ".corpus-stamp"))
    if is_zip and os.path.exists(dest) and os.path.getmtime(dest) > stamp:
        return
    if not is_zip and bench.ap_error:
        return
    print(f"preparing {name} ...", file=sys.stderr)
    bench.set_aside(dest)
    temporary = dest + ".part" + (".zip" if is_zip else "")
    bench.set_aside(temporary)
    error = sh([bench.fill(arg, temporary) for arg in RECIPES[name]], cwd=bench.corpus)
    if error:
        print(f"  {name}: {error}", file=sys.stderr)
    else:
        os.rename(temporary, dest)


def warm(bench, paths):
    """Reads every input file once so the timed run starts from the page cache; an installed tree (`status` reads
    its names and sizes, not its contents) is not read."""
    for path in paths:
        path = os.path.join(bench.corpus, bench.fill(path))
        if path.endswith(".installed"):
            continue
        files = [path] if os.path.isfile(path) else [os.path.join(folder, name)
                                                     for folder, _, names in os.walk(path) for name in names]
        for name in files:
            with open(name, "rb") as source:
                while source.read(8 * MiB):
                    pass


def write_foreign_dirty(bench, mib):
    """Writes `mib` MiB to a new file of the work folder and does not sync it: another program's writes still
    in the page cache, which a whole-file-system flush (`syncfs`) would wait for. Untimed; the sync after the
    run writes it back. The file of the run before is removed first, not truncated: ext4 (`auto_da_alloc`)
    starts writing a file truncated and written again as soon as it is closed, so its pages would be on
    their way to the device, not waiting, when the timed command starts (the scenario's rows until
    2026-11-25 were measured so)."""
    if not mib:
        return
    block = os.urandom(MiB)
    path = os.path.join(bench.work, "foreign-dirty")
    if os.path.exists(path):
        os.remove(path)
        os.sync()
    with open(path, "wb") as file:
        for _ in range(mib):
            file.write(block)
    dirty = dirty_mib()
    if dirty is not None and dirty < mib * 0.9:
        print(f"  warning: only {dirty} MiB dirty after writing {mib} MiB of foreign data", file=sys.stderr)


def dirty_mib():
    """The page cache's dirty data (`Dirty:` of `/proc/meminfo`) in MiB, or None where there is none."""
    try:
        with open("/proc/meminfo") as meminfo:
            for line in meminfo:
                if line.startswith("Dirty:"):
                    return int(line.split()[1]) // 1024
    except OSError:
        return None
    return None


def size_of(path):
    if os.path.isfile(path):
        return os.path.getsize(path)
    return sum(os.path.getsize(os.path.join(folder, name)) for folder, _, names in os.walk(path) for name in names)


def time_once(bench, argv, log):
    """Runs `argv` under GNU time; returns (sample, error): wall from this process, the rest from time."""
    report = os.path.join(bench.logs, "time.txt")
    with open(log, "w") as output:
        start = time.perf_counter()
        status = subprocess.run(["/usr/bin/time", "-f", "%e %U %S %M", "-o", report] + argv,
                                cwd=bench.corpus, stdout=output, stderr=subprocess.STDOUT).returncode
        wall = time.perf_counter() - start
    if status != 0:
        with open(log) as output:
            lines = [line.strip() for line in output if line.strip()]
        return None, (lines[-1] if lines else f"exit status {status}")[:200]
    with open(report) as numbers:
        _, user, system, rss = numbers.read().split()[-4:]
    return {"wall": wall, "user": float(user), "sys": float(system), "rss_kib": int(rss)}, None


def missing(bench, tool):
    """Why `tool` cannot run, or None."""
    if "{ap}" in tool.argv and bench.ap_error:
        return bench.ap_error
    if "{floor}" in tool.argv and bench.floor_error:
        return "flush-floor.c did not compile: " + bench.floor_error
    if "{apb}" in tool.argv and not os.access(bench.baseline or "", os.X_OK):
        return f"{bench.baseline} is not an executable"
    if "{zf}" in tool.argv and bench.zf_error:
        return "zipfoundation-peer build failed: " + bench.zf_error
    for path in tool.reads:
        if not os.path.exists(os.path.join(bench.corpus, bench.fill(path))):
            return f"no input {os.path.basename(path)} (its preparation failed)"
    return None


def with_baseline(bench, scenario):
    """The scenario's tools, each assetpack row followed by the same command run with the baseline binary."""
    if not bench.baseline or not scenario.baseline:
        return scenario.tools
    tools = []
    for tool in scenario.tools:
        tools.append(tool)
        if "{ap}" in tool.argv:
            tools.append(Tool(tool.label + " [baseline]", baseline_argv(bench, tool.argv),
                              tool.reads, out=tool.out, mkdir=tool.mkdir, again=tool.again,
                              before=baseline_argv(bench, tool.before), dirty_mib=tool.dirty_mib))
    return tools


def baseline_argv(bench, argv):
    """`argv` for the baseline binary. A served bundle is trusted by its manifest's SHA-256 (`--identity`) instead
    of the benchmark's key: the site is signed by the binary under test, and an earlier binary may know another
    form of signature."""
    out, skip = [], False
    for arg in argv:
        if skip:
            skip = False
        elif arg == "--public-key":
            bundle = next(a for a in argv if a.startswith("{url}/")).split("/", 1)[1]
            with open(os.path.join(bench.inputs, "site", bundle, "assetpack-meta", "manifest.json"), "rb") as manifest:
                out += ["--identity", hashlib.sha256(manifest.read()).hexdigest()]
            skip = True
        else:
            out.append("{apb}" if arg == "{ap}" else arg)
    return out


def run_scenario(bench, scenario):
    """Times every tool of `scenario` RUNS times, round-robin, each round starting one tool later."""
    runs = min(bench.runs, scenario.max_runs or bench.runs)
    scenario = Scenario(scenario.name, scenario.title, with_baseline(bench, scenario), scenario.unit, scenario.sizes,
                        scenario.server, scenario.max_runs, scenario.baseline, scenario.site)
    rows = [{"label": t.label, "peer": t.peer, "argv": t.argv, "samples": [], "error": missing(bench, t)}
            for t in scenario.tools]
    fixed = {}
    for index, tool in enumerate(scenario.tools):
        if tool.again and not rows[index]["error"]:
            fixed[index] = os.path.join(bench.work, f"again-{scenario.name}-{index}")
            bench.set_aside(fixed[index])
            rows[index]["error"] = sh([bench.fill(arg, fixed[index]) for arg in tool.argv], cwd=bench.corpus)
    for round_ in range(runs):
        order = list(range(len(rows)))
        order = order[round_ % len(order):] + order[:round_ % len(order)]
        for index in (i for i in order if not rows[i]["error"]):
            tool, row = scenario.tools[index], rows[index]
            print(f"  {scenario.name} run {round_ + 1}/{runs}: {tool.label}", file=sys.stderr)
            if not room_for_a_run(bench.work):
                empty_trash(bench, again=True)
            out = fixed.get(index) or os.path.join(bench.outputs, tool.out)
            os.makedirs(out if tool.mkdir else os.path.dirname(out), exist_ok=True)
            if tool.before:
                row["error"] = sh([bench.fill(arg, out) for arg in tool.before], cwd=bench.corpus)
                if row["error"]:
                    continue
            warm(bench, tool.reads)
            write_foreign_dirty(bench, tool.dirty_mib)
            log = os.path.join(bench.logs, f"{scenario.name}-{index}.log")
            sample, row["error"] = time_once(bench, [bench.fill(arg, out) for arg in tool.argv], log)
            if sample and tool.wall_from:
                with open(log) as output:
                    found = re.search(tool.wall_from, output.read())
                sample["wall"] = float(found.group(1)) if found else None
                row["error"] = None if found else f"no match for {tool.wall_from!r} in its output"
                sample = sample if found else None
            if sample:
                row["samples"].append(sample)
                if scenario.sizes:
                    row["size"] = size_of(out)
            if index not in fixed:
                bench.set_aside(bench.outputs)
            os.sync()
    for path in fixed.values():
        bench.set_aside(path)
    return rows


def summarize(rows):
    for row in rows:
        samples = row["samples"]
        if row["error"] or not samples:
            continue
        walls = [s["wall"] for s in samples]
        row.update(median_wall=statistics.median(walls), min_wall=min(walls), max_wall=max(walls),
                   median_user=statistics.median(s["user"] for s in samples),
                   median_sys=statistics.median(s["sys"] for s in samples),
                   peak_rss_mib=max(s["rss_kib"] for s in samples) / 1024)


def ratios(row, rows):
    """'0.41× unzip, 0.63× bsdtar' for an assetpack row; peers get no ratios."""
    if row["peer"] or "median_wall" not in row:
        return ""
    return ", ".join(f"{row['median_wall'] / peer['median_wall']:.2f}× {peer['peer']}"
                     for peer in rows if peer["peer"] and "median_wall" in peer)


def table(scenario, rows):
    scale, unit = (1000, "ms") if scenario.unit == "ms" else (1, "s")
    digits = 0 if unit == "ms" else 2
    zip_size = next((r.get("size") for r in rows if r["peer"] == "zip"), None)
    head = ["command", f"median wall ({unit})", f"min–max ({unit})", "median user CPU (s)", "peak RSS (MiB)"]
    head += ["output (MB)", "size vs zip"] if scenario.sizes else []
    lines = [f"### {scenario.name}: {scenario.title}", "", "| " + " | ".join(head + ["vs peers"]) + " |",
             "|" + " --- |" * (len(head) + 1)]
    for row in rows:
        if "median_wall" not in row:
            cells = [row["label"], "n/a"] + [""] * (len(head) - 2) + [row["error"] or "no runs"]
        else:
            cells = [row["label"], f"{row['median_wall'] * scale:.{digits}f}",
                     f"{row['min_wall'] * scale:.{digits}f}–{row['max_wall'] * scale:.{digits}f}",
                     f"{row['median_user']:.2f}", f"{row['peak_rss_mib']:.0f}"]
            if scenario.sizes:
                size = row.get("size", 0)
                cells += [f"{size / 1e6:.1f}", f"{size / zip_size:.3f}" if zip_size else ""]
            cells.append(ratios(row, rows))
        lines.append("| " + " | ".join(c.replace("|", "\\|") for c in cells) + " |")
    return "\n".join(lines) + "\n"


def machine(bench):
    git = subprocess.run(["git", "describe", "--always", "--dirty"], cwd=REPO, capture_output=True, text=True)
    swift = subprocess.run(["swift", "--version"], capture_output=True, text=True)
    return {"date": time.strftime("%Y-%m-%d %H:%M"), "commit": git.stdout.strip(), "cores": os.cpu_count(),
            "kernel": platform.release(), "swift": (swift.stdout or swift.stderr).splitlines()[0],
            "runs": bench.runs, "corpus": "quick 1/20" if bench.quick else "full",
            "linking": {"assetpack": linking(bench.ap), "baseline": linking(bench.baseline)},
            "notes": bench.notes}


def linking(binary):
    """'static Swift runtime' or 'dynamic Swift runtime' for an assetpack binary (from ldd), None without one."""
    if not binary or not os.access(binary, os.X_OK):
        return None
    libraries = subprocess.run(["ldd", binary], capture_output=True, text=True).stdout
    return "dynamic Swift runtime" if "libswiftCore" in libraries else "static Swift runtime"


def report(bench, results, meta):
    header = (f"## assetpack benchmark ({meta['corpus']} corpus, {meta['runs']} runs each)\n\n"
              f"{meta['date']}, commit {meta['commit']}, {meta['cores']} cores, Linux {meta['kernel']}, "
              f"{meta['swift']}. Wall time from the runner; user CPU and peak RSS from GNU time. "
              f"Ratios are assetpack's median wall time over each peer's.\n")
    builds = [f"{name}: {kind}" for name, kind in meta["linking"].items() if kind]
    header += "".join(f"\n- {line}" for line in ["assetpack binaries: " + ", ".join(builds)] * bool(builds) + meta["notes"])
    header += "\n" * bool(builds or meta["notes"])
    markdown = "\n".join([header] + [table(s, rows) for s, rows in results])
    print(markdown)
    with open(os.path.join(bench.work, "results.md"), "w") as out:
        out.write(markdown)
    with open(os.path.join(bench.work, "results.json"), "w") as out:
        json.dump({"meta": meta, "scenarios": [{"name": s.name, "title": s.title, "unit": s.unit, "rows": rows}
                                               for s, rows in results]}, out, indent=1)
    print(f"written to {bench.work}/results.md and results.json", file=sys.stderr)


# After deleting outputs in the middle of a call: on some file systems (the benchmark machine's ext4 with
# discard) creating files right after deleting many is several times slower for minutes, and the next
# scenario would time that instead of the tools. So the call waits until creating files takes about as long
# as it did when the call started (a probe of PROBE_FILES small files), at least SETTLE_MIN_SECONDS and at most
# SETTLE_MAX_SECONDS; the report says how long it waited.
PROBE_FILES = 2000
SETTLE_MIN_SECONDS = 30
SETTLE_MAX_SECONDS = 600


def creation_probe(bench):
    """Seconds to create, write and close PROBE_FILES files of 100 B in a new folder of the work folder, which
    is then set aside, not deleted: deleting even these 2,000 files slows the next probe down (from about
    60 to 480 ms on the benchmark machine, still 25 s later)."""
    folder = os.path.join(bench.work, "probe")
    bench.set_aside(folder)  # one an interrupted call left
    os.makedirs(folder)
    start = time.perf_counter()
    for number in range(PROBE_FILES):
        with open(os.path.join(folder, str(number)), "wb") as file:
            file.write(b"x" * 100)
    elapsed = time.perf_counter() - start
    bench.set_aside(folder)
    return elapsed


def settle(bench):
    """Waits until file creation is back to its speed at the start of the call (see PROBE_FILES)."""
    started = time.monotonic()
    time.sleep(SETTLE_MIN_SECONDS)
    fast = 0
    while time.monotonic() - started < SETTLE_MAX_SECONDS and fast < 2:
        probe = creation_probe(bench)
        fast = fast + 1 if probe <= 2 * bench.probe else 0
        if fast < 2:
            time.sleep(10)
    waited = time.monotonic() - started
    print(f"  waited {waited:.0f} s for the file system to settle", file=sys.stderr)
    bench.notes.append(f"waited {waited:.0f} s after a deletion of outputs for file creation to come back to its "
                       f"speed at the start ({bench.probe * 1000:.0f} ms for {PROBE_FILES} files)"
                       + ("" if fast >= 2 else "; it had not by then"))


def room_for_a_run(path):
    """True when the file system of `path` has room for the largest run: up to a million inodes (the
    1,000,000-file scenario) and 16 GiB (the huge file with its outputs and a GiB of foreign writes)."""
    status = os.statvfs(path)
    return status.f_favail >= 3_000_000 and status.f_bavail * status.f_frsize >= 16 * 1024 * MiB


def empty_trash(bench, again=False):
    """Deletes the outputs set aside by this call and by interrupted earlier ones; in the middle of a call
    (`again`), then waits for the file system to settle."""
    print("removing the outputs set aside ...", file=sys.stderr)
    started = time.monotonic()
    remove_all([os.path.join(bench.work, name, output) for name in os.listdir(bench.work) if name.startswith("trash-")
                for output in os.listdir(os.path.join(bench.work, name))])
    for name in os.listdir(bench.work):
        if name.startswith("trash-"):
            shutil.rmtree(os.path.join(bench.work, name), ignore_errors=True)
    print(f"  removed in {time.monotonic() - started:.0f} s", file=sys.stderr)
    if again:
        os.makedirs(bench.trash)
        subprocess.run(["sync"])
        print("  waiting for the file system to settle ...", file=sys.stderr)
        settle(bench)


def remove_all(paths, processes=8):
    """Deletes `paths` with `rm -rf`, several at once: one process deletes about 7,000 inodes a second on the
    benchmark machine (its file system is mounted with `discard`), 15 at once about 40,000 (2026-11-27); the
    millions of inodes the 1,000,000-file scenario sets aside took over ten minutes one at a time."""
    running = []
    for path in paths:
        if len(running) == processes:
            running.pop(0).wait()
        running.append(subprocess.Popen(["rm", "-rf", "--", path]))
    for process in running:
        process.wait()


def parse_arguments():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="a corpus 20x smaller, in WORK/quick (smoke run)")
    parser.add_argument("--runs", type=int, default=5, help="runs per command (default 5)")
    parser.add_argument("--only", help="comma-separated scenarios: " + ",".join(s.name for s in SCENARIOS)
                        + "; and deltas (deltas.py: upgrades against casync and zsync, only when named)")
    parser.add_argument("--work", default="/tmp/assetpack-bench", help="work folder (default /tmp/assetpack-bench)")
    parser.add_argument("--assetpack", help="use this assetpack binary instead of building one")
    parser.add_argument("--baseline", help="also time every assetpack row with this binary (before/after in one run)")
    args = parser.parse_args()
    names = [s.name for s in SCENARIOS] + ["deltas"]
    unknown = [name for name in (args.only or "").split(",") if name and name not in names]
    if unknown or args.runs < 1:
        parser.error(f"unknown scenario {', '.join(unknown)}" if unknown else "--runs must be at least 1")
    args.work = os.path.abspath(args.work)
    return args


def main():
    args = parse_arguments()
    names = (args.only or "").split(",")
    chosen = [s for s in SCENARIOS if not args.only or s.name in names]
    bench = Bench(args)
    if chosen:
        time_scenarios(bench, args, chosen)
    if "deltas" in names:
        sys.exit(measure_deltas(bench, args))


def time_scenarios(bench, args, chosen):
    """Builds, prepares and times the `chosen` scenarios, and prints and writes their report."""
    build_binaries(bench)
    subprocess.run([sys.executable, os.path.join(HERE, "make-corpus.py"), bench.corpus]
                   + (["--quick"] if args.quick else []), check=True)
    if any("small1m" in path for s in chosen for t in s.tools for path in t.reads):
        subprocess.run([sys.executable, os.path.join(HERE, "make-corpus.py"), bench.corpus, "--only", "small1m"]
                       + (["--quick"] if args.quick else []), check=True)
    prepare_inputs(bench, chosen)
    subprocess.run(["sync"])
    bench.probe = statistics.median(creation_probe(bench) for _ in range(3))
    results = []
    for scenario in chosen:
        print(f"{scenario.name}: {scenario.title}", file=sys.stderr)
        with remote.serving(bench, scenario.server):
            rows = run_scenario(bench, scenario)
        summarize(rows)
        results.append((scenario, rows))
        if scenario is not chosen[-1] and shutil.disk_usage(bench.work).free < 40 * 1024 * MiB:
            empty_trash(bench, again=True)
    report(bench, results, machine(bench))
    empty_trash(bench)


def measure_deltas(bench, args):
    """Runs the `deltas` group (deltas.py, its own report) with this call's binary, runs and work folder;
    returns its exit status."""
    if not bench.ap:
        build_assetpack(bench)
    if bench.ap_error:
        print(f"deltas: {bench.ap_error}", file=sys.stderr)
        return 1
    return subprocess.run([sys.executable, os.path.join(HERE, "deltas.py"), "--assetpack", bench.ap,
                           "--runs", str(args.runs), "--work", args.work]
                          + (["--quick"] if args.quick else [])).returncode


if __name__ == "__main__":
    main()
