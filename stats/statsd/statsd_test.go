package statsd

import (
	"net"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/gopcu/gopcu/internal/ratectr"
)

// capture collects the datagrams a reporter sends.
type capture struct{ pkts []string }

func (c *capture) send(b []byte) error { c.pkts = append(c.pkts, string(b)); return nil }

func (c *capture) take() []string { p := c.pkts; c.pkts = nil; return p }

var testDescs = []ratectr.Desc{
	{Name: "rach:requests", Description: "RACH requests received"},
	{Name: "tbf:dl:alloc", Description: "TBF DL Allocated"},
}

// ttcn3 is osmo-pcu's TTCN-3 reporter (osmo-ttcn3-hacks pcu/osmo-pcu.cfg).
var ttcn3 = Config{Prefix: "TTCN3", Level: ClassSubscriber, FlushPeriod: 1, MTU: 1024}

func testRegistry() (*ratectr.Registry, *ratectr.Group, *ratectr.Group) {
	reg := &ratectr.Registry{}
	bts := ratectr.NewGroup("bts", "BTS Statistics", 0, testDescs)
	sgsn := ratectr.NewGroup("pcu:sgsn", "SGSN Statistics", 0, []ratectr.Desc{{Name: "rx_paging_ps"}})
	reg.Register(bts)
	reg.Register(sgsn)
	return reg, bts, sgsn
}

func TestDeltasAndSkipping(t *testing.T) {
	reg, bts, sgsn := testRegistry()
	cfg := ttcn3
	cfg.FlushPeriod = 0
	items := []Item{{Group: "bts", Name: "ms.present", Value: 0}}
	r := New(cfg, reg, func() []Item { return items })
	c := &capture{}
	r.SetSender(c.send)
	now := time.Unix(0, 0)
	// report reports and checks the datagrams sent (want; none: nothing).
	report := func(what string, want ...string) {
		t.Helper()
		r.Report(now)
		if got := c.take(); !slices.Equal(got, want) {
			t.Fatalf("%s:\n got %q\nwant %q", what, got, want)
		}
	}

	// First report after enable: a full flush, zeros included.
	report("first report", "TTCN3.bts.0.rach.requests:0|c\nTTCN3.bts.0.tbf.dl.alloc:0|c\nTTCN3.pcu.sgsn.0.rx_paging_ps:0|c\nTTCN3.bts.0.ms.present:0|g")

	// A counter moved by N: "name:N|c" and nothing else.
	bts.Add(0, 5)
	sgsn.Inc(0)
	report("delta report", "TTCN3.bts.0.rach.requests:5|c\nTTCN3.pcu.sgsn.0.rx_paging_ps:1|c")

	// Nothing moved: nothing sent.
	report("idle report")

	// A stat item changed; negative gauges are sent as 0 (stats_statsd.c).
	items[0].Value = 3
	bts.Inc(1)
	report("item report", "TTCN3.bts.0.tbf.dl.alloc:1|c\nTTCN3.bts.0.ms.present:3|g")
	items[0].Value = -2
	report("negative item", "TTCN3.bts.0.ms.present:0|g")

	// A named group's name replaces its index.
	items = append(items, Item{Group: "ns.nsvc", IndexName: "NSE00101-NSVC-UDP-0_0_0_0.23001-127_0_0_1.23000", Name: "alive.delay", Value: 12})
	report("named item", "TTCN3.ns.nsvc.NSE00101-NSVC-UDP-0_0_0_0.23001-127_0_0_1.23000.alive.delay:12|g")
	items = items[:1]

	// So does a named counter group's (rate_ctr_group_set_name).
	nsvc := ratectr.NewGroup("ns:nsvc", "NSVC Peer Statistics", 0, []ratectr.Desc{{Name: "lost:reset"}})
	nsvc.IndexName = "NSE00101-NSVC-UDP-0_0_0_0:23001-127_0_0_1:23000"
	reg.Register(nsvc)
	nsvc.Inc(0)
	report("named group", "TTCN3.ns.nsvc.NSE00101-NSVC-UDP-0_0_0_0.23001-127_0_0_1.23000.lost.reset:1|c")
	reg.Unregister(nsvc)

	// `stats reset` zeroes counter and previous: no negative delta.
	bts.Reset()
	report("report after reset")
	bts.Add(0, 2)
	report("after reset", "TTCN3.bts.0.rach.requests:2|c")
	if s := r.Stats(); s.Reports != 9 || s.Packets != 7 {
		t.Fatalf("stats %+v", s)
	}
}

