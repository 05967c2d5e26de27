package llc

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"
	"time"
)

// TestREDProbability: at fixed average backlogs the per-frame probability
// is Floyd and Jacobson's p_b = max_p·(avg − min)/(max − min), 0 below min
// and 1 from max on; the gaps between hits are uniform over 1 .. 1/p_b
// frames (their mean (1/p_b + 1)/2, every gap within range), so the hit
// rate is 2·p_b/(1 + p_b).
func TestREDProbability(t *testing.T) {
	rp := REDParams{Min: 3000, Max: 9000, MaxP: 0.1, Wlog: 2}
	u := seqRand{rand.New(rand.NewPCG(3, 4))}
	for _, c := range []struct {
		avg    float64
		pb     float64
		always bool
	}{
		{0, 0, false}, {2999, 0, false}, {3000, 0, false}, {4500, 0.025, false}, {6000, 0.05, false},
		{8400, 0.09, false}, {8999, 0.1 * 5999 / 6000, false}, {9000, 1, true}, {20000, 1, true},
	} {
		r := red{avg: c.avg, count: -1}
		if got := r.prob(&rp); math.Abs(got-c.pb) > 1e-12 {
			t.Errorf("avg %v: p_b %v, want %v", c.avg, got, c.pb)
		}
		const n = 200000
		hits, gaps, last, maxGap := 0, 0, 0, 0
		for i := 1; i <= n; i++ {
			if r.decide(&rp, u) {
				hits++
				if last > 0 {
					gaps++
					maxGap = max(maxGap, i-last)
				}
				last = i
			}
		}
		switch {
		case c.pb == 0:
			if hits != 0 {
				t.Errorf("avg %v below min: %d hits", c.avg, hits)
			}
		case c.always:
			if hits != n {
				t.Errorf("avg %v at max: %d of %d hit", c.avg, hits, n)
			}
		default:
			want := 2 * c.pb / (1 + c.pb)
			got := float64(hits) / n
			// 200 000 frames: the hit rate is within 3 % of the formula.
			if math.Abs(got-want)/want > 0.03 {
				t.Errorf("avg %v: hit rate %.5f, want %.5f (p_b %.4f)", c.avg, got, want, c.pb)
			}
			if limit := int(math.Ceil(1 / c.pb)); maxGap > limit {
				t.Errorf("avg %v: a gap of %d frames, p_b %.4f allows at most %d", c.avg, maxGap, c.pb, limit)
			}
		}
	}
}

// TestREDAverage: the average follows avg += (backlog − avg)·2^−Wlog per
// arrival, with the backlog before the arrival.
func TestREDAverage(t *testing.T) {
	rp := REDParams{Min: 3000, Max: 9000, MaxP: 0.1, Wlog: 2}
	var r red
	r.reset()
	want := 0.0
	for _, b := range []int{0, 1000, 2000, 3000, 8000, 8000, 0} {
		r.arrive(b, &rp)
		want += (float64(b) - want) / 4
		if r.avg != want {
			t.Fatalf("backlog %d: avg %v, want %v", b, r.avg, want)
		}
	}
}

func TestREDParamsFor(t *testing.T) {
	for _, c := range []struct {
		cfg      REDConfig
		rate     int
		min, max int
		maxP     float64
		wlog     uint8
	}{
		{REDConfig{}, 12000, 4500, 13500, 0.1, 2},  // 500 ms of MCS-2 x 4 (30 octets) less one MTU
		{REDConfig{}, 1000, 3086, 9258, 0.1, 2},    // CS-1 x 1: two maximum frames
		{REDConfig{}, 9000, 3086, 9258, 0.1, 2},    // 4500 less one MTU: under two maximum frames
		{REDConfig{}, 29600, 13300, 39900, 0.1, 2}, // MCS-9 x 4: 500 ms less one MTU
		{REDConfig{Min: 5000, Max: 20000, MaxP: 20, Wlog: 4}, 6000, 5000, 20000, 0.2, 4},
	} {
		p := Config{RED: c.cfg}.REDParamsFor(c.rate)
		if p.Min != c.min || p.Max != c.max || p.MaxP != c.maxP || p.Wlog != c.wlog {
			t.Errorf("%+v at %d octets/s: %+v", c.cfg, c.rate, p)
		}
	}
}

