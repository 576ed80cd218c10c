#!/usr/bin/env bash
# Writes the seed corpus: small real archives from every zip tool on this machine into corpus/zip, and
# a handful of entry names into corpus/name. The corpus is generated, not committed (.gitignore);
# run.sh calls this when corpus/zip is empty. Tools that are missing are skipped with a note.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
out="$here/corpus/zip"
names="$here/corpus/name"
streams="$here/corpus/deflate"
plain="$here/corpus/plain"
mkdir -p "$out" "$names" "$streams" "$plain"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
cd "$work"

# The files every tool packs: text, repetitive data, a few random bytes, an empty file, a directory tree,
# a symlink, a non-ASCII name.
mkdir -p tree/sub/deeper tree/empty-dir
printf 'hello, assets\n' > tree/hello.txt
for i in $(seq 1 200); do printf 'line %03d of a repetitive file\n' "$i"; done > tree/sub/repeat.txt
head -c 300 /dev/urandom > tree/sub/deeper/random.bin
: > tree/empty.txt
printf 'caf\xc3\xa9\n' > "tree/caf$(printf '\xc3\xa9').txt"
ln -s hello.txt tree/link
have() { command -v "$1" >/dev/null 2>&1 || { echo "make-seeds: $1 not found, skipping its seeds" >&2; return 1; }; }

if have zip; then
  (cd tree && zip -qX -0 "$out/zip-stored.zip" hello.txt sub/repeat.txt)
  (cd tree && zip -qX -9 "$out/zip-deflated.zip" hello.txt sub/repeat.txt empty.txt)
  (cd tree && zip -qXr "$out/zip-dirs.zip" .)
  (cd tree && zip -qXry "$out/zip-symlink.zip" link hello.txt)
  (cd tree && zip -qX -z "$out/zip-comment.zip" hello.txt <<< "an archive comment")
  # Streamed to stdout: sizes and CRC go into data descriptors.
  (cd tree && zip -qX - hello.txt sub/repeat.txt > "$out/zip-stream-deflated.zip")
  (cd tree && zip -qX -0 - hello.txt > "$out/zip-stream-stored.zip")
  cat tree/sub/repeat.txt | zip -qX - - > "$out/zip-stdin.zip"
  # Zip64 records forced on small files.
  (cd tree && zip -qX -fz "$out/zip-zip64.zip" hello.txt sub/repeat.txt)
  (cd tree && zip -qX -fz - hello.txt > "$out/zip-zip64-stream.zip")
  # Encrypted (ZipCrypto), and a self-extractor style prefix with and without adjusted offsets.
  (cd tree && zip -qX -P secret "$out/zip-encrypted.zip" hello.txt)
  { printf '#!/bin/sh\necho stub\nexit 0\n'; cat "$out/zip-deflated.zip"; } > "$out/zip-prefixed.zip"
  cp "$out/zip-prefixed.zip" "$work/adjusted.zip" && zip -qA "$work/adjusted.zip" && cp "$work/adjusted.zip" "$out/zip-prefixed-adjusted.zip"
fi

if have python3; then
  python3 - "$out" <<'PY'
import io, os, sys, zipfile
out = sys.argv[1]
files = {"hello.txt": b"hello, assets\n", "sub/repeat.txt": b"repeat " * 300, "sub/": b"",
         "caf\u00e9/\u65e5\u672c.txt": "na\u00efve".encode()}
def write(name, compression=zipfile.ZIP_DEFLATED, zip64=False, comment=b"", stream=False):
    buffer = io.BytesIO()
    class Unseekable(io.RawIOBase):  # makes zipfile write data descriptors
        def writable(self): return True
        def write(self, b): return buffer.write(b)
    target = Unseekable() if stream else buffer
    with zipfile.ZipFile(target, "w", compression=compression) as archive:
        archive.comment = comment
        for path, data in files.items():
            info = zipfile.ZipInfo(path, date_time=(2024, 1, 2, 3, 4, 6))
            info.compress_type = compression
            if path.endswith("/"):
                info.external_attr = 0o40755 << 16 | 0x10
                archive.writestr(info, b"")
            else:
                info.external_attr = 0o100644 << 16
                with archive.open(info, "w", force_zip64=zip64) as entry:
                    entry.write(data)
    with open(os.path.join(out, name), "wb") as f:
        f.write(buffer.getvalue())
write("py-stored.zip", zipfile.ZIP_STORED)
write("py-deflated.zip")
write("py-zip64.zip", zip64=True)
write("py-zip64-stored.zip", zipfile.ZIP_STORED, zip64=True)
write("py-stream.zip", stream=True)
write("py-stream-zip64.zip", stream=True, zip64=True)
write("py-comment.zip", comment=b"PK\x05\x06 looks like an end record")
write("py-bzip2.zip", zipfile.ZIP_BZIP2)
write("py-lzma.zip", zipfile.ZIP_LZMA)
with zipfile.ZipFile(os.path.join(out, "py-empty.zip"), "w"):
    pass

# What writers emit for archives over 4 GiB, on small data: every central header defers its sizes and
# local header offset to a Zip64 extra field, and a Zip64 end record and locator precede the end record.
import struct
with open(os.path.join(out, "py-deflated.zip"), "rb") as f:
    data = f.read()
