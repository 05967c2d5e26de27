#!/bin/bash
# Run lab-net once per scenario and MS count and print the figures as a
# markdown table (root; a few minutes per row). Scenarios:
#   gopcu-off    gopcu, configs/gopcu-aqm-off.cfg   (no CoDel, FIFO per class)
#   gopcu-osmo   gopcu, configs/gopcu-osmo-codel.cfg (osmo-pcu's CoDel, FIFO per class)
#   gopcu        gopcu's default (RFC 8289 CoDel per flow, flow queueing)
#   osmo-pcu     Debian's osmo-pcu 1.1.0 with tests/lab/configs/osmo-pcu.cfg
#
#   tests/labnet/compare.sh "gopcu gopcu-osmo" "1 2"
#
# Each row's measure.sh files (the ping -D series and download times that
# tests/labnet/cmd/labplot draws) stay in $LABNET_RUN/compare-<scenario>-<MSs>/.
set -uo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
ROOT="$(cd "$HERE/../.." && pwd)"
SCEN="${1:-gopcu-off gopcu-osmo gopcu osmo-pcu}"
COUNTS="${2:-1 2}"
export LABNET_RUN="${LABNET_RUN:-${TMPDIR:-/tmp}/gopcu-labnet}"
mkdir -p "$LABNET_RUN"
(cd "$ROOT" && CGO_ENABLED=0 go build -o "$LABNET_RUN/gopcu-compare" ./cmd/gopcu) || exit 1

echo "| PCU / queue | MSs | idle ping avg (ms) | busy ping avg / max (ms) | busy pings lost | 200 kB download (s) |"
echo "|---|---|---|---|---|---|"
for s in $SCEN; do
	case "$s" in
	gopcu-off) cmd="$LABNET_RUN/gopcu-compare --pcu-sock \"\$PCU_SOCK\" -c $HERE/configs/gopcu-aqm-off.cfg"; name="gopcu, AQM off" ;;
	gopcu-osmo) cmd="$LABNET_RUN/gopcu-compare --pcu-sock \"\$PCU_SOCK\" -c $HERE/configs/gopcu-osmo-codel.cfg"; name="gopcu, osmo CoDel" ;;
	gopcu) cmd="$LABNET_RUN/gopcu-compare --pcu-sock \"\$PCU_SOCK\""; name="gopcu default (CoDel per flow)" ;;
	osmo-pcu) cmd="osmo-pcu -c configs/osmo-pcu.cfg"; name="osmo-pcu 1.1.0 (no CoDel)" ;;
	*) echo "unknown scenario $s" >&2; exit 1 ;;
	esac
	for n in $COUNTS; do
		"$HERE/down.sh" >/dev/null 2>&1
		if ! PCU_CMD="$cmd" MS_COUNT="$n" "$HERE/up.sh" > "$LABNET_RUN/compare-up.out" 2>&1; then
			echo "| $name | $n | lab-net did not come up: $(tail -1 "$LABNET_RUN/compare-up.out") | | | |"
			continue
		fi
		rm -rf "$LABNET_RUN/measure" "$LABNET_RUN/compare-$s-$n"
		out=$("$HERE/measure.sh" 2>&1)
		echo "$out" > "$LABNET_RUN/compare-$s-$n.txt"
		cp -r "$LABNET_RUN/measure" "$LABNET_RUN/compare-$s-$n"
		idle=$(echo "$out" | sed -n 's/.*idle_ping_ms=\([^ ]*\).*/\1/p' | paste -sd/)
		busy=$(echo "$out" | sed -n 's/.*busy_ping_ms=\([^ ]*\) busy_ping_max_ms=\([^ ]*\).*/\1 \/ \2/p' | paste -sd';' | sed 's/;/; /g')
		loss=$(echo "$out" | sed -n 's/.*busy_loss=\([^ ]*\).*/\1/p' | paste -sd' ')
		dl=$(echo "$out" | sed -n 's/.*download_s=\([^ ]*\).*/\1/p' | awk '{ if ($1 ~ /^[0-9.]+$/) printf "%s%.1f", sep, $1; else printf "%s%s", sep, $1; sep="; " }')
		echo "| $name | $n | $idle | $busy | $loss | $dl |"
	done
done
"$HERE/down.sh" >/dev/null 2>&1
