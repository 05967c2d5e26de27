package app

import (
	"strconv"

	"github.com/gopcu/gopcu/pcu"
	"github.com/gopcu/gopcu/stats/prom"
)

// engineGauges are the Prometheus gauges of the engine's state that
// osmo-pcu has no stat item for (the dashboard's TBF and queue panels):
//
//	gopcu_bts_tbfs{index,dir}         TBFs that exist now, per direction (ul, dl)
//	gopcu_bts_llc_queue_frames{index}  LLC frames waiting in the DL queues of all MSs
//	gopcu_bts_llc_queue_octets{index}  their octets
//
// They are set once a second on the engine goroutine (statsWiring.tick).
type engineGauges struct {
	tbfs, frames, octets *prom.GaugeVec
}

func newEngineGauges(e *prom.Exporter) *engineGauges {
	return &engineGauges{
		tbfs:   e.NewGaugeVec(prom.Namespace+"_bts_tbfs", "TBFs that exist now, per direction", "index", "dir"),
		frames: e.NewGaugeVec(prom.Namespace+"_bts_llc_queue_frames", "LLC frames waiting in the downlink queues of all MSs", "index"),
		octets: e.NewGaugeVec(prom.Namespace+"_bts_llc_queue_octets", "Octets of the LLC frames waiting in the downlink queues of all MSs", "index"),
	}
}

// update reads the engine (engine goroutine only).
func (g *engineGauges) update(e *pcu.Engine) {
	for _, nr := range e.BTSNrs() {
		b, _ := e.BTSView(nr)
		idx := strconv.Itoa(int(nr))
		t := btsTotals(e, &b)
		g.tbfs.WithLabelValues(idx, "ul").Set(float64(t.TBFsUL))
		g.tbfs.WithLabelValues(idx, "dl").Set(float64(t.TBFsDL))
		g.frames.WithLabelValues(idx).Set(float64(t.LLCFrames))
		g.octets.WithLabelValues(idx).Set(float64(t.LLCOctets))
	}
}
