#!/usr/bin/env bash
# The Windows CLI's journeys under Wine (issue 43's "done when"): the GPU
# read with nvidia-smi.exe (and its absence in one sentence), a demo
# run saved to the history in the Windows data folder (%LOCALAPPDATA%\RigBench),
# runs/show, export -o (written, then replaced atomically, and refused onto
# the history itself), import, and a second run of a running sweep, then a
# second `tune --resume` beside a resume, refused by the Windows sweep lock
# (LockFileEx). Builds rigbench-cli.exe without cgo
# and runs it in a throwaway Wine prefix through scripts/wine-exec.sh.
# Usage: scripts/windows-e2e.sh (from the repository root; GO may name go).
set -euo pipefail
GO=${GO:-go}
here=$(cd "$(dirname "$0")" && pwd)
work=$(mktemp -d "${TMPDIR:-/tmp}/rigbench-win-e2e.XXXXXX")
export WINEPREFIX=$work/prefix
bg=""
cleanup() {
	[ -n "$bg" ] && kill "$bg" 2>/dev/null || true
	WINEPREFIX=$WINEPREFIX wineserver -k >/dev/null 2>&1 || true
	rm -rf "$work"
}
trap cleanup EXIT
fail() { echo "windows-e2e: FAIL: $*" >&2; exit 1; }
step() { echo ">> windows-e2e: $*"; }

GOOS=windows GOARCH=amd64 CGO_ENABLED=0 $GO build -o "$work/rigbench-cli.exe" ./cmd/rigbench-cli
# The simulator answers as nvidia-smi under that name: the stand-in for the
# driver's nvidia-smi.exe that Windows detection runs.
mkdir -p "$work/smi"
GOOS=windows GOARCH=amd64 CGO_ENABLED=0 $GO build -o "$work/smi/nvidia-smi.exe" ./cmd/rigbench-sim
cli() { "$here/wine-exec.sh" "$work/rigbench-cli.exe" "$@" 2>&1 | tr -d '\r'; }

step "hw without an NVIDIA driver, then with nvidia-smi.exe on PATH"
out=$(cli hw)
grep -q "no NVIDIA driver found (nvidia-smi is not installed); install the NVIDIA driver" <<<"$out" || fail "hw without nvidia-smi.exe: $out"
out=$(WINEPATH="Z:$(tr / '\\' <<<"$work/smi")" cli hw)
grep -q "^GPU 0 .*NVIDIA GeForce RTX 3060" <<<"$out" || fail "hw with nvidia-smi.exe did not list the card: $out"

step "run --demo --sim-speed 20 --contexts 0 --concurrency 1,4 --prefill none"
out=$(cli run --demo --sim-speed 20 --contexts 0 --concurrency 1,4 --prefill none)
id=$(sed -n 's/^saved as run \([0-9a-f]*\) in the history.*/\1/p' <<<"$out")
[ -n "$id" ] || fail "the demo run did not say it was saved: $out"
user=$(ls "$WINEPREFIX/drive_c/users" | grep -v -x -e Public -e crossover | head -1)
db="$WINEPREFIX/drive_c/users/$user/AppData/Local/RigBench/history.db"
[ -s "$db" ] || fail "no history at %LOCALAPPDATA%\\RigBench\\history.db ($db)"
winhome="C:\\users\\$user"

step "runs, show $id"
cli runs | grep -q "^$id " || fail "runs does not list $id"
cli show "$id" | grep -q "^Run $id" || fail "show $id did not show the run"

step "export -o, again over the same file, and onto the history (refused)"
out=$(cli export "$id" -o "$winhome\\run.json")
grep -q "^wrote " <<<"$out" || fail "export: $out"
first=$(cat "$WINEPREFIX/drive_c/users/$user/run.json")
out=$(cli export "$id" -o "$winhome\\run.json")
grep -q "^wrote " <<<"$out" || fail "export over the file: $out"
[ "$(cat "$WINEPREFIX/drive_c/users/$user/run.json")" = "$first" ] || fail "the replaced export differs"
ls "$WINEPREFIX/drive_c/users/$user/" | grep -q rigbench-tmp && fail "a temporary file was left beside the export"
out=$(cli export "$id" -o "$winhome\\AppData\\Local\\RigBench\\history.db" || true)
grep -q "the command itself uses this file" <<<"$out" || fail "export onto the history was not refused: $out"

step "import into another history"
out=$(cli import --db "$winhome\\other.db" "$winhome\\run.json")
grep -qi "imported" <<<"$out" || fail "import: $out"
cli runs --db "$winhome\\other.db" | grep -q "^$id " || fail "the imported run is not listed"

step "two runs of one sweep at once: the second is refused by the lock"
"$here/wine-exec.sh" "$work/rigbench-cli.exe" tune --demo --sim-speed 1 --vary max-num-seqs=4,8 --contexts 0 --concurrency 1 --duration 30s >"$work/tune.log" 2>&1 &
bg=$!
sweep=""
for _ in $(seq 1 60); do
	sweep=$(sed -n 's/.*(resume with --resume \([0-9a-f]*\)).*/\1/p' "$work/tune.log" | head -1)
	[ -n "$sweep" ] && grep -q "cell 0" "$work/tune.log" && break
	sleep 0.5 # polls another process's output; no timing is measured
done
[ -n "$sweep" ] || fail "the sweep did not start: $(cat "$work/tune.log")"
out=$(cli tune --resume "$sweep" || true)
grep -q "sweep $sweep is already running in another RigBench window or terminal" <<<"$out" || fail "the second run of sweep $sweep was not refused: $out"
kill "$bg" 2>/dev/null || true
wait "$bg" 2>/dev/null || true

step "two tune --resume $sweep at once: the second is refused by the lock"
"$here/wine-exec.sh" "$work/rigbench-cli.exe" tune --resume "$sweep" >"$work/resume.log" 2>&1 &
bg=$!
for _ in $(seq 1 60); do
	grep -q "cell 0" "$work/resume.log" && break
	sleep 0.5 # polls another process's output; no timing is measured
done
grep -q "cell 0" "$work/resume.log" || fail "the resume of sweep $sweep did not start measuring: $(cat "$work/resume.log")"
out=$(cli tune --resume "$sweep" || true)
grep -q "sweep $sweep is already running in another RigBench window or terminal" <<<"$out" || fail "the second resume of sweep $sweep was not refused: $out"
kill "$bg" 2>/dev/null || true
wait "$bg" 2>/dev/null || true
bg=""
step "PASS"
