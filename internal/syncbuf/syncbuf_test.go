package syncbuf

import (
	"slices"
	"sync"
	"testing"
)

// TestList: appends from several goroutines all arrive; All copies, Take
// empties.
func TestList(t *testing.T) {
	var l List[int]
	var wg sync.WaitGroup
	for g := 0; g < 4; g++ {
		wg.Go(func() {
			for i := 0; i < 100; i++ {
				l.Append(i)
			}
		})
	}
	wg.Wait()
	all := l.All()
	if len(all) != 400 {
		t.Fatalf("%d appended, want 400", len(all))
	}
	all[0] = -1
	if l.All()[0] == -1 {
		t.Fatal("All does not copy")
	}
	l.Append(7, 8)
	if got := l.Take(); len(got) != 402 || !slices.Equal(got[400:], []int{7, 8}) {
		t.Fatalf("Take: %d, tail %v", len(got), got[400:])
	}
	if got := l.Take(); got != nil {
		t.Fatalf("second Take: %v", got)
	}
}
