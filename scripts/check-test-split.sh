#!/usr/bin/env bash
# check-test-split.sh: fails when a test that `go test -race` skips is run by
# no pass of the Makefile without -race.
#
# A test file tagged `//go:build !race` is left out of a -race build without
# a word (the app's journeys, because Fyne's test driver runs fyne.Do inline,
# which the race detector flags; the simulator's timing tests, which the
# detector slows past their ground truth). So each such file's package must
# be named by a `go test` line of `make test` (or `make bench`, for the
# experiments it owns) that has no -race, and when that line has a -run
# filter, each Test function of the file must match it. The script reads
# the passes from `make -n` (what make would run, run by nobody), so it
# checks the Makefile as it is, not a list kept beside it.
#
# Usage: scripts/check-test-split.sh [-v]   (-v prints which pass runs what)
set -euo pipefail
cd "$(dirname "$0")/.."

verbose=0
[ "${1:-}" = "-v" ] && verbose=1

mod=$(go list -m)
# Every `go test` line of the two targets, without the ones under -race.
passes=()
while IFS= read -r line; do
	passes+=("$line")
done < <(for target in test bench; do
	make -n --no-print-directory "$target" GO=go 2>/dev/null | grep -E '^go test ' | grep -v -- ' -race' | sed "s/^/$target: /"
done)
if [ ${#passes[@]} -eq 0 ]; then
	echo "check-test-split: make -n test bench shows no go test pass without -race" >&2
	exit 1
fi

# covers PKG PATTERN: does a go test package argument cover the package
# directory PKG (./engine/bench)? ./ui/... covers ./ui and ./ui/launchview.
covers() {
	local pkg=$1 pat=$2
	pat=${pat#"$mod"/}
	[ "${pat#./}" = "$pat" ] && pat=./$pat
	case $pat in
	./...) return 0 ;;
	*/...) [ "$pkg" = "${pat%/...}" ] || [ "${pkg#"${pat%...}"}" != "$pkg" ] ;;
	*) [ "$pkg" = "$pat" ] ;;
	esac
}

missing=0
for file in $(grep -rlE --include='*_test.go' '^//go:build !race$' . | sed 's|^\./||' | sort); do
	pkg=./$(dirname "$file")
	tests=$(grep -oE '^func (Test|Fuzz|Example)[A-Za-z0-9_]*\(' "$file" | sed -E 's/^func //; s/\($//' || true)
	for name in ${tests:-"(no tests)"}; do
		ranby=""
		for line in "${passes[@]}"; do
			target=${line%%: *}
			eval "set -- ${line#*: }"
			shift 2 # go test
			run="" pkgs=()
			while [ $# -gt 0 ]; do
				case $1 in
				-run) run=$2; shift ;;
				-run=*) run=${1#-run=} ;;
				./* | "$mod" | "$mod"/*) pkgs+=("$1") ;;
				esac
				shift
			done
			hit=0
			for p in "${pkgs[@]}"; do covers "$pkg" "$p" && hit=1; done
			[ $hit = 1 ] || continue
			if [ -n "$run" ] && [ "$name" != "(no tests)" ] && ! grep -qE -- "$run" <<<"$name"; then
				continue
			fi
			ranby="make $target"
			break
		done
		if [ -z "$ranby" ]; then
			echo "check-test-split: $file is tagged !race, so go test -race skips it, and no pass of make test or make bench without -race runs $name in $pkg" >&2
			missing=1
		elif [ $verbose = 1 ]; then
			echo "  $file: $name without -race ($ranby)"
		fi
	done
done
exit $missing