end = data.rindex(b"PK\x05\x06")
count, cd_size, cd_offset = struct.unpack_from("<HII", data, end + 10)
local, central, position = data[:cd_offset], b"", cd_offset
for _ in range(count):
    fixed = bytearray(data[position:position + 46])
    name_len, extra_len, comment_len = struct.unpack_from("<HHH", fixed, 28)
    compressed, uncompressed = struct.unpack_from("<II", fixed, 20)
    offset = struct.unpack_from("<I", fixed, 42)[0]
    name = data[position + 46:position + 46 + name_len]
    extra = struct.pack("<HHQQQ", 1, 24, uncompressed, compressed, offset)
    struct.pack_into("<IIHHH", fixed, 20, 0xFFFFFFFF, 0xFFFFFFFF, name_len, len(extra), 0)
    struct.pack_into("<I", fixed, 42, 0xFFFFFFFF)
    central += bytes(fixed) + name + extra
    position += 46 + name_len + extra_len + comment_len
zip64_end = len(local) + len(central)
record = struct.pack("<IQHHIIQQQQ", 0x06064b50, 44, 45, 45, 0, 0, count, count, len(central), len(local))
locator = struct.pack("<IIQI", 0x07064b50, 0, zip64_end, 1)
end_record = struct.pack("<IHHHHIIH", 0x06054b50, 0, 0, 0xFFFF, 0xFFFF, 0xFFFFFFFF, 0xFFFFFFFF, 0)
with open(os.path.join(out, "py-zip64-offsets.zip"), "wb") as f:
    f.write(local + central + record + locator + end_record)
PY
fi

if have jar; then
  (cd tree && jar cf "$out/jar-deflated.jar" hello.txt sub)
  (cd tree && jar cf0M "$out/jar-stored.jar" hello.txt sub)
fi

if have 7z; then
  (cd tree && 7z a -tzip -bso0 -bsp0 "$out/7z-deflate.zip" hello.txt sub >/dev/null)
  (cd tree && 7z a -tzip -mm=Copy -bso0 -bsp0 "$out/7z-copy.zip" hello.txt sub >/dev/null)
  (cd tree && 7z a -tzip -mm=Deflate64 -bso0 -bsp0 "$out/7z-deflate64.zip" sub/repeat.txt >/dev/null)
  (cd tree && 7z a -tzip -mem=AES256 -psecret -bso0 -bsp0 "$out/7z-aes.zip" hello.txt >/dev/null)
fi

if have bsdtar; then
  (cd tree && bsdtar --format zip -cf "$out/bsdtar-deflate.zip" hello.txt sub)
  (cd tree && bsdtar --format zip --options zip:compression=store -cf "$out/bsdtar-store.zip" hello.txt sub)
  (cd tree && cat hello.txt | bsdtar --format zip -cf - @- 2>/dev/null > "$out/bsdtar-stream.zip" || rm -f "$out/bsdtar-stream.zip")
fi

# Names: ordinary ones, and one for every rule AssetPath enforces.
i=0
for name in 'a/b.txt' 'dir/' 'assets/images/logo.png' 'caf\xc3\xa9/\xe6\x97\xa5\xe6\x9c\xac.txt' '../escape' 'a/../b' \
            '/etc/passwd' 'a\\b' 'a//b' './a' 'a/./b' 'C:x' 'a\x00b' 'a\x01b' 'a\x7fb' '.' '..' '' '/' \
            'a/\xcc\x81' '..\xcc\x81' 'x/\xd6\xbc/'; do
  printf "$name" > "$names/name-$i"
  i=$((i + 1))
done
# Raw deflate streams (FuzzInflate): the tree's files at every level and strategy, each behind a byte that
# picks the chunk sizes.
if have python3; then
  python3 - "$streams" tree/sub/repeat.txt tree/hello.txt tree/sub/deeper/random.bin <<'PY'
import sys, zlib
out, *files = sys.argv[1:]
n = 0
for path in files:
    data = open(path, "rb").read()
    for level in (0, 1, 6, 9):
        for strategy in (zlib.Z_DEFAULT_STRATEGY, zlib.Z_FIXED, zlib.Z_HUFFMAN_ONLY, zlib.Z_RLE):
            packer = zlib.compressobj(level, zlib.DEFLATED, -15, 8, strategy)
            open(f"{out}/stream-{n}", "wb").write(bytes([n % 64]) + packer.compress(data) + packer.flush())
            n += 1
PY
fi
# Data to compress (FuzzDeflate): the tree's files, and text and noise side by side, each behind a byte that
# picks the level and the cuts.
i=0
for file in tree/hello.txt tree/sub/repeat.txt tree/sub/deeper/random.bin; do
  { printf "\\$(printf '%03o' $((i * 8 + 5)))"; cat "$file"; } > "$plain/data-$i"
  i=$((i + 1))
done
{ printf '\015'; head -c 70000 /dev/urandom; for n in $(seq 1 3000); do printf 'row %d of a table\n' "$n"; done; } > "$plain/data-mixed"
echo "make-seeds: $(ls "$out" | wc -l) archives in $out, $(ls "$names" | wc -l) names in $names," \
  "$(ls "$streams" | wc -l) deflate streams in $streams, $(ls "$plain" | wc -l) data files in $plain"
