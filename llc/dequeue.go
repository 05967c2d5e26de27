package llc

import (
	"math"
	"time"
)

// The dequeue path: class and flow selection (strict priority, DRR),
// PDU lifetime with hysteresis, CoDel and the drop accounting of one
// Dequeue call.

// call is the per-Dequeue-call state.
type call struct {
	now    time.Duration
	hyst   time.Duration
	d      Discard
	sparse bool // pick took the frame from the new list with a bulk flow behind it
}

func (c *call) dropped(n int, r Reason) {
	c.d.Frames++
	c.d.Octets += n
	switch r {
	case ReasonLifetime:
		c.d.Lifetime++
	case ReasonCoDel:
		c.d.CoDel++
	}
}

// Dequeue takes the next frame to send (osmo-pcu llc_queue_dequeue): the
// GMM class first, then TOM/SMS, then the data class (DRR across the
// user-data SAPIs in the rfc variant). On the way it drops frames whose PDU
// lifetime expired (with the `queue hysteresis` rule) and frames the AQM
// decides to drop. ok is false if nothing is left. d holds everything
// dropped by this call plus earlier overflow drops not reported yet: if
// d.Frames > 0 the engine sends LLC-DISCARDED (d.LLCDiscarded()).
func (q *Queue) Dequeue(now time.Duration) (fr Frame, ok bool, d Discard) {
	if q.a == nil {
		return Frame{}, false, q.takePending()
	}
	q.sync()
	c := call{now: now, hyst: time.Duration(q.s.cfg.Hysteresis) * 10 * time.Millisecond}
	i := q.pick(&c)
	d = c.d
	if p := q.takePending(); p.Frames > 0 {
		d.Frames += p.Frames
		d.Octets += p.Octets
		d.Overflow += p.Overflow
	}
	if i < 0 {
		q.idle(now)
		q.compact()
		return Frame{}, false, d
	}
	e := &q.a.ents[i]
	if q.a.ecn && e.flow >= firstUser && e.flags&fFirstSeg != 0 && q.a.noteFirstSegment(e) {
		d.Marked++
		q.ecnCount(Marked)
		q.s.ctr.Marked++
	}
	fr = Frame{Data: e.data, SAPI: SAPI(e.data), Enqueued: e.enq, Sojourn: q.sojourn(e, now),
		Lifetime: e.life, Sparse: c.sparse, seq: e.seq, queued: true, pooled: e.flags&fPooled != 0}
	fr.Class = ClassOf(fr.SAPI)
	q.cls[fr.Class].sample(fr.Sojourn)
	q.s.ctr.Scheduled++
	q.release(i)
	q.meter.dequeued(now, len(fr.Data), q.frames > 0)
	if q.frames == 0 {
		q.idle(now)
		q.compact()
	}
	return fr, true, d
}

func (c *classStats) sample(s time.Duration) {
	us := uint32(min(s/time.Microsecond, math.MaxUint32))
	if c.delivered == 0 {
		c.min, c.max, c.avg = us, us, us
	} else {
		c.min = min(c.min, us)
		c.max = max(c.max, us)
		c.avg = uint32(int64(c.avg) + (int64(us)-int64(c.avg))/8)
	}
	c.last = us
	c.delivered++
}

// pick runs the class priority and DRR and returns the delivered entry or -1.
func (q *Queue) pick(c *call) int32 {
	a := q.a
	for f := uint8(flowGMM); f <= flowTOM; f++ {
		if a.flows[f].frames > 0 {
			if i := q.pull(f, c); i >= 0 {
				return i
			}
		}
	}
	quantum := q.s.cfg.quantum()
	if f := a.segFlow; f > 0 {
		if i := q.pull(f-1, c); i >= 0 {
			a.flows[f-1].deficit -= int32(len(a.ents[i].data))
			a.noteSegment(f-1, i)
			return i
		}
		a.segFlow = 0
	}
	for {
		var f uint8
		var l *flist
		switch {
		case a.newL.n > 0:
			l = &a.newL
		case a.oldL.n > 0:
			l = &a.oldL
		default:
			// RFC 8289 dequeue on an empty queue: leave dropping state.
			if a.variant == VariantRFC {
				for f := firstUser; f < NumFlows; f++ {
					a.cd[f].dropping = false
					a.cd[f].faSet = false
				}
			}
			return -1
		}
		f = l.f[0]
		fw := &a.flows[f]
		if fw.deficit <= 0 {
			fw.deficit += quantum
			l.pop()
			fw.list = listOld
			a.oldL.push(f)
			continue
		}
		i := q.pull(f, c)
		if i < 0 {
			// RFC 8290 §4.2: an emptied new flow goes to the end of the
			// old list (if that is not empty), an emptied old flow leaves.
			l.pop()
			if l == &a.newL && a.oldL.n > 0 {
				fw.list = listOld
				a.oldL.push(f)
			} else {
				fw.list = listNone
			}
			continue
		}
		fw.deficit -= int32(len(a.ents[i].data))
		a.noteSegment(f, i)
		c.sparse = l == &a.newL && a.bulkBacklog()
		return i
	}
}

