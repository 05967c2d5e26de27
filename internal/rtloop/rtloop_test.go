package rtloop

import (
	"context"
	"testing"
	"time"

	"github.com/gopcu/gopcu/internal/testutil"
)

// clockMachine has one deadline at due; Tick records the times it ran.
type clockMachine struct {
	due   time.Duration
	ticks []time.Duration
	fired bool
}

func (m *clockMachine) Tick(now time.Duration) {
	m.ticks = append(m.ticks, now)
	if now >= m.due {
		m.fired = true
	}
}

func (m *clockMachine) NextDeadline() (time.Duration, bool) { return m.due, !m.fired }

// TestRun: the machine is ticked at its deadline without input, inputs
// and functions reach it on the loop's goroutine, and Run returns when
// the context ends.
func TestRun(t *testing.T) {
	t0 := time.Now()
	now := func() time.Duration { return time.Since(t0) }
	m := &clockMachine{due: 20 * time.Millisecond}
	in := make(chan int)
	do := make(chan func(time.Duration))
	var got []int
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { Run(ctx, m, now, in, func(v int, _ time.Duration) { got = append(got, v) }, do); close(done) }()
	in <- 1
	in <- 2
	fired := make(chan bool)
	testutil.Eventually(t, 5*time.Second, func() bool {
		do <- func(time.Duration) { fired <- m.fired }
		return <-fired
	}, "deadline never ticked")
	cancel()
	<-done
	if len(got) != 2 || got[0] != 1 || got[1] != 2 {
		t.Fatalf("inputs %v", got)
	}
	if last := m.ticks[len(m.ticks)-1]; last < m.due {
		t.Fatalf("last tick at %v, before the deadline %v", last, m.due)
	}
}
