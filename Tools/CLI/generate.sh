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
dump=$(mktemp)
"$tool" --experimental-dump-help > "$dump"
hash=$({ sha256sum 2>/dev/null || shasum -a 256; } < "$dump" | cut -c1-64)
# The generator leaves out the defaults that --help shows and says only `.Ex -std`: add each default after its
# option's help, and list the exit statuses of `assetpack --help` (from the dump) under EXIT STATUS.
python3 - "$dump" "$page" > "$page.full" <<'PY'
import json, re, sys
root = json.load(open(sys.argv[1]))["command"]
defaults = {}
def collect(command):
    for argument in command.get("arguments", []):
        names = [n["name"] for n in argument.get("names", [])] or [argument.get("valueName")]
        for name in names if "defaultValue" in argument else []:
            defaults[(command["commandName"], name)] = argument["defaultValue"]
    for sub in command.get("subcommands", []):
        collect(sub)
collect(root)
command, pending = "assetpack", None
for line in open(sys.argv[2]).read().rstrip("\n").split("\n"):
    if pending is not None and not line.startswith("."):
        line, pending = line + f" (default: {pending})", None
    if match := re.match(r"\.It Em (\S+)$", line):
        command = match.group(1)
    elif line.startswith(".It Fl ") or line.startswith(".It Ar "):
        names = re.findall(r"-([\w-]+)", line.split(" Ar ")[0]) if line.startswith(".It Fl ") else line.split()[2:3]
        pending = next((defaults[(command, n)] for n in names if (command, n) in defaults), None)
    if line == ".Ex -std":
        print(".Bl -tag -width 6n")
        for status, meaning in re.findall(r"^  (\d+) +(.+)$", root["discussion"], re.M):
            print(f".It {status}\n{meaning}")
        print(".El\n.Pp\nstatus also exits 2 (not installed, or partial) and 3 (files but no install record): see status above.")
        continue
    print(line)
PY
rm "$dump"
{ head -n 1 "$page.full"; echo ".\\\" dump-help sha256 $hash; regenerate with Tools/CLI/generate.sh"; tail -n +2 "$page.full"; } \
    > "$out/man/assetpack.1"
echo "completions and man page written to $out"