// bulkBacklog reports whether a user flow on the old list (one that used
// up a quantum: a bulk flow) holds frames.
func (a *active) bulkBacklog() bool {
	for _, f := range a.oldL.f[:a.oldL.n] {
		if a.flows[f].frames > 0 {
			return true
		}
	}
	return false
}

// SparseBehindBulk reports whether a new (sparse) user flow waits while
// another user flow of the queue is backlogged (flow queues only): the
// engine's DL scheduler gives such an MS's TBF its PDCHs first, within an
// airtime bound, so the sparse frame does not wait for the other MSs' blocks
// as well as for its own download's current frame (pcu/dl.go buildDLData).
func (q *Queue) SparseBehindBulk() bool {
	a := q.a
	if a == nil || !a.fq || a.newL.n == 0 {
		return false
	}
	for _, f := range a.newL.f[:a.newL.n] {
		if a.flows[f].frames > 0 {
			return a.bulkBacklog()
		}
	}
	return false
}

// noteSegment keeps user flow f first while the frame just taken from it
// (entry i) is an SNDCP segment with more to follow.
func (a *active) noteSegment(f uint8, i int32) {
	if _, _, _, more, ok := sndcpSegment(a.ents[i].data); ok && more || a.cipheredLeave(a.ents[i].data) {
		a.segFlow = f + 1
	} else {
		a.segFlow = 0
	}
}

// expired applies PDU lifetime with osmo-pcu's hysteresis to a popped
// frame: true means drop it as timed out.
func (q *Queue) expired(e *entry, c *call) bool {
	life, ok := q.s.lifetimeOf(e.life)
	if !ok {
		return false
	}
	exp := e.enq + life
	if c.now+c.hyst <= exp { // not expired at now + hysteresis
		return false
	}
	if c.now <= exp { // expires only within the hysteresis
		if c.d.Frames == 0 || e.flags&fDiscardable == 0 {
			return false
		}
	}
	return true
}

// pull takes the next frame of flow f to deliver, or -1 when the flow ran
// empty, dropping expired and AQM-dropped frames on the way.
func (q *Queue) pull(f uint8, c *call) int32 {
	a := q.a
	if a.variant == VariantOsmo {
		return q.pullOsmo(f, c)
	}
	cd := &a.cd[f]
	if !a.codelOn || f < firstUser {
		return q.head(f, c)
	}
	switch a.aqm {
	case AQMPIE:
		return q.pullPIE(f, c)
	case AQMRED:
		return q.pullRED(f, c)
	}
	p := &a.params
	i := q.head(f, c)
	if i < 0 {
		cd.dropping, cd.faSet = false, false
		return -1
	}
	if fl := a.ents[i].flags; a.ecn && (fl&fECT != 0 || a.ectFlow[f] && fl&fLaterSeg != 0) {
		// a mark costs no retransmission: the faster control
		// (ParamsECNFor) for ECN-capable flows, their later SNDCP
		// segments included
		p = &a.paramsE
	}
	ok := cd.okToDrop(c.now, q.sojourn(&a.ents[i], c.now), int(a.flows[f].octets), p)
	if cd.dropping {
		if !ok {
			cd.dropping = false
		}
		for cd.dropping && c.now >= cd.dropNext {
			if a.ents[i].flags&fProtected != 0 {
				break // never drop it; the drop falls on the next droppable frame
			}
			// RFC 8289 §5.4: mark and deliver, on schedule; likewise a
			// drop aqmDrop defers to the next N-PDU
			if q.mark(i, c) || !q.aqmDrop(i, f, c) {
				cd.count++
				cd.dropNext = controlLaw(cd.dropNext, cd.count, p.Interval)
				break
			}
			cd.count++
			i = q.head(f, c)
			if i < 0 {
				cd.dropping, cd.faSet = false, false
				return -1
			}
			if !cd.okToDrop(c.now, q.sojourn(&a.ents[i], c.now), int(a.flows[f].octets), p) {
				cd.dropping = false
			} else {
				cd.dropNext = controlLaw(cd.dropNext, cd.count, p.Interval)
			}
		}
	} else if ok && a.ents[i].flags&fProtected == 0 {
		if !q.mark(i, c) && q.aqmDrop(i, f, c) {
			i = q.head(f, c)
			if i >= 0 {
				cd.okToDrop(c.now, q.sojourn(&a.ents[i], c.now), int(a.flows[f].octets), p)
			} else {
				cd.faSet = false
			}
		}
		cd.enter(c.now, p)
	}
	return i
}

