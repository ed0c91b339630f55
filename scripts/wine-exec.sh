#!/usr/bin/env bash
# Runs a Windows program under Wine: `go test -exec scripts/wine-exec.sh`
# with GOOS=windows runs a package's tests as a Windows binary, and
# `scripts/wine-exec.sh rigbench-cli.exe …` runs the CLI. It uses
# $WINEPREFIX when set (make test makes one throwaway prefix for all its
# packages: a new prefix costs seconds to set up) and otherwise makes its
# own and removes it after, so it never touches the user's ~/.wine.
set -euo pipefail
if [ $# -eq 0 ]; then
	echo "usage: scripts/wine-exec.sh program.exe [args…]" >&2
	exit 2
fi
wine=""
for c in wine64 /usr/lib/wine/wine64 wine; do
	if command -v "$c" >/dev/null 2>&1; then wine=$(command -v "$c"); break; fi
done
if [ -z "$wine" ]; then
	echo "Wine is not installed, so the Windows tests cannot run: run scripts/deps.sh test (or apt-get install wine wine64), then try again." >&2
	exit 1
fi
own=""
if [ -z "${WINEPREFIX:-}" ]; then
	own=$(mktemp -d "${TMPDIR:-/tmp}/rigbench-wine.XXXXXX")
	export WINEPREFIX=$own
	trap 'WINEPREFIX=$own wineserver -k >/dev/null 2>&1 || true; rm -rf "$own"' EXIT
fi
# No Mono or Gecko installer prompts, no debug chatter, no desktop windows:
# the tests need none of them.
export WINEDEBUG=${WINEDEBUG:--all}
export WINEDLLOVERRIDES=${WINEDLLOVERRIDES:-mscoree,mshtml=}
export DISPLAY=
# Go's runtime needs bcryptprimitives.dll's ProcessPrng, which Wine before 9
# lacks: give the prefix a stand-in (scripts/wine/bcryptprimitives.c) the first time.
sys32=$WINEPREFIX/drive_c/windows/system32
if [ ! -e "$sys32/bcryptprimitives.dll" ] && ! ls /usr/lib/*/wine/x86_64-windows/bcryptprimitives.dll /usr/lib/wine/x86_64-windows/bcryptprimitives.dll >/dev/null 2>&1; then
	if [ ! -d "$sys32" ]; then
		"$wine" cmd /c exit >/dev/null 2>&1 || true # sets the prefix up
	fi
	if ! command -v x86_64-w64-mingw32-gcc >/dev/null 2>&1; then
		echo "This Wine lacks bcryptprimitives.dll, which Go programs need, and mingw is not installed to build a stand-in: run scripts/deps.sh test (or apt-get install gcc-mingw-w64-x86-64), then try again." >&2
		exit 1
	fi
	x86_64-w64-mingw32-gcc -shared -O2 -o "$sys32/bcryptprimitives.dll" "$(dirname "$0")/wine/bcryptprimitives.c" -ladvapi32
fi
if [ -z "$own" ]; then
	exec "$wine" "$@" # the caller's signals reach the program itself
fi
"$wine" "$@"
