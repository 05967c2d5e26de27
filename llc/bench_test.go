package llc

import (
	"runtime"
	"testing"
	"time"
)

// benchSteady: one op is one enqueue plus one dequeue on a queue in CoDel
// steady state: frames of 500 octets arrive at 1.1 × the drain rate of one
// frame per 10 ms, so CoDel keeps dropping about 9 % of them (the excess);
// an op may also include the drops. Frames are reused, nothing allocates
// in steady state. With copies, frames go in with EnqueueCopy (pooled
// buffers, what the engine does) and are given back after the dequeue.
// runSteady runs step 20000 times (the AQM's steady state), then b.N
// times timed, allocations reported; it returns the counters of s before
// and after the timed part.
func runSteady(b *testing.B, s *Shared, step func()) (before, after Counters) {
	for i := 0; i < 20000; i++ {
		step()
	}
	before = s.Counters()
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		step()
	}
	b.StopTimer()
	return before, s.Counters()
}

func benchSteady(b *testing.B, cfg Config, sapis []uint8, copies ...bool) {
	benchSteadyRate(b, cfg, DrainRate(50, 1), sapis, copies...)
}

// benchSteadyRate is benchSteady with the drain rate the queue is told
// (PIE's queue delay and RED's thresholds follow it).
func benchSteadyRate(b *testing.B, cfg Config, rate int, sapis []uint8, copies ...bool) {
	s, q := benchQueue(b, cfg, rate)
	frames := make([][]byte, len(sapis))
	for i, sapi := range sapis {
		frames[i] = uiFrame(sapi, 500, "")
	}
	var now time.Duration
	k := 0
	credit := 0
	step := func() {
		now += 10 * time.Millisecond
		credit += 11
		for ; credit >= 10; credit -= 10 {
			if len(copies) > 0 {
				q.EnqueueCopy(now, frames[k%len(frames)], LifetimeInfinite)
			} else {
				q.Enqueue(now, frames[k%len(frames)], LifetimeInfinite)
			}
			k++
		}
		fr, _, _ := q.Dequeue(now)
		s.Release(&fr)
	}
	c0, c := runSteady(b, s, step)
	if c.CoDel == c0.CoDel && b.N > 1000 {
		b.Fatal("the AQM never dropped")
	}
	b.ReportMetric(float64(c.CoDel-c0.CoDel)/float64(b.N), "drops/op")
	b.ReportMetric(float64(q.Len()), "backlog-frames")
}

func BenchmarkEnqueueDequeueCoDelRFC(b *testing.B) {
	benchSteady(b, Config{CoDel: true, Interval: 100 * time.Millisecond}, []uint8{3})
}

// BenchmarkEnqueueCopyDequeueCoDelRFC: the same with copies into pooled
// buffers (the engine's EnqueueCopy and Release).
func BenchmarkEnqueueCopyDequeueCoDelRFC(b *testing.B) {
	benchSteady(b, Config{CoDel: true, Interval: 100 * time.Millisecond}, []uint8{3}, true)
}

func BenchmarkEnqueueDequeueCoDelRFCAuto(b *testing.B) {
	benchSteady(b, Config{CoDel: true}, []uint8{3})
}

func BenchmarkEnqueueDequeueCoDelRFC4SAPI(b *testing.B) {
	benchSteady(b, Config{CoDel: true, Interval: 100 * time.Millisecond}, []uint8{3, 5, 9, 11})
}

// BenchmarkEnqueueDequeuePIE and BenchmarkEnqueueDequeueRED: the same
// steady state under PIE and per-flow RED, the queue told its true drain
// rate (500 octets per 10 ms).
func BenchmarkEnqueueDequeuePIE(b *testing.B) {
	benchSteadyRate(b, Config{CoDel: true, AQM: AQMPIE, PIE: PIEConfig{Target: 100 * time.Millisecond}}, 50000, []uint8{3})
}

func BenchmarkEnqueueDequeueRED(b *testing.B) {
	benchSteadyRate(b, Config{CoDel: true, AQM: AQMRED}, 50000, []uint8{3})
}

