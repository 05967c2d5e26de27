#!/usr/bin/env bash
# Builds the Debian package and, as root, installs it, checks its contents,
# its version (the package's, gopcu -V and `show version` agree), verifies
# the systemd unit, runs the installed /usr/bin/gopcu against the installed
# BTS and SGSN emulators (the VTY answers, the PDCHs come up, the BVC
# unblocks, the emulator gets answers to its RTS_REQs, `write file` keeps a
# gopcu.cfg.sav, SIGTERM ends it with exit code 0 and every non-zero
# counter group in the log, Gb's included), then purges the package again
# (nothing left, gopcu.cfg.sav included). scripts/test.sh runs it; it takes ~20 s with a
# warm build cache. The service is never started (CI may have no systemd).
#
#   packaging/test-deb.sh
set -euo pipefail
cd "$(dirname "$0")/.."
tmp="$(mktemp -d)"
pids=()
cleanup() {
	for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
	rm -rf "$tmp"
}
trap cleanup EXIT
fail() { echo "test-deb: FAIL: $*" >&2; exit 1; }

deb="$(packaging/build-deb.sh "$tmp/dist")"
echo "built $deb ($(stat -c %s "$deb") octets)"
dpkg-deb --info "$deb" >/dev/null || fail "dpkg-deb cannot read $deb"
if [ "$(id -u)" != 0 ] || ! command -v apt-get >/dev/null; then
	echo "test-deb: not root (or no apt-get): package built, install test skipped"
	exit 0
fi
if dpkg-query -W -f='${Status}' gopcu 2>/dev/null | grep -q "install ok installed"; then
	echo "test-deb: gopcu is installed already (not by this test): install test skipped"
	exit 0
fi

export DEBIAN_FRONTEND=noninteractive
# apt-get waits up to 10 minutes for the dpkg lock rather than fail
apt-get -o DPkg::Lock::Timeout=600 install -y -q "$deb" >"$tmp/apt.log" 2>&1 || { cat "$tmp/apt.log"; fail "apt-get install"; }
purged=0
purge() { [ "$purged" = 1 ] || { apt-get -o DPkg::Lock::Timeout=600 purge -y -q gopcu >/dev/null 2>&1 || true; purged=1; }; }
trap 'purge; cleanup' EXIT

# Contents, as `dpkg -L osmo-pcu` lays out osmo-pcu.
files="$(dpkg -L gopcu)"
for f in /usr/bin/gopcu /usr/bin/gopcu-btsemu /usr/bin/gopcu-msemu /usr/bin/gopcu-sgsnemu /usr/bin/gopcu-demo \
	/usr/bin/gopcu-tcplab /lib/systemd/system/gopcu.service /etc/osmocom/gopcu.cfg \
	/usr/share/doc/gopcu/copyright /usr/share/doc/gopcu/changelog.Debian.gz \
	/usr/share/doc/gopcu/examples/osmo-pcu.cfg /usr/share/doc/gopcu/examples/gopcu.cfg \
	/usr/share/doc/gopcu/examples/gopcu-aqm.cfg /usr/share/doc/gopcu/examples/grafana-dashboard.json \
	/usr/share/doc/gopcu/vty-reference.xml.gz /usr/share/doc/gopcu/vty-reference.md.gz; do
	grep -qx "$f" <<<"$files" || fail "dpkg -L gopcu lacks $f"
	[ -e "$f" ] || fail "$f not on disk"
done
ls /usr/share/doc/gopcu/manual.md* >/dev/null 2>&1 || fail "no manual in /usr/share/doc/gopcu"
dpkg-query -W -f='${Conffiles}\n' gopcu | grep -q "/etc/osmocom/gopcu.cfg" || fail "gopcu.cfg is not a conffile"
for b in /usr/bin/gopcu /usr/bin/gopcu-btsemu; do
	[ -x "$b" ] || fail "$b not executable"
