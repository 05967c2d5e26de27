#!/bin/bash
# Copy compare.sh row directories into a directory meant for the repository
# (docs/bufferbloat-raw/labnet): everything labtable and labplot read, small;
# no logs and no pcaps (they stay in the row directories), /metrics cut to
# gopcu's LLC and sojourn series, nstat to the Tcp* counters and TcpExt's retransmission and ECN ones,
# and the row directories' parent path (this machine's) written as $ROWS.
#
#   tests/labnet/keepraw.sh docs/bufferbloat-raw/labnet /tmp/gopcu-labnet/rows/*
set -euo pipefail
dest="$1"; shift
for d in "$@"; do
	[ -f "$d/row.env" ] || { echo "skipping $d (no row.env)" >&2; continue; }
	o="$dest/$(basename "$d")"
	mkdir -p "$o"
	for f in "$d"/*; do
		b=$(basename "$f")
		case "$b" in
		logs|*.pcap|*.pcapng|down.out) ;;
		metrics.*) grep -E '^gopcu_(llc_sojourn|[a-z0-9_]*llc_)' "$f" > "$o/$b" || true ;;
		nstat.*) { grep -E '^(#|Tcp)' "$f" | grep -v '^TcpExt'
			grep -E '^TcpExtTCP(Timeouts|LossProbes|FastRetrans|SlowStartRetrans|SpuriousRTOs|SackRecovery|LostRetransmit|DSACKRecv|Delivered|OrigDataSent)' "$f"; } > "$o/$b" || true ;;
		# the rows' parent directory is the machine's: written as $ROWS
		*) sed "s#$(dirname "$d")/#\$ROWS/#g" "$f" > "$o/$b" ;;
		esac
	done
done
