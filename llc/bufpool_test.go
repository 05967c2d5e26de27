package llc

import (
	"bytes"
	"runtime"
	"testing"
	"time"

	"github.com/gopcu/gopcu/internal/poison"
)

// Every llc test runs with poisoned releases: a pooled buffer given back
// while a frame still uses it shows as 0xAA octets.
func init() { poison.Enable() }

func TestBufClass(t *testing.T) {
	for _, c := range []struct{ n, class int }{{1, 8}, {4, 8}, {9, 16}, {64, 64}, {65, 96}, {1025, 1536}, {1537, 1792}, {MaxFrameLen, 1792}} {
		if got := bufClasses[bufClass(c.n)]; got != c.class {
			t.Errorf("%d octets: class %d, want %d", c.n, got, c.class)
		}
		// at most 1.5x the length above Go's own size classes
		if c.n > 64 && float64(bufClasses[bufClass(c.n)]) > 1.5*float64(c.n) {
			t.Errorf("%d octets: class %d wastes more than half", c.n, bufClasses[bufClass(c.n)])
		}
	}
	if bufClass(1793) != -1 || bufClasses[numBufClasses-1] != bufClassMax {
		t.Error("class above the largest")
	}
	for n := 1; n <= bufClassMax; n++ { // the table is the smallest class that fits
		c := bufClass(n)
		if bufClasses[c] < n || c > 0 && bufClasses[c-1] >= n {
			t.Fatalf("%d octets: class %d", n, bufClasses[c])
		}
	}
}

// TestEnqueueCopy: the queue keeps a copy (the caller may reuse its
// buffer), Release gives it back, the next EnqueueCopy reuses it.
func TestEnqueueCopy(t *testing.T) {
	s := mustShared(t, DefaultConfig())
	q := s.NewQueue(nil)
	src := uiFrame(3, 100, "abc")
	want := bytes.Clone(src)
	if err := q.EnqueueCopy(0, src, LifetimeInfinite); err != nil {
		t.Fatal(err)
	}
	clear(src)
	fr, ok, _ := q.Dequeue(0)
	if !ok || !bytes.Equal(fr.Data, want) {
		t.Fatalf("dequeued %x, want %x", fr.Data, want)
	}
	buf := fr.Data[:cap(fr.Data)]
	s.Release(&fr)
	if fr.Data != nil {
		t.Fatal("Release left the frame's data")
	}
	s.Release(&fr) // a second release of the same Frame is a no-op
	if buf[0] != poison.Byte || buf[len(buf)-1] != poison.Byte {
		t.Fatal("released buffer not poisoned")
	}
	if err := q.EnqueueCopy(0, want, LifetimeInfinite); err != nil {
		t.Fatal(err)
	}
	fr, _, _ = q.Dequeue(0)
	if &fr.Data[0] != &buf[0] || !bytes.Equal(fr.Data, want) {
		t.Fatal("buffer not reused")
	}
	if ps := s.PoolStats(); ps.Made != 1 || ps.Reused != 1 || ps.Released != 1 {
		t.Fatalf("pool %+v", ps)
	}
	// a frame given to Enqueue is the caller's: never pooled
	own := uiFrame(3, 100, "own")
	q.Enqueue(0, own, LifetimeInfinite)
	fr2, _, _ := q.Dequeue(0)
	s.Release(&fr2)
	if !bytes.Equal(own, uiFrame(3, 100, "own")) || s.PoolStats().Released != 1 {
		t.Fatal("Enqueue's frame released to the pool")
	}
}

// TestPoolDrops: every way a queue drops a pooled frame gives its buffer
// back once; PutBack and Merge keep it queued (not given back).
func TestPoolDrops(t *testing.T) {
	cfg := DefaultConfig()
	cfg.MSLimit = 3*(500+FrameOverhead) + 100
	s := mustShared(t, cfg)
	q, o := s.NewQueue(nil), s.NewQueue(nil)
	released := func() uint64 { return s.PoolStats().Released }
	for range 4 { // the 4th overflows: one dropped
		q.EnqueueCopy(0, uiFrame(3, 500, "x"), LifetimeInfinite)
	}
	if released() != 1 {
		t.Fatalf("overflow: %d released", released())
	}
	fr, _, _ := q.Dequeue(0)
	q.PutBack(0, fr)
	o.EnqueueCopy(0, uiFrame(3, 10, "y"), 1) // 10 ms lifetime
	q.Merge(o)
	if released() != 1 || q.Len() != 4 {
		t.Fatalf("put back/merge: %d released, %d queued", released(), q.Len())
	}
	q.Expire(2 * time.Second)
	if released() != 2 {
		t.Fatalf("lifetime: %d released", released())
	}
	if f, _ := q.Clear(); f != 3 || released() != 5 {
		t.Fatalf("clear: %d frames, %d released", f, released())
	}
	q.EnqueueCopy(0, uiFrame(3, 500, "z"), LifetimeInfinite)
	q.Close()
	if ps := s.PoolStats(); ps.Released != 6 || ps.Made+ps.Reused != 6 {
		t.Fatalf("close: %+v", ps)
	}
}

