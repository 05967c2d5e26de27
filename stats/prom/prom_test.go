package prom

import (
	"fmt"
	"io"
	"math"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
	"time"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"

	"github.com/gopcu/gopcu/internal/ratectr"
	"github.com/gopcu/gopcu/pcu"
	"github.com/gopcu/gopcu/stats"
)

// scrape GETs /metrics from h in the text format and parses the page.
func scrape(t *testing.T, h http.Handler) map[string]*dto.MetricFamily {
	t.Helper()
	return parsePage(t, get(t, h, "/metrics", map[string]string{"Accept": "text/plain; version=0.0.4"}).Body.String())
}

// parsePage parses a /metrics page with the Prometheus project's own text
// parser (expfmt); a page it rejects fails the test.
func parsePage(t *testing.T, body string) map[string]*dto.MetricFamily {
	t.Helper()
	p := expfmt.NewTextParser(model.LegacyValidation)
	mf, err := p.TextToMetricFamilies(strings.NewReader(body))
	if err != nil {
		t.Fatalf("text parser: %v\n%s", err, body)
	}
	return mf
}

func value(t *testing.T, mf map[string]*dto.MetricFamily, name, index string) (float64, dto.MetricType) {
	t.Helper()
	f := mf[name]
	if f == nil {
		t.Fatalf("no family %s", name)
	}
	for _, m := range f.GetMetric() {
		for _, l := range m.GetLabel() {
			if l.GetName() == "index" && l.GetValue() == index {
				switch f.GetType() {
				case dto.MetricType_COUNTER:
					return m.GetCounter().GetValue(), f.GetType()
				case dto.MetricType_GAUGE:
					return m.GetGauge().GetValue(), f.GetType()
				}
			}
		}
	}
	t.Fatalf("no %s{index=%q}", name, index)
	return 0, 0
}

func TestMetricName(t *testing.T) {
	for _, tc := range [][3]string{
		{"bts", "rach:requests:11bit", "gopcu_bts_rach_requests_11bit"},
		{"bts", "tbf:alloc:algo-a", "gopcu_bts_tbf_alloc_algo_a"},
		{"pcu:sgsn", "rx_paging_ps", "gopcu_pcu_sgsn_rx_paging_ps"},
		{"bts", "pdch.occupied.egprs", "gopcu_bts_pdch_occupied_egprs"},
		{"ns:nse", "lost:alive", "gopcu_ns_nse_lost_alive"},
	} {
		if got := MetricName(tc[0], tc[1]); got != tc[2] {
			t.Errorf("MetricName(%q, %q) = %q, want %q", tc[0], tc[1], got, tc[2])
		}
	}
	if got := TLLILabel(0xc0ffee01); got != "0xc0ffee01" {
		t.Errorf("TLLILabel = %q", got)
	}
}