// BenchmarkEnqueueDequeueCoDelECN: BenchmarkEnqueueDequeueCoDelTCP's
// download made ECN-capable (ECT(0)): CoDel marks (IP header and FCS
// rewritten) instead of dropping, and the sender answers each mark.
func BenchmarkEnqueueDequeueCoDelECN(b *testing.B) {
	var marks int
	benchTCP(b, Config{CoDel: true, Interval: 100 * time.Millisecond}, 2, func(d Discard) int {
		if d.CoDel != 0 {
			b.Fatal("CoDel dropped an ECN-capable frame")
		}
		marks += d.Marked
		return d.Marked
	})
	if marks == 0 && b.N > 1000 {
		b.Fatal("CoDel never marked")
	}
	b.ReportMetric(float64(marks)/float64(b.N), "marks/op")
}

func BenchmarkEnqueueDequeueCoDelOsmo(b *testing.B) {
	benchSteady(b, Config{CoDel: true, Variant: VariantOsmo, Interval: 100 * time.Millisecond}, []uint8{3})
}

// BenchmarkIdleQueueMemory: B/op is the heap cost of one idle queue
// (testing's allocation accounting); B/idle-queue is the same measured
// with runtime.MemStats over 10 000 queues.
func BenchmarkIdleQueueMemory(b *testing.B) {
	s, _ := NewShared(DefaultConfig())
	sz := idleQueueBytes(s, 10000)
	keep := make([]*Queue, 1024)
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		keep[i%len(keep)] = s.NewQueue(nil)
	}
	b.ReportMetric(sz, "B/idle-queue")
}

// overload offers 10 frames per queue per round to n queues while each
// queue drains one: 10× overload. It returns the peak memory charged.
func overload(tb testing.TB, n, rounds int, limit int64) (peak int64, s *Shared) {
	s, err := NewShared(Config{CoDel: true, GlobalLimit: limit})
	if err != nil {
		tb.Fatal(err)
	}
	qs := make([]*Queue, n)
	for i := range qs {
		qs[i] = s.NewQueue(i)
	}
	frame := uiFrame(3, 500, "")
	var now time.Duration
	for r := 0; r < rounds; r++ {
		now += 20 * time.Millisecond
		for _, q := range qs {
			for k := 0; k < 10; k++ {
				q.Enqueue(now, frame, 1000)
			}
			if m, _, _ := s.Usage(); m > peak {
				peak = m
			}
		}
		for _, q := range qs {
			q.Dequeue(now)
		}
		s.TakeOverflowed(func(*Queue, Discard) {})
	}
	return peak, s
}

// TestOverload100k: 100 000 MS queues under 10× overload never exceed the
// global limit.
func TestOverload100k(t *testing.T) {
	if testing.Short() {
		t.Skip("needs a run without -short (long test)")
	}
	const limit = 16 << 20
	peak, s := overload(t, 100000, 3, limit)
	if peak > limit {
		t.Fatalf("peak %d over the limit %d", peak, limit)
	}
	if s.Counters().Overflow == 0 {
		t.Fatal("no overflow under overload")
	}
}

// BenchmarkOverload100k: one op = one round of 100 000 queues × 10
// enqueues + 1 dequeue each against a 64 MiB global limit.
func BenchmarkOverload100k(b *testing.B) {
	const limit = DefaultGlobalLimit
	b.ReportAllocs()
	var peak int64
	var heap uint64
	for i := 0; i < b.N; i++ {
		p, s := overload(b, 100000, 3, limit)
		peak = max(peak, p)
		var ms runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&ms)
		heap = max(heap, ms.HeapInuse)
		runtime.KeepAlive(s)
	}
	if peak > limit {
		b.Fatalf("peak %d over the limit", peak)
	}
	b.ReportMetric(float64(peak)/(1<<20), "MiB-peak-charged")
	b.ReportMetric(float64(heap)/(1<<20), "MiB-heap-inuse")
}
