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
//
// The package writes the Prometheus text exposition format, version 0.0.4
// (https://prometheus.io/docs/instrumenting/exposition_formats/), with the
// standard library alone: the Prometheus Go client and its protobuf
// dependency cost ~3 MB of resident memory at start-up (package inits,
// descriptor registration), whether or not the endpoint is on. Metric
// names, HELP and TYPE lines and values are those the client wrote before
// (its Go collector's go_* series included; see runtime.go).
package prom

import (
	"cmp"
	"math"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/gopcu/gopcu/internal/ratectr"
	"github.com/gopcu/gopcu/stats"
)

// Namespace prefixes every metric name.
const Namespace = "gopcu"

// SojournBuckets are the histogram buckets (seconds) of LLC queue sojourn
// times: from 10 ms (half a radio block period) to 30 s (beyond the
// default LLC lifetime, osmo-pcu `queue lifetime`, and the T3193-bounded
// TBF lifetimes), roughly 1-2-5 per decade. New reads it; changing it
// later does not change an exporter's histograms.
var SojournBuckets = []float64{0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1, 2, 5, 10, 20, 30}

// The sojourn histograms' families.
const (
	sojournAllName = Namespace + "_llc_sojourn_seconds"
	sojournAllHelp = "Time LLC frames spent in the downlink queues of all MS before transmission"
	sojournMSName  = Namespace + "_ms_llc_sojourn_seconds"
	sojournMSHelp  = "Time LLC frames spent in an MS's downlink queue before transmission"
)

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

type itemKey struct{ group, index, name string }

// family is a metric family's name and HELP text, built once per
// (group, name) and cached.
type family struct{ name, help string }

// sample is one counter or stat item series of a scrape.
type sample struct {
	f     *family
	typ   string // "counter", "gauge"
	index string // the "index" label's value
	v     float64
}

// Exporter is the Prometheus side of a gopcu process.
type Exporter struct {
	reg *ratectr.Registry

	// mu guards what the engine goroutine hands over: the stat items,
	// the per-MS histograms a scrape shows and the gauge vectors. The
	// engine holds it only to copy or insert; a scrape only to copy.
	mu     sync.Mutex
	items  []stats.Item
	msList map[uint32]*histogram
	gauges []*GaugeVec

	// Owner (engine) goroutine only.
	bounds []float64
	all    *histogram
	perMS  map[uint32]*histogram

	// scrapeMu serialises scrapes; the rest is their scratch space.
	scrapeMu sync.Mutex
	buf      []byte
	fams     map[descKey]*family
	samples  []sample
	seen     map[descKey]bool // (group, index) of the counter groups
	iseen    map[itemKey]bool // (group, index, name) of the stat items
	itemsCp  []stats.Item
	msCp     []*histogram
	rt       runtimeReader
}

// New makes an exporter over reg's counter groups (nil: none). Its page
// also carries the Go runtime's go_* series.
func New(reg *ratectr.Registry) *Exporter {
	e := &Exporter{reg: reg, bounds: slices.Clone(SojournBuckets),
		msList: map[uint32]*histogram{}, perMS: map[uint32]*histogram{},
		fams: map[descKey]*family{}, seen: map[descKey]bool{}, iseen: map[itemKey]bool{}}
	e.all = newHistogram(e.bounds, "")
	e.rt.init()
	return e
}

// SetItems replaces the stat items shown at the next scrapes. The owner
// (engine loop) calls it when it reports (e.g. with the same slice it
// gives the statsd reporters each interval); the slice is copied.
func (e *Exporter) SetItems(items []stats.Item) {
	e.mu.Lock()
	e.items = append(e.items[:0], items...)
	e.mu.Unlock()
}

// histogram is a cumulative histogram over fixed bounds that one
// goroutine observes into while scrapes read it: every field is atomic.
type histogram struct {
	bounds []float64
	counts []atomic.Uint64 // per bucket, not cumulative; the last is (bounds[len-1], +Inf)
	sum    atomic.Uint64   // math.Float64bits of the sum of observations
	label  string          // the "tlli" label ("" for the all-MS histogram)
}

func newHistogram(bounds []float64, label string) *histogram {
	return &histogram{bounds: bounds, counts: make([]atomic.Uint64, len(bounds)+1), label: label}
}

