package prom

import (
	"bufio"
	"bytes"
	"fmt"
	"math"
	"net/http"
	"net/http/httptest"
	"os"
	"runtime"
	"runtime/metrics"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	dto "github.com/prometheus/client_model/go"

	"github.com/gopcu/gopcu/internal/ratectr"
	"github.com/gopcu/gopcu/pcu"
	"github.com/gopcu/gopcu/stats"
)

// seriesKey is a metric's labels as "name=value,..." in label order.
func seriesKey(m *dto.Metric) string {
	var l []string
	for _, p := range m.GetLabel() {
		l = append(l, p.GetName()+"="+p.GetValue())
	}
	sort.Strings(l)
	return strings.Join(l, ",")
}

type wantFamily struct {
	typ    dto.MetricType
	help   string
	series map[string]float64 // seriesKey -> value (counter, gauge)
	hists  map[string]wantHist
}

type wantHist struct {
	counts []uint64 // cumulative, at SojournBuckets then +Inf
	sum    float64
}

// TestWholePage parses a whole /metrics page with the Prometheus
// project's own text parser (expfmt) and compares every gopcu_ family,
// its HELP, TYPE, series and values, against what the exporter was
// given; the go_* families are checked by TestGoFamiliesAsClient.
func TestWholePage(t *testing.T) {
	reg := &ratectr.Registry{}
	descs := []ratectr.Desc{{Name: "rach:requests", Description: "RACH requests      "}, {Name: "tbf:dl:alloc", Description: ""}}
	bts0 := ratectr.NewGroup("bts", "BTS Statistics ", 0, descs)
	bts1 := ratectr.NewGroup("bts", "BTS Statistics ", 1, descs)
	bts12 := ratectr.NewGroup("bts", "BTS Statistics ", 12, descs)
	nsvc := ratectr.NewGroup("ns:nsvc", "NSVC Peer Statistics", 0, []ratectr.Desc{{Name: "lost:alive", Description: "ALIVE ACK missing count"}})
	nsvc.IndexName = `NSE00101-NSVC-UDP-0_0_0_0:23001-"x\y"`
	for _, g := range []*ratectr.Group{bts12, bts1, nsvc, bts0} {
		reg.Register(g)
	}
	bts0.Add(0, 5)
	bts1.Add(1, 1<<40)
	bts12.Add(0, 12)
	nsvc.Add(0, 3)
	reg.Register(ratectr.NewGroup("bts", "BTS Statistics", 0, descs)) // a duplicate: not shown

	e := New(reg)
	e.SetItems([]stats.Item{
		{Group: "bts", Name: "ms.present", Value: 3, Description: "MS Present   "},
		{Group: "bts", Index: 1, Name: "ms.present", Value: -2, Description: "MS Present   "},
		{Group: "bts", Name: "ms.present", Value: 99}, // duplicate (group, index, name): the first one counts
		{Group: "pcu:l1if", Name: "rtt", Value: 7, Unit: "ms"},
	})
	tbfs := e.NewGaugeVec(Namespace+"_bts_tbfs", "TBFs that exist now, per direction", "index", "dir")
	tbfs.WithLabelValues("0", "ul").Set(2)
	tbfs.WithLabelValues("0", "dl").Set(4.5)
	e.NewGaugeVec(Namespace+"_bts_llc_queue_frames", "unused", "index") // no series: no family

	e.ObserveSojourn(0xc0000001, 5*time.Millisecond)
	e.ObserveSojourn(0xc0000001, 250*time.Millisecond)
	e.ObserveSojourn(0x00000002, time.Minute)
	e.ObserveSojourn(0xc0000003, time.Second)
	e.ForgetMS(0xc0000003)

	ctr := func(help string, s map[string]float64) wantFamily {
		return wantFamily{typ: dto.MetricType_COUNTER, help: help, series: s}
	}
	gauge := func(help string, s map[string]float64) wantFamily {
		return wantFamily{typ: dto.MetricType_GAUGE, help: help, series: s}
	}
	// 5 ms -> le 0.01; 250 ms -> le 0.5; 60 s -> +Inf; 1 s -> le 1.
	cum := func(at ...int) []uint64 { // bucket indexes of the observations
		c := make([]uint64, len(SojournBuckets)+1)
		for _, i := range at {
			for j := i; j < len(c); j++ {
				c[j]++
			}
		}
		return c
	}
	want := map[string]wantFamily{
		"gopcu_bts_rach_requests_total": ctr("BTS Statistics: RACH requests", map[string]float64{"index=0": 5, "index=1": 0, "index=12": 12}),
		"gopcu_bts_tbf_dl_alloc_total":  ctr("BTS Statistics: tbf:dl:alloc", map[string]float64{"index=0": 0, "index=1": 1 << 40, "index=12": 0}),
		"gopcu_ns_nsvc_lost_alive_total": ctr("NSVC Peer Statistics: ALIVE ACK missing count",
			map[string]float64{"index=" + nsvc.IndexName: 3}),
		"gopcu_bts_ms_present": gauge("MS Present", map[string]float64{"index=0": 3, "index=1": -2}),
		"gopcu_pcu_l1if_rtt":   gauge("Stat item pcu:l1if rtt (ms)", map[string]float64{"index=0": 7}),
		"gopcu_bts_tbfs":       gauge("TBFs that exist now, per direction", map[string]float64{"dir=ul,index=0": 2, "dir=dl,index=0": 4.5}),
		"gopcu_llc_sojourn_seconds": {typ: dto.MetricType_HISTOGRAM, help: sojournAllHelp,
			hists: map[string]wantHist{"": {cum(0, 5, 12, 6), 0.005 + 0.25 + 60 + 1}}},
		"gopcu_ms_llc_sojourn_seconds": {typ: dto.MetricType_HISTOGRAM, help: sojournMSHelp,
			hists: map[string]wantHist{"tlli=0xc0000001": {cum(0, 5), 0.255}, "tlli=0x00000002": {cum(12), 60}}},
	}

	body := get(t, e.Handler(), "/metrics", nil).Body.String()
	mf := parsePage(t, body)
	for name, f := range mf {
		if strings.HasPrefix(name, "go_") {
			continue
		}
		w, ok := want[name]
		if !ok {
			t.Errorf("unexpected family %s", name)
			continue
		}
		delete(want, name)
		if f.GetType() != w.typ || f.GetHelp() != w.help {
			t.Errorf("%s: %v %q, want %v %q", name, f.GetType(), f.GetHelp(), w.typ, w.help)
		}
		n := len(w.series) + len(w.hists)
		if len(f.GetMetric()) != n {
			t.Errorf("%s: %d series, want %d", name, len(f.GetMetric()), n)
		}
		for _, m := range f.GetMetric() {
			k := seriesKey(m)
			switch w.typ {
			case dto.MetricType_COUNTER, dto.MetricType_GAUGE:
				v := m.GetCounter().GetValue() + m.GetGauge().GetValue()
				if wv, ok := w.series[k]; !ok || v != wv {
					t.Errorf("%s{%s} = %v, want %v (present %v)", name, k, v, wv, ok)
				}
			case dto.MetricType_HISTOGRAM:
				wh, ok := w.hists[k]
				h := m.GetHistogram()
				if !ok {
					t.Errorf("%s: unexpected series {%s}", name, k)
					continue
				}
				bounds := append(slices.Clone(SojournBuckets), math.Inf(1))
				var got []uint64
				for i, b := range h.GetBucket() {
					if b.GetUpperBound() != bounds[i] {
						t.Errorf("%s{%s}: bucket %d le=%v", name, k, i, b.GetUpperBound())
					}
					got = append(got, b.GetCumulativeCount())
				}
				if !slices.Equal(got, wh.counts) || h.GetSampleCount() != wh.counts[len(wh.counts)-1] ||
					math.Abs(h.GetSampleSum()-wh.sum) > 1e-9 {
					t.Errorf("%s{%s}: buckets %v count %d sum %v, want %v sum %v", name, k, got, h.GetSampleCount(), h.GetSampleSum(), wh.counts, wh.sum)
				}
			}
		}
	}
	for name := range want {
		t.Errorf("family %s missing", name)
	}
	// Each family once (the parser would fail otherwise), series by index.
	if i, j, k := strings.Index(body, `gopcu_bts_rach_requests_total{index="0"}`), strings.Index(body, `gopcu_bts_rach_requests_total{index="1"}`),
		strings.Index(body, `gopcu_bts_rach_requests_total{index="12"}`); i > j || j > k {
		t.Errorf("series not ordered by index:\n%s", body)
	}
	// Values as the Go client wrote them (2^40 in shortest 'g' form).
	if !strings.Contains(body, `gopcu_bts_tbf_dl_alloc_total{index="1"} 1.099511627776e+12`+"\n") {
		t.Errorf("2^40 written differently:\n%s", body)
	}
}