// mark is the ECN alternative to a drop of popped entry i: with ECN on it
// marks the frame CE and counts it (true: deliver it), or counts why it
// could not (false: drop it).
func (q *Queue) mark(i int32, c *call) bool { return q.markIf(i, c, true) }

// markIf is mark, with allow false for an AQM whose policy is to drop
// even a markable frame (counted as NoMarkPolicy). A decision on a later
// SNDCP segment (no IP header) of a flow whose N-PDUs are ECN-capable
// marks the flow's next first segment (markNext). Marked counts frames
// that change to CE, when they change; a decision whose frame is CE
// already, or while a mark is pending, delivers without counting: the
// sender gets its signal once. NoMark counts the decisions that drop.
func (q *Queue) markIf(i int32, c *call, allow bool) bool {
	a := q.a
	if !a.ecn {
		return false
	}
	b := a.ents[i].data
	later := a.ents[i].flags&fLaterSeg != 0
	var r MarkResult
	switch {
	case later && a.ectFlow[a.ents[i].flow]:
		r = Marked
	case later:
		r = NoMarkNotECT // the flow's last IP header said Not-ECT
	case a.ents[i].flags&fECT != 0:
		r = Marked
	default:
		r = ECNOf(b)
	}
	if r == Marked && !allow {
		r = NoMarkPolicy
	}
	if r != Marked {
		c.d.NoMark[r-1]++
		q.ecnCount(r)
		q.s.ctr.NoMark[r-1]++
		return false
	}
	var changed bool
	if later {
		changed = q.markNext(i)
	} else {
		_, changed = markCE(b)
	}
	if changed {
		c.d.Marked++
		q.ecnCount(Marked)
		q.s.ctr.Marked++
	}
	return true
}

// markNext marks for popped entry i, a later SNDCP segment of an N-PDU
// whose first segment (the one with the IP header) has left: the first
// segment of the next N-PDU of the same NSAPI in the flow, at most
// markAhead frames behind and not CE yet, is marked CE instead, and i
// leaves as it is; without one in the queue, the flow's next first
// segment takes the mark when it leaves (noteFirstSegment). The sender's
// congestion signal then comes one N-PDU later, but as a mark: a drop
// here would cost it a retransmission (and the rest of the N-PDU). With
// 1500-octet IP packets cut into N201-U = 500 octet segments, three
// decisions in four fall on such a segment. It reports whether a queued
// frame changed to CE.
func (q *Queue) markNext(i int32) bool {
	a := q.a
	nsapi, _, _, _, _ := sndcpSegment(a.ents[i].data)
	fl := a.ents[i].flow
	k := 0
	for j := a.flows[fl].head; j >= 0 && k < markAhead; j, k = a.ents[j].next, k+1 {
		if a.ents[j].flags&fECT == 0 {
			continue
		}
		if n, _, _, _, _ := sndcpSegment(a.ents[j].data); n != nsapi {
			continue
		}
		if r, changed := markCE(a.ents[j].data); r == Marked {
			if changed {
				return true
			}
			continue // CE already: the next N-PDU
		}
	}
	a.pendMark[fl] = true // counted when it changes a frame (noteFirstSegment)
	return false
}

// noteFirstSegment runs for every delivered user-data frame with ECN on:
// a first SNDCP segment records whether its flow is ECN-capable, and takes
// a mark that a decision on a later segment left pending (markNext). It
// reports whether it set CE (a frame that carries CE already satisfies the
// pending mark as it is).
func (a *active) noteFirstSegment(e *entry) bool {
	if e.flags&fFirstSeg == 0 {
		return false
	}
	f := e.flow
	a.ectFlow[f] = e.flags&fECT != 0
	if a.pendMark[f] {
		a.pendMark[f] = false
		if a.ectFlow[f] {
			_, changed := markCE(e.data)
			return changed
		}
	}
	return false
}

// markAhead bounds markNext's search (one 1500-octet packet is 4 segments).
const markAhead = 8