func (h *histogram) observe(v float64) {
	i := 0
	for i < len(h.bounds) && v > h.bounds[i] {
		i++
	}
	h.counts[i].Add(1)
	for {
		old := h.sum.Load()
		if h.sum.CompareAndSwap(old, math.Float64bits(math.Float64frombits(old)+v)) {
			return
		}
	}
}

// ObserveSojourn records that an LLC frame of the MS with this TLLI waited
// d in its downlink queue. Owner goroutine only (the per-MS cache is not
// locked); the histograms themselves are safe against concurrent scrapes.
// It allocates only for an MS it has not seen (or has forgotten).
func (e *Exporter) ObserveSojourn(tlli uint32, d time.Duration) {
	s := d.Seconds()
	e.all.observe(s)
	h := e.perMS[tlli]
	if h == nil {
		h = newHistogram(e.bounds, TLLILabel(tlli))
		e.perMS[tlli] = h
		e.mu.Lock()
		e.msList[tlli] = h
		e.mu.Unlock()
	}
	h.observe(s)
}

// ForgetMS drops the MS's histogram (call when the MS object is freed, or
// when its TLLI changes) so the label set stays bounded. Owner goroutine only.
func (e *Exporter) ForgetMS(tlli uint32) {
	if _, ok := e.perMS[tlli]; !ok {
		return
	}
	delete(e.perMS, tlli)
	e.mu.Lock()
	delete(e.msList, tlli)
	e.mu.Unlock()
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

// GaugeVec is a gauge family with labels whose values the owner sets
// (internal/app's gopcu_bts_tbfs{index,dir}). Series are made on first use
// and live as long as the exporter.
type GaugeVec struct {
	name, help string
	labels     []string

	mu     sync.Mutex
	key    []byte // scratch for lookups
	series map[string]*Gauge
}

// Gauge is one series of a GaugeVec.
type Gauge struct {
	bits   atomic.Uint64 // math.Float64bits
	values []string
	key    string
}

// Set sets the gauge's value; scrapes read it atomically.
func (g *Gauge) Set(v float64) { g.bits.Store(math.Float64bits(v)) }

// Value is the gauge's value.
func (g *Gauge) Value() float64 { return math.Float64frombits(g.bits.Load()) }

// NewGaugeVec adds a gauge family named name (the full name, e.g.
// Namespace+"_bts_tbfs") with these label names to the exporter's page.
func (e *Exporter) NewGaugeVec(name, help string, labels ...string) *GaugeVec {
	v := &GaugeVec{name: name, help: help, labels: slices.Clone(labels), series: map[string]*Gauge{}}
	e.mu.Lock()
	e.gauges = append(e.gauges, v)
	e.mu.Unlock()
	return v
}

// WithLabelValues is the series with these label values (as many as the
// vector has label names), made on first use. It does not allocate for a
// series that exists.
func (v *GaugeVec) WithLabelValues(values ...string) *Gauge {
	if len(values) != len(v.labels) {
		panic("prom: " + v.name + ": " + strconv.Itoa(len(values)) + " label values for " + strconv.Itoa(len(v.labels)) + " labels")
	}
	v.mu.Lock()
	defer v.mu.Unlock()
	k := v.key[:0]
	for _, s := range values {
		k = append(k, s...)
		k = append(k, 0xff) // not in UTF-8 text
	}
	v.key = k
	if g := v.series[string(k)]; g != nil {
		return g
	}
	g := &Gauge{values: slices.Clone(values), key: string(k)}
	v.series[g.key] = g
	return g
}

// scrape runs fn with the whole page, written into the exporter's reused
// buffer (fn must not keep it). Scrapes run one at a time.
func (e *Exporter) scrape(fn func(page []byte)) {
	e.scrapeMu.Lock()
	defer e.scrapeMu.Unlock()
	e.buf = e.appendPage(e.buf[:0])
	fn(e.buf)
}

// appendPage appends the whole page to b: the counters and stat items,
// the gauge vectors, the sojourn histograms and the Go runtime's series.
// It uses the exporter's scratch space: scrape serialises the calls.
func (e *Exporter) appendPage(b []byte) []byte {
	// The runtime's figures first, so that a scrape's own allocations
	// count in the next scrape's go_memstats_mallocs_total, not this one's.
	e.rt.read()

	e.mu.Lock()
	e.itemsCp = append(e.itemsCp[:0], e.items...)
	e.msCp = e.msCp[:0]
	for _, h := range e.msList {
		e.msCp = append(e.msCp, h)
	}
	gauges := e.gauges // append-only: the prefix is stable
	e.mu.Unlock()

	b = e.appendCountersAndItems(b)
	for _, v := range gauges {
		b = v.appendText(b)
	}
	b = appendHistograms(b, sojournAllName, sojournAllHelp, "", []*histogram{e.all})
	slices.SortFunc(e.msCp, func(x, y *histogram) int { return cmp.Compare(x.label, y.label) })
	b = appendHistograms(b, sojournMSName, sojournMSHelp, "tlli", e.msCp)
	b = e.rt.appendText(b)
	return b
}

func (e *Exporter) counterFamily(g *ratectr.Group, d ratectr.Desc) *family {
	dk := descKey{g.Name, d.Name}
	f := e.fams[dk]
	if f == nil {
		help := strings.TrimSpace(d.Description)
		if help == "" {
			help = d.Name
		}
		f = &family{MetricName(g.Name, d.Name) + "_total", strings.TrimSpace(g.Description) + ": " + help}
		e.fams[dk] = f
	}
	return f
}

func (e *Exporter) itemFamily(it *stats.Item) *family {
	dk := descKey{"\x00" + it.Group, it.Name} // apart from the counters' keys
	f := e.fams[dk]
	if f == nil {
		help := strings.TrimSpace(it.Description)
		if help == "" {
			help = "Stat item " + it.Group + " " + it.Name
		}
		if it.Unit != "" {
			help += " (" + it.Unit + ")"
		}
		f = &family{MetricName(it.Group, it.Name), help}
		e.fams[dk] = f
	}
	return f
}

func indexLabel(index uint32, name string) string {
	if name != "" { // a named group (NS-VC) is labelled with its name
		return name
	}
	return strconv.FormatUint(uint64(index), 10)
}

// appendCountersAndItems reads every counter group and the stat items
// and appends them family by family, series ordered by index.
func (e *Exporter) appendCountersAndItems(b []byte) []byte {
	e.samples = e.samples[:0]
	clear(e.seen)
	clear(e.iseen)
	if e.reg != nil {
		for _, g := range e.reg.Groups() {
			idx := indexLabel(g.Index, g.IndexName)
			if k := (descKey{g.Name, idx}); e.seen[k] { // a duplicate (group, index) is skipped
				continue
			} else {
				e.seen[k] = true
			}
			for i, d := range g.Descs {
				e.samples = append(e.samples, sample{e.counterFamily(g, d), "counter", idx, float64(g.Value(i))})
			}
		}
	}
	for i := range e.itemsCp {
		it := &e.itemsCp[i]
		idx := indexLabel(it.Index, it.IndexName)
		if k := (itemKey{it.Group, idx, it.Name}); e.iseen[k] {
			continue
		} else {
			e.iseen[k] = true
		}
		e.samples = append(e.samples, sample{e.itemFamily(it), "gauge", idx, float64(it.Value)})
	}
	slices.SortStableFunc(e.samples, func(x, y sample) int {
		if c := cmp.Compare(x.f.name, y.f.name); c != 0 {
			return c
		}
		return cmp.Compare(x.index, y.index)
	})
	var last *family
	for i := range e.samples {
		s := &e.samples[i]
		if s.f.name != lastName(last) {
			b = appendHelpType(b, s.f.name, s.f.help, s.typ)
			last = s.f
		}
		b = append(b, s.f.name...)
		b = append(b, `{index="`...)
		b = appendLabelValue(b, s.index)
		b = append(b, "\"} "...)
		b = appendFloat(b, s.v)
		b = append(b, '\n')
	}
	return b
}

func lastName(f *family) string {
	if f == nil {
		return ""
	}
	return f.name
}

func (v *GaugeVec) appendText(b []byte) []byte {
	v.mu.Lock()
	series := make([]*Gauge, 0, len(v.series))
	for _, g := range v.series {
		series = append(series, g)
	}
	v.mu.Unlock()
	if len(series) == 0 {
		return b // as the client did: a vector without series has no HELP/TYPE
	}
	slices.SortFunc(series, func(x, y *Gauge) int { return slices.Compare(x.values, y.values) })
	b = appendHelpType(b, v.name, v.help, "gauge")
	for _, g := range series {
		b = append(b, v.name...)
		for i, l := range v.labels {
			if i == 0 {
				b = append(b, '{')
			} else {
				b = append(b, ',')
			}
			b = append(b, l...)
			b = append(b, `="`...)
			b = appendLabelValue(b, g.values[i])
			b = append(b, '"')
		}
		if len(v.labels) > 0 {
			b = append(b, '}')
		}
		b = append(b, ' ')
		b = appendFloat(b, g.Value())
		b = append(b, '\n')
	}
	return b
}

// appendHistograms appends one histogram family: per histogram the
// cumulative _bucket{le=...} series, _sum and _count. label names the
// histograms' label ("" = none). The buckets are read once each and
// _count is their total, so that a scrape racing an observation still
// shows _bucket{le="+Inf"} == _count and non-decreasing buckets.
func appendHistograms(b []byte, name, help, label string, hs []*histogram) []byte {
	if len(hs) == 0 {
		return b
	}
	b = appendHelpType(b, name, help, "histogram")
	for _, h := range hs {
		lbl := func(b []byte) []byte {
			if label != "" {
				b = append(b, label...)
				b = append(b, `="`...)
				b = appendLabelValue(b, h.label)
				b = append(b, '"')
			}
			return b
		}
		var cum uint64
		for i := range h.counts {
			cum += h.counts[i].Load()
			b = append(b, name...)
			b = append(b, "_bucket{"...)
			b = lbl(b)
			if label != "" {
				b = append(b, ',')
			}
			b = append(b, `le="`...)
			if i < len(h.bounds) {
				b = appendFloat(b, h.bounds[i])
			} else {
				b = append(b, "+Inf"...)
			}
			b = append(b, "\"} "...)
			b = strconv.AppendUint(b, cum, 10)
			b = append(b, '\n')
		}
		for _, suffix := range [...]string{"_sum", "_count"} {
			b = append(b, name...)
			b = append(b, suffix...)
			if label != "" {
				b = append(b, '{')
				b = lbl(b)
				b = append(b, '}')
			}
			b = append(b, ' ')
			if suffix == "_sum" {
				b = appendFloat(b, math.Float64frombits(h.sum.Load()))
			} else {
				b = strconv.AppendUint(b, cum, 10)
			}
			b = append(b, '\n')
		}
	}
	return b
}

// appendHelpType appends a family's "# HELP" and "# TYPE" lines.
func appendHelpType(b []byte, name, help, typ string) []byte {
	b = append(b, "# HELP "...)
	b = append(b, name...)
	b = append(b, ' ')
	for i := 0; i < len(help); i++ { // HELP escapes '\' and newline
		switch c := help[i]; c {
		case '\\':
			b = append(b, `\\`...)
		case '\n':
			b = append(b, `\n`...)
		default:
			b = append(b, c)
		}
	}
	b = append(b, "\n# TYPE "...)
	b = append(b, name...)
	b = append(b, ' ')
	b = append(b, typ...)
	return append(b, '\n')
}

// appendLabelValue appends a label value escaped as the format wants
// ('\', '"' and newline).
func appendLabelValue(b []byte, s string) []byte {
	for i := 0; i < len(s); i++ {
		switch c := s[i]; c {
		case '\\':
			b = append(b, `\\`...)
		case '"':
			b = append(b, `\"`...)
		case '\n':
			b = append(b, `\n`...)
		default:
			b = append(b, c)
		}
	}
	return b
}

// appendFloat writes a value as the Go client did: shortest 'g' form,
// +Inf, -Inf, NaN.
func appendFloat(b []byte, v float64) []byte {
	switch {
	case math.IsInf(v, 1):
		return append(b, "+Inf"...)
	case math.IsInf(v, -1):
		return append(b, "-Inf"...)
	case math.IsNaN(v):
		return append(b, "NaN"...)
	}
	return strconv.AppendFloat(b, v, 'g', -1, 64)
}
