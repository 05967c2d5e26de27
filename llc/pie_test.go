package llc

import (
	"math"
	"math/rand/v2"
	"testing"
	"time"
)

// pieRef is RFC 8033's PIE pseudocode, transcribed as literally as Go
// allows: Appendix A's basic PIE (enque, drop_early, calculate_drop_prob)
// with the optional parts gopcu runs, as Appendix B writes them: ECN
// marking below mark_ecnth (§5.1), derandomization with accu_prob_ (§5.4)
// and the cap on a drop probability increase (§5.5). Times are seconds
// (float64) as in the RFC, except the burst allowance, kept in integer
// nanoseconds so that MAX_BURST − n·T_UPDATE reaches exactly 0. It is the
// reference the production code (pie.go) is checked against; it is not
// used by gopcu.
type pieRef struct {
	// Configurable and internal parameters.
	QDELAY_REF    float64
	MAX_BURST     time.Duration
	T_UPDATE      time.Duration
	alpha, beta   float64
	MEAN_PKTSIZE  float64
	mark_ecnth    float64
	ecn_enabled   bool
	random        func() float64
	queue_bytes   func() float64 // queue_.byte_length()
	current_delay func() float64 // the queue delay at a packet's arrival

	// Status variables.
	burst_allowance_ time.Duration
	drop_prob_       float64
	accu_prob_       float64
	qdelay_old_      float64
	current_qdelay   float64
}

// enque is called on each packet arrival; it returns what happened to it.
func (P *pieRef) enque(ecn bool) (drop, mark bool) {
	P.current_qdelay = P.current_delay()
	if P.drop_prob_ == 0 && P.current_qdelay < P.QDELAY_REF/2 && P.qdelay_old_ < P.QDELAY_REF/2 {
		P.burst_allowance_ = P.MAX_BURST
	}
	if P.burst_allowance_ == 0 && P.drop_early() {
		if P.ecn_enabled && ecn && P.drop_prob_ < P.mark_ecnth {
			return false, true // mark(packet); queue_.enque(packet)
		}
		return true, false // drop(packet)
	}
	return false, false // queue_.enque(packet)
}

func (P *pieRef) drop_early() bool {
	// Safeguard PIE to be work conserving.
	if (P.qdelay_old_ < P.QDELAY_REF/2 && P.drop_prob_ < 0.2) || P.queue_bytes() <= 2*P.MEAN_PKTSIZE {
		return false
	}
	if P.drop_prob_ == 0 {
		P.accu_prob_ = 0
	}
	P.accu_prob_ += P.drop_prob_
	if P.accu_prob_ < 0.85 {
		return false
	}
	if P.accu_prob_ >= 8.5 {
		P.accu_prob_ = 0
		return true
	}
	u := P.random()
	if u < P.drop_prob_ {
		P.accu_prob_ = 0
		return true
	}
	return false
}

// calculate_drop_prob runs every T_UPDATE.
func (P *pieRef) calculate_drop_prob() {
	p := P.alpha*(P.current_qdelay-P.QDELAY_REF) + P.beta*(P.current_qdelay-P.qdelay_old_)
	if P.drop_prob_ < 0.000001 {
		p /= 2048
	} else if P.drop_prob_ < 0.00001 {
		p /= 512
	} else if P.drop_prob_ < 0.0001 {
		p /= 128
	} else if P.drop_prob_ < 0.001 {
		p /= 32
	} else if P.drop_prob_ < 0.01 {
		p /= 8
	} else if P.drop_prob_ < 0.1 {
		p /= 2
	}
	// Cap drop adjustment (§5.5).
	if P.drop_prob_ >= 0.1 && p > 0.02 {
		p = 0.02
	}
	P.drop_prob_ += p
	// Exponentially decay drop prob when congestion goes away.
	if P.current_qdelay == 0 && P.qdelay_old_ == 0 {
		P.drop_prob_ *= 0.98
	}
	if P.drop_prob_ < 0 {
		P.drop_prob_ = 0
	}
	if P.drop_prob_ > 1 {
		P.drop_prob_ = 1
	}
	P.qdelay_old_ = P.current_qdelay
	P.burst_allowance_ = max(0, P.burst_allowance_-P.T_UPDATE)
}

type seqRand struct{ r *rand.Rand }

func (s seqRand) uniform() float64 { return s.r.Float64() }

