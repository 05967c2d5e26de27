package llc

import "testing"

// TestSparseBehindBulk: a new flow's frame waiting while another user flow
// of the MS is backlogged is "sparse behind bulk" (the engine's DL
// scheduler serves such an MS first); the frame handed out says so
// (Frame.Sparse). A new flow alone, a bulk flow alone and one FIFO are not.
func TestSparseBehindBulk(t *testing.T) {
	cfg := DefaultConfig()
	cfg.CoDel = false // no AQM decisions in the way
	s := mustShared(t, cfg)
	q := s.NewQueue(nil)
	deq := func() Frame {
		t.Helper()
		f, ok, _ := q.Dequeue(0)
		if !ok {
			t.Fatal("empty")
		}
		return f
	}
	bulk := func(n int) {
		t.Helper()
		for i := 0; i < n; i++ {
			if err := q.Enqueue(0, ipFrame(6, 80, 40000, 1400), LifetimeInfinite); err != nil {
				t.Fatal(err)
			}
		}
	}
	ping := func() {
		t.Helper()
		if err := q.Enqueue(0, ipFrame(1, 7, 0, 84), LifetimeInfinite); err != nil {
			t.Fatal(err)
		}
	}
	ping()
	if q.SparseBehindBulk() {
		t.Fatal("a lone ping is sparse behind bulk")
	}
	if f := deq(); f.Sparse {
		t.Fatal("a lone ping came out as sparse behind bulk")
	}
	bulk(6)
	if q.SparseBehindBulk() {
		t.Fatal("a download alone (its first quantum on the new list) is sparse behind bulk")
	}
	for i := 0; i < 3; i++ { // the download uses its quantum and moves to the old list
		if f := deq(); f.Sparse {
			t.Fatalf("download frame %d sparse", i)
		}
	}
	ping()
	if !q.SparseBehindBulk() {
		t.Fatal("a ping behind the download is not sparse behind bulk")
	}
	if f := deq(); len(f.Data) != 84 || !f.Sparse {
		t.Fatalf("got %d octets sparse %v, want the 84-octet ping, sparse", len(f.Data), f.Sparse)
	}
	if q.SparseBehindBulk() {
		t.Fatal("still sparse behind bulk after the ping left")
	}
	// one FIFO (no flow queues): nothing is sparse
	cfg.NoFQ = true
	if err := s.Apply(cfg); err != nil {
		t.Fatal(err)
	}
	ping()
	if q.SparseBehindBulk() {
		t.Fatal("sparse behind bulk in one FIFO")
	}
}
