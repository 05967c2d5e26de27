package llc

import "time"

// PIE (RFC 8033) for one flow of an MS queue.
//
// The controller is RFC 8033's: every T_UPDATE the drop probability moves
// by alpha·(qdelay − QDELAY_REF) + beta·(qdelay − qdelay_old), scaled down
// while it is small (§4.2), capped at +0.02 per update once it is at least
// 0.1 (§5.5), decayed by 0.98 while the queue stays empty; a burst
// allowance of MAX_BURST (§4.4) and the work-conserving safeguard (§4.1)
// hold back early drops, and derandomization (§5.4) spaces them. ECN-capable
// frames are marked while the probability is below 10 % (§5.1).
//
// Where gopcu differs:
//   - The queue delay is not measured but computed from the MS's drain
//     rate (§5.2's departure rate): the smaller of the rate the coding
//     scheme and the number of DL timeslots promise and the rate measured
//     as §5.1's dq_rate (drainmeter.go):
//     qdelay = flow backlog × backlogged flows / drain rate. With flow
//     queueing (FQ-PIE) each backlogged flow gets its DRR share of the rate.
//   - The decision is taken for the frame at the head of the flow when the
//     flow is served, not for the arriving frame: a drop or a mark then
//     reaches the sender one queue length earlier (as SFQ's headdrop does),
//     and nothing is dropped that the radio could still have sent.
//   - T_UPDATE runs lazily: the updates due since the last one are run at
//     the next decision, each with the queue delay last computed.
//   - The automatic parameters scale RFC 8033's defaults (QDELAY_REF 15 ms,
//     T_UPDATE 15 ms, MAX_BURST 150 ms, alpha 0.125, beta 1.25) by
//     k = target / 15 ms, where target is the automatic CoDel target of the
//     MS's rate (500 ms .. 2 s): the same controller on a time axis k times
//     longer, as a GPRS round trip is a few hundred milliseconds instead of
//     tens.

// RFC 8033 defaults.
const (
	pieRefTarget   = 15 * time.Millisecond
	pieAlpha       = 0.125 // per second
	pieBeta        = 1.25  // per second
	pieMarkECNTh   = 0.1   // §5.1 mark_ecnth
	pieMeanPktSize = 1500  // octets (§4.1 MEAN_PKTSIZE)
)

// PIEParams are the PIE parameters in force for one MS queue.
type PIEParams struct {
	Target   time.Duration // QDELAY_REF
	TUpdate  time.Duration // T_UPDATE
	MaxBurst time.Duration // MAX_BURST
	Alpha    float64       // per second of queue delay
	Beta     float64
}

// PIEParamsFor resolves the PIE parameters of a queue draining at rate
// octets per second (0 = unknown).
func (c Config) PIEParamsFor(rate int) PIEParams {
	p := PIEParams{Target: c.PIE.Target}
	if p.Target == 0 {
		p.Target = Config{}.ParamsFor(rate).Target // the automatic CoDel target
	}
	k := float64(p.Target) / float64(pieRefTarget)
	p.Alpha, p.Beta = pieAlpha/k, pieBeta/k
	p.TUpdate = c.PIE.TUpdate
	if p.TUpdate == 0 {
		p.TUpdate = p.Target
	}
	switch {
	case c.PIE.MaxBurst < 0:
		p.MaxBurst = 0
	case c.PIE.MaxBurst == 0:
		p.MaxBurst = 10 * p.Target
	default:
		p.MaxBurst = c.PIE.MaxBurst
	}
	return p
}

// pie is the state of one PIE instance (RFC 8033 Appendix A's status
// variables, ending in "_" there).
type pie struct {
	prob      float64       // drop_prob_
	accu      float64       // accu_prob_ (§5.4)
	qdelay    time.Duration // current_qdelay: the estimate of the last decision
	qdelayOld time.Duration // qdelay_old_
	burst     time.Duration // burst_allowance_
	last      time.Duration // time of the last T_UPDATE (valid if started)
	started   bool
}

// PIEState is the visible state of one PIE instance.
type PIEState struct {
	Prob      float64
	QDelay    time.Duration
	QDelayOld time.Duration
	Burst     time.Duration
}

