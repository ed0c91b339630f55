#!/usr/bin/env bash
# Builds one Go binary and says what it is doing while it does: a first
# build of the app compiles Fyne's and go-nvml's C code (cgo), minutes with
# no output of its own (issue 41: `make run` printed one line and nothing
# else for 12 minutes). Usage: scripts/gobuild.sh OUTPUT PACKAGE [go build flags…]
# Prints each package as it is compiled, counted against the binary's
# dependencies, with the time so far, and a line every 30 s while one
# package (a cgo one) takes long. The exit status is go build's.
set -uo pipefail
out=$1 pkg=$2
shift 2
GO=${GO:-go}
total=$($GO list -deps "$pkg" 2>/dev/null | wc -l)
declare -A dep=()
while IFS= read -r p; do dep[$p]=1; done < <($GO list -deps "$pkg" 2>/dev/null)
start=$SECONDS
elapsed() { printf '%dm%02ds' $(((SECONDS - start) / 60)) $(((SECONDS - start) % 60)); }
mkdir -p "$(dirname "$out")"
cgo=""
[ -n "${dep[fyne.io/fyne/v2]:-}" ] && cgo="Fyne's"
[ -n "${dep[github.com/NVIDIA/go-nvml/pkg/nvml]:-}" ] && cgo="${cgo:+$cgo and }go-nvml's"
if [ -n "$cgo" ]; then
	echo ">> building $out from $pkg ($total packages). The first build compiles $cgo C code (cgo):" \
		"about 4 minutes on two idle cores, up to 15 on a busy machine; later builds take seconds"
else
	echo ">> building $out from $pkg ($total packages)"
fi
n=0 last=""
while true; do
	if IFS= read -r -t 30 line; then
		if [ -n "${dep[$line]:-}" ]; then
			n=$((n + 1)) last=$line
			printf '   [%3d compiled, %s] %s\n' "$n" "$(elapsed)" "$line"
		else
			printf '%s\n' "$line" # a compiler's message: passed on as it is
		fi
	elif [ $? -gt 128 ]; then
		echo "   … still compiling after ${last:-the start} ($(elapsed)): a cgo package takes minutes the first time"
	else
		break
	fi
done < <($GO build -v -o "$out" "$@" "$pkg" 2>&1; echo "rc=$?" > "$out.rc")
rc=$(sed 's/rc=//' "$out.rc" 2>/dev/null || echo 1)
rm -f "$out.rc"
if [ "$rc" -eq 0 ]; then
	what="$n packages"
	[ "$n" -eq 1 ] && what="1 package"
	echo ">> built $out in $(elapsed) ($what compiled, the rest from Go's build cache)"
fi
exit "$rc"
