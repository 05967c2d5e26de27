package ratectr

import (
	"bytes"
	"testing"

	"github.com/gopcu/gopcu/stats/counter"
)

var testDescs = []Desc{{Name: "rach:requests", Description: "RACH requests"}, {Name: "llc:dropped", Description: "Dropped LLC frames"}}

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

// TestCounterRegistry: the Registry is the counter.Registry the Gb state
// machines take: NewGroup registers a named instance, Free unregisters it;
// a nil counter.Registry counts nowhere.
func TestCounterRegistry(t *testing.T) {
	r := &Registry{}
	var cr counter.Registry = r
	g := counter.New(cr, counter.GroupSpec{Name: "ns:nsvc", Description: "NSVC Peer Statistics", Index: 3,
		IndexName: "NSE00101-NSVC", Descs: []counter.Desc{{Name: "packets:in", Description: "in"}}})
	g.Add(0, 2)
	g.Inc(0)
	gs := r.Groups()
	if len(gs) != 1 || gs[0] != g || gs[0].Value(0) != 3 || gs[0].StatName(0) != "ns.nsvc.NSE00101-NSVC.packets.in" {
		t.Fatalf("groups %v", gs)
	}
	counter.Free(cr, g)
	if len(r.Groups()) != 0 {
		t.Fatal("not freed")
	}
	off := counter.New(nil, counter.GroupSpec{Name: "x", Descs: []counter.Desc{{Name: "y"}}})
	off.Inc(0)
	off.Add(0, 1)
	counter.Free(nil, off)
}
