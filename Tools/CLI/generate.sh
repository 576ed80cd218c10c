#!/usr/bin/env bash
# Regenerates the shell completions and the man page of `assetpack` from its command definitions:
#   Tools/CLI/completions/assetpack.bash, _assetpack (zsh), assetpack.fish  (--generate-completion-script)
#   Tools/CLI/man/assetpack.1                                               (swift package generate-manual)
# The man page's second line records the SHA-256 of `assetpack --experimental-dump-help`, the definitions it
# was made from; Tests/AssetPackCLITests/ShippedFilesCLITests checks that every file here is up to date.
# Run it after changing a command, an option or a help text (about 40 s after a debug build).
set -euo pipefail
cd "$(dirname "$0")/../.."

swift build --product assetpack
tool="$(swift build --show-bin-path)/assetpack"
out=Tools/CLI
mkdir -p "$out/completions" "$out/man"
"$tool" --generate-completion-script bash > "$out/completions/assetpack.bash"
"$tool" --generate-completion-script zsh > "$out/completions/_assetpack"
"$tool" --generate-completion-script fish > "$out/completions/assetpack.fish"

# A fixed date keeps the page byte for byte the same until the commands change.
swift package generate-manual --configuration debug --date 2025-01-01 >/dev/null
page=.build/plugins/GenerateManual/outputs/AssetPackCLI/assetpack.1
hash=$("$tool" --experimental-dump-help | { sha256sum 2>/dev/null || shasum -a 256; } | cut -c1-64)
{ head -n 1 "$page"; echo ".\\\" dump-help sha256 $hash; regenerate with Tools/CLI/generate.sh"; tail -n +2 "$page"; } \
    > "$out/man/assetpack.1"
echo "completions and man page written to $out"