// TestREDParamsECNFor: ECN-capable frames get min = the backlog drained in
// ParamsECNFor's target (one MTU-time, at least 150 ms), at least two
// maximum frames; set thresholds apply to them unchanged.
func TestREDParamsECNFor(t *testing.T) {
	for _, c := range []struct {
		cfg      REDConfig
		rate     int
		min, max int
	}{
		{REDConfig{}, 10000, 3086, 9258},  // CS-4 x 4: 150 ms is 1500 octets, under two frames
		{REDConfig{}, 29600, 4440, 13320}, // MCS-9 x 4: 150 ms (REDParamsFor: 14800)
		{REDConfig{}, 1000, 3086, 9258},   // CS-1 x 1: MTU-time 1.5 s, capped at the CoDel target
		{REDConfig{Min: 5000}, 29600, 5000, 15000},
		{REDConfig{Max: 20000}, 29600, 13300, 20000},
	} {
		p := Config{RED: c.cfg}.REDParamsECNFor(c.rate)
		if p.Min != c.min || p.Max != c.max || p.MaxP != 0.1 || p.Wlog != 2 {
			t.Errorf("%+v at %d octets/s: %+v", c.cfg, c.rate, p)
		}
	}
}

// TestREDFollowsTheDrain: after a burst and no more arrivals, RED's
// average follows the backlog down as the flow drains (sampled at each
// departure), so no frame is dropped once the backlog is below min.
func TestREDFollowsTheDrain(t *testing.T) {
	s := mustShared(t, Config{CoDel: true, AQM: AQMRED})
	s.Seed(5, 6)
	q := s.NewQueue(nil)
	q.SetDrainRate(25000) // min 12 500 octets, max 37 500
	rp := Config{}.REDParamsFor(25000)
	for i := 0; i < 80; i++ {
		q.Enqueue(0, ipFrame(6, 1000, 80, 500), LifetimeInfinite)
	}
	drops := 0
	for q.Len() > 0 {
		before := q.Octets()
		_, _, d := q.Dequeue(time.Second)
		if d.CoDel > 0 {
			drops += d.CoDel
			if before < rp.Min {
				t.Fatalf("a drop with %d octets queued, below min %d", before, rp.Min)
			}
		}
	}
	if drops == 0 || drops >= 40 {
		t.Fatalf("%d of 80 frames dropped draining a 40 000-octet burst (min %d, max %d)", drops, rp.Min, rp.Max)
	}
	t.Logf("%d of 80 dropped", drops)
}

// TestREDMarksECNFlowEarlier: at MCS-9 x 4 (29 600 octets/s) a backlog of
// 13 kB is below RED's min for frames that are not ECN-capable (14 800
// octets: nothing dropped) and above the ECN-capable frames' min (4 440
// octets: marked).
func TestREDMarksECNFlowEarlier(t *testing.T) {
	for _, ecn := range []byte{0, 2} {
		s := mustShared(t, Config{CoDel: true, AQM: AQMRED})
		q := s.NewQueue(nil)
		q.SetDrainRate(29600)
		for i := 0; i < 26; i++ {
			if err := q.Enqueue(0, tcpBenchFrame(uint16(i), ecn, 500), LifetimeInfinite); err != nil {
				t.Fatal(err)
			}
		}
		marks, drops := 0, 0
		for now := time.Duration(0); q.Len() > 0; now += 20 * time.Millisecond {
			_, _, d := q.Dequeue(now)
			marks += d.Marked
			drops += d.CoDel
		}
		switch {
		case drops != 0:
			t.Errorf("ECN field %d: %d frames dropped", ecn, drops)
		case ecn == 0 && marks != 0:
			t.Errorf("not ECN-capable: %d marks", marks)
		case ecn != 0 && marks == 0:
			t.Errorf("ECN-capable: no mark above the ECN min")
		}
	}
}

