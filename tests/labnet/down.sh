#!/bin/bash
# Remove everything tests/labnet/up.sh made: the MSs (labms detaches them
# and deletes their namespaces), the HTTP server, osmo-ggsn and the
# capture (by the PIDs up.sh recorded, after checking /proc/PID/cmdline),
# then the RAN and SGSN (tests/lab/down.sh) and the server namespace.
set -uo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
. "$HERE/env.sh"
PIDS="$LABNET_RUN/pids"
log() { echo "[lab-net-down] $*" >&2; }

stop() { # name pid signal
	local name="$1" pid="$2" sig="$3" j
	kill -0 "$pid" 2>/dev/null || return 0
	local comm
	comm=$(tr '\0' ' ' < "/proc/$pid/cmdline" 2>/dev/null || true)
	case "$name" in
	http) [[ "$comm" == *http.server* ]] ;;
	*) [[ "$comm" == *"$name"* ]] ;;
	esac || { log "$name pid $pid is now '$comm': skipping"; return 0; }
	kill -s "$sig" "$pid" 2>/dev/null
	for ((j = 0; j < 100; j++)); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
	if kill -0 "$pid" 2>/dev/null; then
		log "$name ($pid) still alive after 10 s: SIGKILL"
		kill -s KILL "$pid" 2>/dev/null
	fi
	log "stopped $name ($pid)"
}

if [ -s "$PIDS" ]; then
	# labms first (it detaches and removes the MS namespaces), tshark last
	for want in labms http osmo-ggsn osmo-hlr tshark; do
		while read -r name pid; do
			[ "$name" = "$want" ] || continue
			sig=TERM; [ "$name" = tshark ] && sig=INT
			stop "$name" "$pid" "$sig"
		done < "$PIDS"
	done
	: > "$PIDS"
fi

LAB_RUN="$LABNET_RUN/lab" LAB_NETNS="$LAB_NETNS" "$HERE/../lab/down.sh"

# MS namespaces labms announced (normally already gone) and the server's
if [ -f "$LABNET_RUN/labms.status" ]; then
	for ns in $(sed -n 's/^MS_NETNS=\([^ ]*\).*/\1/p' "$LABNET_RUN/labms.status"); do
		[ -e "/run/netns/$ns" ] && ip netns del "$ns" && log "deleted netns $ns"
	done
fi
if [ -f "$LABNET_RUN/netns" ]; then
	ns=$(cat "$LABNET_RUN/netns")
	[ -e "/run/netns/$ns" ] && ip netns del "$ns" && log "deleted netns $ns"
	rm -f "$LABNET_RUN/netns"
fi
exit 0