func TestNoPrefixNoMTU(t *testing.T) {
	reg, bts, _ := testRegistry()
	r := New(Config{Level: ClassSubscriber}, reg, nil)
	c := &capture{}
	r.SetSender(c.send)
	bts.Add(1, 7)
	r.Report(time.Time{})
	// Without an mtu every line is its own datagram.
	want := []string{"bts.0.rach.requests:0|c", "bts.0.tbf.dl.alloc:7|c", "pcu.sgsn.0.rx_paging_ps:0|c"}
	if got := c.take(); !slices.Equal(got, want) {
		t.Fatalf("got %q\nwant %q", got, want)
	}
}

func TestFlushPeriod(t *testing.T) {
	// libosmocore stats.c flush_all_reporters: the first report is forced,
	// then every flush-period-th one.
	for _, tc := range []struct {
		period int
		forced []bool
	}{
		{0, []bool{true, false, false, false, false}},
		{1, []bool{true, true, true, true, true}},
		{2, []bool{true, false, true, false, true}},
		{3, []bool{true, false, false, true, false}},
	} {
		reg, _, _ := testRegistry()
		cfg := ttcn3
		cfg.FlushPeriod = tc.period
		r := New(cfg, reg, nil)
		c := &capture{}
		r.SetSender(c.send)
		for i, f := range tc.forced {
			r.Report(time.Time{})
			if got := len(c.take()) > 0; got != f {
				t.Errorf("flush-period %d report %d: sent=%v want %v", tc.period, i+1, got, f)
			}
		}
	}
}

func TestLevel(t *testing.T) {
	reg, _, _ := testRegistry()
	reg.Register(ratectr.NewGroup("bssgp:bss_ctx", "BSSGP Peer Statistics", 1800, []ratectr.Desc{{Name: "packets:in"}}))
	reg.Register(ratectr.NewGroup("x", "unknown class", 2, []ratectr.Desc{{Name: "y"}}))
	reg.Register(ratectr.NewGroup("z", "unknown class", 0, []ratectr.Desc{{Name: "y"}}))
	for _, tc := range []struct {
		level string
		want  []string
	}{
		{"global", []string{"bts.0.rach.requests", "bts.0.tbf.dl.alloc", "z.0.y"}},
		{"peer", []string{"bssgp.bss_ctx.1800.packets.in", "bts.0.rach.requests", "bts.0.tbf.dl.alloc", "z.0.y"}},
		{"subscriber", []string{"bssgp.bss_ctx.1800.packets.in", "bts.0.rach.requests", "bts.0.tbf.dl.alloc", "pcu.sgsn.0.rx_paging_ps", "x.2.y", "z.0.y"}},
	} {
		lvl, err := ParseLevel(tc.level)
		if err != nil {
			t.Fatal(err)
		}
		r := New(Config{Level: lvl}, reg, nil)
		c := &capture{}
		r.SetSender(c.send)
		r.Report(time.Time{})
		got := names(c.take())
		slices.Sort(got)
		if !slices.Equal(got, tc.want) {
			t.Errorf("level %s: got %q want %q", tc.level, got, tc.want)
		}
	}
	if _, err := ParseLevel("all"); err == nil {
		t.Error("ParseLevel(all) accepted")
	}
}

func names(pkts []string) []string {
	var out []string
	for _, p := range pkts {
		for l := range strings.SplitSeq(p, "\n") {
			i := strings.LastIndexByte(l, ':')
			out = append(out, l[:i])
		}
	}
	return out
}

