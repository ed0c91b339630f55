#!/usr/bin/env bash
# Installs the system packages RigBench needs on Debian or Ubuntu, only when
# they are missing, and says what it does. Usage: scripts/deps.sh build|cross|test|screenshots
#   build:       gcc and the OpenGL/X11 headers Fyne's cgo build needs
#   cross:       build + mingw-w64 (the app's cgo for Windows, make cross)
#   test:        cross + Chromium (the HTML report test opens reports in it)
#                + openssh-server (the remote-rig tests start sshd on loopback)
#                + Wine (the Windows tests, scripts/wine-test.sh)
#   screenshots: build + Xvfb and ImageMagick (the scripted screenshot tour)
set -euo pipefail
want=${1:-build}

need=()
have_header() { [ -e "/usr/include/$1" ]; }
command -v gcc >/dev/null 2>&1 || need+=(gcc)
command -v pkg-config >/dev/null 2>&1 || need+=(pkg-config)
have_header GL/gl.h || need+=(libgl1-mesa-dev)
for h in X11/Xlib.h X11/Xcursor/Xcursor.h X11/extensions/Xrandr.h X11/extensions/Xinerama.h \
	X11/extensions/XInput2.h X11/extensions/xf86vmode.h; do
	have_header "$h" || { need+=(xorg-dev); break; }
done
case "$want" in
cross | test)
	command -v x86_64-w64-mingw32-gcc >/dev/null 2>&1 || need+=(gcc-mingw-w64-x86-64)
	;;
esac
case "$want" in
test)
	command -v wine64 >/dev/null 2>&1 || [ -x /usr/lib/wine/wine64 ] || need+=(wine wine64)
	command -v chromium >/dev/null 2>&1 || command -v chromium-browser >/dev/null 2>&1 || need+=(chromium)
	[ -x /usr/sbin/sshd ] || need+=(openssh-server)
	;;
screenshots)
	command -v Xvfb >/dev/null 2>&1 || need+=(xvfb)
	command -v import >/dev/null 2>&1 || need+=(imagemagick)
	command -v xdotool >/dev/null 2>&1 || need+=(xdotool)
	;;
esac

if [ ${#need[@]} -eq 0 ]; then
	exit 0
fi
if ! command -v apt-get >/dev/null 2>&1; then
	echo "RigBench needs these system packages: ${need[*]}. Install them with your package manager, then run make again." >&2
	exit 1
fi
sudo=""
if [ "$(id -u)" -ne 0 ]; then
	if command -v sudo >/dev/null 2>&1; then sudo="sudo"; else
		echo "RigBench needs these system packages: ${need[*]}; run 'apt-get install ${need[*]}' as root, then make again." >&2
		exit 1
	fi
fi
echo ">> installing system packages RigBench needs: ${need[*]} (apt-get)"
export DEBIAN_FRONTEND=noninteractive
$sudo apt-get update -qq
$sudo apt-get install -y -qq --no-install-recommends "${need[@]}" >/dev/null
echo ">> installed: ${need[*]}"
