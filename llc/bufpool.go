package llc

import (
	"time"

	"github.com/gopcu/gopcu/internal/poison"
)

// The frame buffer pool. EnqueueCopy copies a frame into a buffer of
// Shared's pool; the queue owns that buffer while the frame is queued, the
// holder of the Frame that Dequeue returned (the DL TBF) owns it from then
// on and gives it back with Shared.Release or hands it back to a queue with
// PutBack. Every queue drop (lifetime, CoDel, overflow, Clear, Close)
// gives a pooled buffer back; Merge moves it with its entry. A buffer that
// nobody gives back is simply garbage. Frames passed to Enqueue are never
// pooled.
//
// Buffers come in size classes (Go's malloc size classes up to 64 octets,
// then steps of 1.5x) so that a frame costs no more than its length
// rounded up to the class, plus its entry, and the memory the global limit
// charges per frame (length + FrameOverhead) stays a bound of what queued
// frames really hold (pcu.QueueMemoryFactor; TestPooledMemoryFactor).
var bufClasses = [...]int{8, 16, 24, 32, 48, 64, 96, 128, 192, 256, 384, 512, 768, 1024, 1536, 1792}

const (
	numBufClasses = len(bufClasses)
	// bufPoolBytes and bufPoolCount bound the free buffers kept per class:
	// at most 7 x 256 KiB (classes from 256 octets) + 1024 x 608 octets
	// (the smaller ones), under 2.5 MiB over all queues of a Shared.
	bufPoolBytes = 256 << 10
	bufPoolCount = 1024
)

// bufClass is the index of the smallest class holding n octets, -1 above
// the largest (a table lookup: one per EnqueueCopy and per give-back).
func bufClass(n int) int {
	if n <= 0 {
		return 0
	}
	if i := (n + 7) >> 3; i < len(classByOctets) {
		return int(classByOctets[i])
	}
	return -1
}

// classByOctets[(n+7)/8] is bufClass(n); every class is a multiple of 8.
var classByOctets = func() (t [bufClassMax/8 + 1]uint8) {
	c := 0
	for i := range t {
		for bufClasses[c] < i*8 {
			c++
		}
		t[i] = uint8(c)
	}
	return t
}()

const bufClassMax = 1792 // bufClasses' last

// bufPool is the free lists of Shared.
type bufPool struct {
	free [numBufClasses][][]byte
	// Counters: buffers made, taken from the free lists, given back, and
	// given back but not kept (free list full).
	made, reused, released, dropped uint64
}

func (p *bufPool) get(n int) []byte {
	c := bufClass(n)
	if c < 0 {
		return make([]byte, n)
	}
	if l := p.free[c]; len(l) > 0 {
		b := l[len(l)-1]
		l[len(l)-1] = nil
		p.free[c] = l[:len(l)-1]
		p.reused++
		return b[:n]
	}
	p.made++
	return make([]byte, n, bufClasses[c])
}

func (p *bufPool) put(b []byte) {
	p.released++
	c := bufClass(cap(b))
	if c < 0 || cap(b) != bufClasses[c] {
		p.dropped++
		return // not one of ours
	}
	poison.Fill(b)
	if len(p.free[c]) >= min(bufPoolBytes/bufClasses[c], bufPoolCount) {
		p.dropped++
		return
	}
	p.free[c] = append(p.free[c], b[:0])
}

// PoolStats are the frame buffer pool's counters (see EnqueueCopy).
type PoolStats struct {
	Made     uint64 // buffers allocated (the free list of the class was empty)
	Reused   uint64 // buffers taken from a free list
	Released uint64 // buffers given back (queue drops, Release)
	Dropped  uint64 // given back but left to the garbage collector (free list full)
	Free     int    // buffers on the free lists now
}

// PoolStats returns the frame buffer pool's counters.
func (s *Shared) PoolStats() PoolStats {
	st := PoolStats{Made: s.bufs.made, Reused: s.bufs.reused, Released: s.bufs.released, Dropped: s.bufs.dropped}
	for _, l := range s.bufs.free {
		st.Free += len(l)
	}
	return st
}

// EnqueueCopy is Enqueue of a copy of frame in a buffer of the pool: the
// caller keeps frame (it may alias a receive buffer). The copy goes back to
// the pool when the queue drops the frame, or when the Frame that Dequeue
// returns for it is given to Release.
func (q *Queue) EnqueueCopy(now time.Duration, frame []byte, pduLifetime uint16) error {
	if err := q.admit(frame); err != nil {
		return err
	}
	b := q.s.bufs.get(len(frame))
	copy(b, frame)
	return q.enqueue(now, b, pduLifetime, fPooled)
}

// Release ends the life of a frame that Dequeue returned and that is not
// put back: its buffer returns to the pool if EnqueueCopy made it. Call
// it once per dequeued frame, when nothing refers to f.Data any more (the
// DL TBF: when the frame's last RLC block is acknowledged). Release clears
// f, so that a second call on the same Frame does nothing; a copy of the
// Frame must not be released or put back after that.
func (s *Shared) Release(f *Frame) {
	if f.pooled {
		s.bufs.put(f.Data)
	}
	*f = Frame{}
}
