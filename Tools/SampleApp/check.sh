#!/usr/bin/env bash
# Builds the sample app (its assets packed by AssetPackBuildPlugin during `swift build`), runs it twice and
# checks what it prints and every byte it expanded; then packs the same folder with the command plugin
# (`swift package pack-assets`) and checks that bundle too. One build of assetpack in .build-sample/
# (about 2-3 minutes on 2 cores from scratch, seconds after that). Run from anywhere; a step of .ci/run.
set -euo pipefail
cd "$(dirname "$0")"

scratch=.build-sample
assets=Sources/SampleApp/Assets
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail() { echo "sample app: FAILED: $*" >&2; exit 1; }

started=$SECONDS
swift build --scratch-path "$scratch" 2>&1 | grep -E "Packing|warning:|error:|Build complete" || true
app="$(swift build --scratch-path "$scratch" --show-bin-path)/SampleApp"
[ -x "$app" ] || fail "the build made no $app"
echo "sample app: built in $((SECONDS - started)) s"

# First launch: no argument, so the default destination in the temporary folder.
dest="$work/assetpack-sample-assets"
first=$(TMPDIR="$work" "$app") || fail "the first run exited $?"
expected="installed 4 files (18459 bytes) into $dest
  dictionary/words.txt (18209 bytes)
  greeting.txt (120 bytes)
  levels/level1.json (65 bytes)
  levels/level2.json (65 bytes)"
[ "$first" = "$expected" ] || fail "the first run printed:
$first
instead of:
$expected"

# Second launch: nothing to do.
second=$("$app" "$dest") || fail "the second run exited $?"
[ "$second" = "up to date: $dest" ] || fail "the second run printed: $second"

# The bytes: the Assets folder less what the default excludes leave out (the editor backup level1.json~).
diff -r -x .assetpack -x '*~' "$assets" "$dest" || fail "the expanded tree differs from $assets"
[ ! -e "$dest/levels/level1.json~" ] || fail "the editor backup level1.json~ was packed"
[ -f "$dest/.assetpack/identity" ] || fail "no install record in $dest/.assetpack"

# The command plugin: a one-off bundle of the same folder, written inside the package (the plugin's
# permission), here into the scratch folder.
bundle="$scratch/pack-assets/SampleApp.bundle"
rm -rf "$scratch/pack-assets"
swift package --scratch-path "$scratch" --allow-writing-to-package-directory \
    pack-assets --target SampleApp --output "$bundle" --quiet >/dev/null 2>"$work/pack.log" \
    || { cat "$work/pack.log" >&2; fail "swift package pack-assets failed"; }
[ -f "$bundle/assetpack-meta/manifest.json" ] || fail "pack-assets wrote no bundle at $bundle"
# Small files live in the bundle's pack archives: expand it with the tool the plugin ran, then compare.
tool="$(swift build --scratch-path "$scratch" --show-bin-path)/AssetPackCLI-tool"
[ -x "$tool" ] || fail "the plugin's tool is not at $tool"
"$tool" expand "$bundle" --to "$work/from-bundle" --quiet || fail "expand of the pack-assets bundle exited $?"
diff -r -x .assetpack -x '*~' "$assets" "$work/from-bundle" || fail "the bundle of pack-assets differs from $assets"

echo "sample app: plugin-built Assets.zip expanded byte for byte, second run up to date, pack-assets bundle checked ($((SECONDS - started)) s)"
