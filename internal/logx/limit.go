package logx

import "time"

// Limiter rate-limits the log lines of one recurring condition (the SGSN
// unreachable, frames dropped at a queue limit, ...): at most Burst lines
// in any Interval; the lines held back in between are counted and the
// next line that passes reports how many there were. Time is whatever
// monotonic clock the caller runs on (the engine's), so tests can drive it.
//
// A Limiter is not safe for concurrent use: each belongs to one goroutine
// (the engine's).
type Limiter struct {
	Interval time.Duration
	Burst    int // lines per Interval; 0 means 1

	start      time.Duration // of the current interval
	started    bool
	n          int // lines passed in the current interval
	suppressed int
}

// Allow reports whether a line may be logged at now and, if so, how many
// lines were held back since the last one that passed.
func (l *Limiter) Allow(now time.Duration) (ok bool, suppressed int) {
	burst := max(l.Burst, 1)
	if !l.started || now-l.start >= l.Interval {
		l.start, l.started, l.n = now, true, 0
	}
	if l.n >= burst {
		l.suppressed++
		return false, 0
	}
	l.n++
	suppressed, l.suppressed = l.suppressed, 0
	return true, suppressed
}

// Suppressed is the number of lines held back since the last one that
// passed.
func (l *Limiter) Suppressed() int { return l.suppressed }
