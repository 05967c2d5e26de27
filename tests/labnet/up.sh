#!/bin/bash
# Bring up the whole Osmocom GPRS network on one machine (root):
#   osmo-bsc + osmo-bts-virtual + PCU + osmo-sgsn      (tests/lab/up.sh, netns $LAB_NETNS)
#   osmo-ggsn (GTP on 127.0.0.2 in $LAB_NETNS; its TUN moved to $SERVER_NETNS)
#   an HTTP server in $SERVER_NETNS on $SERVER_ADDR:80 serving /200k
#   labms: $MS_COUNT emulated MSs on virtual Um; each attaches, activates a
#          PDP context and gets netns ${MS_PREFIX}<k> with a TUN "gprs0"
# Exits 0 once every MS has its PDP context, printing MS_NETNS=... lines and
# SERVER_ADDR=... (its HTTP server serves /200k and /50k); down.sh removes everything.
#
# Environment (all optional):
#   PCU_CMD      the PCU (default: gopcu built from this tree); e.g.
#                PCU_CMD="osmo-pcu -c configs/osmo-pcu.cfg" for Debian's osmo-pcu
#   MS_COUNT     number of MSs (default 1)
#   LABNET_RUN   run dir (default ${TMPDIR:-/tmp}/gopcu-labnet)
#   LAB_NETNS    namespace of the RAN, SGSN and GGSN (default gopcu-labnet)
#   SERVER_NETNS namespace of the server (default gopcu-labnet-server)
#   MS_PREFIX    MS namespaces are ${MS_PREFIX}0.. (default gopcu-ms)
#   LABNET_TIMEOUT seconds for the MSs to come up (default 90)
#   LABMS_ARGS   more labms flags (e.g. -debug)
#   SERVER_CC    the HTTP server's TCP congestion control (TCP_CONGESTION on
#                its listening socket, inherited by every connection; root
#                may pick one outside net.ipv4.tcp_allowed_congestion_control,
#                which a namespace's sysctl may not). Default: the namespace's,
#                inherited from the host's net.ipv4.tcp_congestion_control
#   LABNET_AUTH=hlr  authenticate the MSs: osmo-hlr (configs/osmo-hlr.cfg)
#                with one subscriber per MS (USIM: MILENAGE, K and OPc of
#                TS 35.208 test set 1, below), osmo-sgsn with
#                configs/osmo-sgsn-hlr.cfg (auth-policy remote, authentication
#                required). Default: auth-policy accept-all, no HLR
#   LABNET_CIPHER=gea3  cipher LLC with GEA3: implies LABNET_AUTH=hlr; osmo-sgsn
#                gets "encryption gea 3" (only GEA3: an MS without it is
#                rejected), the MSs announce GEA/3 (labms -gea3) and cipher with
#                the Kc of their USIM's authentication; labms fails unless the
#                SGSN selected GEA3. Default: no ciphering (GEA0)
#   LAB_RT=0     leave the scheduling alone. By default osmo-bts-virtual, the PCU
#                and labms run SCHED_FIFO (chrt): osmo-bts-virtual sends the PCU
#                its RTS 5 frames ahead and transmits nothing for a block whose
#                DATA_REQ came later, so on a busy machine blocks go missing
#   CAPTURE=1    pcaps: $LABNET_RUN/lab/lab.pcapng (the lab namespace's lo: Gb,
#                GTP, Abis; not the GSMTAP multicast) and $LABNET_RUN/um.pcap
#                (every virtual Um frame labms saw or sent, GSMTAP)
set -euo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
. "$HERE/env.sh"
MS_PREFIX="${MS_PREFIX:-gopcu-ms}"
MS_COUNT="${MS_COUNT:-1}"
LABNET_TIMEOUT="${LABNET_TIMEOUT:-90}"
SERVER_ADDR=10.46.0.1     # on the GGSN's TUN, in the server namespace
SIM_K=465b5ce8b199b49faa5f0a2ee238a6bc   # test USIM (TS 35.208 §4.3 test set 1)
SIM_OPC=cd63cb71954a9f4e48a5994e37a02baf
IMSI_BASE=901700000000001 # labms -imsi default: MS k has IMSI_BASE+k
MS_POOL=10.45.0.0/24      # "ip prefix dynamic" in configs/osmo-ggsn.cfg

