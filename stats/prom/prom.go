// Package prom exposes gopcu's rate counters and stat items to Prometheus
// on an opt-in /metrics endpoint, and adds what osmo-pcu never exposes:
// per-MS LLC queue sojourn histograms (the AQM's view, TS 44.064 frames
// waiting in the PCU's downlink queue).
//
// Every ratectr counter becomes a Prometheus counter named
// gopcu_<group>_<counter>_total with the group index as label "index"
// ("bts" 0 "rach:requests" -> gopcu_bts_rach_requests_total{index="0"}),
// every stat item a gauge gopcu_<group>_<item>{index="..."}. Values are
// read at scrape time (ratectr values are atomic); nothing is copied on
// the engine's path.
package prom

import (
	"context"
	"errors"
	"net"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/gopcu/gopcu/internal/ratectr"
	"github.com/gopcu/gopcu/stats"
)

// Namespace prefixes every metric name.
const Namespace = "gopcu"

// SojournBuckets are the histogram buckets (seconds) of LLC queue sojourn
// times: from 10 ms (half a radio block period) to 30 s (beyond the
// default LLC lifetime, osmo-pcu `queue lifetime`, and the T3193-bounded
// TBF lifetimes), roughly 1-2-5 per decade.
var SojournBuckets = []float64{0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1, 2, 5, 10, 20, 30}

// MetricName is the sanitised Prometheus name of an Osmocom name:
// "gopcu_" + group + "_" + name with every character outside
// [a-zA-Z0-9_] turned into '_' ("pcu:sgsn", "rx_paging_ps" ->
// "gopcu_pcu_sgsn_rx_paging_ps").
func MetricName(group, name string) string {
	var b strings.Builder
	b.Grow(len(Namespace) + len(group) + len(name) + 2)
	b.WriteString(Namespace)
	b.WriteByte('_')
	writeSanitised(&b, group)
	b.WriteByte('_')
	writeSanitised(&b, name)
	return b.String()
}

func writeSanitised(b *strings.Builder, s string) {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' {
			b.WriteByte(c)
		} else {
			b.WriteByte('_')
		}
	}
}

type descKey struct{ group, name string }

// Exporter is the Prometheus side of a gopcu process.
type Exporter struct {
	reg  *ratectr.Registry
	preg *prometheus.Registry

	mu     sync.Mutex
	ctrDsc map[descKey]*prometheus.Desc
	itmDsc map[descKey]*prometheus.Desc
	items  []stats.Item

	sojournAll *prometheus.HistogramVec // no labels: every frame
	sojournMS  *prometheus.HistogramVec // label tlli
	perMS      map[uint32]prometheus.Observer
	all        prometheus.Observer
}