// TestREDParamsShared: with n MSs with data on the same PDCHs the
// automatic min is rate·target/√n, at least 2·MaxFrameLen/n and one
// MaxFrameLen (max stays 3 min); set thresholds do not change with n; n ≤ 1
// is REDParamsFor.
func TestREDParamsShared(t *testing.T) {
	for _, c := range []struct {
		cfg      REDConfig
		rate, n  int
		min, max int
		ecnMin   int
	}{
		{REDConfig{}, 12000, 1, 4500, 13500, 3086}, // alone: REDParamsFor
		{REDConfig{}, 12000, 0, 4500, 13500, 3086}, // 0 counts as alone
		{REDConfig{}, 12000, 2, 4242, 12726, 1543}, // 6000/√2; ECN: 1800/√2 → one frame
		{REDConfig{}, 12000, 4, 3000, 9000, 1543},  // 6000/2
		{REDConfig{}, 4500, 2, 1590, 4770, 1543},   // 2250/√2 over one frame (1543)
		{REDConfig{}, 3000, 2, 1590, 4770, 1543},   // target 750 ms (1.5 MTU-times): 2250/√2; ECN 1500/√2 → one frame
		{REDConfig{}, 1000, 3, 1543, 4629, 1543},   // target 2 s: 2000/√3, 2·1543/3: one frame
		{REDConfig{Min: 5000}, 12000, 2, 5000, 15000, 5000},
		{REDConfig{Max: 20000}, 12000, 2, 4242, 20000, 4242},
	} {
		cfg := Config{RED: c.cfg}
		p := cfg.REDParamsShared(c.rate, c.n)
		if p.Min != c.min || p.Max != c.max || p.MaxP != 0.1 || p.Wlog != 2 {
			t.Errorf("%+v at %d octets/s, %d MSs: %+v, want min %d max %d", c.cfg, c.rate, c.n, p, c.min, c.max)
		}
		if c.n <= 1 && p != cfg.REDParamsFor(c.rate) {
			t.Errorf("n %d: %+v, REDParamsFor %+v", c.n, p, cfg.REDParamsFor(c.rate))
		}
		if pe := cfg.REDParamsECNShared(c.rate, c.n); pe.Min != c.ecnMin {
			t.Errorf("ECN %+v at %d octets/s, %d MSs: min %d, want %d", c.cfg, c.rate, c.n, pe.Min, c.ecnMin)
		}
	}
}

// TestQueueSharers: SetSharers changes the RED thresholds the queue uses
// and shows, and StopTransmit forgets it.
func TestQueueSharers(t *testing.T) {
	s := mustShared(t, Config{CoDel: true, AQM: AQMRED})
	q := s.NewQueue(nil)
	q.SetDrainRate(12000)
	for i := 0; i < 3; i++ {
		q.Enqueue(0, ipFrame(6, 1000, 80, 500), LifetimeInfinite)
	}
	if st := q.Stats(0); st.Sharers != 1 || st.RED.Min != 4500 {
		t.Fatalf("alone: sharers %d, RED %+v", st.Sharers, st.RED)
	}
	q.SetSharers(2)
	q.Dequeue(0)
	if st := q.Stats(0); st.Sharers != 2 || st.RED.Min != 4242 || q.a.redP.Min != 4242 {
		t.Fatalf("shared by 2: sharers %d, RED %+v, in use %+v", st.Sharers, st.RED, q.a.redP)
	}
	if l := q.Stats(0).Lines(0); !strings.Contains(strings.Join(l, "\n"), "PDCHs shared by 2 MSs with data") {
		t.Fatalf("show llc-queue: %q", l)
	}
	q.StopTransmit()
	if st := q.Stats(0); st.Sharers != 1 || st.RED.Min != 4500 {
		t.Fatalf("after StopTransmit: sharers %d, RED %+v", st.Sharers, st.RED)
	}
}
