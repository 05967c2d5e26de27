package ticker

import (
	"context"
	"testing"
	"time"
)

// TestEvery: ticks until f says stop, each with a later time; a context
// that ends stops it too.
func TestEvery(t *testing.T) {
	var got []time.Time
	Every(context.Background(), time.Millisecond, func(now time.Time) bool {
		got = append(got, now)
		return len(got) < 3
	})
	if len(got) != 3 || !got[1].After(got[0]) || !got[2].After(got[1]) {
		t.Fatalf("ticks %v", got)
	}
	ctx, cancel := context.WithCancel(context.Background())
	n := 0
	Every(ctx, time.Millisecond, func(time.Time) bool {
		n++
		cancel()
		return true
	})
	if n != 1 {
		t.Fatalf("%d ticks after cancel, want 1", n)
	}
}