// New makes an exporter over reg's counter groups. Its Prometheus registry
// also carries the Go runtime and process collectors.
func New(reg *ratectr.Registry) *Exporter {
	e := &Exporter{reg: reg, preg: prometheus.NewRegistry(),
		ctrDsc: map[descKey]*prometheus.Desc{}, itmDsc: map[descKey]*prometheus.Desc{},
		perMS: map[uint32]prometheus.Observer{}}
	e.sojournAll = prometheus.NewHistogramVec(prometheus.HistogramOpts{
		Namespace: Namespace, Name: "llc_sojourn_seconds",
		Help:    "Time LLC frames spent in the downlink queues of all MS before transmission",
		Buckets: SojournBuckets}, nil)
	e.sojournMS = prometheus.NewHistogramVec(prometheus.HistogramOpts{
		Namespace: Namespace, Name: "ms_llc_sojourn_seconds",
		Help:    "Time LLC frames spent in an MS's downlink queue before transmission",
		Buckets: SojournBuckets}, []string{"tlli"})
	e.all = e.sojournAll.WithLabelValues()
	e.preg.MustRegister(e, e.sojournAll, e.sojournMS,
		collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	return e
}

// Registry is the exporter's Prometheus registry, for extra collectors.
func (e *Exporter) Registry() *prometheus.Registry { return e.preg }

// SetItems replaces the stat items shown at the next scrapes. The owner
// (engine loop) calls it when it reports (e.g. with the same slice it
// gives the statsd reporters each interval); the slice is copied.
func (e *Exporter) SetItems(items []stats.Item) {
	e.mu.Lock()
	e.items = append(e.items[:0], items...)
	e.mu.Unlock()
}

// ObserveSojourn records that an LLC frame of the MS with this TLLI waited
// d in its downlink queue. Owner goroutine only (the per-MS cache is not
// locked); the histograms themselves are safe against concurrent scrapes.
func (e *Exporter) ObserveSojourn(tlli uint32, d time.Duration) {
	s := d.Seconds()
	e.all.Observe(s)
	o := e.perMS[tlli]
	if o == nil {
		o = e.sojournMS.WithLabelValues(TLLILabel(tlli))
		e.perMS[tlli] = o
	}
	o.Observe(s)
}

// ForgetMS drops the MS's histogram (call when the MS object is freed, or
// when its TLLI changes) so the label set stays bounded. Owner goroutine only.
func (e *Exporter) ForgetMS(tlli uint32) {
	if _, ok := e.perMS[tlli]; !ok {
		return
	}
	delete(e.perMS, tlli)
	e.sojournMS.DeleteLabelValues(TLLILabel(tlli))
}

// TLLILabel is the "tlli" label value: 0x%08x as osmo-pcu prints TLLIs.
func TLLILabel(tlli uint32) string {
	const hex = "0123456789abcdef"
	b := []byte("0x00000000")
	for i := 9; i >= 2; i-- {
		b[i] = hex[tlli&0xf]
		tlli >>= 4
	}
	return string(b)
}

// Describe sends nothing: the groups come and go (per-MS and per-TBF
// groups), so the exporter is an unchecked collector.
func (e *Exporter) Describe(chan<- *prometheus.Desc) {}

// Collect reads every counter and stat item (prometheus.Collector).
func (e *Exporter) Collect(ch chan<- prometheus.Metric) {
	type seenKey struct {
		group, index string
	}
	seen := map[seenKey]bool{}
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.reg != nil {
		for _, g := range e.reg.Groups() {
			idx := g.IndexName // a named group (NS-VC) is labelled with its name
			if idx == "" {
				idx = strconv.FormatUint(uint64(g.Index), 10)
			}
			k := seenKey{g.Name, idx}
			if seen[k] { // a duplicate (group, index) would fail the scrape
				continue
			}
			seen[k] = true
			for i, d := range g.Descs {
				dk := descKey{g.Name, d.Name}
				desc := e.ctrDsc[dk]
				if desc == nil {
					help := strings.TrimSpace(d.Description)
					if help == "" {
						help = d.Name
					}
					desc = prometheus.NewDesc(MetricName(g.Name, d.Name)+"_total",
						strings.TrimSpace(g.Description)+": "+help, []string{"index"}, nil)
					e.ctrDsc[dk] = desc
				}
				ch <- prometheus.MustNewConstMetric(desc, prometheus.CounterValue, float64(g.Value(i)), idx)
			}
		}
	}
	type itemSeen struct {
		group, index, name string
	}
	iseen := map[itemSeen]bool{}
	for _, it := range e.items {
		idx := it.IndexName
		if idx == "" {
			idx = strconv.FormatUint(uint64(it.Index), 10)
		}
		k := itemSeen{it.Group, idx, it.Name}
		if iseen[k] {
			continue
		}
		iseen[k] = true
		dk := descKey{it.Group, it.Name}
		desc := e.itmDsc[dk]
		if desc == nil {
			help := strings.TrimSpace(it.Description)
			if help == "" {
				help = "Stat item " + it.Group + " " + it.Name
			}
			if it.Unit != "" {
				help += " (" + it.Unit + ")"
			}
			desc = prometheus.NewDesc(MetricName(it.Group, it.Name), help, []string{"index"}, nil)
			e.itmDsc[dk] = desc
		}
		ch <- prometheus.MustNewConstMetric(desc, prometheus.GaugeValue, float64(it.Value), idx)
	}
}

// Handler serves the exporter's registry in the Prometheus exposition
// formats (text or protobuf by content negotiation).
func (e *Exporter) Handler() http.Handler {
	return promhttp.HandlerFor(e.preg, promhttp.HandlerOpts{ErrorHandling: promhttp.ContinueOnError})
}

// Server is a running /metrics endpoint.
type Server struct {
	srv *http.Server
	ln  net.Listener
	err chan error
}

// Serve listens on addr (the process setting; "" = off, the caller does not
// call Serve) and serves /metrics until Close.
func (e *Exporter) Serve(addr string) (*Server, error) {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, err
	}
	mux := http.NewServeMux()
	mux.Handle("/metrics", e.Handler())
	s := &Server{srv: &http.Server{Handler: mux, ReadHeaderTimeout: 5 * time.Second}, ln: ln, err: make(chan error, 1)}
	go func() { s.err <- s.srv.Serve(ln) }()
	return s, nil
}

// Addr is the listening address.
func (s *Server) Addr() net.Addr { return s.ln.Addr() }

// Close stops the server.
func (s *Server) Close() error {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	err := s.srv.Shutdown(ctx)
	if serr := <-s.err; serr != nil && !errors.Is(serr, http.ErrServerClosed) && err == nil {
		err = serr
	}
	return err
}
