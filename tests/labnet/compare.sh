#!/bin/bash
# Run lab-net once per scenario, MS count, ECN setting and run, keep every
# row's files in a directory of its own and print the rows as a markdown
# table (root; one to two minutes per row). Scenarios:
#   gopcu-off       gopcu, configs/gopcu-aqm-off.cfg    (no AQM, FIFO per class)
#   gopcu-osmo      gopcu, configs/gopcu-osmo-codel.cfg (osmo-pcu's CoDel, FIFO per class)
#   gopcu-codel     gopcu, configs/gopcu-codel-fifo.cfg (RFC 8289 CoDel, one FIFO)
#   gopcu-pie       gopcu, configs/gopcu-pie-fifo.cfg   (PIE, one FIFO)
#   gopcu           gopcu, configs/gopcu-default.cfg    (the default: SFQ-RED)
#   gopcu-fq-codel  gopcu, configs/gopcu-fq-codel.cfg   (CoDel per flow: the default before SFQ-RED)
#   gopcu-fq-pie    gopcu, configs/gopcu-fq-pie.cfg     (PIE per flow)
#   gopcu-sfq-red   gopcu, configs/gopcu-sfq-red.cfg    (RED per flow)
#   osmo-pcu        Debian's osmo-pcu 1.1.0 with tests/lab/configs/osmo-pcu.cfg
#   gopcu-NAME      gopcu with configs/gopcu-NAME.cfg (any other file there)
#
#   tests/labnet/compare.sh "gopcu gopcu-off" "1 2"
#   ECN="0 1" RUNS=3 tests/labnet/compare.sh gopcu 1
#   CIPHER=gea3 tests/labnet/compare.sh "gopcu gopcu-off osmo-pcu" "1 2"
#
# Environment:
#   ECN      "0", "1" or "0 1" (default 0). 1: net.ipv4.tcp_ecn=1 in the
#            server's and every phone's namespace (both ends negotiate ECN),
#            gopcu with its default "queue ecn". 0: Linux's default
#            tcp_ecn=2 (a server accepts ECN, nobody asks for it) and every
#            gopcu config gets "no queue ecn".
#   CIPHER   "" (default) or gea3: tests/labnet/up.sh's LABNET_CIPHER.
#   CC       the server's TCP congestion control (default cubic, Linux's
#            default; up.sh's SERVER_CC). CC=host: the one the server's
#            namespace inherits from the host's net.ipv4.tcp_congestion_control.
#   RUNS     runs per row (default 1).
#   CAPTURE  1 (default): the Gb/GTP/Abis pcap (lab.pcapng) and the phones'
#            GSMTAP pcap (um.pcap) in every row's directory; 0: none.
#   ROWS     where the row directories go (default $LABNET_RUN/rows).
#
# Each row's directory, $ROWS/<scenario>-<MSs>ms-<ecn|noecn>-<plain|gea3>-r<k>
# (k: the first unused run number, so no row overwrites another), holds
#   row.env                   scenario, MSs, ECN, cipher, run, commit, time
#   <netns>.idle/.busy/.curl/.dl   measure.sh's files (labplot reads them)
#   measure.out, up.out       measure.sh's and up.sh's output
#   metrics.before/.after     gopcu's /metrics right before the downloads
#                             started and right after they ended
#   sojourn.ts                every second of the download: Unix time and
#                             gopcu_llc_sojourn_seconds' sum and count
#   nstat.before/.after       nstat -asz in the server's namespace (TcpRetransSegs)
#   ss.txt                    ss -tin in the server's namespace 3 s into the
#                             download (congestion control, cwnd, RTT)
#   sysctl.txt                net.ipv4.tcp_ecn and tcp_congestion_control of
#                             the server's and the phones' namespaces (the
#                             server's sockets use CC: see ss.txt)
#   ecn.txt                   the server's TCP data packets on GTP by the
#                             inner IP header's ECN field (tshark, lab.pcapng)
#   pcu.cfg                   the gopcu config file of the row
#   logs/                     pcu, osmo-bts-virtual, osmo-bsc, osmo-sgsn,
#                             osmo-ggsn, osmo-hlr and labms logs
#   lab.pcapng, um.pcap       the captures (CAPTURE=1)
#   ul-trace.txt              every phone's uplink steps (labms -ul-trace)
#   gb-icmp.txt               the pings on Gb (CAPTURE=1); with ul-trace.txt
#                             tests/labnet/cmd/labping splits each busy ping
# tests/labnet/cmd/labtable makes the table from these directories.
set -uo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
. "$HERE/env.sh"
export LABNET_RUN LAB_NETNS SERVER_NETNS
SCEN="${1:-gopcu-off gopcu-osmo gopcu osmo-pcu}"
COUNTS="${2:-1 2}"
ECN="${ECN:-0}"
CIPHER="${CIPHER:-}"
RUNS="${RUNS:-1}"
CC="${CC:-cubic}"
export CAPTURE="${CAPTURE:-1}"
ROWS="${ROWS:-$LABNET_RUN/rows}"
METRICS_ADDR=127.0.0.1:9465
mkdir -p "$LABNET_RUN" "$ROWS"
(cd "$ROOT" && CGO_ENABLED=0 go build -o "$LABNET_RUN/gopcu-compare" ./cmd/gopcu) || exit 1
(cd "$ROOT" && go build -o "$LABNET_RUN/labtable" ./tests/labnet/cmd/labtable) || exit 1
commit=$(git -C "$ROOT" rev-parse --short HEAD 2>/dev/null || echo unknown)
[ -n "$(git -C "$ROOT" status --porcelain -- . 2>/dev/null)" ] && commit="$commit+dirty"

