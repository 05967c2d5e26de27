package logx

import (
	"testing"
	"time"
)

// TestLimiter: Burst lines per Interval pass, the rest are counted and
// reported by the next line that passes.
func TestLimiter(t *testing.T) {
	l := &Limiter{Interval: 10 * time.Second, Burst: 2}
	type step struct {
		at         time.Duration
		ok         bool
		suppressed int
	}
	for i, s := range []step{
		{0, true, 0},
		{time.Second, true, 0},
		{2 * time.Second, false, 0},
		{9 * time.Second, false, 0},
		{10 * time.Second, true, 2}, // a new interval: the two held back are reported
		{11 * time.Second, true, 0},
		{12 * time.Second, false, 0},
		{time.Minute, true, 1},
	} {
		ok, n := l.Allow(s.at)
		if ok != s.ok || n != s.suppressed {
			t.Errorf("step %d at %v: Allow = %v, %d; want %v, %d", i, s.at, ok, n, s.ok, s.suppressed)
		}
	}
	if l.Suppressed() != 0 {
		t.Errorf("Suppressed = %d", l.Suppressed())
	}
	one := &Limiter{Interval: time.Second} // Burst 0 means 1
	if ok, _ := one.Allow(0); !ok {
		t.Fatal("first line held back")
	}
	if ok, _ := one.Allow(time.Millisecond); ok || one.Suppressed() != 1 {
		t.Fatalf("second line in the interval passed (suppressed %d)", one.Suppressed())
	}
}
