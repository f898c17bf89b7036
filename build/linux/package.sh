#!/bin/sh
# package.sh BINARY VERSION OUTPUT.deb — builds the Debian package of Lets
# with dpkg-deb from a built binary (`make package` runs it after
# `make build`). It installs /usr/bin/lets (and, when they lie beside it,
# lets-core, the full program the small lets front hands commands to, and
# lets-window, the native window program), the desktop entry and the
# icons in the hicolor theme, and depends on the libraries the binary
# links (GTK 3, WebKitGTK 4.1, ALSA), on git, which `lets install` runs,
# and on xdg-utils, whose xdg-open shows pages in the person's browser.
# The programs are stripped of their symbol and debug tables (strip, from
# binutils): a person running Lets has no use for them, and they are about
# a third of each program's size.
set -eu

if [ $# -ne 3 ]; then
	echo "usage: $0 BINARY VERSION OUTPUT.deb" >&2
	exit 2
fi
bin=$1 version=$2 out=$3
# xz makes the smallest package; tests pass DEB_COMPRESSION=none to be quick.
compression=${DEB_COMPRESSION:-xz}
here=$(cd "$(dirname "$0")/.." && pwd) # build/

[ -x "$bin" ] || { echo "package.sh: $bin is not an executable; run \`make build\` first" >&2; exit 1; }
command -v dpkg-deb >/dev/null || { echo "package.sh: dpkg-deb is missing; install the apt package dpkg" >&2; exit 1; }
command -v strip >/dev/null || { echo "package.sh: strip is missing; install the apt package binutils" >&2; exit 1; }
case $compression in
	xz | gzip | zstd | none) ;;
	*) echo "package.sh: DEB_COMPRESSION must be xz, gzip, zstd or none, not \"$compression\"" >&2; exit 1 ;;
esac
case $version in
	[0-9]*) ;;
	*) echo "package.sh: version \"$version\" must start with a digit (Debian versions do)" >&2; exit 1 ;;
esac
arch=$(dpkg --print-architecture 2>/dev/null || echo amd64)

root=$(mktemp -d "${TMPDIR:-/tmp}/lets-deb-XXXXXX")
trap 'rm -rf "$root"' EXIT INT TERM
chmod 0755 "$root"

install -d -m 0755 "$root/DEBIAN" "$root/usr/bin" "$root/usr/share/applications" \
	"$root/usr/share/icons/hicolor/scalable/apps" "$root/usr/share/doc/lets"
install -m 0755 "$bin" "$root/usr/bin/lets"
# The full program (the front needs it beside it) and the native-window
# program (built with the desktop tags), built beside lets.
for prog in lets-core lets-window; do
	if [ -x "$(dirname "$bin")/$prog" ]; then
		install -m 0755 "$(dirname "$bin")/$prog" "$root/usr/bin/$prog"
	fi
done
for prog in "$root"/usr/bin/*; do
	strip --strip-all "$prog"
done
install -m 0644 "$here/linux/lets.desktop" "$root/usr/share/applications/lets.desktop"
install -m 0644 "$here/icons/scalable/lets.svg" "$root/usr/share/icons/hicolor/scalable/apps/lets.svg"
for dir in "$here"/icons/*x*; do
	size=$(basename "$dir")
	install -d -m 0755 "$root/usr/share/icons/hicolor/$size/apps"
	install -m 0644 "$dir/lets.png" "$root/usr/share/icons/hicolor/$size/apps/lets.png"
done
if [ -f "$here/../LICENSE" ]; then
	install -m 0644 "$here/../LICENSE" "$root/usr/share/doc/lets/copyright"
fi

size_kb=$(du -sk "$root/usr" | cut -f1)
cat >"$root/DEBIAN/control" <<CONTROL
Package: lets
Version: $version
Architecture: $arch
Maintainer: The Lets authors <lets@localhost>
Installed-Size: $size_kb
Depends: libgtk-3-0t64 | libgtk-3-0, libwebkit2gtk-4.1-0, libasound2t64 | libasound2, git, xdg-utils
Section: utils
Priority: optional
Description: people and AI agents, working together
 Lets is a desktop tray app. Claude opens small web apps (uniques) in
 their own windows with a friendly companion, and a pad surface (a
 Launchpad or a paired phone) shows which agent needs you.
CONTROL

mkdir -p "$(dirname "$out")"
dpkg-deb --root-owner-group "-Z$compression" --build "$root" "$out" >/dev/null
echo "Built $out"
