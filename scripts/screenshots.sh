#!/usr/bin/env bash
# Runs the real RigBench app under Xvfb in demo mode and lets its scripted
# tour (RIGBENCH_TOUR, see ui/tour.go) visit every view and write one PNG
# per view into docs/screenshots/. `make screenshots` builds the app and
# installs Xvfb first. Usage: scripts/screenshots.sh [OUT_DIR]  (Xvfb, ImageMagick import)
set -euo pipefail
cd "$(dirname "$0")/.."
out=${1:-docs/screenshots}
bin=${RIGBENCH_BIN:-bin/rigbench}
[ -x "$bin" ] || { echo "build the app first: make build" >&2; exit 1; }
command -v Xvfb >/dev/null || { echo "Xvfb is missing: run scripts/deps.sh screenshots" >&2; exit 1; }

mkdir -p "$out"
# A throw-away home keeps the user's preferences and history out of it,
# and makes the tour start from a first launch (demo target, defaults).
home=$(mktemp -d)
display=:$((90 + RANDOM % 100))
Xvfb "$display" -screen 0 1280x820x24 -nolisten tcp >/dev/null 2>&1 &
xvfb=$!
trap 'kill "$xvfb" 2>/dev/null || true; rm -rf "$home"' EXIT
sleep 1

ref=$(ls ../shared/reference/*.csv 2>/dev/null | head -1 || true)
echo ">> running the screenshot tour on $display (output: $out)"
env -i PATH="$PATH" HOME="$home" DISPLAY="$display" LANG=C \
	XDG_CONFIG_HOME="$home/.config" XDG_DATA_HOME="$home/.local/share" \
	LIBGL_ALWAYS_SOFTWARE=1 RIGBENCH_TOUR="$(realpath "$out")" RIGBENCH_DB="$home/history.db" \
	RIGBENCH_TOUR_REFERENCE="${ref:+$(realpath "$ref")}" \
	timeout 600 "$bin"
ls -1 "$out"/*.png