// TestPoolBound: the free lists keep at most bufPoolBytes per class.
func TestPoolBound(t *testing.T) {
	cfg := DefaultConfig()
	cfg.MSLimit, cfg.GlobalLimit = 1<<30, 1<<40
	s := mustShared(t, cfg)
	q := s.NewQueue(nil)
	n := bufPoolBytes/1792 + 10
	for range n {
		q.EnqueueCopy(0, uiFrame(3, MaxFrameLen, ""), LifetimeInfinite)
	}
	q.Clear()
	if ps := s.PoolStats(); ps.Free != bufPoolBytes/1792 || ps.Dropped != 10 {
		t.Fatalf("pool %+v", ps)
	}
}

// TestEnqueueCopyAllocs: a steady flow of copied frames allocates nothing.
func TestEnqueueCopyAllocs(t *testing.T) {
	s := mustShared(t, DefaultConfig())
	q := s.NewQueue(nil)
	f := uiFrame(3, 1500, "")
	step := func() {
		q.EnqueueCopy(0, f, LifetimeInfinite)
		q.EnqueueCopy(0, f[:40], LifetimeInfinite)
		for range 2 {
			fr, _, _ := q.Dequeue(0)
			s.Release(&fr)
		}
	}
	step()
	if n := testing.AllocsPerRun(1000, step); n != 0 {
		t.Fatalf("%v allocations per round", n)
	}
}

// TestPooledMemoryFactor: queues full of copied frames up to the global
// limit hold at most pcu.QueueMemoryFactor (2) x the memory charged, for
// tiny, class-boundary and full-size frames.
func TestPooledMemoryFactor(t *testing.T) {
	const limit = 4 << 20
	for _, n := range []int{4, 9, 65, 257, 513, 1025, MaxFrameLen} {
		cfg := DefaultConfig()
		cfg.CoDel = false
		cfg.MSLimit, cfg.GlobalLimit = 1<<30, limit
		s := mustShared(t, cfg)
		qs := make([]*Queue, 100)
		for i := range qs {
			qs[i] = s.NewQueue(i)
		}
		f := uiFrame(3, n, "")
		var m0, m1 runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&m0)
		for i := 0; ; i++ {
			if mem, _, _ := s.Usage(); mem+int64(n)+FrameOverhead > limit {
				break
			}
			qs[i%len(qs)].EnqueueCopy(0, f, LifetimeInfinite)
		}
		runtime.GC()
		runtime.ReadMemStats(&m1)
		charged, _, _ := s.Usage()
		factor := float64(m1.HeapAlloc-m0.HeapAlloc) / float64(charged)
		t.Logf("%4d octets: %.2f x the charge", n, factor)
		if factor > 2 {
			t.Errorf("%d-octet frames: heap %.2f x the memory charged (%d), over QueueMemoryFactor 2", n, factor, charged)
		}
		runtime.KeepAlive(qs)
	}
}

// TestPutBackClosedQueue: a frame put back into the queue of an MS that is
// gone ends there: not queued, not charged again, its buffer given back.
func TestPutBackClosedQueue(t *testing.T) {
	s := mustShared(t, DefaultConfig())
	q := s.NewQueue(nil)
	q.EnqueueCopy(0, uiFrame(3, 300, "x"), LifetimeInfinite)
	fr, ok, _ := q.Dequeue(0)
	if !ok {
		t.Fatal("nothing dequeued")
	}
	q.Close()
	q.PutBack(0, fr)
	if mem, frames, _ := s.Usage(); q.Len() != 0 || mem != 0 || frames != 0 {
		t.Fatalf("closed queue holds %d frames; shared usage %d octets, %d frames", q.Len(), mem, frames)
	}
	if ps := s.PoolStats(); ps.Released != 1 {
		t.Fatalf("buffer not given back: %+v", ps)
	}
}
