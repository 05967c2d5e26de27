package ns

import (
	"fmt"
	"io"
	"net/netip"
	"time"
)

// uptime formats d as libosmocore's vty_out_uptime ("0d 0h 0m 8s").
func uptime(d time.Duration) string {
	s := int64(d / time.Second)
	return fmt.Sprintf("%dd %dh %dm %ds", s/86400, s/3600%24, s/60%60, s%60)
}

func bracket(a netip.AddrPort) string { return fmt.Sprintf("[%s]:%d", a.Addr(), a.Port()) }

// WriteVTY writes the NSE as libosmogb's "show ns" prints it, e.g.
//
//	NSEI 00101: UDP, ALIVE since 0d 0h 0m 8s
//	  1 NS-VC:
//	   NSVCI 00101: UNBLOCKED DYNAMIC udp)[0.0.0.0]:23001<101>[127.0.0.1]:23000 ALIVE since 0d 0h 0m 8s
func (n *NSE) WriteVTY(w io.Writer, now time.Duration) {
	alive := "DEAD"
	if n.up {
		alive = "ALIVE"
	}
	fmt.Fprintf(w, "NSEI %05d: UDP, %s since %s\r\n", n.cfg.NSEI, alive, uptime(now-n.since))
	fmt.Fprintf(w, "  %d NS-VC:\r\n", len(n.vcs))
	for _, vc := range n.vcs {
		local := netip.AddrPort{}
		for _, ep := range n.cfg.Endpoints {
			if ep.Bind == vc.Bind {
				local = ep.Local
			}
		}
		a, cause := "DEAD", "(cause: remote) "
		if vc.state == VCUnblocked {
			a, cause = "ALIVE", ""
		}
		if vc.classic {
			fmt.Fprintf(w, "   NSVCI %05d: %s DYNAMIC udp)%s<%d>%s %s %ssince %s\r\n", vc.NSVCI, vc.state,
				bracket(local), vc.NSVCI, bracket(vc.Remote), a, cause, uptime(now-vc.since))
		} else {
			fmt.Fprintf(w, "   %s DYNAMIC sig_weight=%d data_weight=%d udp)%s<>%s %s %ssince %s\r\n", vc.state,
				vc.SigWeight, vc.DataWeight, bracket(local), bracket(vc.Remote), a, cause, uptime(now-vc.since))
		}
	}
}
