package llc

import "time"

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
	// TransmitStart as last set by SetTransmitStart (ok false if never).
	TransmitStart    time.Duration
	TransmitStartSet bool
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
		TransmitStart: q.txStart, TransmitStartSet: q.txStart != noTime, HeadSojourn: q.HeadSojourn(now),
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