// TestGoFamiliesAsClient: the go_* families have the names, TYPEs and
// HELP texts the Prometheus Go client's Go collector had
// (testdata/client_golang_go_families.txt, taken from gopcu's page
// before the switch), each series once, with the client's label sets.
func TestGoFamiliesAsClient(t *testing.T) {
	raw, err := os.ReadFile("testdata/client_golang_go_families.txt")
	if err != nil {
		t.Fatal(err)
	}
	var want []string
	for l := range strings.Lines(string(raw)) {
		if strings.HasPrefix(l, "# HELP ") || strings.HasPrefix(l, "# TYPE ") {
			want = append(want, strings.TrimSuffix(l, "\n"))
		}
	}
	body := get(t, New(nil).Handler(), "/metrics", nil).Body.String()
	var got []string
	series := map[string]int{}
	sc := bufio.NewScanner(strings.NewReader(body))
	for sc.Scan() {
		l := sc.Text()
		if strings.HasPrefix(l, "# ") && strings.Contains(l, " go_") {
			got = append(got, l)
		} else if strings.HasPrefix(l, "go_") {
			series[l[:strings.LastIndexByte(l, ' ')]]++
		}
	}
	sort.Strings(want)
	sort.Strings(got)
	if !slices.Equal(got, want) {
		t.Errorf("go_* HELP/TYPE lines differ from the client's:\ngot  %q\nwant %q", got, want)
	}
	for _, s := range []string{`go_gc_duration_seconds{quantile="0"}`, `go_gc_duration_seconds{quantile="0.25"}`,
		`go_gc_duration_seconds{quantile="0.5"}`, `go_gc_duration_seconds{quantile="0.75"}`, `go_gc_duration_seconds{quantile="1"}`,
		"go_gc_duration_seconds_sum", "go_gc_duration_seconds_count", `go_info{version="` + runtime.Version() + `"}`,
		"go_memstats_mallocs_total", "go_memstats_heap_alloc_bytes", "go_goroutines", "go_threads"} {
		if series[s] != 1 {
			t.Errorf("%s: %d lines", s, series[s])
		}
	}
	if len(series) != len(want)/2-1+7 { // one line per family, the summary's 7
		t.Errorf("%d go_ series: %v", len(series), series)
	}
}

