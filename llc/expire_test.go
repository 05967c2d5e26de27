package llc

import (
	"slices"
	"strings"
	"testing"
	"time"
)

// TestExpireWithoutDequeue: frames whose PDU lifetime ran out go at the
// sweep wherever they stand (before, only Dequeue dropped them, so with no
// TBF taking frames they stayed: issue 17 saw 39 s in a 10 s lifetime);
// the others keep their order, the Discard counts what went, and the
// memory is given back.
func TestExpireWithoutDequeue(t *testing.T) {
	s := mustShared(t, Config{Lifetime: LifetimeFromSGSN})
	q := s.NewQueue(nil)
	// d1 10 s, d2 infinite, d3 10 s, d4 20 s, g1 (GMM) 10 s
	q.Enqueue(0, uiFrame(3, 100, "d1"), 1000)
	q.Enqueue(0, uiFrame(3, 100, "d2"), LifetimeInfinite)
	q.Enqueue(time.Second, uiFrame(3, 100, "d3"), 1000)
	q.Enqueue(time.Second, uiFrame(3, 100, "d4"), 2000)
	q.Enqueue(0, uiFrame(1, 50, "g1"), 1000)
	if d := q.Expire(9 * time.Second); d.Frames != 0 {
		t.Fatalf("expired before the lifetime: %+v", d)
	}
	d := q.Expire(10*time.Second + time.Millisecond)
	if want := len(uiFrame(3, 100, "d1")) + len(uiFrame(1, 50, "g1")); d.Frames != 2 || d.Lifetime != 2 || d.Octets != want {
		t.Fatalf("at 10 s: %+v, want d1 and g1", d)
	}
	if q.Len() != 3 {
		t.Fatalf("left %d frames, want 3", q.Len())
	}
	d = q.Expire(39 * time.Second)
	if d.Frames != 2 || q.Len() != 1 {
		t.Fatalf("at 39 s: %+v, left %d, want d3 and d4 gone", d, q.Len())
	}
	var got []string
	for {
		fr, ok, _ := q.Dequeue(40 * time.Second)
		if !ok {
			break
		}
		got = append(got, strings.TrimSpace(string(fr.Data[len(fr.Data)-2:])))
	}
	if !slices.Equal(got, []string{"d2"}) {
		t.Fatalf("left %v, want [d2]", got)
	}
	if c := s.Counters(); c.Timeout != 4 {
		t.Fatalf("timeout counter %d, want 4", c.Timeout)
	}
	if mem, frames, _ := s.Usage(); mem != 0 || frames != 0 {
		t.Fatalf("usage after draining: %d octets, %d frames", mem, frames)
	}
}

// TestExpireAll: the sweep over all queues reports each queue that
// dropped, and a lowered `queue lifetime` takes effect at the next sweep.
func TestExpireAll(t *testing.T) {
	s := mustShared(t, Config{Lifetime: LifetimeFromSGSN})
	qs := []*Queue{s.NewQueue("a"), s.NewQueue("b"), s.NewQueue("c")}
	for i, q := range qs {
		for j := 0; j < 3; j++ {
			q.Enqueue(0, uiFrame(3, 60, "x"), uint16(100*(i+1))) // 1 s, 2 s, 3 s
		}
	}
	rep := map[any]int{}
	s.ExpireAll(2500*time.Millisecond, func(q *Queue, d Discard) { rep[q.Owner] += d.Frames })
	if rep["a"] != 3 || rep["b"] != 3 || rep["c"] != 0 || len(rep) != 2 {
		t.Fatalf("reports %v", rep)
	}
	cfg := s.Config()
	cfg.Lifetime = 50 // 500 ms for every frame
	if err := s.Apply(cfg); err != nil {
		t.Fatal(err)
	}
	s.ExpireAll(2600*time.Millisecond, func(q *Queue, d Discard) { rep[q.Owner] += d.Frames })
	if rep["c"] != 3 {
		t.Fatalf("after queue lifetime 50: %v", rep)
	}
}

// TestSlabsFollowFrames: a queue that held many frames and lost most of
// them to the global limit gives its entry slots back at the next sweep,
// so the slabs of many such queues stay within what is queued (before,
// each kept the slab of its largest backlog while its MS lived).
func TestSlabsFollowFrames(t *testing.T) {
	s := mustShared(t, Config{Lifetime: LifetimeInfinite, MSLimit: 1 << 20, GlobalLimit: 1 << 20})
	var qs []*Queue
	for i := 0; i < 20; i++ {
		q := s.NewQueue(i)
		for j := 0; j < 10000; j++ { // ~1 MiB each: pushes the others out
			q.Enqueue(0, uiFrame(3, 4, "x"), LifetimeInfinite)
		}
		qs = append(qs, q)
	}
	s.ExpireAll(time.Second, nil)
	slots, frames := 0, 0
	for _, q := range qs {
		if q.a != nil {
			slots += cap(q.a.ents)
		}
		frames += q.Len()
	}
	if slots > 2*frames+20*poolSlab {
		t.Fatalf("%d entry slots kept for %d frames", slots, frames)
	}
}
