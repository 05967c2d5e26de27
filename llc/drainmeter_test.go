package llc

import (
	"testing"
	"time"
)

// drainAt enqueues n frames of size octets at t and hands one out every
// every, starting at t; it returns the time of the last Dequeue.
func drainAt(t *testing.T, q *Queue, at time.Duration, n, size int, every time.Duration) time.Duration {
	t.Helper()
	for i := 0; i < n; i++ {
		if err := q.Enqueue(at, uiFrame(3, size, ""), LifetimeInfinite); err != nil {
			t.Fatal(err)
		}
	}
	for i := 0; i < n; i++ {
		if _, ok, _ := q.Dequeue(at + time.Duration(i)*every); !ok {
			t.Fatalf("dequeue %d: empty", i)
		}
	}
	return at + time.Duration(n-1)*every
}

// TestDrainMeter: the measured drain rate is the octets handed out over the
// time they took while the queue stayed backlogged (RFC 8033 §5.1's
// dq_rate), an EWMA of 2^-2 over cycles of at least rateCycle octets; the
// AQM runs with the smaller of the promised and the measured rate.
func TestDrainMeter(t *testing.T) {
	cfg := DefaultConfig()
	cfg.CoDel = false // no AQM drops in the way of the arithmetic
	s := mustShared(t, cfg)
	q := s.NewQueue(nil)
	q.SetDrainRate(20000) // promised: e.g. CS-4 × 4 slots would be 10 000
	// 1000-octet frames, one every 100 ms, 20 of them: 10 000 octets/s.
	// Cycles close at the 5th, 9th, ... Dequeue (4 frames ≥ 3086 octets).
	end := drainAt(t, q, 0, 20, 1000, 100*ms)
	if got := q.MeasuredRate(); got != 10000 {
		t.Fatalf("measured %d, want 10000", got)
	}
	st := q.Stats(end)
	if st.DrainRate != 20000 || st.MeasuredRate != 10000 || st.RED != s.cfg.REDParamsFor(10000) {
		t.Fatalf("stats: drain %d measured %d RED %+v, want RED %+v", st.DrainRate, st.MeasuredRate, st.RED, s.cfg.REDParamsFor(10000))
	}
	// the queue ran empty after the last Dequeue: the 10 s of idle that
	// follow are not drain time. Half the speed (5000 octets/s) from now
	// on: one cycle moves the estimate a quarter of the way.
	end = drainAt(t, q, end+10*time.Second, 5, 1000, 200*ms)
	if got, want := q.MeasuredRate(), 10000+(5000-10000)/4; got != want {
		t.Fatalf("after one slower cycle: %d, want %d", got, want)
	}
	// faster than promised: the promise is the rate in force.
	q.SetDrainRate(4000)
	if q.rateNow() != 4000 {
		t.Fatalf("rate in force %d, want the promised 4000", q.rateNow())
	}
	// StopTransmit (the TBF ended) forgets the estimate.
	q.StopTransmit()
	if q.MeasuredRate() != 0 || q.rateNow() != 4000 {
		t.Fatalf("after StopTransmit: measured %d, in force %d", q.MeasuredRate(), q.rateNow())
	}
	// Unknown promise: the measured rate alone.
	q.SetDrainRate(0)
	drainAt(t, q, end+20*time.Second, 5, 1000, 50*ms)
	if got := q.rateNow(); got != 20000 {
		t.Fatalf("in force %d, want the measured 20000", got)
	}
}

// TestDrainMeterVoidCycles: a cycle whose time includes an empty queue or a
// put-back frame gives no sample.
func TestDrainMeterVoidCycles(t *testing.T) {
	cfg := DefaultConfig()
	cfg.CoDel = false
	s := mustShared(t, cfg)
	q := s.NewQueue(nil)
	// Two frames, the queue runs empty, a long pause, two more: had the
	// pause counted, 4500 octets over 10.2 s would be a sample.
	end := drainAt(t, q, 0, 2, 1500, 100*ms)
	end = drainAt(t, q, end+10*time.Second, 2, 1500, 100*ms)
	if got := q.MeasuredRate(); got != 0 {
		t.Fatalf("idle time measured: %d", got)
	}
	// A frame put back: the time it was out does not count either.
	for i := 0; i < 5; i++ {
		if err := q.Enqueue(end, uiFrame(3, 1500, ""), LifetimeInfinite); err != nil {
			t.Fatal(err)
		}
	}
	deq := func(at time.Duration) Frame {
		t.Helper()
		f, ok, _ := q.Dequeue(at)
		if !ok {
			t.Fatalf("empty at %v", at)
		}
		return f
	}
	f := deq(end + 1*time.Second)
	q.PutBack(end+5*time.Second, f)
	for i := 0; i < 3; i++ {
		deq(end + 5*time.Second + time.Duration(i)*200*ms)
	}
	if got := q.MeasuredRate(); got != 0 {
		t.Fatalf("put-back time measured: %d", got)
	}
	deq(end + 5*time.Second + 600*ms) // 4500 octets in 600 ms
	if got := q.MeasuredRate(); got != 7500 {
		t.Fatalf("measured %d, want 7500", got)
	}
}
