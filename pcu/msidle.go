package pcu

import (
	"cmp"
	"slices"
	"time"

	"github.com/gopcu/gopcu/llc"
)

// Idle MSs without a scan of every MS: an MS whose last TBF went (or that
// was just created) is watched; the next timer run looks at each watched
// MS once: data waiting -> establishDL again (it stays watched until it
// gets a TBF), no TLLI -> freed, otherwise it goes into a heap ordered by
// idleSince, whose front is freed once X2030 (osmo-pcu's MS idle timer,
// ms_release_timer / X2030) has passed. Per timer run the work is the
// watched MSs plus the expired heap entries, not the number of known MSs.

// msWatch is an MS's place in that bookkeeping.
type msWatch struct {
	pending bool // in bts.idle.pending
	gone    bool // freed or merged away: entries of it are stale
}

// msIdle is a BTS's idle-MS bookkeeping.
type msIdle struct {
	pending, spare []*MS
	heap           []idleEntry // min-heap by at
}

type idleEntry struct {
	at time.Duration // the MS's idleSince when it went in
	m  *MS
}

// watchMS makes the next timer run look at m.
func (e *Engine) watchMS(m *MS) {
	if m.watch.pending || m.watch.gone {
		return
	}
	m.watch.pending = true
	m.bts.idle.pending = append(m.bts.idle.pending, m)
}

// runIdleMS is the idle-MS part of runTimers.
func (e *Engine) runIdleMS(bts *BTS) {
	s := &bts.idle
	if len(s.pending) > 0 {
		pend := s.pending
		s.pending = s.spare[:0] // watchMS during the loop appends here
		// oldest MS first, as a scan of the BTS's MSs would go: when TFIs
		// are short, MSs that have been there longest get them before a
		// crowd of new ones (the chaos suite's NS fuzz flood: thousands of
		// MSs that never answer would otherwise keep every TFI from the
		// real MSs, whose frames arrive later)
		slices.SortFunc(pend, func(a, b *MS) int { return cmp.Compare(a.created, b.created) })
		for _, m := range pend {
			m.watch.pending = false
			switch {
			case m.watch.gone || m.Active():
				// watched again when its last TBF goes
			case m.Queue.Len() > 0 && (m.suspended || m.dlFailed):
				// (onSuspReq, a failed DL TBF) its frames wait for new
				// data or its access; looked at again after X2030
				if m.idleSince >= 0 {
					s.push(idleEntry{m.idleSince, m})
				}
			case m.Queue.Len() > 0:
				e.establishDL(bts, m) // data waiting (e.g. after an UL TBF ended)
				e.watchMS(m)          // gone from the list once it has a TBF
			case m.TLLI == TLLIUnset:
				e.freeMS(m)
			case m.idleSince >= 0:
				s.push(idleEntry{m.idleSince, m})
			}
		}
		clear(pend)
		s.spare = pend[:0]
	}
	for len(s.heap) > 0 && e.now-s.heap[0].at >= e.params.X2030 {
		x := s.pop()
		m := x.m
		if m.watch.gone || m.Active() || m.idleSince != x.at {
			continue // stale: active again (a newer entry follows when idle)
		}
		if m.Queue.Len() > 0 && !m.dlFailed {
			e.watchMS(m)
			continue
		}
		if f, o := m.Queue.Clear(); f > 0 { // (dlFailed) nobody came for them
			e.reportDiscard(m, llc.Discard{Frames: f, Octets: o})
		}
		e.freeMS(m)
	}
}

func (s *msIdle) push(x idleEntry) {
	s.heap = append(s.heap, x)
	h := s.heap
	for i := len(h) - 1; i > 0; {
		p := (i - 1) / 2
		if h[p].at <= h[i].at {
			break
		}
		h[p], h[i] = h[i], h[p]
		i = p
	}
}

func (s *msIdle) pop() idleEntry {
	h := s.heap
	x := h[0]
	n := len(h) - 1
	h[0] = h[n]
	h[n] = idleEntry{}
	h = h[:n]
	for i := 0; ; {
		l, r, m := 2*i+1, 2*i+2, i
		if l < n && h[l].at < h[m].at {
			m = l
		}
		if r < n && h[r].at < h[m].at {
			m = r
		}
		if m == i {
			break
		}
		h[m], h[i] = h[i], h[m]
		i = m
	}
	s.heap = h
	return x
}
