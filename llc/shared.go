package llc

import (
	"math/rand/v2"
	"time"
)

// Counters are the drop/scheduling totals of all queues of a Shared. The
// engine maps them onto its rate counters: llc:scheduled = Scheduled,
// llc:timeout = Timeout, llc:dropped = Dropped() (timeout + CoDel + overflow
// + cleared, as osmo-pcu counts expiry, CoDel and clearing in llc:dropped),
// plus separate AQM (CoDel) and Overflow counters.
type Counters struct {
	Scheduled uint64 // frames handed to a TBF
	Timeout   uint64 // frames dropped for PDU lifetime (incl. hysteresis)
	CoDel     uint64 // frames dropped by the AQM
	Overflow  uint64 // frames dropped by the per-MS or global limit
	Cleared   uint64 // frames dropped by Clear/Close (MS freed)
	Marked    uint64 // frames the AQM changed to CE instead of dropping one
	// NoMark counts the AQM's drop decisions made with ECN on by why no
	// mark was possible (index MarkResult − 1: not-ect, ciphered,
	// compressed, other, policy); the rest of a dropped N-PDU goes with
	// its decision and is not counted again.
	NoMark [NumNoMark]uint64
}

// Dropped is llc:dropped.
func (c Counters) Dropped() uint64 { return c.Timeout + c.CoDel + c.Overflow + c.Cleared }

// Shared is the state common to all queues of a PCU: the configuration, the
// global memory limit (with the queue heap used to find the fattest MS),
// a pool of working storage for non-idle queues, and the counters. Like the
// queues it is used by one goroutine.
type Shared struct {
	cfg    Config
	gen    uint32
	heap   []*Queue // max-heap by charge: queues holding frames
	total  int64    // memory octets queued over all queues
	frames int64
	octets int64

	pool    *active
	poolLen int

	bufs bufPool // frame buffers (EnqueueCopy)

	victims []*Queue
	ctr     Counters
	rng     rand.PCG // PIE and RED decisions
	scratch []*Queue // ExpireAll
}

// Pool bounds: at most poolMax spare working stores are kept, each with at
// most poolSlab entry slots.
const (
	poolMax  = 1024
	poolSlab = 64
)

// NewShared makes the shared state with cfg (see Config.Validate).
func NewShared(cfg Config) (*Shared, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	return &Shared{cfg: cfg, gen: 1}, nil
}

// Seed restarts the random numbers of the PIE and RED decisions (tests
// make them repeatable).
func (s *Shared) Seed(a, b uint64) { s.rng.Seed(a, b) }

// uniform is a uniform random number in [0, 1).
func (s *Shared) uniform() float64 { return float64(s.rng.Uint64()>>11) / (1 << 53) }

// Config returns the configuration in force.
func (s *Shared) Config() Config { return s.cfg }

// Apply changes the configuration of every queue at once (see Config for
// when each field takes effect). Lowered limits are enforced immediately by
// dropping from the head of the fattest queues; those drops are reported
// through TakeOverflowed and the queues' next Dequeue.
func (s *Shared) Apply(cfg Config) error {
	if err := cfg.Validate(); err != nil {
		return err
	}
	s.cfg = cfg
	s.gen++
	msl := int64(cfg.msLimit())
	for len(s.heap) > 0 && s.heap[0].charge > msl {
		s.heap[0].overflowDrop()
	}
	s.enforceGlobal()
	return nil
}

// Counters returns the totals.
func (s *Shared) Counters() Counters { return s.ctr }

// Usage returns the memory octets, frames and LLC octets queued over all
// queues.
func (s *Shared) Usage() (memory, frames, octets int64) { return s.total, s.frames, s.octets }

// TakeOverflowed calls fn for every queue that lost frames to an overflow
// since the last call (its own enqueue, another MS's enqueue pushing the
// global limit, or Apply) and has not reported them in a Dequeue yet, with
// the discard to send in LLC-DISCARDED. The engine calls it after handling
// DL-UNITDATA so that MSs without a TBF report their losses too.
func (s *Shared) TakeOverflowed(fn func(q *Queue, d Discard)) {
	for i, q := range s.victims {
		s.victims[i] = nil
		q.victim = false
		if d := q.takePending(); d.Frames > 0 && !q.closed {
			fn(q, d)
		}
	}
	s.victims = s.victims[:0]
}

func (s *Shared) enforceGlobal() {
	lim := s.cfg.globalLimit()
	for s.total > lim && len(s.heap) > 0 {
		s.heap[0].overflowDrop()
	}
}

func (s *Shared) getActive() *active {
	a := s.pool
	if a != nil {
		s.pool = a.nextFree
		s.poolLen--
		a.nextFree = nil
	} else {
		a = new(active)
	}
	a.init()
	return a
}

func (s *Shared) putActive(a *active) {
	if s.poolLen >= poolMax {
		return
	}
	if cap(a.ents) > poolSlab {
		a.ents = nil
	}
	a.nextFree = s.pool
	s.pool = a
	s.poolLen++
}

// heap of queues by charge (largest first).

func (s *Shared) heapUpdate(q *Queue) {
	switch {
	case q.charge == 0 && q.heapIdx >= 0:
		s.heapRemove(q)
	case q.charge > 0 && q.heapIdx < 0:
		q.heapIdx = int32(len(s.heap))
		s.heap = append(s.heap, q)
		s.up(int(q.heapIdx))
	case q.charge > 0:
		i := int(q.heapIdx)
		if !s.up(i) {
			s.down(i)
		}
	}
}

func (s *Shared) heapRemove(q *Queue) {
	i := int(q.heapIdx)
	n := len(s.heap) - 1
	if i != n {
		s.heap[i] = s.heap[n]
		s.heap[i].heapIdx = int32(i)
	}
	s.heap[n] = nil
	s.heap = s.heap[:n]
	q.heapIdx = -1
	if i < n {
		if !s.up(i) {
			s.down(i)
		}
	}
}

func (s *Shared) up(i int) bool {
	moved := false
	h := s.heap
	for i > 0 {
		p := (i - 1) / 2
		if h[p].charge >= h[i].charge {
			break
		}
		h[p], h[i] = h[i], h[p]
		h[p].heapIdx, h[i].heapIdx = int32(p), int32(i)
		i = p
		moved = true
	}
	return moved
}

func (s *Shared) down(i int) {
	h := s.heap
	n := len(h)
	for {
		l := 2*i + 1
		if l >= n {
			return
		}
		c := l
		if r := l + 1; r < n && h[r].charge > h[l].charge {
			c = r
		}
		if h[i].charge >= h[c].charge {
			return
		}
		h[i], h[c] = h[c], h[i]
		h[i].heapIdx, h[c].heapIdx = int32(i), int32(c)
		i = c
	}
}

// lifetimeOf resolves a frame's lifetime (osmo-pcu
// llc_queue_calc_pdu_lifetime): the VTY value if set, else the SGSN's;
// 0xFFFF is infinite (ok false).
func (s *Shared) lifetimeOf(pdu uint16) (time.Duration, bool) {
	l := pdu
	if s.cfg.Lifetime != LifetimeFromSGSN {
		l = s.cfg.Lifetime
	}
	if l == LifetimeInfinite {
		return 0, false
	}
	return time.Duration(l) * 10 * time.Millisecond, true
}