scrape() { ip netns exec "$LAB_NETNS" curl -s -m 2 "http://$METRICS_ADDR/metrics"; }

# The hooks measure.sh runs around the downloads (bash -c, exported below).
hook_before() {
	local m="$LABNET_RUN/measure"
	ip netns exec "$SERVER_NETNS" nstat -asz > "$m/nstat.before" 2>&1
	[ "$GOPCU" = 1 ] && scrape > "$m/metrics.before"
	(sleep 3; ip netns exec "$SERVER_NETNS" ss -tin > "$m/ss.txt" 2>&1) &
	if [ "$GOPCU" = 1 ]; then
		(
			while :; do
				t=$(date +%s.%N)
				scrape | awk -v t="$t" '/^gopcu_llc_sojourn_seconds_sum /{s=$2} /^gopcu_llc_sojourn_seconds_count /{c=$2} END{if (c != "") print t, s, c}'
				sleep 1
			done
		) > "$m/sojourn.ts" 2>/dev/null &
		echo $! > "$m/sojourn.pid"
	fi
	return 0
}
hook_after() {
	local m="$LABNET_RUN/measure"
	if [ -s "$m/sojourn.pid" ]; then
		kill "$(cat "$m/sojourn.pid")" 2>/dev/null
		rm -f "$m/sojourn.pid"
	fi
	[ "$GOPCU" = 1 ] && scrape > "$m/metrics.after"
	ip netns exec "$SERVER_NETNS" nstat -asz > "$m/nstat.after" 2>&1
	return 0
}
export -f scrape hook_before hook_after
export METRICS_ADDR