// TestPIEMatchesRFC8033 runs one queue trace through pie.decide and through
// the RFC's pseudocode in lock step: a flow draining 6 000 octets/s
// (CS-3 × 4 slots) is fed at 1.05× that rate for 60 s, then idles
// for 20 s, then is fed at 3× for 20 s; every second packet is
// ECN-capable. Every decision (enqueue, drop,
// mark) and the drop probability after every T_UPDATE agree, and the trace
// exercises every branch: burst allowance, the safeguard, the small-p
// scaling, the 0.02 cap, marks below 10 % and drops above, decay.
func TestPIEMatchesRFC8033(t *testing.T) {
	const rate = 6000 // octets/s
	pp := Config{}.PIEParamsFor(rate)
	if pp.Target != 500*time.Millisecond || pp.TUpdate != pp.Target || pp.MaxBurst != 5*time.Second {
		t.Fatalf("automatic PIE parameters at %d octets/s: %+v", rate, pp)
	}
	const step = 20 * time.Millisecond // one radio block
	var backlog float64
	delay := func() float64 { return (time.Duration(backlog * float64(time.Second) / rate)).Seconds() }
	ref := &pieRef{QDELAY_REF: pp.Target.Seconds(), MAX_BURST: pp.MaxBurst, T_UPDATE: pp.TUpdate,
		alpha: pp.Alpha, beta: pp.Beta, MEAN_PKTSIZE: 1500, mark_ecnth: 0.1, ecn_enabled: true,
		random: rand.New(rand.NewPCG(7, 8)).Float64, queue_bytes: func() float64 { return backlog }, current_delay: delay,
		burst_allowance_: pp.MaxBurst} // PIE activates with a full burst allowance (Appendix B)
	var st pie
	u := seqRand{rand.New(rand.NewPCG(7, 8))}
	var lastUpdate time.Duration
	var drops, marks, capped, highP, burstHeld, pkts int
	credit := 1000.0 // a packet at 0: both timers start then
	for now := time.Duration(0); now < 100*time.Second; now += step {
		for ; lastUpdate+pp.TUpdate <= now; lastUpdate += pp.TUpdate {
			before := ref.drop_prob_
			ref.calculate_drop_prob()
			if before >= 0.1 && ref.drop_prob_-before > 0.0199 {
				capped++
			}
		}
		// Arrivals: 1 000-octet packets, alternately ECN-capable.
		var in float64
		switch {
		case now < 60*time.Second:
			in = 1.05 * rate * step.Seconds()
		case now >= 80*time.Second:
			in = 3 * rate * step.Seconds()
		}
		credit += in
		for ; credit >= 1000; credit -= 1000 {
			pkts++
			ecn := pkts%2 == 0
			wantDrop, wantMark := ref.enque(ecn)
			hit := st.decide(now, time.Duration(backlog*float64(time.Second)/rate), int(backlog), &pp, u)
			gotDrop, gotMark := hit && !(ecn && st.markOK()), hit && ecn && st.markOK()
			if gotDrop != wantDrop || gotMark != wantMark {
				t.Fatalf("%v: drop/mark %v/%v, RFC 8033 %v/%v (p %.6f / %.6f)", now, gotDrop, gotMark, wantDrop, wantMark, st.prob, ref.drop_prob_)
			}
			if math.Abs(st.prob-ref.drop_prob_) > 1e-12 || st.burst != ref.burst_allowance_ {
				t.Fatalf("%v: p %.9f burst %v, RFC 8033 %.9f %v", now, st.prob, st.burst, ref.drop_prob_, ref.burst_allowance_)
			}
			if st.burst > 0 && st.prob > 0 {
				burstHeld++
			}
			if st.prob >= 0.1 {
				highP++
			}
			switch {
			case wantDrop:
				drops++
			case wantMark:
				marks++
				backlog += 1000
			default:
				backlog += 1000
			}
		}
		backlog = max(0, backlog-rate*step.Seconds())
	}
	t.Logf("drops %d, marks %d, capped updates %d, decisions at p ≥ 0.1: %d, held by the burst allowance: %d, final p %.4f",
		drops, marks, capped, highP, burstHeld, st.prob)
	if drops == 0 || marks == 0 || capped == 0 || highP == 0 || burstHeld == 0 {
		t.Error("the trace did not exercise every branch")
	}
}

// TestPIECatchUpSkipsIdle: a long idle period costs a fixed amount of work
// and leaves the same state as running every update.
func TestPIECatchUpSkipsIdle(t *testing.T) {
	pp := Config{}.PIEParamsFor(6000)
	a, b := pie{prob: 0.3, qdelay: 0, qdelayOld: 0, started: true}, pie{prob: 0.3, started: true}
	a.catchUp(time.Hour, &pp)
	for b.last+pp.TUpdate <= time.Hour {
		b.last += pp.TUpdate
		b.update(&pp)
	}
	if a != b {
		t.Errorf("skipped %+v, stepped %+v", a, b)
	}
	if a.prob != 0 {
		t.Errorf("p %v after an hour of empty queue", a.prob)
	}
}
