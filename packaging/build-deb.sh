#!/usr/bin/env bash
# Builds gopcu's Debian package with dpkg-deb alone (no debhelper, no
# network beyond the Go module proxy for the build):
#
#   packaging/build-deb.sh [OUTDIR]      (make deb: OUTDIR=dist)
#
# The layout follows Debian's osmo-pcu package (dpkg -L osmo-pcu):
#   /usr/bin/gopcu                        the PCU
#   /usr/bin/gopcu-btsemu, -msemu, -sgsnemu, -demo, -tcplab   emulators and labs
#   /lib/systemd/system/gopcu.service     (osmo-pcu.service's semantics, hardened)
#   /etc/osmocom/gopcu.cfg                conffile (commented example)
#   /usr/share/doc/gopcu/                 manual, VTY reference (md and XML),
#                                         README, changelog, copyright
#   /usr/share/doc/gopcu/examples/        osmo-pcu.cfg (osmo-pcu's drop-in),
#                                         gopcu.cfg, gopcu-aqm.cfg,
#                                         grafana-dashboard.json
# Environment: VERSION (default: gopcu -V, which scripts/ldflags.sh
# stamps with the commit count and hash: 0.1.0+git571.c1a22f4, then the
# Debian revision -1), GOARCH (default: dpkg's architecture).
set -euo pipefail
cd "$(dirname "$0")/.."
out="${1:-dist}"
export PATH="$PATH:/usr/local/go/bin"
arch="$(dpkg --print-architecture)"
case "$arch" in
amd64 | arm64 | 386 | riscv64 | ppc64le | s390x) goarch="$arch" ;;
i386) goarch=386 ;;
armhf) goarch=arm ;;
*) echo "build-deb: no GOARCH for $arch" >&2; exit 1 ;;
esac
export GOARCH="${GOARCH:-$goarch}" CGO_ENABLED=0 GOFLAGS="${GOFLAGS:--buildvcs=false}"

stage="$(mktemp -d)"
trap 'rm -rf "$stage"' EXIT
root="$stage/root"
mkdir -p "$root/DEBIAN" "$root/usr/bin" "$root/lib/systemd/system" "$root/etc/osmocom" \
	"$root/usr/share/doc/gopcu/examples"

# Static binaries (CGO_ENABLED=0: no libc dependency), no build paths; one
# go build for all of them, so that shared packages compile once.
mkdir -p "$stage/bin"
go build -trimpath -ldflags "-s -w $(scripts/ldflags.sh)" -o "$stage/bin/" ./cmd/gopcu ./cmd/btsemu ./cmd/msemu ./cmd/demo ./cmd/tcplab \
	./cmd/sgsnemu
install -m 0755 "$stage/bin/gopcu" "$root/usr/bin/gopcu"
for c in btsemu msemu demo tcplab sgsnemu; do
	install -m 0755 "$stage/bin/$c" "$root/usr/bin/gopcu-$c"
done

# the package version is the binary's (gopcu -V, `show version`)
upstream="$("$root/usr/bin/gopcu" -V | awk '{print $3}')"
VERSION="${VERSION:-${upstream}-1}"

install -m 0644 packaging/gopcu.service "$root/lib/systemd/system/gopcu.service"
install -m 0644 packaging/gopcu.cfg "$root/etc/osmocom/gopcu.cfg"
doc="$root/usr/share/doc/gopcu"
install -m 0644 packaging/examples/*.cfg "$doc/examples/"
install -m 0644 packaging/gopcu.cfg "$doc/examples/gopcu.cfg"
install -m 0644 contrib/grafana-dashboard.json "$doc/examples/grafana-dashboard.json"
install -m 0644 packaging/copyright "$doc/copyright"
for f in docs/manual.md docs/vty-reference.md docs/features.md README.md; do
	install -m 0644 "$f" "$doc/$(basename "$f")"
done
"$root/usr/bin/gopcu" --vty-ref-xml >"$doc/vty-reference.xml" 2>/dev/null
# Debian policy 12.3: documentation over 4 kB is compressed (gzip -9n).
{
	echo "gopcu ($VERSION) unstable; urgency=medium"
	echo
	git log -n 20 --format='  * %s' 2>/dev/null || echo "  * Snapshot build."
	echo
	echo " -- gopcu maintainers <gopcu@localhost>  $(date -R -d "@${SOURCE_DATE_EPOCH:-$(git log -1 --format=%ct 2>/dev/null || date +%s)}")"
} >"$doc/changelog.Debian"
for f in "$doc"/*.md "$doc/vty-reference.xml" "$doc/changelog.Debian"; do
	[ "$(stat -c %s "$f")" -gt 4096 ] || [ "${f##*/}" = changelog.Debian ] || continue
	gzip -9n "$f"
done

# Control files.
echo /etc/osmocom/gopcu.cfg >"$root/DEBIAN/conffiles"
size="$(du -sk --exclude=DEBIAN "$root" | cut -f1)"
sed -e "s/@VERSION@/$VERSION/" -e "s/@ARCH@/$arch/" -e "s/@SIZE@/$size/" packaging/control >"$root/DEBIAN/control"
install -m 0755 packaging/postinst packaging/prerm packaging/postrm "$root/DEBIAN/"
(cd "$root" && find . -type f ! -path './DEBIAN/*' ! -path './etc/*' -printf '%P\0' | sort -z | xargs -0 md5sum) >"$root/DEBIAN/md5sums"
find "$root" -type d -exec chmod 0755 {} +

mkdir -p "$out"
deb="$out/gopcu_${VERSION}_${arch}.deb"
dpkg-deb --root-owner-group -Zxz --build "$root" "$deb" >/dev/null
echo "$deb"
