package ratectr

import (
	"bytes"
	"testing"
)

var testDescs = []Desc{{"rach:requests", "RACH requests"}, {"llc:dropped", "Dropped LLC frames"}}

func TestRates(t *testing.T) {
	var r Registry
	g := NewGroup("bts", "BTS Statistics", 0, testDescs)
	r.Register(g)
	for s := 0; s < 120; s++ {
		g.Add(0, 3)
		r.Tick()
	}
	if got := g.Value(0); got != 360 {
		t.Fatalf("total %d, want 360", got)
	}
	if got := g.Ctr(0).Rate(PerSecond); got != 3 {
		t.Fatalf("per second %d, want 3", got)
	}
	if got := g.Ctr(0).Rate(PerMinute); got != 180 {
		t.Fatalf("per minute %d, want 180", got)
	}
	if got := g.StatName(0); got != "bts.0.rach.requests" {
		t.Fatalf("stat name %q", got)
	}
	n := NewGroup("ns:nsvc", "NSVC Peer Statistics", 3, []Desc{{Name: "lost:alive"}})
	n.IndexName = "NSE00101-NSVC-UDP-0_0_0_0:23001-127_0_0_1:23000"
	if got := n.StatName(0); got != "ns.nsvc.NSE00101-NSVC-UDP-0_0_0_0.23001-127_0_0_1.23000.lost.alive" {
		t.Fatalf("named group stat name %q", got)
	}
	var b bytes.Buffer
	g.WriteVTY(&b, " ", true)
	want := " BTS Statistics:\n  RACH requests:      360 (3/s 180/m 0/h 0/d)\n"
	if b.String() != want {
		t.Fatalf("vty output %q, want %q", b.String(), want)
	}
	g.Reset()
	if g.Value(0) != 0 {
		t.Fatal("reset")
	}
}

func BenchmarkInc(b *testing.B) {
	g := NewGroup("bts", "BTS Statistics", 0, testDescs)
	b.ReportAllocs()
	for b.Loop() {
		g.Inc(1)
	}
}
