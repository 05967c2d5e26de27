package nse

import (
	"fmt"
	"io"
	"net/netip"
	"strings"
	"time"
)

// uptime formats d as libosmocore's vty_out_uptime ("0d 0h 0m 8s").
func uptime(d time.Duration) string {
	s := int64(d / time.Second)
	return fmt.Sprintf("%dd %dh %dm %ds", s/86400, s/3600%24, s/60%60, s%60)
}

func bracket(a netip.AddrPort) string { return fmt.Sprintf("[%s]:%d", a.Addr(), a.Port()) }

// WriteVTY writes the NSE as libosmogb 1.7's "show ns entities" prints
// it, e.g.
//
//	NSEI 00101: UDP, ALIVE since 0d 0h 0m 8s
//	  1 NS-VC:
//	   NSVCI 00101: UNBLOCKED DYNAMIC udp)[0.0.0.0]:23001<101>[127.0.0.1]:23000 ALIVE since 0d 0h 0m 8s
//
// The NSE's time is that of its last availability change, an NS-VC's
// that of its last entry into UNBLOCKED; an NS-VC that is not unblocked
// shows DEAD (osmo-pcu 1.1.0 with libosmogb 1.7, observed: a blocked or
// resetting NS-VC keeps the time it last came up).
func (n *NSE) WriteVTY(w io.Writer, now time.Duration) { n.WriteEntity(w, now, false) }

// WriteEntity is "show ns entities [stats]" / "show ns nsei N [stats]".
func (n *NSE) WriteEntity(w io.Writer, now time.Duration, stats bool) {
	alive := "DEAD"
	if n.up {
		alive = "ALIVE"
	}
	fmt.Fprintf(w, "NSEI %05d: UDP, %s since %s\r\n", n.cfg.NSEI, alive, uptime(now-n.since))
	fmt.Fprintf(w, "  %d NS-VC:\r\n", len(n.vcs))
	for _, vc := range n.vcs {
		n.WriteVC(w, vc, now, stats)
	}
}

// WriteVC is one NS-VC line ("show ns nsvc N [stats]"), with its counters
// and stat items when stats is set.
func (n *NSE) WriteVC(w io.Writer, vc *VC, now time.Duration, stats bool) {
	local := n.bindAddr(vc.Bind)
	a := "DEAD"
	if vc.state == VCUnblocked {
		a = "ALIVE"
	}
	if vc.classic {
		fmt.Fprintf(w, "   NSVCI %05d: %s DYNAMIC udp)%s<%d>%s %s since %s\r\n", vc.NSVCI, vc.state,
			bracket(local), vc.NSVCI, bracket(vc.Remote), a, uptime(now-vc.upSince))
	} else {
		fmt.Fprintf(w, "   %s DYNAMIC sig_weight=%d data_weight=%d udp)%s<>%s %s since %s\r\n", vc.state,
			vc.SigWeight, vc.DataWeight, bracket(local), bracket(vc.Remote), a, uptime(now-vc.upSince))
	}
	if stats {
		// The counters as the registry prints them (ratectr.Group), when
		// it can.
		if g, ok := vc.Ctrs.(interface {
			WriteVTY(w io.Writer, prefix string, skipZero bool)
		}); ok {
			var b strings.Builder
			g.WriteVTY(&b, "    ", false)
			io.WriteString(w, strings.ReplaceAll(b.String(), "\n", "\r\n"))
		}
		fmt.Fprintf(w, "    NSVC Peer Statistics:\r\n     ALIVE response time        : %8d ms\r\n", vc.aliveDelay.Milliseconds())
	}
}

// WriteBinds is "show ns binds [stats]": each bind with its NS-VCs, as
// libosmogb's UDP bind dump (dscp and priority of `gb ip-dscp` and `gb
// socket-priority`).
func (n *NSE) WriteBinds(w io.Writer, now time.Duration, stats bool, dscp, priority int) {
	for _, b := range n.Binds() {
		la := n.bindAddr(b)
		fmt.Fprintf(w, "UDP bind: %s DSCP: %d Priority: %d\r\n", sockaddrStr(la), dscp, priority)
		fmt.Fprintf(w, "  IP-SNS signalling weight: 1 data weight: 1\r\n")
		var vcs []*VC
		for _, vc := range n.vcs {
			if vc.Bind == b {
				vcs = append(vcs, vc)
			}
		}
		fmt.Fprintf(w, "  %d NS-VC:\r\n", len(vcs))
		for _, vc := range vcs {
			n.WriteVC(w, vc, now, stats)
		}
		if stats {
			fmt.Fprintf(w, "  NS Bind Statistics:\r\n   Transmit backlog length: %8d packets\r\n", 0)
		}
	}
}

// VCByNSVCI finds an NS-VC by NSVCI (classic NS-VCs; nil if none).
func (n *NSE) VCByNSVCI(nsvci uint16) *VC {
	for _, vc := range n.vcs {
		if vc.classic && vc.NSVCI == nsvci {
			return vc
		}
	}
	return nil
}
