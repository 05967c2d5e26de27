// Package rtloop runs a sans-I/O protocol machine, one that takes the
// time as input (Tick(now), NextDeadline), on one goroutine against the
// wall clock: the SGSN emulator (internal/emu/sgsnemu) and the Gb stack
// of bssgp/bss's interop tests.
package rtloop

import (
	"context"
	"time"
)

// Machine is a protocol state machine that does no I/O: Tick runs what
// is due at now, NextDeadline says when something is due next (ok false:
// nothing).
type Machine interface {
	Tick(now time.Duration)
	NextDeadline() (d time.Duration, ok bool)
}

// Run ticks m at its deadlines and hands it each value that arrives on
// in (input) and runs each function that arrives on do, with the time
// that now gives, until ctx ends. m is touched by this goroutine only.
func Run[T any](ctx context.Context, m Machine, now func() time.Duration, in <-chan T, input func(T, time.Duration), do <-chan func(time.Duration)) {
	timer := time.NewTimer(time.Hour)
	defer timer.Stop()
	for {
		t := now()
		m.Tick(t)
		wait := time.Hour
		if d, ok := m.NextDeadline(); ok {
			wait = max(d-t, 0)
		}
		timer.Reset(wait)
		select {
		case v := <-in:
			input(v, now())
		case f := <-do:
			f(now())
		case <-timer.C:
		case <-ctx.Done():
			return
		}
	}
}
