#!/bin/bash
# Measure a running lab-net (tests/labnet/up.sh): for each MS namespace given
# (default: all of $LABNET_RUN/labms.status), an idle ping, then a 200 kB
# download with curl from every MS at once while each MS pings the server.
# Prints one line per MS:
#   MS=<netns> idle_ping_ms=<avg> busy_ping_ms=<avg> busy_ping_max_ms=<max> busy_loss=<n/m> download_s=<t> bytes=<n>
#
#   IDLE_PINGS   number of idle pings (default 10, 0.5 s apart)
#   SIZE         path on the server (default /200k)
#   BEFORE_DL    a command (bash -c) run right before the downloads start,
#                after the busy pings started (compare.sh: metrics and nstat)
#   AFTER_DL     a command run right after every download ended
#
# It keeps each MS's raw figures in $LABNET_RUN/measure/: <netns>.idle and
# <netns>.busy (ping -D output: every reply line starts with its Unix time),
# <netns>.curl (curl's time_total, size, HTTP code) and <netns>.dl, the
# download's start and end as Unix times ("start <t>", "end <t>").
# tests/labnet/cmd/labplot draws the busy pings from these files.
set -uo pipefail

LABNET_RUN="${LABNET_RUN:-${TMPDIR:-/tmp}/gopcu-labnet}"
SERVER_ADDR="${SERVER_ADDR:-10.46.0.1}"
IDLE_PINGS="${IDLE_PINGS:-10}"
SIZE="${SIZE:-/200k}"
TIMEOUT="${TIMEOUT:-300}"

if [ $# -gt 0 ]; then
	mss=("$@")
else
	mapfile -t mss < <(sed -n 's/^MS_NETNS=\([^ ]*\).*/\1/p' "$LABNET_RUN/labms.status")
fi
[ ${#mss[@]} -gt 0 ] || { echo "no MS namespaces (is lab-net up?)" >&2; exit 1; }
out="$LABNET_RUN/measure"
mkdir -p "$out"

avg() { sed -n 's/.*time=\([0-9.]*\) ms/\1/p' "$1" | awk '{s+=$1; n++; if ($1>m) m=$1} END {if (n) printf "%.0f %.0f %d", s/n, m, n; else print "- - 0"}'; }

for ms in "${mss[@]}"; do
	ip netns exec "$ms" ping -n -c "$IDLE_PINGS" -i 0.5 -W 5 "$SERVER_ADDR" > "$out/$ms.idle" 2>&1 &
done
wait

pids=()
for ms in "${mss[@]}"; do
	ip netns exec "$ms" ping -D -n -i 0.5 -W 10 "$SERVER_ADDR" > "$out/$ms.busy" 2>&1 &
	pids+=($!)
done
sleep 1
[ -n "${BEFORE_DL:-}" ] && bash -c "$BEFORE_DL"
cpids=()
for ms in "${mss[@]}"; do
	rm -f "$out/$ms.dl"
	(
		echo "start $(date +%s.%N)" > "$out/$ms.dl"
		timeout "$TIMEOUT" ip netns exec "$ms" curl -s -o /dev/null -w '%{time_total} %{size_download} %{http_code}\n' \
			"http://$SERVER_ADDR$SIZE" > "$out/$ms.curl" 2>&1
		echo "end $(date +%s.%N)" >> "$out/$ms.dl"
	) &
	cpids+=($!)
done
for p in "${cpids[@]}"; do wait "$p"; done
[ -n "${AFTER_DL:-}" ] && bash -c "$AFTER_DL"
sleep 1
for p in "${pids[@]}"; do kill -INT "$p" 2>/dev/null; done
wait

rc=0
for ms in "${mss[@]}"; do
	read -r ia im in <<< "$(avg "$out/$ms.idle")"
	read -r ba bm bn <<< "$(avg "$out/$ms.busy")"
	btx=$(sed -n 's/^\([0-9]*\) packets transmitted.*/\1/p' "$out/$ms.busy")
	read -r t bytes code < "$out/$ms.curl" || true
	[ "${code:-}" = 200 ] || rc=1
	echo "MS=$ms idle_ping_ms=$ia busy_ping_ms=$ba busy_ping_max_ms=$bm busy_loss=$((${btx:-0} - bn))/${btx:-0} download_s=${t:-timeout} bytes=${bytes:-0}"
done
exit $rc