done
echo "contents: $(wc -l <<<"$files") paths, conffile /etc/osmocom/gopcu.cfg"

# The unit.
if command -v systemd-analyze >/dev/null; then
	systemd-analyze verify /lib/systemd/system/gopcu.service || fail "systemd-analyze verify gopcu.service"
	echo "systemd-analyze verify gopcu.service: ok"
	if out="$(systemd-analyze security --offline=true /lib/systemd/system/gopcu.service 2>/dev/null)"; then
		printf '%s\n' "${out##*$'\n'}"
	fi
else
	echo "no systemd-analyze: unit not verified"
fi

# The installed binary: version, VTY reference, then a run against the
# installed BTS emulator with the installed conffile.
/usr/bin/gopcu -V | grep -q '^gopcu version ' || fail "gopcu -V"
# One version everywhere: the package's upstream version is gopcu -V's,
# and names the commit (scripts/ldflags.sh); `show version` below too.
binver="$(/usr/bin/gopcu -V | awk '{print $3}')"
pkgver="$(dpkg-query -W -f='${Version}' gopcu)"
[ "${pkgver%-*}" = "$binver" ] || fail "package version $pkgver, gopcu -V $binver"
if git rev-parse HEAD >/dev/null 2>&1; then
	case "$binver" in
	*+git"$(git rev-list --count HEAD)"."$(git rev-parse --short=7 HEAD)"*) ;;
	*) fail "gopcu -V $binver does not name commit $(git rev-parse --short=7 HEAD)" ;;
	esac
fi
echo "version: package $pkgver, gopcu -V $binver"
/usr/bin/gopcu --vty-ref-xml >"$tmp/ref.xml" 2>/dev/null || fail "gopcu --vty-ref-xml"
grep -q "<command id='show llc-queue'>" "$tmp/ref.xml" || fail "gopcu --vty-ref-xml: no show llc-queue"
sock="$tmp/pcu_bts"
/usr/bin/gopcu-btsemu -path "$sock" >"$tmp/btsemu.log" 2>&1 &
pids+=($!)
# The installed SGSN emulator where the BTS emulator's INFO_IND puts the
# SGSN (127.0.0.1:23000), unless something else has that port: then the
# bssgp counters are not checked.
/usr/bin/gopcu-sgsnemu -listen 127.0.0.1:23000 >"$tmp/sgsnemu.log" 2>&1 &
sg=$!
pids+=($sg)
sleep 0.3
sgsn=1
kill -0 "$sg" 2>/dev/null || { sgsn=0; echo "127.0.0.1:23000 is taken: no SGSN emulator, bssgp counters not checked"; }
port="$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')"
# Without any capability and with no_new_privs, as gopcu.service runs it
# (CapabilityBoundingSet=, NoNewPrivileges=yes).
nocaps=()
if command -v setpriv >/dev/null; then
	nocaps=(setpriv --no-new-privs --inh-caps=-all --ambient-caps=-all --bounding-set=-all)
fi
"${nocaps[@]}" /usr/bin/gopcu -c /etc/osmocom/gopcu.cfg --pcu-sock "$sock" --vty-port "$port" >"$tmp/gopcu.log" 2>&1 &
gp=$!
pids+=($gp)
# vty PORT ITEM...: a telnet dialogue with the VTY on 127.0.0.1:PORT. An
# ITEM "=CMD" sends the command CMD; any other ITEM waits (3 s at most)
# until that text has come since the connection began. It prints all
# that came.
vty() {
	python3 - "$@" <<'PY'
import socket, sys, time
s = socket.create_connection(("127.0.0.1", int(sys.argv[1])), timeout=2)
buf = b""
for item in sys.argv[2:]:
    if item.startswith("="):
        s.sendall(item[1:].encode() + b"\r")
        continue
    end = time.time() + 3
    while item.encode() not in buf and time.time() < end:
        buf += s.recv(4096)
print(buf.decode("utf-8", "replace"))
PY
}
vty_out=""
for _ in $(seq 1 100); do
	vty_out="$(vty "$port" "OsmoPCU> " "=show bts pdch" "TS7" "OsmoPCU> " "=show version" "(OsmoPCU)." "OsmoPCU> " 2>/dev/null || true)"
	grep -q "TS4: PDCH enabled" <<<"$vty_out" && break
	kill -0 "$gp" 2>/dev/null || { cat "$tmp/gopcu.log"; fail "installed gopcu ended"; }
	sleep 0.1
