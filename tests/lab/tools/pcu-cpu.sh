#!/bin/bash
# The issue-16 real-lab row: the PCU's CPU in the idle lab cell (4 PDCHs,
# osmo-bts-virtual's paced RTS_REQs, BVC up at osmo-sgsn), osmo-pcu and
# gopcu alternating, each in a fresh lab.
#
#   tools/pcu-cpu.sh GOPCU_BINARY [seconds=30] [runs=3]
#
# Per run: CPU (the sum of the PCU's threads' run time from
# /proc/PID/task/*/schedstat, in ns, not 10 ms ticks), the times its
# threads were put on a CPU (schedstat's third field: wake-ups and
# preemptions), and VmHWM. Needs root (up.sh makes a network namespace).
set -euo pipefail
LAB_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
GOPCU="${1:?usage: pcu-cpu.sh GOPCU_BINARY [seconds] [runs]}"
DUR="${2:-30}"
RUNS="${3:-3}"
[ -x "$GOPCU" ] || { echo "pcu-cpu: $GOPCU is not executable" >&2; exit 2; }

sample() { cat /proc/"$1"/task/*/schedstat | awk '{s += $1; n += $3} END {print s, n}'; }

one() { # one PCU, one fresh lab
	local which=$1 run
	run=$(mktemp -d)
	local env=(LAB_RUN="$run" LAB_NETNS="pcucpu-$$" LAB_TIMEOUT=30)
	if [ "$which" = gopcu ]; then
		env+=(PCU_CMD="$GOPCU --pcu-sock \"\$PCU_SOCK\"")
	fi
	if ! (cd "$LAB_DIR" && env "${env[@]}" ./up.sh >"$run/up.out" 2>&1); then
		echo "pcu-cpu: up.sh failed for $which:" >&2
		tail -5 "$run/up.out" >&2
		(cd "$LAB_DIR" && env "${env[@]}" ./down.sh >/dev/null 2>&1) || true
		return 1
	fi
	sleep 5 # past start-up: NS and BVC up, PDCHs active
	local pid a b
	pid=$(awk '$1 == "pcu" {print $2}' "$run/pids")
	a=$(sample "$pid")
	sleep "$DUR"
	b=$(sample "$pid")
	local hwm
	hwm=$(awk '/^VmHWM/ {print $2}' /proc/"$pid"/status)
	echo "$which $a $b $hwm" | awk -v d="$DUR" '{printf "%-9s CPU %6.1f ms in %d s (%.2f ms/s), on CPU %5d times, VmHWM %.1f MB\n", $1, ($4-$2)/1e6, d, ($4-$2)/1e6/d, $5-$3, $6/1024}'
	(cd "$LAB_DIR" && env "${env[@]}" ./down.sh >/dev/null 2>&1) || true
	rm -rf "$run"
}

for i in $(seq "$RUNS"); do
	if [ $((i % 2)) = 1 ]; then one osmo-pcu; one gopcu; else one gopcu; one osmo-pcu; fi
done
