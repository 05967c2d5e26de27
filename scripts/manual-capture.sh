#!/usr/bin/env bash
# Captures the real `show` outputs, /metrics lines and log lines that
# docs/manual.md quotes: gopcu with osmo-pcu's Debian config against the
# MS emulator (4 MSs sending uplink data, cmd/msemu) and the SGSN emulator
# echoing it back as downlink data (internal/emu/sgsnemu). Loopback only, no root.
#
#   scripts/manual-capture.sh [OUTDIR]     (default /tmp/gopcu-manual)
#
# CONFIG (default packaging/examples/osmo-pcu.cfg), MSEMU_ARGS (default
# "-ms 4"), CAPTURE_AFTER (seconds, default 15) change the run.
set -euo pipefail
cd "$(dirname "$0")/.."
out="${1:-/tmp/gopcu-manual}"
mkdir -p "$out"
bin="$out/bin"
CGO_ENABLED=0 go build -ldflags "$(scripts/ldflags.sh)" -o "$bin/" ./cmd/gopcu ./cmd/msemu ./cmd/sgsnemu
sock="$out/pcu_bts"
pids=()
cleanup() { for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done; }
trap cleanup EXIT
"$bin/sgsnemu" -listen 127.0.0.1:23000 -echo >"$out/sgsnemu.log" 2>&1 &
pids+=($!)
# shellcheck disable=SC2086
"$bin/msemu" -path "$sock" ${MSEMU_ARGS:--ms 4} -ul 600000 -duration 60s >"$out/msemu.log" 2>&1 &
pids+=($!)
sleep 0.5
"$bin/gopcu" -c "${CONFIG:-packaging/examples/osmo-pcu.cfg}" --pcu-sock "$sock" --vty-port 4240 \
	--metrics-addr 127.0.0.1:9240 >"$out/gopcu.log" 2>&1 &
gp=$!
pids+=($gp)
sleep "${CAPTURE_AFTER:-15}"
vty() { tests/lab/tools/vty.py 4240 "$@"; }
# show uptime and show pid exist on the VIEW node only (as in osmo-pcu);
# vty.py enters ENABLE first, so they are sent by hand.
python3 - >"$out/view.txt" <<'PY' || true
import socket, time
s = socket.create_connection(("127.0.0.1", 4240))
for c in (b"show uptime\r", b"show pid\r"):
    time.sleep(0.3)
    s.sendall(c)
time.sleep(0.5)
s.settimeout(1)
print(s.recv(65536).decode("utf-8", "replace"))
PY
vty "show version" "show bts statistics" "show bts pdch" "show tbf all" \
	"show ms all" "show llc-queue" "show bts-timer" "show timer" "show stats level global" \
	"show rate-counters skip-zero" "show ns entities" "show ns binds" "show ns persistent" \
	"show logging vty" "show running-config" "show cpu-sched threads" "show fsm all" \
	"show fsm-instances all" "show alarms" "show vty-attributes" "show startup-config" \
	"show talloc-context application brief" >"$out/show.txt" 2>&1 || true
tlli=$(grep -m1 -o 'MS TLLI=[0-9a-f]*' "$out/show.txt" | cut -d= -f2 || true)
imsi=$(grep -m1 -o "IMSI=[0-9][0-9]*" "$out/show.txt" | cut -d= -f2 || true)
imsi=${imsi:-901700000100000} # msemu's first IMSI (unknown to the PCU until the SGSN names it)
vty "show ms tlli $tlli" "show ms imsi $imsi" "show tbf ccch" "show tbf pacch" \
	"show ns nsei 101 stats" "show stats" "show asciidoc counters" "show online-help" >"$out/show2.txt" 2>&1 || true
curl -s 127.0.0.1:9240/metrics >"$out/metrics.txt"
kill -USR1 "$gp"
sleep 0.5
kill -TERM "$gp"
wait "$gp" || true
echo "captured into $out"
