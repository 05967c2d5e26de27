package main

import (
	"strconv"

	"github.com/prometheus/client_golang/prometheus"

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
	tbfs, frames, octets *prometheus.GaugeVec
}

func newEngineGauges(reg prometheus.Registerer) *engineGauges {
	g := &engineGauges{
		tbfs: prometheus.NewGaugeVec(prometheus.GaugeOpts{Namespace: prom.Namespace, Name: "bts_tbfs",
			Help: "TBFs that exist now, per direction"}, []string{"index", "dir"}),
		frames: prometheus.NewGaugeVec(prometheus.GaugeOpts{Namespace: prom.Namespace, Name: "bts_llc_queue_frames",
			Help: "LLC frames waiting in the downlink queues of all MSs"}, []string{"index"}),
		octets: prometheus.NewGaugeVec(prometheus.GaugeOpts{Namespace: prom.Namespace, Name: "bts_llc_queue_octets",
			Help: "Octets of the LLC frames waiting in the downlink queues of all MSs"}, []string{"index"}),
	}
	reg.MustRegister(g.tbfs, g.frames, g.octets)
	return g
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
