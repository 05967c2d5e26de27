package main

import (
	"math"
	"testing"
)

func TestHistQuantile(t *testing.T) {
	inf := math.Inf(1)
	// 10 observations ≤ 0.1 s, 10 in (0.1, 0.2], 20 in (0.2, 0.5], none above
	h := Hist{Bound: []float64{0.1, 0.2, 0.5, inf}, Count: []float64{10, 20, 40, 40}}
	for _, c := range []struct{ q, skip, want float64 }{
		{0.5, 0, 0.2},    // rank 20: the top of the second bucket
		{0.25, 0, 0.1},   // rank 10
		{0.125, 0, 0.05}, // rank 5: half way into the first bucket
		{0.75, 0, 0.35},  // rank 30: half way into (0.2, 0.5]
		{0.5, 10, 0.275}, // the 10 lowest removed: rank 10 + 15 = 25
		{0, 10, 0.1},     // the lowest left is at rank 10
		{0.95, 0, 0.47},  // rank 38: 0.2 + 18/20 × 0.3
	} {
		if got := HistQuantile(h, c.q, c.skip); math.Abs(got-c.want) > 1e-9 {
			t.Errorf("HistQuantile(q=%v, skip=%v) = %v, want %v", c.q, c.skip, got, c.want)
		}
	}
	// beyond the last finite bound
	h2 := Hist{Bound: []float64{1, inf}, Count: []float64{1, 4}}
	if got := HistQuantile(h2, 0.5, 0); !math.IsInf(got, 1) {
		t.Errorf("in the +Inf bucket: %v, want +Inf", got)
	}
	if got := HistQuantile(h, 0.5, 40); !math.IsNaN(got) {
		t.Errorf("everything removed: %v, want NaN", got)
	}
}

func TestQuantileNearestRank(t *testing.T) {
	xs := []float64{1, 2, 3, 4, 5, 6, 7, 8, 9, 10}
	if q := quantile(xs, 0.5); q != 5 {
		t.Errorf("p50 = %v, want 5", q)
	}
	if q := quantile(xs, 0.95); q != 10 {
		t.Errorf("p95 = %v, want 10", q)
	}
	if q := quantile(nil, 0.5); !math.IsNaN(q) {
		t.Errorf("empty: %v", q)
	}
}
