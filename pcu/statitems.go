package pcu

import (
	"time"

	"github.com/gopcu/gopcu/stats"
)

// StatItems appends osmo-pcu's stat items to dst (libosmocore
// osmo_stat_item, statsd and `show stats`), newest group first as
// libosmocore lists them: libosmogb's "ns.nsvc" alive.delay of each NS-VC
// and "ns.bind" tx_backlog_length of each bind (always 0 over UDP) while
// Gb runs, then the "bts" items of every BTS: ms.present, pdch.available,
// pdch.occupied[.gprs|.egprs]. Engine goroutine only.
func (e *Engine) StatItems(dst []stats.Item) []stats.Item {
	if e.gbl != nil {
		n := e.gbl.gb.NSE()
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
	for nr := 0; nr < 256; nr++ {
		bts := e.bts[uint8(nr)]
		if bts == nil {
			continue
		}
		var avail, occ, gprs, egprs int64
		for t := range bts.TRX {
			for ts := range bts.TRX[t].PDCH {
				p := &bts.TRX[t].PDCH[ts]
				if !p.Enabled {
					continue
				}
				avail++
				var g, eg bool
				for _, l := range [2][]*TBF{p.ul, p.dl} {
					for _, tb := range l {
						if tb.egprs {
							eg = true
						} else {
							g = true
						}
					}
				}
				if g || eg {
					occ++
				}
				if g {
					gprs++
				}
				if eg {
					egprs++
				}
			}
		}
		item := func(name, desc string, v int64) stats.Item {
			return stats.Item{Group: "bts", Index: uint32(nr), Name: name, Value: v,
				GroupDescription: "BTS Statistics", Description: desc}
		}
		dst = append(dst,
			item("ms.present", "MS Present           ", int64(len(bts.ms.all))),
			item("pdch.available", "PDCH available       ", avail),
			item("pdch.occupied", "PDCH occupied (all)  ", occ),
			item("pdch.occupied.gprs", "PDCH occupied (GPRS) ", gprs),
			item("pdch.occupied.egprs", "PDCH occupied (EGPRS)", egprs))
	}
	return dst
}

// Observer receives per-frame queue measurements on the engine goroutine
// (the Prometheus exporter's sojourn histograms). Methods must not block.
type Observer interface {
	// Sojourn is called for every LLC frame handed to RLC/MAC: how long it
	// waited in the MS's queue.
	Sojourn(tlli uint32, d time.Duration)
	// MSGone is called when an MS is freed.
	MSGone(tlli uint32)
}