// TestRuntimeValues: go_memstats_mallocs_total is runtime.MemStats.Mallocs
// (cumulative heap objects allocated) and go_gc_duration_seconds_count is
// MemStats.NumGC (completed GC cycles), read at the same instant (no
// allocation and no GC between two ReadMemStats calls around the read).
func TestRuntimeValues(t *testing.T) {
	var r runtimeReader
	r.init()
	r.read() // grow the buffers
	runtime.GC()
	runtime.GC()
	var m1, m2 runtime.MemStats
	for try := 0; ; try++ {
		runtime.ReadMemStats(&m1)
		r.read()
		runtime.ReadMemStats(&m2)
		if m1.Mallocs == m2.Mallocs && m1.NumGC == m2.NumGC {
			break
		}
		if try == 100 {
			t.Skip("the process never stood still for a read")
		}
	}
	if got := r.mallocs(); got != float64(m1.Mallocs) {
		t.Errorf("mallocs %v, MemStats.Mallocs %d", got, m1.Mallocs)
	}
	if r.gc.NumGC != int64(m1.NumGC) || m1.NumGC < 2 {
		t.Errorf("NumGC %d, MemStats.NumGC %d", r.gc.NumGC, m1.NumGC)
	}
	if r.gc.PauseTotal != time.Duration(m1.PauseTotalNs) {
		t.Errorf("pause total %v, MemStats %v", r.gc.PauseTotal, time.Duration(m1.PauseTotalNs))
	}
	cycles := []metrics.Sample{{Name: "/gc/cycles/total:gc-cycles"}}
	metrics.Read(cycles)
	if c := cycles[0].Value.Uint64(); c != uint64(m1.NumGC) {
		t.Errorf("/gc/cycles/total:gc-cycles %d, NumGC %d", c, m1.NumGC)
	}

	// On the page, read before the scrape's own allocations.
	e := New(nil)
	h := e.Handler()
	get(t, h, "/metrics", nil)
	runtime.GC()
	page := get(t, h, "/metrics", nil).Body.String()
	runtime.ReadMemStats(&m2)
	var mallocs, gcs float64
	for l := range strings.Lines(page) {
		if _, err := fmt.Sscanf(l, "go_memstats_mallocs_total %g", &mallocs); err == nil {
			continue
		}
		fmt.Sscanf(l, "go_gc_duration_seconds_count %g", &gcs)
	}
	if mallocs == 0 || mallocs > float64(m2.Mallocs) || gcs == 0 || gcs > float64(m2.NumGC) {
		t.Errorf("page: mallocs %v gcs %v; MemStats after: %d %d", mallocs, gcs, m2.Mallocs, m2.NumGC)
	}
}