done
grep -q "TS4: PDCH enabled" <<<"$vty_out" || { echo "$vty_out"; cat "$tmp/gopcu.log"; fail "VTY: no enabled PDCH"; }
grep -qF "OsmoPCU $binver (OsmoPCU)." <<<"$vty_out" || { echo "$vty_out"; fail "show version does not say $binver"; }
echo "installed gopcu${nocaps:+ (no capabilities)}: VTY on port $port answers, $(grep -c 'PDCH enabled' <<<"$vty_out") PDCHs enabled, show version $binver"
for _ in $(seq 1 50); do
	grep -q 'answered=[1-9]' "$tmp/btsemu.log" && break
	sleep 0.1
done
grep -q 'answered=[1-9]' "$tmp/btsemu.log" || { cat "$tmp/btsemu.log"; fail "the BTS emulator got no DATA_REQ"; }
echo "BTS emulator: $(grep 'answered=' "$tmp/btsemu.log" | tail -1)"
if [ "$sgsn" = 1 ]; then
	for _ in $(seq 1 100); do
		grep -q 'BVCI=1800 unblocked' "$tmp/gopcu.log" && break
		sleep 0.1
	done
	grep -q 'BVCI=1800 unblocked' "$tmp/gopcu.log" || { cat "$tmp/gopcu.log"; fail "the BVC never unblocked with the SGSN emulator"; }
	echo "SGSN emulator: BVC 1800 unblocked"
fi
# `write file` (as an operator does): the conffile is rewritten, the
# previous one kept as gopcu.cfg.sav, which purge must remove too.
vty "$port" "OsmoPCU> " "=enable" "OsmoPCU# " "=write file" "Configuration saved" >"$tmp/write.log" 2>&1 || true
grep -q "Configuration saved to /etc/osmocom/gopcu.cfg" "$tmp/write.log" || { cat "$tmp/write.log"; fail "write file"; }
[ -e /etc/osmocom/gopcu.cfg.sav ] || fail "write file left no /etc/osmocom/gopcu.cfg.sav"
echo "write file: /etc/osmocom/gopcu.cfg rewritten, gopcu.cfg.sav kept"
kill -TERM "$gp"
rc=0
for _ in $(seq 1 50); do
	kill -0 "$gp" 2>/dev/null || break
	sleep 0.1
done
kill -0 "$gp" 2>/dev/null && fail "gopcu still running 5 s after SIGTERM"
wait "$gp" || rc=$?
[ "$rc" = 0 ] || { cat "$tmp/gopcu.log"; fail "exit code $rc after SIGTERM"; }
# every group with a non-zero counter in the log, the Gb's too
groups="pcu:l1if ns:nse ns:nsvc"
[ "$sgsn" = 0 ] || groups="$groups bssgp:bss_ctx"
for g in $groups; do
	grep -q "counter at exit group=$g " "$tmp/gopcu.log" || { cat "$tmp/gopcu.log"; fail "no counter of group $g at exit"; }
done
echo "SIGTERM: exit code 0, counters at exit of $groups"

purge
[ ! -e /usr/bin/gopcu ] && [ ! -e /etc/osmocom/gopcu.cfg ] && [ ! -e /etc/osmocom/gopcu.cfg.sav ] &&
	[ ! -e /lib/systemd/system/gopcu.service ] || fail "files left after apt-get purge gopcu"
echo "purged: no files left"
echo "test-deb: ok"
