package main

import (
	"math"
	"testing"
)

// TestSplits: one ping that asked for an uplink TBF and one sent on an
// open one, with their steps in the phone's trace and on Gb; each step is
// the difference of its two times.
func TestSplits(t *testing.T) {
	ev := []event{
		{100.010, "ulq", pingFrame}, // ping 1: queued 10 ms after ping sent it
		{100.050, "crd", 1},
		{100.150, "pua", 2},
		{100.170, "ul", 0},
		{100.190, "ul", 1},
		{100.400, "dlf", pingFrame},
		{101.005, "ulq", 62},        // a TCP ack
		{101.010, "ulq", pingFrame}, // ping 2: the TBF is open
		{101.030, "ul", 7},
		{101.300, "dlf", pingFrame},
	}
	pings := []ping{{100.401, 0.401}, {101.301, 0.301}}
	gb := []gbPing{
		{100.250, true, "10.45.0.1"}, {100.251, false, "10.45.0.1"},
		{100.260, true, "10.45.0.2"}, // another phone's
		{101.100, true, "10.45.0.1"}, {101.101, false, "10.45.0.1"},
	}
	got := splits(ev, pings, gb)
	want := []split{
		{rtt: 0.401, request: 0.040, assign: 0.100, firstUL: 0.160, ulAir: 0.080, core: 0.001, dl: 0.149},
		{rtt: 0.301, request: -1, assign: -1, firstUL: 0.020, ulAir: 0.070, core: 0.001, dl: 0.199},
	}
	if len(got) != len(want) {
		t.Fatalf("%d splits, want %d: %+v", len(got), len(want), got)
	}
	near := func(a, b float64) bool { return math.Abs(a-b) < 1e-6 }
	for i, w := range want {
		g := got[i]
		if g.asked() != w.asked() || !near(g.rtt, w.rtt) || !near(g.request, w.request) || !near(g.assign, w.assign) ||
			!near(g.firstUL, w.firstUL) || !near(g.ulAir, w.ulAir) || !near(g.core, w.core) || !near(g.dl, w.dl) {
			t.Errorf("ping %d: %+v, want %+v", i+1, g, w)
		}
	}
	if a := phoneAddr(pings, gb); a != "10.45.0.1" {
		t.Errorf("phone address %q, want 10.45.0.1", a)
	}
}