func get(t *testing.T, h http.Handler, path string, hdr map[string]string) *httptest.ResponseRecorder {
	t.Helper()
	req := httptest.NewRequest("GET", path, nil)
	for k, v := range hdr {
		req.Header.Set(k, v)
	}
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	if rec.Code != 200 {
		t.Fatalf("%s: status %d", path, rec.Code)
	}
	return rec
}

// TestServePaths: /metrics in the text format, uncompressed even when
// gzip is offered; other paths 404.
func TestServePaths(t *testing.T) {
	e := New(nil)
	s, err := e.Serve("127.0.0.1:0")
	if err != nil {
		t.Skipf("needs a loopback TCP listener: %v", err)
	}
	defer s.Close()
	base := "http://" + s.Addr().String()
	req, _ := http.NewRequest("GET", base+"/metrics", nil)
	req.Header.Set("Accept-Encoding", "gzip")
	tr := &http.Transport{DisableCompression: true}
	defer tr.CloseIdleConnections()
	resp, err := tr.RoundTrip(req)
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	b.ReadFrom(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 || resp.Header.Get("Content-Type") != "text/plain; version=0.0.4; charset=utf-8" ||
		resp.Header.Get("Content-Encoding") != "" || !strings.HasPrefix(b.String(), "# HELP ") {
		t.Errorf("GET /metrics: %d %v %.40q", resp.StatusCode, resp.Header, b.String())
	}
	for _, p := range []string{"/", "/metric", "/debug/pprof/"} {
		resp, err := http.Get(base + p)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != 404 {
			t.Errorf("GET %s: %d, want 404", p, resp.StatusCode)
		}
	}
}

// blockedWriter is a client that stops reading: Write blocks until release.
type blockedWriter struct {
	hdr     http.Header
	writing chan struct{}
	release chan struct{}
}

func (w *blockedWriter) Header() http.Header { return w.hdr }
func (w *blockedWriter) WriteHeader(int)     {}
func (w *blockedWriter) Write(b []byte) (int, error) {
	close(w.writing)
	<-w.release
	return len(b), nil
}

// TestScrapeDoesNotBlockEngine: while a scrape is stuck writing to a slow
// client, every call the engine makes (SetItems, ObserveSojourn for a new
// MS, ForgetMS, a gauge's first and later use) still returns.
func TestScrapeDoesNotBlockEngine(t *testing.T) {
	e := New(&ratectr.Registry{})
	gv := e.NewGaugeVec("gopcu_x", "x", "index")
	w := &blockedWriter{hdr: http.Header{}, writing: make(chan struct{}), release: make(chan struct{})}
	scraped := make(chan struct{})
	go func() {
		e.Handler().ServeHTTP(w, httptest.NewRequest("GET", "/metrics", nil))
		close(scraped)
	}()
	<-w.writing
	done := make(chan struct{})
	go func() {
		e.SetItems([]stats.Item{{Group: "bts", Name: "ms.present", Value: 1}})
		e.ObserveSojourn(0xc0000009, time.Millisecond)
		e.ForgetMS(0xc0000009)
		gv.WithLabelValues("0").Set(1)
		gv.WithLabelValues("0").Set(2)
		close(done)
	}()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("the engine's calls wait for a stuck scrape")
	}
	close(w.release)
	<-scraped
}

