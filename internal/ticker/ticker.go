// Package ticker runs a function at a fixed period until a context ends:
// the daemon's statistics tick, the emulators' status lines.
package ticker

import (
	"context"
	"time"
)

// Every calls f with the tick's time every d until ctx ends or f returns
// false. The first call is d after the start.
func Every(ctx context.Context, d time.Duration, f func(now time.Time) bool) {
	t := time.NewTicker(d)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case now := <-t.C:
			if !f(now) {
				return
			}
		}
	}
}
