package llc

import (
	"fmt"
	"time"
)

// ClassStats is the visible state of one priority class of a queue.
type ClassStats struct {
	Frames    int    // queued now
	Octets    int    // queued now
	Delivered uint32 // frames dequeued for transmission
	Drops     [NumReasons]uint32
	// Sojourn of delivered frames: last, minimum, average (EWMA with
	// weight 1/8) and maximum, microsecond resolution.
	SojournLast, SojournMin, SojournAvg, SojournMax time.Duration
}

// FlowStats is the visible state of one flow (GMM, TOM/SMS, one user-data
// SAPI, or the other SAPIs) with its CoDel state.
type FlowStats struct {
	Frames  int
	Octets  int
	Deficit int // DRR deficit (data flows)
	CoDel   CoDelState
}

// QueueStats is a snapshot for `show ms` / `show llc-queue`.
type QueueStats struct {
	Frames  int
	Octets  int
	Memory  int64 // memory octets charged against the limits
	Variant Variant
	CoDel   bool
	Params  Params // CoDel parameters in force (meaningful if CoDel)
	// DrainRate as last set by SetDrainRate (octets/s, 0 unknown).
	DrainRate int
	// TransmitStart as last set by SetTransmitStart (TransmitStartSet false
	// if never); Transmitting is true between SetTransmitStart and
	// StopTransmit.
	TransmitStart    time.Duration
	TransmitStartSet bool
	Transmitting     bool
	HeadSojourn      time.Duration
	Pending          Discard // overflow drops not reported yet
	Classes          [NumClasses]ClassStats
	Flows            [NumFlows]FlowStats
}

// Stats returns a snapshot of the queue at now. It does not allocate.
func (q *Queue) Stats(now time.Duration) QueueStats {
	cfg := &q.s.cfg
	st := QueueStats{Frames: int(q.frames), Octets: int(q.octets), Memory: q.charge,
		Variant: cfg.Variant, CoDel: cfg.CoDel, Params: cfg.ParamsFor(int(q.rate)), DrainRate: int(q.rate),
		TransmitStart: q.txStart, TransmitStartSet: q.txStart != noTime, Transmitting: q.txArmed, HeadSojourn: q.HeadSojourn(now),
		Pending: Discard{Frames: int(q.pendFrames), Octets: int(q.pendOctets), Overflow: int(q.pendFrames)}}
	if !st.TransmitStartSet {
		st.TransmitStart = 0
	}
	for i := range q.cls {
		c := &q.cls[i]
		cs := &st.Classes[i]
		cs.Delivered = c.delivered
		cs.Drops = c.drops
		cs.SojournLast = time.Duration(c.last) * time.Microsecond
		cs.SojournMin = time.Duration(c.min) * time.Microsecond
		cs.SojournAvg = time.Duration(c.avg) * time.Microsecond
		cs.SojournMax = time.Duration(c.max) * time.Microsecond
	}
	if a := q.a; a != nil {
		for f := range a.flows {
			fw := &a.flows[f]
			st.Flows[f] = FlowStats{Frames: int(fw.frames), Octets: int(fw.octets), CoDel: a.cd[f].state()}
			if f >= firstUser && fw.list != listNone {
				st.Flows[f].Deficit = int(fw.deficit)
			}
			c := &st.Classes[classOfFlow(uint8(f))]
			c.Frames += int(fw.frames)
			c.Octets += int(fw.octets)
		}
	}
	return st
}

// IdleAckDue is when the engine's idle-ack timer fires for this queue:
// `queue idle-ack-delay` after the last enqueue (osmo-pcu restarts the timer
// on every enqueued PDU). ok is false if the delay is 0 (`no queue
// idle-ack-delay`) or nothing was ever enqueued.
func (q *Queue) IdleAckDue() (at time.Duration, ok bool) {
	d := q.s.cfg.IdleAckDelay
	if d == 0 || q.lastEnq == noTime {
		return 0, false
	}
	return q.lastEnq + time.Duration(d)*10*time.Millisecond, true
}

// Lines renders the snapshot for `show ms` / `show llc-queue` (one string
// per line, without line endings; the VTY adds "\r\n"). Times relative to
// now are shown as "in …" / "… ago".
func (st QueueStats) Lines(now time.Duration) []string {
	l := []string{fmt.Sprintf("LLC queue: %d frames, %d octets (%d charged), head sojourn %v",
		st.Frames, st.Octets, st.Memory, st.HeadSojourn)}
	if st.CoDel {
		l = append(l, fmt.Sprintf(" CoDel %v: interval %v, target %v, maxpacket %d, drain rate %d octets/s",
			st.Variant, st.Params.Interval, st.Params.Target, st.Params.MaxPacket, st.DrainRate))
	} else {
		l = append(l, " CoDel off")
	}
	for i, c := range st.Classes {
		l = append(l, fmt.Sprintf(" %s: %d frames, %d octets, delivered %d, sojourn last/min/avg/max %v/%v/%v/%v, dropped lifetime %d codel %d overflow %d cleared %d",
			Class(i), c.Frames, c.Octets, c.Delivered, c.SojournLast, c.SojournMin, c.SojournAvg, c.SojournMax,
			c.Drops[ReasonLifetime], c.Drops[ReasonCoDel], c.Drops[ReasonOverflow], c.Drops[ReasonCleared]))
	}
	for f := firstUser; f < NumFlows; f++ {
		fs := st.Flows[f]
		if fs.Frames == 0 && fs.CoDel == (CoDelState{}) {
			continue
		}
		s := fmt.Sprintf("  %s: %d frames, %d octets, deficit %d, codel count %d lastcount %d", FlowName(f),
			fs.Frames, fs.Octets, fs.Deficit, fs.CoDel.Count, fs.CoDel.LastCount)
		if fs.CoDel.Dropping {
			s += ", dropping"
		}
		if fs.CoDel.DropNextSet {
			s += ", drop_next " + rel(fs.CoDel.DropNext, now)
		}
		l = append(l, s)
	}
	if st.Pending.Frames > 0 {
		l = append(l, fmt.Sprintf(" overflow drops not yet reported: %d frames, %d octets", st.Pending.Frames, st.Pending.Octets))
	}
	return l
}

func rel(t, now time.Duration) string {
	if t >= now {
		return "in " + (t - now).String()
	}
	return (now - t).String() + " ago"
}