// TestHistogramsUnderConcurrentScrapes: scrapes racing ObserveSojourn
// (run with -race) see consistent histograms: buckets non-decreasing and
// _count equal to the +Inf bucket.
func TestHistogramsUnderConcurrentScrapes(t *testing.T) {
	e := New(nil)
	h := e.Handler()
	stop := make(chan struct{})
	var wg sync.WaitGroup
	wg.Go(func() { // the engine
		for i := 0; ; i++ {
			select {
			case <-stop:
				return
			default:
			}
			e.ObserveSojourn(uint32(0xc0000000+i%8), time.Duration(i%40)*100*time.Millisecond)
			if i%1000 == 999 {
				e.ForgetMS(uint32(0xc0000000 + i/1000%8))
			}
		}
	})
	for range 30 {
		mf := parsePage(t, get(t, h, "/metrics", nil).Body.String())
		for _, name := range []string{"gopcu_llc_sojourn_seconds", "gopcu_ms_llc_sojourn_seconds"} {
			for _, m := range mf[name].GetMetric() {
				hs := m.GetHistogram()
				var last uint64
				for _, b := range hs.GetBucket() {
					if b.GetCumulativeCount() < last {
						t.Fatalf("%s{%s}: buckets decrease: %v", name, seriesKey(m), hs)
					}
					last = b.GetCumulativeCount()
				}
				if last != hs.GetSampleCount() {
					t.Fatalf("%s{%s}: +Inf %d, count %d", name, seriesKey(m), last, hs.GetSampleCount())
				}
			}
		}
	}
	close(stop)
	wg.Wait()
}

func TestGaugeVec(t *testing.T) {
	e := New(nil)
	v := e.NewGaugeVec("gopcu_q", "q", "index", "dir")
	g := v.WithLabelValues("0", "ul")
	if v.WithLabelValues("0", "ul") != g || v.WithLabelValues("0", "dl") == g || v.WithLabelValues("0u", "l") == g {
		t.Error("WithLabelValues: wrong series")
	}
	g.Set(3.25)
	if g.Value() != 3.25 {
		t.Errorf("value %v", g.Value())
	}
	idx := "1" // the series is made in AllocsPerRun's warm-up run
	if n := testing.AllocsPerRun(100, func() { v.WithLabelValues(idx, "ul").Set(1) }); n != 0 {
		t.Errorf("existing series: %v allocations per use, want 0", n)
	}
	defer func() {
		if recover() == nil {
			t.Error("no panic for a wrong number of label values")
		}
	}()
	v.WithLabelValues("0")
}

func TestObserveSojournAllocs(t *testing.T) {
	e := New(nil)
	e.ObserveSojourn(1, time.Millisecond)
	if n := testing.AllocsPerRun(1000, func() { e.ObserveSojourn(1, 30*time.Millisecond) }); n != 0 {
		t.Errorf("ObserveSojourn: %v allocations, want 0", n)
	}
}

// TestScrapeAllocs: a page costs the process a few allocations, not
// thousands (the Go client made ~3 600; pcubench's allocations per block
// include the scrapes): 5 today, 3 of them Registry.Groups' sorted copy,
// 1 each gauge vector's series list.
func TestScrapeAllocs(t *testing.T) {
	reg := &ratectr.Registry{}
	reg.Register(ratectr.NewGroup("bts", "BTS Statistics", 0, pcu.BTSCounterDescs))
	reg.Register(ratectr.NewGroup("pcu:sgsn", "SGSN Statistics", 0, pcu.SGSNCounterDescs))
	e := New(reg)
	e.SetItems([]stats.Item{{Group: "bts", Name: "ms.present", Value: 1}, {Group: "bts", Index: 1, Name: "ms.present"}})
	e.NewGaugeVec("gopcu_bts_tbfs", "TBFs", "index", "dir").WithLabelValues("0", "ul").Set(1)
	e.ObserveSojourn(0xc0000001, time.Second)
	if n := testing.AllocsPerRun(50, func() { e.scrape(func([]byte) {}) }); n > 6 {
		t.Errorf("%v allocations per page, want <= 6", n)
	}
}
