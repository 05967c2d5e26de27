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
	PIE     PIEState // with AQMPIE
	RED     REDState // with AQMRED
}

// QueueStats is a snapshot for `show ms` / `show llc-queue`.
type QueueStats struct {
	Frames  int
	Octets  int
	Memory  int64 // memory octets charged against the limits
	Variant Variant
	CoDel   bool
	Params  Params // CoDel parameters in force (meaningful if CoDel)
	ParamsE Params // CoDel parameters for ECN-capable frames (ECN on)
	AQM     AQM    // algorithm while CoDel (the AQM switch) is on
	FQ      bool   // user data in flow queues
	ECN     bool   // marks instead of drops for ECN-capable frames
	PIE     PIEParams
	RED     REDParams
	// Marked counts the frames the AQM marked CE; NoMark the AQM drops
	// made with ECN on, by why no mark was possible (MarkResult − 1).
	Marked uint32
	NoMark [NumNoMark]uint32
	// DrainRate as last set by SetDrainRate (octets/s, 0 unknown);
	// MeasuredRate as measured while backlogged (drainmeter.go; 0 none).
	// The parameters above are for the smaller of the two.
	DrainRate    int
	MeasuredRate int
	// Sharers as last set by SetSharers (1: alone on its PDCHs); RED is
	// for that many (REDParamsShared).
	Sharers int
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
	rate := int(q.rateNow())
	st := QueueStats{Frames: int(q.frames), Octets: int(q.octets), Memory: q.charge,
		Variant: cfg.Variant, CoDel: cfg.CoDel, Params: cfg.ParamsFor(rate), DrainRate: int(q.rate), MeasuredRate: int(q.meter.rate),
		TransmitStart: q.txStart, TransmitStartSet: q.txStart != noTime, Transmitting: q.txArmed, HeadSojourn: q.HeadSojourn(now),
		Pending: Discard{Frames: int(q.pendFrames), Octets: int(q.pendOctets), Overflow: int(q.pendFrames)},
		ParamsE: cfg.ParamsECNFor(rate),
		AQM:     cfg.AQM, FQ: cfg.fq(), ECN: !cfg.NoECN, PIE: cfg.PIEParamsFor(rate), RED: cfg.REDParamsShared(rate, int(max(q.share, 1))),
		Sharers: int(max(q.share, 1)), Marked: uint32(q.ecn[Marked])}
	for r := range st.NoMark {
		st.NoMark[r] = uint32(q.ecn[r+1])
	}
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
			if a.ext != nil {
				st.Flows[f].PIE, st.Flows[f].RED = a.ext.pie[f].state(), a.ext.red[f].state()
			}
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
	rate := fmt.Sprintf("drain rate %d octets/s", st.DrainRate)
	if st.MeasuredRate > 0 {
		rate += fmt.Sprintf(" (measured %d)", st.MeasuredRate)
	}
	if st.Sharers > 1 {
		rate += fmt.Sprintf(", PDCHs shared by %d MSs with data", st.Sharers)
	}
	switch {
	case !st.CoDel:
		l = append(l, " CoDel off")
	case st.AQM == AQMPIE:
		l = append(l, fmt.Sprintf(" PIE: target %v, tupdate %v, max-burst %v, alpha %.4g, beta %.4g, %s",
			st.PIE.Target, st.PIE.TUpdate, st.PIE.MaxBurst, st.PIE.Alpha, st.PIE.Beta, rate))
	case st.AQM == AQMRED:
		l = append(l, fmt.Sprintf(" RED: min %d, max %d octets, probability %g %%, ewma 2^-%d, %s",
			st.RED.Min, st.RED.Max, st.RED.MaxP*100, st.RED.Wlog, rate))
	default:
		l = append(l, fmt.Sprintf(" CoDel %v: interval %v, target %v, maxpacket %d, %s",
			st.Variant, st.Params.Interval, st.Params.Target, st.Params.MaxPacket, rate))
	}
	fq, ecn := "one FIFO", "ECN off"
	if st.FQ {
		fq = "flow queues"
	}
	if st.ECN && st.Variant == VariantRFC {
		ecn = "ECN on"
		if st.CoDel && st.AQM == AQMCoDel {
			ecn += fmt.Sprintf(" (CoDel interval %v, target %v)", st.ParamsE.Interval, st.ParamsE.Target)
		}
	}
	l = append(l, fmt.Sprintf(" %s, %s: marked %d, dropped unmarkable not-ect %d ciphered %d compressed %d other %d policy %d",
		fq, ecn, st.Marked, st.NoMark[NoMarkNotECT-1], st.NoMark[NoMarkCiphered-1], st.NoMark[NoMarkCompressed-1],
		st.NoMark[NoMarkOther-1], st.NoMark[NoMarkPolicy-1]))
	for i, c := range st.Classes {
		l = append(l, fmt.Sprintf(" %s: %d frames, %d octets, delivered %d, sojourn last/min/avg/max %v/%v/%v/%v, dropped lifetime %d codel %d overflow %d cleared %d",
			Class(i), c.Frames, c.Octets, c.Delivered, c.SojournLast, c.SojournMin, c.SojournAvg, c.SojournMax,
			c.Drops[ReasonLifetime], c.Drops[ReasonCoDel], c.Drops[ReasonOverflow], c.Drops[ReasonCleared]))
	}
	for f := firstUser; f < NumFlows; f++ {
		fs := st.Flows[f]
		if fs.Frames == 0 && fs.CoDel == (CoDelState{}) && fs.PIE == (PIEState{}) && fs.RED.Avg == 0 {
			continue
		}
		s := fmt.Sprintf("  %s: %d frames, %d octets, deficit %d", FlowName(f), fs.Frames, fs.Octets, fs.Deficit)
		switch st.AQM {
		case AQMPIE:
			s += fmt.Sprintf(", pie p %.4f qdelay %v old %v burst %v", fs.PIE.Prob, fs.PIE.QDelay, fs.PIE.QDelayOld, fs.PIE.Burst)
			l = append(l, s)
			continue
		case AQMRED:
			s += fmt.Sprintf(", red avg %.0f count %d", fs.RED.Avg, fs.RED.Count)
			l = append(l, s)
			continue
		}
		s += fmt.Sprintf(", codel count %d lastcount %d", fs.CoDel.Count, fs.CoDel.LastCount)
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