// TestScrapeAgreesWithRegistry scrapes /metrics over the engine's BTS and
// SGSN groups (two BTSs) and checks every counter against the registry.
func TestScrapeAgreesWithRegistry(t *testing.T) {
	reg := &ratectr.Registry{}
	bts0 := ratectr.NewGroup("bts", "BTS Statistics", 0, pcu.BTSCounterDescs)
	bts1 := ratectr.NewGroup("bts", "BTS Statistics", 1, pcu.BTSCounterDescs)
	sgsn := ratectr.NewGroup("pcu:sgsn", "SGSN Statistics", 0, pcu.SGSNCounterDescs)
	for _, g := range []*ratectr.Group{bts0, bts1, sgsn} {
		reg.Register(g)
	}
	for i := range pcu.BTSCounterDescs {
		bts0.Add(i, uint64(i))
		bts1.Add(i, uint64(1000+i))
	}
	sgsn.Add(pcu.SGSNCtrRxPagingPS, 7)
	e := New(reg)
	e.SetItems([]stats.Item{{Group: "bts", Name: "ms.present", Value: 3}, {Group: "bts", Index: 1, Name: "ms.present", Value: 0},
		{Group: "bts", Name: "pdch.occupied.egprs", Value: 2}})

	srv := httptest.NewServer(e.Handler())
	defer srv.Close()
	mf := scrape(t, e.Handler())
	for _, g := range reg.Groups() {
		for i, d := range g.Descs {
			v, typ := value(t, mf, MetricName(g.Name, d.Name)+"_total", itoa(g.Index))
			if typ != dto.MetricType_COUNTER || v != float64(g.Value(i)) {
				t.Errorf("%s %d %s: scraped %v (%v), registry %d", g.Name, g.Index, d.Name, v, typ, g.Value(i))
			}
		}
	}
	if n := len(mf["gopcu_bts_rach_requests_total"].GetMetric()); n != 2 {
		t.Errorf("rach.requests has %d series, want 2", n)
	}
	for _, c := range []struct {
		name, idx string
		v         float64
	}{{"gopcu_bts_ms_present", "0", 3}, {"gopcu_bts_ms_present", "1", 0}, {"gopcu_bts_pdch_occupied_egprs", "0", 2}} {
		if v, typ := value(t, mf, c.name, c.idx); typ != dto.MetricType_GAUGE || v != c.v {
			t.Errorf("%s{index=%s} = %v (%v), want gauge %v", c.name, c.idx, v, typ, c.v)
		}
	}
	// Counters move between scrapes; a duplicate group is ignored, not fatal.
	bts0.Add(pcu.CtrRACHRequests, 5)
	reg.Register(ratectr.NewGroup("bts", "BTS Statistics", 0, pcu.BTSCounterDescs))
	mf = scrape(t, e.Handler())
	if v, _ := value(t, mf, "gopcu_bts_rach_requests_total", "0"); v != float64(pcu.CtrRACHRequests+5) {
		t.Errorf("rach.requests after +5: %v", v)
	}
	// A named group (NS-VC) is labelled with its name.
	nsvc := ratectr.NewGroup("ns:nsvc", "NSVC Peer Statistics", 0, []ratectr.Desc{{Name: "lost:reset", Description: "RESET ACK missing count"}})
	nsvc.IndexName = "NSE00101-NSVC-UDP-0_0_0_0:23001-127_0_0_1:23000"
	nsvc.Add(0, 4)
	reg.Register(nsvc)
	mf = scrape(t, e.Handler())
	if v, _ := value(t, mf, "gopcu_ns_nsvc_lost_reset_total", nsvc.IndexName); v != 4 {
		t.Errorf("named group: %v", v)
	}
	// The real HTTP path answers too.
	resp, err := http.Get(srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 || len(b) == 0 {
		t.Fatalf("GET: %d, %d bytes", resp.StatusCode, len(b))
	}
}

func itoa(u uint32) string { return strconv.FormatUint(uint64(u), 10) }

func TestSojournHistograms(t *testing.T) {
	e := New(nil)
	for _, d := range []time.Duration{5 * time.Millisecond, 15 * time.Millisecond, 300 * time.Millisecond, 40 * time.Second} {
		e.ObserveSojourn(0xc0000001, d)
	}
	e.ObserveSojourn(0xc0000002, 2*time.Second)
	mf := scrape(t, e.Handler())

	ms := mf["gopcu_ms_llc_sojourn_seconds"]
	if ms.GetType() != dto.MetricType_HISTOGRAM || len(ms.GetMetric()) != 2 {
		t.Fatalf("per-MS family: %v", ms)
	}
	var h *dto.Histogram
	for _, m := range ms.GetMetric() {
		if m.GetLabel()[0].GetValue() == "0xc0000001" {
			h = m.GetHistogram()
		}
	}
	if h == nil || h.GetSampleCount() != 4 {
		t.Fatalf("MS 0xc0000001 histogram: %v", h)
	}
	// Cumulative counts at le = 0.01, 0.02, 0.05, ..., 30 (SojournBuckets), +Inf.
	want := []uint64{1, 2, 2, 2, 2, 3, 3, 3, 3, 3, 3, 3, 4}
	bounds := append(append([]float64(nil), SojournBuckets...), math.Inf(1))
	if len(h.GetBucket()) != len(want) {
		t.Fatalf("%d buckets", len(h.GetBucket()))
	}
	for i, b := range h.GetBucket() {
		if b.GetUpperBound() != bounds[i] || b.GetCumulativeCount() != want[i] {
			t.Errorf("bucket %d: le=%v count=%d, want le=%v count=%d", i, b.GetUpperBound(), b.GetCumulativeCount(), bounds[i], want[i])
		}
	}
	all := mf["gopcu_llc_sojourn_seconds"].GetMetric()[0].GetHistogram()
	if all.GetSampleCount() != 5 {
		t.Errorf("all-MS histogram count %d", all.GetSampleCount())
	}

	e.ForgetMS(0xc0000001)
	e.ForgetMS(0xdeadbeef)
	mf = scrape(t, e.Handler())
	if n := len(mf["gopcu_ms_llc_sojourn_seconds"].GetMetric()); n != 1 {
		t.Errorf("after ForgetMS %d per-MS series", n)
	}
}

func TestServe(t *testing.T) {
	e := New(nil)
	s, err := e.Serve("127.0.0.1:0")
	if err != nil {
		t.Skipf("needs a loopback TCP listener: %v", err)
	}
	resp, err := http.Get("http://" + s.Addr().String() + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 200 {
		t.Fatalf("status %d", resp.StatusCode)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
}

// TestScrapeAgreesWithShowStats: every counter line of `show stats`
// (stats.WriteShowStats) has the value the scrape shows.
func TestScrapeAgreesWithShowStats(t *testing.T) {
	reg := &ratectr.Registry{}
	bts := ratectr.NewGroup("bts", "BTS Statistics", 0, pcu.BTSCounterDescs)
	sgsn := ratectr.NewGroup("pcu:sgsn", "SGSN Statistics", 0, pcu.SGSNCounterDescs)
	reg.Register(bts)
	reg.Register(sgsn)
	for i := range pcu.BTSCounterDescs {
		bts.Add(i, uint64(i*i))
	}
	sgsn.Add(pcu.SGSNCtrRxPagingCS, 9)
	e := New(reg)
	mf := scrape(t, e.Handler())
	var b strings.Builder
	stats.WriteShowStats(&b, reg.Groups(), nil, stats.ShowOptions{})
	lines := strings.Split(b.String(), "\n")
	n := 1 // "Ungrouped counters:"
	for _, g := range reg.Groups() {
		if lines[n] != fmt.Sprintf("%s (%d):", g.Description, g.Index) {
			t.Fatalf("line %q", lines[n])
		}
		n++
		for _, d := range g.Descs {
			l := lines[n]
			n++
			var shown uint64
			rest := strings.TrimPrefix(l, " "+d.Description+":")
			if _, err := fmt.Sscan(rest, &shown); err != nil {
				t.Fatalf("line %q: %v", l, err)
			}
			v, _ := value(t, mf, MetricName(g.Name, d.Name)+"_total", itoa(g.Index))
			if v != float64(shown) {
				t.Errorf("%s %s: show stats %d, /metrics %v", g.Name, d.Name, shown, v)
			}
		}
	}
}