// flowDelay is the queue delay of user flow f with backlog octets, from
// the drain rate: each backlogged user flow gets an equal share of it
// (DRR), a single FIFO all of it.
func (q *Queue) flowDelay(f uint8, octets int) time.Duration {
	a := q.a
	n := 1
	if a.fq {
		n = 0
		for g := firstUser; g < NumFlows; g++ {
			if a.flows[g].frames > 0 || g == int(f) {
				n++
			}
		}
	}
	rate := int64(q.rateNow())
	if rate <= 0 {
		rate = AutoDefaultRate
	}
	return time.Duration(float64(octets) * float64(n) * float64(time.Second) / float64(rate))
}

// pullPIE serves user flow f under PIE: the head frame gets one decision;
// a hit marks it (while PIE's probability allows marks) or drops it with
// the rest of its N-PDU, and the next head leaves without a decision. One
// decision per departure stands for RFC 8033's one per arrival: with a
// probability near 1 a loop over the heads would empty the flow at once,
// retransmissions included.
func (q *Queue) pullPIE(f uint8, c *call) int32 {
	a := q.a
	st := &a.ext.pie[f]
	i := q.head(f, c)
	if i < 0 {
		st.qdelay = 0 // an empty flow has no queue delay
		return -1
	}
	if a.ents[i].flags&fProtected != 0 {
		return i
	}
	backlog := int(a.flows[f].octets) + len(a.ents[i].data)
	if !st.decide(c.now, q.flowDelay(f, backlog), backlog, &a.pieP, q.s) || q.markIf(i, c, st.markOK()) || !q.aqmDrop(i, f, c) {
		return i
	}
	if i = q.head(f, c); i < 0 {
		st.qdelay = 0
	}
	return i
}

// pullRED serves user flow f under RED with head drop/mark: one decision
// per departure (SFQ decides once per arrival), a hit marks the head frame
// or drops it with the rest of its N-PDU and the next head leaves.
func (q *Queue) pullRED(f uint8, c *call) int32 {
	a := q.a
	st := &a.ext.red[f]
	i := q.head(f, c)
	if i < 0 {
		st.reset() // SFQ frees an emptied slot: the next flow starts at 0
		return -1
	}
	// The average follows the backlog at departures too (the decision is
	// taken here, not at the arrival as in SFQ): after a burst it falls
	// while the flow drains instead of standing at the burst's height.
	p := &a.redP
	if fl := a.ents[i].flags; a.ecn && (fl&fECT != 0 || a.ectFlow[f] && fl&fLaterSeg != 0) {
		p = &a.redPE // as CoDel's ParamsECNFor: a mark costs no retransmission
	}
	st.arrive(int(a.flows[f].octets)+len(a.ents[i].data), p)
	if a.ents[i].flags&fProtected != 0 || !st.decide(p, q.s) || q.mark(i, c) || !q.aqmDrop(i, f, c) {
		return i
	}
	if i = q.head(f, c); i < 0 {
		st.reset()
	}
	return i
}

// aqmDrop carries out an AQM drop decision (CoDel, PIE, RED) on popped
// entry i of flow f, and reports whether i is gone (false: deliver it).
//
// With the RFC variant the drop falls on whole N-PDUs. A decision on a
// later SNDCP segment (its first segment, and maybe others, sent already;
// for ciphered frames, a frame that continues an N-PDU by the frame
// lengths, learnCiphered) is deferred to the flow's next N-PDU, unless that one is its last queued
// one (dropNext in head, npduBehind), and i is delivered: dropping it
// would leave the MS an N-PDU its SNDCP cannot reassemble (TS 44.065), so
// the airtime of the segments sent before it would be lost too. On the
// real network (1500-octet IP packets in N201-U 500 segments) those
// orphans were about 5 % of the download's airtime (docs/bufferbloat.md).
// A frame that is dropped takes the rest of its N-PDU along (the segments
// queued right behind it in its flow).
func (q *Queue) aqmDrop(i int32, f uint8, c *call) bool {
	a := q.a
	if a.variant == VariantRFC && a.ents[i].flags.laterSeg() {
		a.dropNext[f] = true
		return false
	}
	q.dropNPDU(i, f, c)
	return true
}

