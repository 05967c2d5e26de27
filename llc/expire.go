package llc

import (
	"math"
	"time"
)

// noExpiry marks a queue none of whose frames can expire.
const noExpiry = time.Duration(math.MaxInt64)

// noteExpiry keeps the earliest expiry time of the queue's frames up to
// date after an insert (Expire skips queues with nothing due).
func (q *Queue) noteExpiry(e *entry) {
	if q.expGen != q.s.gen {
		return // stale already: the next Expire looks at every frame
	}
	if life, ok := q.s.lifetimeOf(e.life); ok {
		q.nextExp = min(q.nextExp, e.enq+life)
	}
}

// Expire drops every queued frame whose PDU lifetime has run out at now,
// wherever it stands in its flow (Dequeue checks only the frames it
// reaches, so without a TBF taking frames an expired frame would stay:
// TS 48.018 §11.3.25 makes the PDU Lifetime the time after which the BSS
// deletes the PDU). Frames that expire only within `queue hysteresis` are
// left for Dequeue to decide. The result, reason lifetime, goes to the SGSN
// in LLC-DISCARDED like a Dequeue's. Expire does not touch CoDel state.
func (q *Queue) Expire(now time.Duration) Discard {
	var d Discard
	q.compact()
	if q.a == nil || q.frames == 0 {
		return d
	}
	if q.expGen == q.s.gen && now < q.nextExp {
		return d
	}
	q.sync()
	a := q.a
	next := noExpiry
	for f := uint8(0); f < NumFlows; f++ {
		fw := &a.flows[f]
		prev := int32(-1)
		for i := fw.head; i >= 0; {
			e := &a.ents[i]
			nx := e.next
			life, ok := q.s.lifetimeOf(e.life)
			if !ok || now <= e.enq+life {
				if ok {
					next = min(next, e.enq+life)
				}
				prev, i = i, nx
				continue
			}
			// unlink i from flow f
			if prev < 0 {
				fw.head = nx
			} else {
				a.ents[prev].next = nx
			}
			if fw.tail == i {
				fw.tail = prev
			}
			n := int32(len(e.data))
			fw.frames--
			fw.octets -= n
			q.account(-int64(n), -1)
			d.Frames++
			d.Octets += int(n)
			d.Lifetime++
			q.drop(i, ReasonLifetime)
			i = nx
		}
	}
	q.nextExp, q.expGen = next, q.s.gen
	if q.frames == 0 {
		q.idle(now)
	}
	q.compact()
	return d
}

// ExpireAll runs Expire on every queue holding frames and calls report
// for each one that dropped some.
func (s *Shared) ExpireAll(now time.Duration, report func(*Queue, Discard)) {
	s.scratch = append(s.scratch[:0], s.heap...) // Expire reorders the heap
	for _, q := range s.scratch {
		if d := q.Expire(now); d.Frames > 0 && report != nil {
			report(q, d)
		}
	}
	clear(s.scratch)
}

// compact gives back entry slots the queue no longer needs: a queue that
// once held many frames keeps its slab, so without this the slabs of
// queues drained by overflow drops (the global limit takes from the
// fattest MS) would add up beyond the memory limit. The slab shrinks to
// 5/4 of the frames when it is more than twice what they need; an empty
// queue keeps none.
func (q *Queue) compact() {
	a := q.a
	if a == nil || cap(a.ents) <= poolSlab || cap(a.ents) <= 2*int(q.frames)+poolSlab {
		return
	}
	if q.frames == 0 {
		a.ents, a.free = nil, -1
		return
	}
	n := make([]entry, 0, int(q.frames)+int(q.frames)/4+poolSlab/4)
	for f := range a.flows {
		fw := &a.flows[f]
		prev := int32(-1)
		for i := fw.head; i >= 0; i = a.ents[i].next {
			e := a.ents[i]
			e.next = -1
			idx := int32(len(n))
			n = append(n, e)
			if prev < 0 {
				fw.head = idx
			} else {
				n[prev].next = idx
			}
			prev = idx
		}
		fw.tail = prev
	}
	a.ents, a.free = n, -1
}