log() { echo "[lab-net] $*" >&2; }
die() { echo "[lab-net] ERROR: $*" >&2; exit 1; }

[ "$(id -u)" = 0 ] || die "needs root (network namespaces, TUN devices)"
for b in osmo-sgsn osmo-bsc osmo-bts-virtual osmo-ggsn ip gcc python3 go; do
	command -v "$b" >/dev/null || die "$b not found (apt-get install -y osmo-bts osmo-bsc osmo-sgsn osmo-ggsn iproute2 gcc python3; Go for gopcu and labms)"
done
[ -c /dev/net/tun ] || die "/dev/net/tun missing (TUN devices needed for osmo-ggsn and the MSs)"
if [ "${CAPTURE:-0}" = 1 ]; then command -v tshark >/dev/null || die "CAPTURE=1 needs tshark"; fi
case "${LABNET_CIPHER:-}" in
"") ;;
gea3) [ "${LABNET_AUTH:-hlr}" = hlr ] || die "LABNET_CIPHER=gea3 needs LABNET_AUTH=hlr (osmo-sgsn ciphers only with authentication)"
	LABNET_AUTH=hlr ;;
*) die "LABNET_CIPHER=$LABNET_CIPHER: only gea3 is known" ;;
esac
case "${LABNET_AUTH:-}" in
"") ;;
hlr) command -v osmo-hlr >/dev/null || die "LABNET_AUTH=hlr needs osmo-hlr (apt-get install -y osmo-hlr)" ;;
*) die "LABNET_AUTH=$LABNET_AUTH: only hlr is known" ;;
esac

mkdir -p "$LABNET_RUN"
PIDS="$LABNET_RUN/pids"
if [ -s "$PIDS" ]; then
	while read -r name pid; do
		kill -0 "$pid" 2>/dev/null && die "lab-net already running ($name pid $pid); run down.sh first"
	done < "$PIDS"