// npduBehind reports whether user flow f holds the first segment of an
// N-PDU within markAhead frames of its head: then an N-PDU popped from it
// is not the last one the flow has. A deferred drop (aqmDrop) waits for
// such an N-PDU: the sender learns of a lost packet from the ones after it
// (duplicate or selective acks, RFC 5681 §3.2, RACK, RFC 8985), but of a
// lost last packet only by a probe or retransmission timeout (RFC 8985
// §7), one or two smoothed round trips, seconds on GPRS. The deferral
// lasts one N-PDU: a decision kept until the flow had two N-PDUs queued
// again would fall on the sender's recovery, its retransmissions among
// them, whose loss only the retransmission timer finds.
func (a *active) npduBehind(f uint8) bool {
	k := 0
	for j := a.flows[f].head; j >= 0 && k < markAhead; j, k = a.ents[j].next, k+1 {
		if a.ents[j].flags.startsNPDU() {
			return true
		}
	}
	return false
}

// dropNPDU drops popped entry i of flow f for the AQM with, for the RFC
// variant, the rest of its N-PDU.
func (q *Queue) dropNPDU(i int32, f uint8, c *call) {
	a := q.a
	nsapi, npdu, _, more, seg := sndcpSegment(a.ents[i].data)
	cipher, sapi := ciphered(a.ents[i].data), SAPI(a.ents[i].data)
	more = more || a.cipheredLeave(a.ents[i].data)
	c.dropped(len(a.ents[i].data), ReasonCoDel)
	q.drop(i, ReasonCoDel)
	for cipher && more && a.variant == VariantRFC { // the rest of a ciphered N-PDU (at most maxSegs frames)
		h := a.flows[f].head
		if h < 0 || !ciphered(a.ents[h].data) || SAPI(a.ents[h].data) != sapi {
			return
		}
		more = a.cipheredLeave(a.ents[h].data)
		j := q.pop(f)
		c.dropped(len(a.ents[j].data), ReasonCoDel)
		q.drop(j, ReasonCoDel)
	}
	for seg && more && a.variant == VariantRFC {
		h := a.flows[f].head
		if h < 0 {
			return
		}
		n, p, first, m, ok := sndcpSegment(a.ents[h].data)
		if !ok || first || n != nsapi || p != npdu {
			return
		}
		j := q.pop(f)
		c.dropped(len(a.ents[j].data), ReasonCoDel)
		q.drop(j, ReasonCoDel)
		more = m
	}
}

// head pops the first frame of flow f that is not expired (RFC 8289
// dodequeue with the PDU lifetime check in front), or -1.
func (q *Queue) head(f uint8, c *call) int32 {
	a := q.a
	for a.flows[f].frames > 0 {
		i := q.pop(f)
		if q.expired(&a.ents[i], c) {
			c.dropped(len(a.ents[i].data), ReasonLifetime)
			q.drop(i, ReasonLifetime)
			continue
		}
		if a.dropNext[f] && a.ents[i].flags.startsNPDU() {
			// the drop an AQM decided on a later segment (aqmDrop): on
			// this N-PDU or on none, so that a stale decision cannot
			// fall on a later retransmission
			a.dropNext[f] = false
			if a.ents[i].flags&fProtected == 0 && a.npduBehind(f) {
				q.dropNPDU(i, f, c)
				continue
			}
		}
		return i
	}
	a.dropNext[f] = false // an empty flow has no queue to signal
	return -1
}

// pullOsmo is osmo-pcu's dequeue loop for one class: CoDel decision per
// frame, then the lifetime check.
func (q *Queue) pullOsmo(f uint8, c *call) int32 {
	a := q.a
	for a.flows[f].frames > 0 {
		i := q.pop(f)
		e := &a.ents[i]
		if a.codelOn && a.cd[f].osmoControl(c.now, q.sojourn(e, c.now), int(q.octets), &a.params, e.flags&fProtected == 0) {
			q.aqmDrop(i, f, c)
			continue
		}
		if q.expired(e, c) {
			c.dropped(len(e.data), ReasonLifetime)
			q.drop(i, ReasonLifetime)
			continue
		}
		return i
	}
	return -1
}

// idle gives the working storage back when the queue is empty and no CoDel
// state can matter any more.
func (q *Queue) idle(now time.Duration) {
	a := q.a
	if a == nil || q.frames != 0 {
		return
	}
	for i := range a.cd {
		if a.ext != nil {
			a.ext.pie[i].qdelay = 0 // the queue is empty: no delay, no backlog to average
			a.ext.red[i].reset()
			if !a.ext.pie[i].cold(now, &a.pieP) {
				return
			}
		}
		if !a.cd[i].cold(now, a.variant, &a.params) {
			return
		}
	}
	q.a = nil
	q.s.putActive(a)
}

// ecnCount counts r in the queue's saturating ECN counters.
func (q *Queue) ecnCount(r MarkResult) {
	if q.ecn[r] < 0xffff {
		q.ecn[r]++
	}
}
