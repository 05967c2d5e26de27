#!/bin/bash
# Consecutive two-phone runs of the real network and their verdict
# (issue: "a phone that stalls"): each row passes when both phones finish
# their 200 kB download, neither phone's throughput is below 90 % of the
# other's, and neither loses more than 5 % of its busy pings.
#
#   tests/labnet/reliability.sh gopcu 20          # 20 runs, then the summary
#   tests/labnet/reliability.sh osmo-pcu 20       # the differential
#   tests/labnet/reliability.sh -summary DIR...   # the summary of existing rows
#
# The runs are tests/labnet/compare.sh's rows (root; about two minutes each),
# kept in $ROWS (default $LABNET_RUN/reliability). The summary is one line per
# row and a last line with the passes; docs/reliability.md has one.
set -uo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"

summary() {
	local pass=0 n=0
	printf '| run | download ms0 / ms1 (s) | throughput ratio | busy ping loss ms0 / ms1 | busy ping mean ms0 / ms1 (ms) | verdict |\n|---|---|---|---|---|---|\n'
	for d in "$@"; do
		[ -d "$d" ] || continue
		n=$((n + 1))
		if [ ! -f "$d/measure.out" ]; then
			# the lab did not come up (up.out says why): the row fails
			echo "| $(basename "$d") | lab not up | - | - | - | FAIL |"
			continue
		fi
		line=$(awk -v run="$(basename "$d")" 'BEGIN { k = 0 }
			/^MS=/ {
				for (i = 1; i <= NF; i++) { split($i, kv, "="); v[kv[1]] = kv[2] }
				split(v["busy_loss"], l, "/")
				loss[k] = (l[2] > 0) ? 100 * l[1] / l[2] : 100
				t[k] = v["download_s"]; b[k] = v["bytes"]; p[k] = v["busy_ping_ms"]
				tp[k] = (t[k] + 0 > 0 && b[k] + 0 > 0) ? b[k] / t[k] : 0
				ok[k] = (b[k] == 204800)
				k++
			}
			END {
				if (k != 2) { printf "| %s | %d phones measured | - | - | - | FAIL |\n", run, k; exit }
				lo = tp[0] < tp[1] ? tp[0] : tp[1]; hi = tp[0] < tp[1] ? tp[1] : tp[0]
				r = hi > 0 ? lo / hi : 0
				verdict = (ok[0] && ok[1] && r >= 0.9 && loss[0] <= 5 && loss[1] <= 5) ? "pass" : "FAIL"
				printf "| %s | %.1f / %.1f | %.2f | %.1f %% / %.1f %% | %s / %s | %s |\n", run, t[0], t[1], r, loss[0], loss[1], p[0], p[1], verdict
			}' "$d/measure.out")
		echo "$line"
		case "$line" in *"| pass |") pass=$((pass + 1)) ;; esac
	done
	echo
	echo "$pass of $n runs passed"
}

if [ "${1:-}" = -summary ]; then
	shift
	summary "$@"
	exit
fi
scen="${1:-gopcu}"
runs="${2:-20}"
export LABNET_RUN="${LABNET_RUN:-${TMPDIR:-/tmp}/gopcu-labnet}"
export ROWS="${ROWS:-$LABNET_RUN/reliability}"
RUNS="$runs" "$HERE/compare.sh" "$scen" 2 >/dev/null
summary "$ROWS/$scen"-2ms-*