fi
: > "$PIDS"
rm -f "$LABNET_RUN"/*.log "$LABNET_RUN"/labms.status "$LABNET_RUN"/*.pcap
for ns in "$SERVER_NETNS" $(seq -f "$MS_PREFIX%g" 0 $((MS_COUNT - 1))); do
	[ -e "/run/netns/$ns" ] && die "netns $ns exists; run down.sh first"
done
echo "$SERVER_NETNS" > "$LABNET_RUN/netns"

# --- binaries ------------------------------------------------------------------
mkdir -p "$LABNET_RUN/bin"
(cd "$ROOT" && go build -o "$LABNET_RUN/bin/labms" ./tests/labnet/cmd/labms) || die "go build labms"
if [ -z "${PCU_CMD:-}" ]; then
	(cd "$ROOT" && CGO_ENABLED=0 go build -o "$LABNET_RUN/bin/gopcu" ./cmd/gopcu) || die "go build gopcu"
	PCU_CMD="$LABNET_RUN/bin/gopcu --pcu-sock \"\$PCU_SOCK\""
fi

NSX=(ip netns exec "$LAB_NETNS")
start() { # name netns cmd...
	local name="$1" ns="$2"; shift 2
	( cd "$LABNET_RUN" && exec ip netns exec "$ns" "$@" ) > "$LABNET_RUN/$name.log" 2>&1 < /dev/null &
	echo "$name $!" >> "$PIDS"
	log "started $name pid $!"
	eval "PID_${name//-/_}=$!"
}

# --- HLR (LABNET_AUTH=hlr): in the lab namespace before osmo-sgsn connects ---------
sgsn_cfg=()
if [ "${LABNET_AUTH:-}" = hlr ]; then
	mkdir -p "$LABNET_RUN/lab"
	if [ ! -e "/run/netns/$LAB_NETNS" ]; then
		ip netns add "$LAB_NETNS"
		echo "$LAB_NETNS" > "$LABNET_RUN/lab/netns_created" # tests/lab/down.sh removes it
	fi
	ip -n "$LAB_NETNS" link set lo up
	rm -f "$LABNET_RUN/hlr.db"
	cp "$HERE/configs/osmo-hlr.cfg" "$LABNET_RUN/osmo-hlr.cfg"
	start osmo-hlr "$LAB_NETNS" osmo-hlr -c "$LABNET_RUN/osmo-hlr.cfg" -l "$LABNET_RUN/hlr.db"
	for ((i = 0; i < 100; i++)); do
		kill -0 "$PID_osmo_hlr" 2>/dev/null || die "osmo-hlr died, see $LABNET_RUN/osmo-hlr.log"
		"${NSX[@]}" bash -c "exec 3<>/dev/tcp/127.0.0.1/4258" 2>/dev/null && break
		sleep 0.1
	done
	cmds=()
	for ((k = 0; k < MS_COUNT; k++)); do
		imsi=$(printf '%015d' $((IMSI_BASE + k)))
		cmds+=("subscriber imsi $imsi create" "subscriber imsi $imsi update aud3g milenage k $SIM_K opc $SIM_OPC")
	done
	out=$("${NSX[@]}" python3 "$ROOT/tests/lab/tools/vty.py" 4258 "${cmds[@]}" 2>&1) || die "osmo-hlr VTY: $out"
	if grep -qiE '^% *(unknown|error|invalid|incomplete|ambiguous|cannot|no )' <<< "$out"; then die "osmo-hlr VTY: $out"; fi
	sgsn_cfg=(LAB_SGSN_CFG="$HERE/configs/osmo-sgsn-hlr.cfg")
	LABMS_ARGS="-sim-k $SIM_K -sim-opc $SIM_OPC ${LABMS_ARGS:-}"
	log "osmo-hlr: $MS_COUNT subscribers with MILENAGE keys"
	if [ "${LABNET_CIPHER:-}" = gea3 ]; then
		# osmo-sgsn 1.9 (sgsn_vty.c, "encryption gea <0-4>...") accepts a GEA
		# only after "authentication required" and picks the highest GEA
		# the MS and it share (gprs_gmm.c); LLC logging shows bad FCSs
		sed -e '/^ authentication required/a\ encryption gea 3' \
			-e '/^ logging level lbssgp/a\ logging level llc info' \
			"$HERE/configs/osmo-sgsn-hlr.cfg" > "$LABNET_RUN/osmo-sgsn-gea3.cfg"
		grep -q '^ encryption gea 3$' "$LABNET_RUN/osmo-sgsn-gea3.cfg" || die "could not add 'encryption gea 3' to the osmo-sgsn config"
		sgsn_cfg=(LAB_SGSN_CFG="$LABNET_RUN/osmo-sgsn-gea3.cfg")
		LABMS_ARGS="-gea3 $LABMS_ARGS"
		log "osmo-sgsn: encryption gea 3 (LLC ciphered with GEA3)"
	fi
fi

# --- RAN + SGSN ------------------------------------------------------------------
log "starting osmo-sgsn, osmo-bsc, osmo-bts-virtual and the PCU ($PCU_CMD)"
env "${sgsn_cfg[@]}" LAB_RUN="$LABNET_RUN/lab" LAB_NETNS="$LAB_NETNS" PCU_CMD="$PCU_CMD" LAB_TIMEOUT=30 \
	"$ROOT/tests/lab/up.sh" > "$LABNET_RUN/lab-up.out" 2>&1 || { cat "$LABNET_RUN/lab-up.out" >&2; die "tests/lab/up.sh failed"; }

rt() { # prio name pid: SCHED_FIFO for every thread of pid
	[ "${LAB_RT:-1}" = 1 ] || return 0
	command -v chrt >/dev/null || { log "no chrt: $2 keeps its scheduling"; return 0; }
	chrt -a -f -p "$1" "$3" >/dev/null || log "chrt $2 failed"
}
rt 30 osmo-bts-virtual "$(awk '$1=="osmo-bts-virtual"{print $2}' "$LABNET_RUN/lab/pids")"
rt 20 pcu "$(awk '$1=="pcu"{print $2}' "$LABNET_RUN/lab/pids")"
# --- GGSN: GTP in the lab namespace, its TUN in the server namespace --------------
cp "$HERE/configs/osmo-ggsn.cfg" "$LABNET_RUN/osmo-ggsn.cfg"
start osmo-ggsn "$LAB_NETNS" osmo-ggsn -c "$LABNET_RUN/osmo-ggsn.cfg"
for ((i = 0; i < 100; i++)); do
	kill -0 "$PID_osmo_ggsn" 2>/dev/null || die "osmo-ggsn died, see $LABNET_RUN/osmo-ggsn.log"
	"${NSX[@]}" ip link show tun4 >/dev/null 2>&1 && break
	sleep 0.1
done
"${NSX[@]}" ip link show tun4 >/dev/null 2>&1 || die "osmo-ggsn made no tun4"
ip netns add "$SERVER_NETNS"
ip -n "$SERVER_NETNS" link set lo up
ip -n "$LAB_NETNS" link set tun4 netns "$SERVER_NETNS"
ip -n "$SERVER_NETNS" link set tun4 up
ip -n "$SERVER_NETNS" addr add "$SERVER_ADDR/32" dev tun4
ip -n "$SERVER_NETNS" route add "$MS_POOL" dev tun4

mkdir -p "$LABNET_RUN/www"
head -c 204800 /dev/urandom > "$LABNET_RUN/www/200k"
head -c 51200 /dev/urandom > "$LABNET_RUN/www/50k"
if [ -n "${SERVER_CC:-}" ]; then
	start http "$SERVER_NETNS" python3 -c '
import functools, http.server, socket, sys
cc, addr, www = sys.argv[1:4]
class Server(http.server.ThreadingHTTPServer):
    def server_bind(self):
        self.socket.setsockopt(socket.IPPROTO_TCP, socket.TCP_CONGESTION, cc.encode())
        super().server_bind()
Server((addr, 80), functools.partial(http.server.SimpleHTTPRequestHandler, directory=www)).serve_forever()
' "$SERVER_CC" "$SERVER_ADDR" "$LABNET_RUN/www"
else
	start http "$SERVER_NETNS" python3 -m http.server --bind "$SERVER_ADDR" --directory "$LABNET_RUN/www" 80
fi
for ((i = 0; i < 100; i++)); do
	kill -0 "$PID_http" 2>/dev/null || die "the HTTP server died, see $LABNET_RUN/http.log"
	ip netns exec "$SERVER_NETNS" bash -c "exec 3<>/dev/tcp/$SERVER_ADDR/80" 2>/dev/null && break
	sleep 0.1
done

# --- the MSs ----------------------------------------------------------------------
pcap=()
[ "${CAPTURE:-0}" = 1 ] && pcap=(-gsmtap-pcap "$LABNET_RUN/um.pcap")
# labms runs in the host namespace (it adds the MS namespaces); its virtual
# Um sockets are opened inside $LAB_NETNS.
( cd "$LABNET_RUN" && exec "$LABNET_RUN/bin/labms" -um-netns "$LAB_NETNS" -n "$MS_COUNT" -netns-prefix "$MS_PREFIX" \
	-status "$LABNET_RUN/labms.status" -timeout "${LABNET_TIMEOUT}s" "${pcap[@]}" -v ${LABMS_ARGS:-} ) > "$LABNET_RUN/labms.log" 2>&1 < /dev/null &
PID_labms=$!
echo "labms $PID_labms" >> "$PIDS"
sleep 0.2
rt 10 labms "$PID_labms"
log "started labms pid $PID_labms"
for ((i = 0; i < LABNET_TIMEOUT * 10 + 50; i++)); do
	if [ -f "$LABNET_RUN/labms.status" ]; then
		grep -q '^READY' "$LABNET_RUN/labms.status" && break
		grep -q '^FAILED' "$LABNET_RUN/labms.status" && die "$(cat "$LABNET_RUN/labms.status") (see $LABNET_RUN/labms.log)"
	fi
	kill -0 "$PID_labms" 2>/dev/null || die "labms died, see $LABNET_RUN/labms.log"
	sleep 0.1
done
grep -q '^READY' "$LABNET_RUN/labms.status" 2>/dev/null || die "MSs not up after $LABNET_TIMEOUT s (see $LABNET_RUN/labms.log)"

log "all $MS_COUNT MSs attached with a PDP context"
grep '^MS_NETNS=' "$LABNET_RUN/labms.status" | sed 's/ MS_ADDR=.*//'
echo "SERVER_NETNS=$SERVER_NETNS"
echo "SERVER_ADDR=$SERVER_ADDR"
echo "LABNET_RUN=$LABNET_RUN"
echo "LAB_NETNS=$LAB_NETNS"
