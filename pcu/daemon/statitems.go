package daemon

import (
	"github.com/gopcu/gopcu/pcu"
	"github.com/gopcu/gopcu/stats"
)

// StatItems appends osmo-pcu's stat items to dst (libosmocore
// osmo_stat_item, statsd and `show stats`), newest group first as
// libosmocore lists them: libosmogb's "ns.nsvc" alive.delay of each NS-VC
// and "ns.bind" tx_backlog_length of each bind (always 0 over UDP) while
// Gb runs, then the "bts" items of every BTS: ms.present, pdch.available,
// pdch.occupied[.gprs|.egprs]. Engine goroutine only.
func StatItems(e *pcu.Engine, dst []stats.Item) []stats.Item {
	if n := e.NSE(); n != nil {
		vcs := n.VCs()
		for i := len(vcs) - 1; i >= 0; i-- {
			vc := vcs[i]
			idx, name := vc.CounterIndex()
			dst = append(dst, stats.Item{Group: "ns.nsvc", Index: idx, IndexName: name,
				Name: "alive.delay", Value: vc.AliveDelay().Milliseconds(), GroupDescription: "NSVC Peer Statistics",
				Description: "ALIVE response time        ", Unit: "ms"})
		}
		binds := n.Binds()
		for i := len(binds) - 1; i >= 0; i-- {
			dst = append(dst, stats.Item{Group: "ns.bind", Index: uint32(binds[i]), Name: "tx_backlog_length",
				GroupDescription: "NS Bind Statistics", Description: "Transmit backlog length", Unit: "packets"})
		}
	}
	for _, nr := range e.BTSNrs() {
		b, _ := e.BTSView(nr)
		var avail, occ, gprs, egprs int64
		for t := range b.TRX {
			for _, p := range b.TRX[t].PDCH {
				if !p.Enabled {
					continue
				}
				avail++
				if p.GPRS || p.EGPRS {
					occ++
				}
				if p.GPRS {
					gprs++
				}
				if p.EGPRS {
					egprs++
				}
			}
		}
		item := func(name, desc string, v int64) stats.Item {
			return stats.Item{Group: "bts", Index: uint32(nr), Name: name, Value: v,
				GroupDescription: "BTS Statistics", Description: desc}
		}
		dst = append(dst,
			item("ms.present", "MS Present           ", int64(b.MSCount)),
			item("pdch.available", "PDCH available       ", avail),
			item("pdch.occupied", "PDCH occupied (all)  ", occ),
			item("pdch.occupied.gprs", "PDCH occupied (GPRS) ", gprs),
			item("pdch.occupied.egprs", "PDCH occupied (EGPRS)", egprs))
	}
	return dst
}