func TestMTUPacking(t *testing.T) {
	// mtu 100: 72 bytes of buffer, a datagram holds at most 71 (the
	// snprintf NUL), lines are never split.
	descs := make([]ratectr.Desc, 8)
	for i := range descs {
		descs[i].Name = "c" + strings.Repeat("x", 10) + string(rune('a'+i)) // 12 chars
	}
	reg := &ratectr.Registry{}
	reg.Register(ratectr.NewGroup("g", "", 0, descs))
	r := New(Config{Prefix: "P", MTU: 100}, reg, nil)
	c := &capture{}
	r.SetSender(c.send)
	r.Report(time.Time{})
	// Each line "P.g.0.cxxxxxxxxxxa:0|c" is 22 bytes; 3 lines + 2 LF = 68 <= 71,
	// a 4th would make 91.
	line := func(ch byte) string { return "P.g.0.c" + strings.Repeat("x", 10) + string(ch) + ":0|c" }
	want := []string{
		line('a') + "\n" + line('b') + "\n" + line('c'),
		line('d') + "\n" + line('e') + "\n" + line('f'),
		line('g') + "\n" + line('h'),
	}
	if got := c.take(); !slices.Equal(got, want) {
		t.Fatalf("got %q\nwant %q", got, want)
	}

	// Exact boundary: a line of 71 bytes fits an empty buffer, 72 does not.
	for _, tc := range []struct {
		n    int
		sent bool
	}{{71, true}, {72, false}} {
		name := strings.Repeat("n", tc.n-len("g.0.:0|c"))
		reg := &ratectr.Registry{}
		reg.Register(ratectr.NewGroup("g", "", 0, []ratectr.Desc{{Name: name}}))
		r := New(Config{MTU: 100}, reg, nil)
		c := &capture{}
		r.SetSender(c.send)
		r.Report(time.Time{})
		got := c.take()
		if (len(got) == 1) != tc.sent || (tc.sent && len(got[0]) != tc.n) {
			t.Errorf("line of %d: got %q", tc.n, got)
		}
		if !tc.sent && r.Stats().Oversized != 1 {
			t.Errorf("line of %d not counted as oversized", tc.n)
		}
	}
}

func TestTickInterval(t *testing.T) {
	reg, _, _ := testRegistry()
	cfg := ttcn3
	cfg.Interval = 5
	r := New(cfg, reg, nil)
	c := &capture{}
	r.SetSender(c.send)
	t0 := time.Unix(1000, 0)
	var at []int
	for s := 0; s <= 12; s++ {
		if r.Tick(t0.Add(time.Duration(s) * time.Second)) {
			at = append(at, s)
		}
	}
	if !slices.Equal(at, []int{0, 5, 10}) {
		t.Fatalf("reports at %v", at)
	}
	cfg.Interval = 0
	r = New(cfg, reg, nil)
	if r.Tick(t0) {
		t.Fatal("interval 0 reported")
	}
}

func TestConfigFromSpec(t *testing.T) {
	v := Spec{Type: "statsd", RemoteIP: "127.0.0.1", RemotePort: 8125, MTU: 1024,
		Level: "subscriber", Prefix: "TTCN3", FlushPeriod: 1, Enabled: true}
	cfg, err := ConfigFromSpec(v, 0)
	if err != nil {
		t.Fatal(err)
	}
	want := Config{Prefix: "TTCN3", Level: ClassSubscriber, MTU: 1024, FlushPeriod: 1, RemoteIP: "127.0.0.1", RemotePort: 8125}
	if cfg != want {
		t.Fatalf("got %+v want %+v", cfg, want)
	}
}

