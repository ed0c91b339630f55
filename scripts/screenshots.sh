#!/usr/bin/env bash
# Runs the real RigBench app under Xvfb in demo mode and lets its scripted
# tour (RIGBENCH_TOUR, see ui/tour.go) visit every view and write one PNG
# per view, at 1280×800 and 900×600, in the light and the dark theme, into
# build/screenshots/SIZE-THEME/. With DOCS=1 (make screenshots-docs) the
# 1280×800 light set goes to docs/screenshots/, with the two extra shots
# the docs show. The tour imports the reference run kept in the repository
# (engine/report/testdata, see its README), so History and Compare have two
# runs in a fresh clone; it fails, and so does this script, when it cannot
# set up what it shows. Usage: scripts/screenshots.sh [OUT_DIR]
set -euo pipefail
cd "$(dirname "$0")/.."
out=${1:-build/screenshots}
bin=${RIGBENCH_BIN:-bin/rigbench-tour}
[ -x "$bin" ] || { echo "build the app with its tour first: make tour (go build -tags tour)" >&2; exit 1; }
command -v Xvfb >/dev/null || { echo "Xvfb is missing: run scripts/deps.sh screenshots" >&2; exit 1; }
command -v import >/dev/null || { echo "ImageMagick's import is missing: run scripts/deps.sh screenshots" >&2; exit 1; }
src=$(ls engine/report/testdata/ref_*.csv 2>/dev/null | head -1 || true)
[ -n "$src" ] || { echo "the reference run engine/report/testdata/ref_*.csv is missing from this checkout" >&2; exit 1; }

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# Import reads the GPU, model and engine from the published file name.
ref="$work/$(basename "$src" | sed 's/^ref_//')"
cp "$src" "$ref"

# tour SIZE THEME DIR: one tour in a fresh home (first launch: demo target,
# defaults) on an X screen of exactly the window's size, so grabbing the
# root window grabs the app.
tour() {
	local size=$1 theme=$2 dir=$3 home display xvfb rc=0
	home=$(mktemp -d -p "$work")
	display=:$((90 + RANDOM % 100))
	Xvfb "$display" -screen 0 "${size}x24" -nolisten tcp >/dev/null 2>&1 &
	xvfb=$!
	sleep 1
	mkdir -p "$dir"
	echo ">> screenshot tour at $size, $theme theme, on $display (output: $dir)"
	env -i PATH="$PATH" HOME="$home" DISPLAY="$display" LANG=C \
		XDG_CONFIG_HOME="$home/.config" XDG_DATA_HOME="$home/.local/share" \
		LIBGL_ALWAYS_SOFTWARE=1 RIGBENCH_TOUR="$(realpath "$dir")" RIGBENCH_DB="$home/history.db" \
		RIGBENCH_TOUR_REFERENCE="$ref" RIGBENCH_TOUR_SIZE="$size" RIGBENCH_TOUR_THEME="$theme" \
		timeout 600 "$bin" || rc=$?
	kill "$xvfb" 2>/dev/null || true
	wait "$xvfb" 2>/dev/null || true
	if [ "$rc" -ne 0 ]; then
		echo "screenshot tour at $size, $theme theme failed (status $rc): see the message above" >&2
		exit 1
	fi
	local n
	n=$(ls "$dir"/*.png 2>/dev/null | wc -l)
	[ "$n" -ge 10 ] || { echo "the tour at $size, $theme wrote $n screenshots, want 10" >&2; exit 1; }
}

if [ "${DOCS:-}" = 1 ]; then
	tour 1280x800 light "$work/main"
	tour 1280x800 dark "$work/dark"
	tour 900x600 light "$work/small"
	cp "$work"/main/*.png docs/screenshots/
	cp "$work/dark/6-results-matrix.png" docs/screenshots/dark-6-results-matrix.png
	# The dark tour ends by switching to the light theme at run time.
	cp "$work/dark/14-theme-switched-launch.png" docs/screenshots/dark-14-light-after-switch-launch.png
	cp "$work/small/2-launch.png" docs/screenshots/small-2-launch.png
	ls -1 docs/screenshots/*.png
	exit 0
fi
for size in 1280x800 900x600; do
	for theme in light dark; do
		tour "$size" "$theme" "$out/$size-$theme"
	done
done
ls -1 "$out"/*/*.png
