#!/usr/bin/env bash
# make test's Windows pass: the pure-Go packages' tests built for Windows
# x64 and run under Wine (go test -exec scripts/wine-exec.sh), then the
# Windows CLI's journeys (scripts/windows-e2e.sh). One throwaway Wine prefix
# serves every package and is removed after. -short and -p 1: Wine starts
# each binary in about a second and the machine has two cores; no -race
# (it needs cgo, which these binaries are built without).
# Usage: scripts/wine-test.sh PACKAGE… (make test passes WINE_PKGS).
set -euo pipefail
GO=${GO:-go}
here=$(cd "$(dirname "$0")" && pwd)
work=$(mktemp -d "${TMPDIR:-/tmp}/rigbench-wine-test.XXXXXX")
export WINEPREFIX=$work/prefix
trap 'wineserver -k >/dev/null 2>&1 || true; rm -rf "$work"' EXIT
overlay=$("$here/wine-overlay.sh" "$work/overlay")
GOOS=windows GOARCH=amd64 CGO_ENABLED=0 $GO test -overlay "$overlay" -exec "$here/wine-exec.sh" \
	-short -count=1 -p 1 -timeout 10m "$@"
# engine/tune: its sweep lock only (LockFileEx); its other tests run the
# demo under timings of their own. engine/docker: how a container's owner
# process is named and judged (OpenProcess, its creation time); its other
# tests need the Docker daemon.
GOOS=windows GOARCH=amd64 CGO_ENABLED=0 $GO test -overlay "$overlay" -exec "$here/wine-exec.sh" \
	-short -count=1 -timeout 5m -run 'TestSweepRunsOnceAtATime|TestLoadSpec' ./engine/tune
GOOS=windows GOARCH=amd64 CGO_ENABLED=0 $GO test -overlay "$overlay" -exec "$here/wine-exec.sh" \
	-short -count=1 -timeout 5m -run 'TestOwnerState|TestParseStatStart' ./engine/docker
# engine/rig: which SSH agent Windows asks; its other tests start sshd.
GOOS=windows GOARCH=amd64 CGO_ENABLED=0 $GO test -overlay "$overlay" -exec "$here/wine-exec.sh" \
	-short -count=1 -timeout 5m -run 'TestWindowsAgentPipe' ./engine/rig
GO=$GO "$here/windows-e2e.sh"