// TestUDP sends osmo-pcu's TTCN-3 reporter's report to a UDP listener.
func TestUDP(t *testing.T) {
	ln, err := net.ListenUDP("udp", &net.UDPAddr{IP: net.IPv4(127, 0, 0, 1)})
	if err != nil {
		t.Skipf("needs a loopback UDP socket: %v", err)
	}
	defer ln.Close()
	specs := []Spec{
		{Type: "log", Enabled: true},
		{Type: "statsd", RemoteIP: "127.0.0.1", RemotePort: ln.LocalAddr().(*net.UDPAddr).Port, MTU: 1024,
			Level: "subscriber", Prefix: "TTCN3", FlushPeriod: 1, Enabled: true},
	}
	reg, bts, _ := testRegistry()
	rs, err := FromSpecs(specs, 0, reg, nil)
	if err != nil || len(rs) != 1 {
		t.Fatalf("FromSpecs: %v %v", rs, err)
	}
	r := rs[0]
	defer r.Close()
	bts.Add(0, 3)
	r.Report(time.Now())
	ln.SetReadDeadline(time.Now().Add(5 * time.Second))
	b := make([]byte, 2048)
	n, from, err := ln.ReadFromUDP(b)
	if err != nil {
		t.Fatal(err)
	}
	if from.AddrPort() != r.LocalAddr() {
		t.Errorf("from %v, reporter socket %v", from, r.LocalAddr())
	}
	want := "TTCN3.bts.0.rach.requests:3|c\nTTCN3.bts.0.tbf.dl.alloc:0|c\nTTCN3.pcu.sgsn.0.rx_paging_ps:0|c"
	if got := string(b[:n]); got != want {
		t.Fatalf("got %q want %q", got, want)
	}
}

func TestLogReporter(t *testing.T) {
	reg, bts, _ := testRegistry()
	var lines []string
	items := []Item{{Group: "ns.bind", Name: "tx_backlog_length", Unit: "packets", Value: 2}}
	specs := []Spec{
		{Type: "statsd", Enabled: true, RemoteIP: "127.0.0.1"},
		{Type: "log", Level: "subscriber", Prefix: "P", Enabled: true},
	}
	rs, err := LogFromSpecs(specs, 5, reg, func() []Item { return items }, func(l string) { lines = append(lines, l) })
	if err != nil || len(rs) != 1 {
		t.Fatal(rs, err)
	}
	r := rs[0]
	bts.Add(0, 4)
	r.Report(time.Time{})
	want := []string{
		"stats t=c p=P g=bts i=0 n=rach:requests v=4 u=",
		"stats t=c p=P g=bts i=0 n=tbf:dl:alloc v=0 u=",
		"stats t=c p=P g=pcu:sgsn i=0 n=rx_paging_ps v=0 u=",
		"stats t=i p=P g=ns.bind i=0 n=tx_backlog_length v=2 u=packets",
	}
	if !slices.Equal(lines, want) {
		t.Fatalf("got %q\nwant %q", lines, want)
	}
	lines = nil
	bts.Add(0, 1)
	r.Report(time.Time{})
	if want := []string{"stats t=c p=P g=bts i=0 n=rach:requests v=5 u="}; !slices.Equal(lines, want) {
		t.Fatalf("got %q want %q", lines, want)
	}
}

// TestItemIntervalMax: a stat item is reported with the highest value it
// had since the previous report (libosmocore's stat items keep the
// interval's maximum), sampled on each Tick between reports.
func TestItemIntervalMax(t *testing.T) {
	cfg := ttcn3
	cfg.Interval = 5
	cfg.FlushPeriod = 0
	v := int64(1)
	r := New(cfg, nil, func() []Item { return []Item{{Group: "bts", Name: "ms.present", Value: v}} })
	c := &capture{}
	r.SetSender(c.send)
	t0 := time.Unix(1000, 0)
	values := []int64{1, 4, 9, 2, 3, 3, 3, 3, 3, 3, 3}
	var got []string
	for s, x := range values {
		v = x
		if r.Tick(t0.Add(time.Duration(s) * time.Second)) {
			for _, p := range c.take() {
				got = append(got, strings.TrimSpace(p))
			}
		}
	}
	want := []string{"TTCN3.bts.0.ms.present:1|g", "TTCN3.bts.0.ms.present:9|g", "TTCN3.bts.0.ms.present:3|g"}
	if !slices.Equal(got, want) {
		t.Fatalf("reports %q, want %q", got, want)
	}
}
