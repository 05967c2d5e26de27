package app

import (
	"context"
	"fmt"
	"net/netip"
	"time"

	"github.com/gopcu/gopcu/internal/logx"
	"github.com/gopcu/gopcu/internal/ticker"
	pcud "github.com/gopcu/gopcu/pcu/daemon"
	"github.com/gopcu/gopcu/stats"
	"github.com/gopcu/gopcu/stats/capture"
	"github.com/gopcu/gopcu/stats/prom"
	"github.com/gopcu/gopcu/stats/statsd"
)

// statsWiring runs the statsd/log reporters of the VTY `stats` config, the
// Prometheus exporter (--metrics-addr) and the pcap capture (--pcap).
// Everything but setup and close runs on the engine goroutine.
type statsWiring struct {
	d         *Daemon
	items     []stats.Item
	reporters []*statsd.Reporter
	key       string // the reporters' config when they were built
	prom      *prom.Exporter
	gauges    *engineGauges // with prom
	promSrv   *prom.Server
	capture   *capture.Capture
}

// observer feeds the exporter's sojourn histograms (engine goroutine).
type promObserver struct{ e *prom.Exporter }

func (o promObserver) Sojourn(tlli uint32, d time.Duration) { o.e.ObserveSojourn(tlli, d) }
func (o promObserver) MSGone(tlli uint32)                   { o.e.ForgetMS(tlli) }

// openCapture creates the pcap file before the engine exists (the engine
// takes it in its Config).
func openCapture(path, gsmtapHost string, maxMiB, files int) (*capture.Capture, error) {
	opts := capture.Options{MaxSize: int64(maxMiB) << 20, Files: files}
	if maxMiB <= 0 {
		opts.MaxSize = -1 // --pcap-max-size 0: no limit
	}
	if a, err := netip.ParseAddr(gsmtapHost); err == nil {
		opts.GSMTAPDst = netip.AddrPortFrom(a, 4729)
	}
	c, err := capture.Create(path, opts)
	if err != nil {
		return nil, fmt.Errorf("pcap: %w", err)
	}
	return c, nil
}

func (w *statsWiring) itemsNow() []stats.Item {
	w.items = pcud.StatItems(w.d.eng, w.items[:0])
	return w.items
}

// configKey is the part of the VTY stats config the reporters depend on.
func (w *statsWiring) configKey() string {
	sc := w.d.v.Stats
	k := fmt.Sprint(sc.Interval)
	for _, r := range sc.Reporters {
		k += fmt.Sprintf("|%+v", *r)
	}
	return k
}

// sync rebuilds the reporters when the VTY stats config changed (engine
// goroutine, after every VTY command; libosmocore reconfigures at once).
func (w *statsWiring) sync() {
	k := w.configKey()
	if k == w.key {
		return
	}
	w.key = k
	for _, r := range w.reporters {
		r.Close()
	}
	log := w.d.logs.Logger(logx.CatPCU)
	sc := w.d.v.Stats
	var specs []statsd.Spec
	for _, r := range sc.Reporters {
		specs = append(specs, statsd.Spec{Type: r.Type, Enabled: r.Enabled, Level: r.Level, Prefix: r.Prefix,
			MTU: r.MTU, FlushPeriod: r.FlushPeriod, RemoteIP: r.RemoteIP, RemotePort: r.RemotePort, LocalIP: r.LocalIP})
	}
	rs, err := statsd.FromSpecs(specs, sc.Interval, w.d.ctrs, w.itemsNow)
	if err != nil {
		logx.Notice(log, "stats reporter disabled", "err", err)
	}
	lrs, err := statsd.LogFromSpecs(specs, sc.Interval, w.d.ctrs, w.itemsNow, func(line string) { logx.Notice(log, line) })
	if err != nil {
		logx.Notice(log, "stats reporter disabled", "err", err)
	}
	w.reporters = append(rs, lrs...)
}

// tick runs once a second on the engine goroutine.
func (w *statsWiring) tick(now time.Time) {
	w.sync()
	for _, r := range w.reporters {
		r.Tick(now)
	}
	if w.prom != nil {
		w.prom.SetItems(w.itemsNow())
		w.gauges.update(w.d.eng)
	}
}

// report is `stats report`: every reporter sends now.
func (w *statsWiring) report() {
	w.sync()
	now := time.Now()
	for _, r := range w.reporters {
		r.Report(now)
	}
}

// run ticks every second until ctx ends (or the engine does).
func (w *statsWiring) run(ctx context.Context) {
	ticker.Every(ctx, time.Second, func(now time.Time) bool {
		return w.d.eng.Call(func() { w.tick(now) }) == nil
	})
}

func (w *statsWiring) close() {
	for _, r := range w.reporters {
		r.Close()
	}
	if w.promSrv != nil {
		w.promSrv.Close()
	}
	if w.capture != nil {
		w.capture.Close()
	}
}
