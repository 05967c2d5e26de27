package driver

import (
	"errors"
	"testing"
)

// TestTxQueue: the messages waiting for the BTS socket come out oldest
// first across the ring's wrap, the queue takes maxTxQueue and refuses the
// next (errTxFull), clear empties it, and buffers are reused: once the
// queue has been as long before, queueing allocates nothing.
func TestTxQueue(t *testing.T) {
	var q txQueue
	msg := func(i int) []byte { return []byte{byte(i), byte(i >> 8), 0x2b} }
	next, out := 0, 0
	// push 3, pop 2, many times: the head walks around the ring
	for round := 0; round < 3*maxTxQueue; round++ {
		for range 3 {
			if q.len() >= maxTxQueue {
				break
			}
			if err := q.push(msg(next)); err != nil {
				t.Fatalf("push %d: %v", next, err)
			}
			next++
		}
		for range 2 {
			if got, want := q.front(), msg(out); string(got) != string(want) {
				t.Fatalf("message %d: % x, want % x", out, got, want)
			}
			q.pop()
			out++
		}
	}
	if q.len() != next-out || q.len() > maxTxQueue {
		t.Fatalf("%d queued after %d in, %d out", q.len(), next, out)
	}
	for q.len() < maxTxQueue {
		if err := q.push(msg(next)); err != nil {
			t.Fatal(err)
		}
		next++
	}
	if err := q.push(msg(next)); !errors.Is(err, errTxFull) {
		t.Fatalf("push onto %d messages: %v, want errTxFull", q.len(), err)
	}
	if q.peak != maxTxQueue {
		t.Fatalf("peak %d, want %d", q.peak, maxTxQueue)
	}
	for i := 0; i < 5; i++ { // still in order after the refused push
		if got, want := q.front(), msg(out); string(got) != string(want) {
			t.Fatalf("message %d: % x, want % x", out, got, want)
		}
		q.pop()
		out++
	}
	q.clear()
	if q.len() != 0 || len(q.free) != maxTxQueue {
		t.Fatalf("after clear: %d queued, %d buffers kept", q.len(), len(q.free))
	}
	b := msg(1)
	if a := testing.AllocsPerRun(20, func() {
		for range maxTxQueue {
			q.push(b)
		}
		q.clear()
	}); a != 0 {
		t.Fatalf("%v allocations to fill the queue again", a)
	}
}