rows=()
for s in $SCEN; do
	cfg=
	case "$s" in
	gopcu-off) cfg=gopcu-aqm-off.cfg ;;
	gopcu-osmo) cfg=gopcu-osmo-codel.cfg ;;
	gopcu-codel) cfg=gopcu-codel-fifo.cfg ;;
	gopcu-pie) cfg=gopcu-pie-fifo.cfg ;;
	gopcu) cfg=gopcu-default.cfg ;;
	gopcu-fq-codel) cfg=gopcu-fq-codel.cfg ;;
	gopcu-fq-pie) cfg=gopcu-fq-pie.cfg ;;
	gopcu-sfq-red) cfg=gopcu-sfq-red.cfg ;;
	osmo-pcu) ;;
	gopcu-*) # gopcu-NAME: gopcu with configs/gopcu-NAME.cfg (a variant under study)
		cfg=$s.cfg
		[ -f "$HERE/configs/$cfg" ] || { echo "unknown scenario $s (no configs/$cfg)" >&2; exit 1; } ;;
	*) echo "unknown scenario $s" >&2; exit 1 ;;
	esac
	for n in $COUNTS; do
		for e in $ECN; do
			for ((r = 0; r < RUNS; r++)); do
				base="$s-${n}ms-$([ "$e" = 1 ] && echo ecn || echo noecn)-${CIPHER:-plain}"
				k=1
				while [ -e "$ROWS/$base-r$k" ]; do k=$((k + 1)); done
				dir="$ROWS/$base-r$k"
				mkdir -p "$dir/logs"
				if [ -n "$cfg" ]; then
					export GOPCU=1
					cp "$HERE/configs/$cfg" "$dir/pcu.cfg"
					[ "$e" = 1 ] || echo " no queue ecn" >> "$dir/pcu.cfg"
					cmd="$LABNET_RUN/gopcu-compare --pcu-sock \"\$PCU_SOCK\" -c $dir/pcu.cfg --metrics-addr $METRICS_ADDR"
				else
					export GOPCU=0
					cmd="osmo-pcu -c configs/osmo-pcu.cfg"
				fi
				printf 'scenario=%s\nms=%s\necn=%s\ncipher=%s\ncc=%s\nrun=%s\ncommit=%s\nstarted=%s\npcu_cmd=%s\n' \
					"$s" "$n" "$e" "${CIPHER:-none}" "$CC" "$k" "$commit" "$(date -u +%FT%TZ)" "$cmd" > "$dir/row.env"
				echo "[compare] $dir" >&2
				"$HERE/down.sh" >/dev/null 2>&1
				rm -rf "$LABNET_RUN/measure"
				scc=$CC; [ "$CC" = host ] && scc=
				if LABMS_ARGS="${LABMS_ARGS:-} -ul-trace $dir/ul-trace.txt" SERVER_CC="$scc" LABNET_CIPHER="$CIPHER" PCU_CMD="$cmd" MS_COUNT="$n" "$HERE/up.sh" > "$dir/up.out" 2>&1; then
					mss=$(sed -n 's/^MS_NETNS=\([^ ]*\).*/\1/p' "$LABNET_RUN/labms.status")
					if [ "$e" = 1 ]; then
						for ns in "$SERVER_NETNS" $mss; do ip netns exec "$ns" sysctl -qw net.ipv4.tcp_ecn=1; done
					fi
					for ns in "$SERVER_NETNS" $mss; do
						echo "$ns tcp_ecn=$(ip netns exec "$ns" sysctl -n net.ipv4.tcp_ecn) cc=$(ip netns exec "$ns" sysctl -n net.ipv4.tcp_congestion_control)"
					done > "$dir/sysctl.txt"
					mkdir -p "$LABNET_RUN/measure"
					BEFORE_DL=hook_before AFTER_DL=hook_after "$HERE/measure.sh" > "$dir/measure.out" 2>&1
					echo "measure_rc=$?" >> "$dir/row.env"
					cp -r "$LABNET_RUN/measure/." "$dir/"
				else
					echo "up_failed=1" >> "$dir/row.env"
					tail -3 "$dir/up.out" >&2
				fi
				"$HERE/down.sh" > "$dir/down.out" 2>&1
				for f in "$LABNET_RUN"/lab/*.log "$LABNET_RUN"/*.log; do
					[ -f "$f" ] && cp "$f" "$dir/logs/"
				done
				[ -f "$LABNET_RUN/lab/lab.pcapng" ] && cp "$LABNET_RUN/lab/lab.pcapng" "$dir/"
				[ -f "$LABNET_RUN/um.pcap" ] && cp "$LABNET_RUN/um.pcap" "$dir/"
				if [ -f "$dir/lab.pcapng" ] && command -v tshark >/dev/null; then
					timeout 120 tshark -r "$dir/lab.pcapng" -Y 'gtp && tcp.len > 0 && ip.src == 10.46.0.1' \
						-T fields -e ip.dsfield.ecn 2>/dev/null | sort | uniq -c > "$dir/ecn.txt"
					# the pings on Gb (labping): time, NS port, ICMP type and
					# sequence, inner addresses
					timeout 120 tshark -r "$dir/lab.pcapng" -d udp.port==23000,gprs-ns -Y 'icmp && udp.port == 23000' \
						-T fields -E separator=' ' -e frame.time_epoch -e udp.srcport -e icmp.type -e icmp.seq -e ip.src -e ip.dst \
						2>/dev/null > "$dir/gb-icmp.txt"
				fi
				echo "ended=$(date -u +%FT%TZ)" >> "$dir/row.env"
				rows+=("$dir")
				"$LABNET_RUN/labtable" -runs "$dir" | tail -1 >&2
			done
		done
	done
done
"$HERE/down.sh" >/dev/null 2>&1
"$LABNET_RUN/labtable" -runs "${rows[@]}"
