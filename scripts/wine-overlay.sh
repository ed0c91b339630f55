#!/usr/bin/env bash
# Writes a `go build -overlay` file (printed path) for Windows binaries run
# under Wine 8 (Debian 12's). Go's os.RemoveAll deletes through
# NtSetInformationFile(FileDispositionInformationEx), which Wine 8 answers
# with STATUS_NOT_IMPLEMENTED instead of the STATUS_INVALID_INFO_CLASS an
# old Windows gives, so Go does not take its fallback and every
# t.TempDir clean-up fails ("Invalid function"). The overlay adds that
# status to the fallback's list in a copy of the Go toolchain's own file;
# nothing else changes, and only the test binaries built for Wine use it.
# Usage: scripts/wine-overlay.sh DIR (DIR keeps the copy and overlay.json).
set -euo pipefail
dir=${1:?usage: scripts/wine-overlay.sh DIR}
mkdir -p "$dir"
src=$(go env GOROOT)/src/internal/syscall/windows/at_windows.go
grep -q 'case STATUS_INVALID_INFO_CLASS,' "$src" || {
	echo "Go's $src no longer has the line this overlay patches: check whether Go's RemoveAll still fails under Wine, and drop or update scripts/wine-overlay.sh." >&2
	exit 1
}
sed 's/case STATUS_INVALID_INFO_CLASS,/case STATUS_INVALID_INFO_CLASS, NTStatus(0xC0000002) \/* STATUS_NOT_IMPLEMENTED: Wine 8 *\/,/' "$src" >"$dir/at_windows.go"
printf '{"Replace":{"%s":"%s"}}\n' "$src" "$(cd "$dir" && pwd)/at_windows.go" >"$dir/overlay.json"
echo "$dir/overlay.json"