func (p *pie) state() PIEState {
	return PIEState{Prob: p.prob, QDelay: p.qdelay, QDelayOld: p.qdelayOld, Burst: p.burst}
}

// pieScale is calculate_drop_prob()'s auto-tuning (RFC 8033 §4.2): while
// the drop probability is below a bound, the adjustment is divided by that
// bound's divisor (the first bound that holds).
var pieScale = [...]struct{ below, div float64 }{
	{0.000001, 2048}, {0.00001, 512}, {0.0001, 128}, {0.001, 32}, {0.01, 8}, {0.1, 2},
}

// update is calculate_drop_prob() (RFC 8033 §4.2, with §5.5's cap).
func (p *pie) update(pp *PIEParams) {
	q, old := p.qdelay.Seconds(), p.qdelayOld.Seconds()
	d := pp.Alpha*(q-pp.Target.Seconds()) + pp.Beta*(q-old)
	for _, s := range pieScale {
		if p.prob < s.below {
			d /= s.div
			break
		}
	}
	if p.prob >= 0.1 && d > 0.02 {
		d = 0.02
	}
	p.prob += d
	if p.qdelay == 0 && p.qdelayOld == 0 {
		p.prob *= 0.98
	}
	p.prob = min(max(p.prob, 0), 1)
	p.qdelayOld = p.qdelay
	p.burst = max(0, p.burst-pp.TUpdate)
}

// catchUp runs the T_UPDATE periods that ended by now. A state that no
// further update changes but for the burst allowance is skipped in one
// step, so a long idle period costs nothing.
func (p *pie) catchUp(now time.Duration, pp *PIEParams) {
	if !p.started { // activation: a full burst allowance (RFC 8033 Appendix B; Linux pie_vars_init)
		p.started, p.last, p.burst = true, now, pp.MaxBurst
		return
	}
	for n := 0; now-p.last >= pp.TUpdate; n++ {
		if p.prob == 0 && p.qdelayOld == p.qdelay && p.qdelay <= pp.Target || n == 1<<16 {
			k := (now - p.last) / pp.TUpdate
			p.last += k * pp.TUpdate
			p.burst = max(0, p.burst-k*pp.TUpdate)
			if n == 1<<16 { // the limit of one call's work: the state stands
				p.qdelayOld = p.qdelay
			}
			return
		}
		p.last += pp.TUpdate
		p.update(pp)
	}
}

// decide is RFC 8033's enque() decision for the frame at the head of the
// flow: qdelay is the flow's queue delay now, qbytes its backlog, u the
// random numbers. It reports whether the AQM acts on the
// frame (drop, or mark if it can: see markOK).
func (p *pie) decide(now, qdelay time.Duration, qbytes int, pp *PIEParams, u uniformer) bool {
	p.catchUp(now, pp)
	p.qdelay = qdelay
	if p.prob == 0 && qdelay < pp.Target/2 && p.qdelayOld < pp.Target/2 {
		p.burst = pp.MaxBurst
	}
	if p.burst > 0 {
		return false
	}
	// drop_early(): the §4.1 safeguard, then §5.4 derandomization.
	if p.qdelayOld < pp.Target/2 && p.prob < 0.2 || qbytes <= 2*pieMeanPktSize {
		return false
	}
	if p.prob == 0 {
		p.accu = 0
	}
	p.accu += p.prob
	if p.accu < 0.85 {
		return false
	}
	if p.accu < 8.5 && u.uniform() >= p.prob {
		return false
	}
	p.accu = 0
	return true
}

// markOK is §5.1: mark instead of drop only below mark_ecnth.
func (p *pie) markOK() bool { return p.prob < pieMarkECNTh }

// cold reports whether the instance is at rest (no probability, empty
// flow), so the queue may forget it. A forgotten instance starts again with
// a full burst allowance.
func (p *pie) cold(now time.Duration, pp *PIEParams) bool {
	if !p.started {
		return true
	}
	p.catchUp(now, pp)
	return p.prob == 0 && p.qdelay == 0 && p.qdelayOld == 0
}

// uniformer gives uniform random numbers in [0, 1) (Shared; tests feed
// their own).
type uniformer interface{ uniform() float64 }
