package llc

import (
	"math"
	"time"
)

// RED per flow with head drop/mark, as Linux SFQ's per-flow RED
// (`redflowlimit ... headdrop`, net/sched/sch_sfq.c, Eric Dumazet 2012):
// each flow keeps an exponentially weighted average of its backlog in
// octets, updated when a frame arrives (avg += (backlog − avg) · 2^−Wlog,
// with the backlog before the arrival), and starts from 0 when it has run
// empty (SFQ gives an emptied slot back). The decision follows Floyd and
// Jacobson, "Random Early Detection Gateways for Congestion Avoidance"
// (IEEE/ACM ToN 1993, §4): below min nothing happens; between min and max
// p_b = max_p · (avg − min) / (max − min) and the frame is hit with
// p_a = p_b / (1 − count · p_b), count being the frames since the last hit,
// so hits are spread evenly over 1 .. 1/p_b frames; at or above max every
// frame is hit. A hit marks an ECN-capable frame and drops any other; it
// falls on the frame at the head of the flow when the flow is served (SFQ
// headdrop), not on the arrival, so nothing is decided for frames the
// radio may never reach.

// REDParams are the RED parameters in force for one MS queue.
type REDParams struct {
	Min, Max int     // octets of average flow backlog
	MaxP     float64 // probability at Max
	Wlog     uint8   // EWMA weight 2^-Wlog
}

// Automatic RED settings: min is the backlog the MS drains in the automatic
// CoDel target less one MTU (at least two maximum frames; redAutoMin),
// max three times that.
const (
	redDefaultMaxP = 10 // percent
	redDefaultWlog = 2
)

// REDParamsECNFor resolves the RED parameters for the ECN-capable frames
// of a queue draining at rate octets per second: as REDParamsFor, but the
// automatic min is the backlog drained in ParamsECNFor's target (one
// MTU-time, at least ECNMinTarget) instead of the automatic CoDel target,
// for the reason given there (a mark costs the sender no retransmission).
// Set thresholds (`queue red min|max`) apply to every frame alike.
func (c Config) REDParamsECNFor(rate int) REDParams { return c.REDParamsECNShared(rate, 1) }

// REDParamsECNShared is REDParamsECNFor for a queue whose PDCHs n MSs with
// data share (see REDParamsShared).
func (c Config) REDParamsECNShared(rate, n int) REDParams {
	if c.RED.Min != 0 || c.RED.Max != 0 {
		return c.REDParamsShared(rate, n)
	}
	if rate <= 0 {
		rate = AutoDefaultRate
	}
	c.RED.Min = redAutoMin(rate, Config{}.ParamsECNFor(rate).Target, n, 0)
	return c.REDParamsShared(rate, n)
}

// REDParamsFor resolves the RED parameters of a queue draining at rate
// octets per second (0 = unknown).
func (c Config) REDParamsFor(rate int) REDParams { return c.REDParamsShared(rate, 1) }

// REDParamsShared resolves the RED parameters of a queue draining at rate
// octets per second (0 = unknown) while n MSs (this one included) have DL
// data for the PDCHs it is sent on. The automatic min exists to keep the
// air interface busy between TCP's window reductions. With n MSs on the
// same PDCHs the others fill the blocks an emptied queue leaves, so the
// backlog that keeps the PDCHs busy is shared: each MS needs its 1/n of
// two maximum frames (at least one frame, so a lone waiting frame is never
// hit), and, for n flows whose window reductions are not synchronised (one
// TCP flow per MS, hit at different times by per-MS RED), 1/√n of the
// single flow's target delay (Appenzeller, Keslassy and McKeown, "Sizing
// Router Buffers", SIGCOMM 2004, §3: B = RTT·C/√n). Set thresholds apply
// as they are. n ≤ 1 is one MS alone (REDParamsFor).
func (c Config) REDParamsShared(rate, n int) REDParams {
	if rate <= 0 {
		rate = AutoDefaultRate
	}
	p := REDParams{Min: c.RED.Min, Max: c.RED.Max, MaxP: float64(c.RED.MaxP) / 100, Wlog: c.RED.Wlog}
	if p.Min == 0 {
		p.Min = redAutoMin(rate, Config{}.ParamsFor(rate).Target, n, AutoMTU)
		if p.Max != 0 && p.Min >= p.Max {
			p.Min = p.Max / 3
		}
	}
	if p.Max == 0 {
		p.Max = 3 * p.Min
	}
	if c.RED.MaxP == 0 {
		p.MaxP = redDefaultMaxP / 100.0
	}
	if p.Wlog == 0 {
		p.Wlog = redDefaultWlog
	}
	return p
}

// redAutoMin is the automatic RED min of a queue draining at rate octets
// per second with target delay t, its PDCHs shared by n MSs with data
// (REDParamsShared): rate·t/√n, at least 2·MaxFrameLen/n and one
// MaxFrameLen. For one MS alone (n ≤ 1) it is rate·t − room, at least
// 2·MaxFrameLen. The frames that cannot be marked leave room for one
// MTU-sized N-PDU (room AutoMTU), so that a packet that arrives while the
// average backlog sits at min still leaves within t: min is where RED
// starts to act, so the backlog's median sits above it (on the real
// network at 8-10 kB/s, the backlog drained in t = 0.5 s gave a median
// queue delay of 0.55 s, a min of 4000 octets 0.41 s at the same download
// time: docs/bufferbloat.md). With n ≥ 2 the share (1/√n) keeps min well
// under t already.
func redAutoMin(rate int, t time.Duration, n, room int) int {
	if n <= 1 {
		return max(int(int64(rate)*int64(t)/int64(time.Second))-room, 2*MaxFrameLen)
	}
	d := float64(rate) * t.Seconds() / math.Sqrt(float64(n))
	return max(int(d), 2*MaxFrameLen/n, MaxFrameLen)
}

// red is the state of one flow's RED.
type red struct {
	avg   float64 // average backlog, octets
	count int32   // frames since the last hit while min ≤ avg < max; −1 below min
}

// REDState is the visible state of one RED instance.
type REDState struct {
	Avg   float64
	Count int32
}

func (r *red) state() REDState { return REDState{Avg: r.avg, Count: r.count} }

func (r *red) reset() { *r = red{count: -1} }

// arrive updates the average with the flow's backlog before the arrival.
func (r *red) arrive(backlog int, rp *REDParams) {
	r.avg += (float64(backlog) - r.avg) / float64(uint32(1)<<rp.Wlog)
}

// prob is p_b at the current average (0 below min, 1 at or above max).
func (r *red) prob(rp *REDParams) float64 {
	switch {
	case r.avg < float64(rp.Min):
		return 0
	case r.avg >= float64(rp.Max):
		return 1
	}
	return rp.MaxP * (r.avg - float64(rp.Min)) / float64(rp.Max-rp.Min)
}

// decide reports whether the head frame is hit (drop or mark). count is
// the number of frames not hit since the last hit, so the n-th frame after
// a hit is hit with p_b / (1 − (n−1)·p_b): the gap between hits is uniform
// over 1 .. 1/p_b frames.
func (r *red) decide(rp *REDParams, u uniformer) bool {
	switch {
	case r.avg < float64(rp.Min):
		r.count = -1
		return false
	case r.avg >= float64(rp.Max):
		r.count = 0
		return true
	}
	r.count = max(r.count, 0)
	pb := r.prob(rp)
	if c := float64(r.count) * pb; c < 1 && u.uniform() >= pb/(1-c) {
		r.count++
		return false
	}
	r.count = 0
	return true
}
