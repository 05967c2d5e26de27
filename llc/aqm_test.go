package llc

import (
	"encoding/binary"
	"testing"
	"time"
)

// runBulk feeds one TCP flow of 500-octet frames at 1.5× the drain rate
// of one frame per 20 ms for dur and returns the counters, the frames
// delivered and the times of the AQM's first drop or mark. ect makes the
// frames ECN-capable; every delivered frame is checked for a valid FCS.
func runBulk(t *testing.T, cfg Config, ect bool, dur time.Duration) (c Counters, delivered int, first time.Duration, maxSojourn time.Duration) {
	return runSource(t, cfg, ect, false, dur)
}

// runSource is runBulk; with aimd the source reacts as a TCP sender in
// congestion avoidance: it starts at 1.5× the drain rate, adds 0.1× per
// second and halves on a drop or mark, at most once per 500 ms (its
// round trip without queue).
func runSource(t *testing.T, cfg Config, ect, aimd bool, dur time.Duration) (c Counters, delivered int, first time.Duration, maxSojourn time.Duration) {
	t.Helper()
	s := mustShared(t, cfg)
	s.Seed(1, 1)
	q := s.NewQueue(nil)
	q.SetDrainRate(25000) // 500 octets per 20 ms
	first = -1
	credit, rate := 0.0, 1.5
	lastCut := time.Duration(-time.Hour)
	for now := time.Duration(0); now < dur; now += 20 * time.Millisecond {
		if aimd {
			rate += 0.002
		}
		for credit += rate; credit >= 1; credit-- {
			var f []byte
			if ect {
				f = ectFrame(1000, 500)
			} else {
				f = ipFrame(6, 1000, 80, 500)
			}
			if err := q.Enqueue(now, f, LifetimeInfinite); err != nil {
				t.Fatal(err)
			}
		}
		fr, ok, d := q.Dequeue(now)
		if first < 0 && (d.CoDel > 0 || d.Marked > 0) {
			first = now
		}
		if aimd && d.Frames+d.Marked > 0 && now-lastCut >= 500*time.Millisecond {
			rate, lastCut = rate/2, now
		}
		if ok {
			delivered++
			if now >= dur/2 { // the second half: past the start-up transient
				maxSojourn = max(maxSojourn, fr.Sojourn)
			}
			if ect && !fcsOK(fr.Data) {
				t.Fatalf("%v: delivered frame with a bad FCS", now)
			}
			if d.Marked > 0 && fr.Data[8]&3 != 3 {
				t.Fatalf("%v: mark counted, frame not CE", now)
			}
		}
	}
	return s.Counters(), delivered, first, maxSojourn
}

// TestCoDelMarksInsteadOfDrops: with ECN-capable frames CoDel marks at the
// moment it would have dropped (RFC 8289 §5.4), and never drops one; with
// `no queue ecn` the same traffic is dropped; Not-ECT frames are dropped
// and counted as such.
func TestCoDelMarksInsteadOfDrops(t *testing.T) {
	cfg := Config{CoDel: true, Interval: 100 * time.Millisecond, Target: 5 * time.Millisecond}
	mc, _, firstMark, _ := runBulk(t, cfg, true, 10*time.Second)
	off := cfg
	off.NoECN = true
	dc, _, firstDrop, _ := runBulk(t, off, true, 10*time.Second)
	nc, _, _, _ := runBulk(t, cfg, false, 10*time.Second)
	switch {
	case mc.CoDel != 0 || mc.Marked == 0:
		t.Errorf("ECN on: %d drops, %d marks", mc.CoDel, mc.Marked)
	case dc.Marked != 0 || dc.CoDel == 0 || dc.NoMark != [NumNoMark]uint64{}:
		t.Errorf("ECN off: %d marks, %d drops, no-mark reasons %v (counted only with ECN on)", dc.Marked, dc.CoDel, dc.NoMark)
	case firstMark != firstDrop:
		t.Errorf("first mark at %v, first drop (ECN off) at %v", firstMark, firstDrop)
	case nc.Marked != 0 || nc.CoDel == 0 || nc.NoMark[NoMarkNotECT-1] != nc.CoDel:
		t.Errorf("Not-ECT: %d marks, %d drops, no-mark %v", nc.Marked, nc.CoDel, nc.NoMark)
	}
	if firstMark <= 100*time.Millisecond {
		t.Errorf("first mark at %v, before one interval", firstMark)
	}
}

// TestAQMsHoldTheQueue: against a TCP-like sender (runSource) every AQM
// keeps the sojourn bounded, each alone and inside the flow queues, while
// the queue without AQM grows to the memory limit (9 s). The sojourn is
// the maximum over the second half of each run; the bound (4 s) is a
// sanity bound for this crude sender, not a performance figure (those are
// in docs/bufferbloat.md, measured with Linux TCP).
func TestAQMsHoldTheQueue(t *testing.T) {
	_, _, _, none := runSource(t, Config{}, false, true, 60*time.Second)
	if none < 5*time.Second { // only the per-MS memory limit (464 frames) stops it
		t.Fatalf("no AQM: max sojourn %v", none)
	}
	for _, c := range []struct {
		name  string
		cfg   Config
		bound time.Duration
	}{
		{"fq-codel", Config{CoDel: true}, 4 * time.Second},
		{"codel", Config{CoDel: true, NoFQ: true}, 4 * time.Second},
		{"fq-pie", Config{CoDel: true, AQM: AQMPIE}, 4 * time.Second},
		{"pie", Config{CoDel: true, AQM: AQMPIE, NoFQ: true}, 4 * time.Second},
		{"sfq-red", Config{CoDel: true, AQM: AQMRED}, 4 * time.Second},
		{"red", Config{CoDel: true, AQM: AQMRED, NoFQ: true}, 4 * time.Second},
	} {
		cnt, _, first, worst := runSource(t, c.cfg, false, true, 60*time.Second)
		t.Logf("%s: drops %d, first at %v, max sojourn %v", c.name, cnt.CoDel, first, worst)
		if cnt.CoDel == 0 || worst > c.bound {
			t.Errorf("%s: %d drops, max sojourn %v (bound %v; without AQM %v)", c.name, cnt.CoDel, worst, c.bound, none)
		}
	}
}

// TestAQMsMarkECT: PIE marks while its probability is below 10 % and RED
// marks at any probability; the marks are counted, the drops split by
// reason.
func TestAQMsMarkECT(t *testing.T) {
	for _, aqm := range []AQM{AQMPIE, AQMRED} {
		c, _, _, _ := runBulk(t, Config{CoDel: true, AQM: aqm}, true, 20*time.Second)
		if c.Marked == 0 {
			t.Errorf("%v: no marks", aqm)
		}
		var nm uint64
		for _, n := range c.NoMark {
			nm += n
		}
		if nm != c.CoDel {
			t.Errorf("%v: %d AQM drops, %d by reason", aqm, c.CoDel, nm)
		}
		if aqm == AQMRED && c.CoDel != 0 {
			t.Errorf("RED dropped %d ECN-capable frames", c.CoDel)
		}
		if aqm == AQMPIE && c.CoDel != c.NoMark[NoMarkPolicy-1] {
			t.Errorf("PIE: drops %d, of them at p ≥ 10 %%: %d", c.CoDel, c.NoMark[NoMarkPolicy-1])
		}
		t.Logf("%v: marks %d, drops %d %v", aqm, c.Marked, c.CoDel, c.NoMark)
	}
}

// TestPingNotBehindBulkEveryAQM: flow isolation holds under FQ-PIE and
// SFQ-RED as under FQ-CoDel.
func TestPingNotBehindBulkEveryAQM(t *testing.T) {
	for _, aqm := range []AQM{AQMCoDel, AQMPIE, AQMRED} {
		s := mustShared(t, Config{CoDel: true, AQM: aqm})
		q := s.NewQueue(nil)
		for i := 0; i < 20; i++ {
			q.Enqueue(0, ipFrame(6, 80, 40000, 1400), LifetimeInfinite)
		}
		q.Dequeue(time.Millisecond)
		q.Enqueue(2*time.Millisecond, ipFrame(1, 7, 0, 84), LifetimeInfinite)
		pos := -1
		for i := 0; q.Len() > 0; i++ {
			fr, _, _ := q.Dequeue(3 * time.Millisecond)
			if len(fr.Data) == 84 {
				pos = i
			}
		}
		if pos < 0 || pos > 1 {
			t.Errorf("%v: ping at position %d", aqm, pos)
		}
	}
}

// TestAQMSwitchKeepsFrames: changing the AQM or the flow layout at run
// time keeps every queued frame and its order within the flow.
func TestAQMSwitchKeepsFrames(t *testing.T) {
	s := mustShared(t, Config{CoDel: true})
	q := s.NewQueue(nil)
	for i := 0; i < 30; i++ {
		q.Enqueue(0, ipFrame(6, uint16(1000+i%3), 80, 100+i), LifetimeInfinite)
	}
	n := 0
	take := func(now time.Duration) {
		if _, ok, d := q.Dequeue(now); !ok || d.Frames != 0 {
			t.Fatalf("%v: delivered %v, dropped %d", now, ok, d.Frames)
		}
		n++
	}
	take(time.Millisecond)
	for _, cfg := range []Config{{CoDel: true, AQM: AQMPIE}, {CoDel: true, AQM: AQMRED, NoFQ: true}, {CoDel: true}} {
		if err := s.Apply(cfg); err != nil {
			t.Fatal(err)
		}
		take(2 * time.Millisecond)
	}
	last := map[uint16]int{}
	for q.Len() > 0 {
		fr, _, d := q.Dequeue(3 * time.Millisecond)
		if d.Frames != 0 {
			t.Fatalf("dropped %d", d.Frames)
		}
		port := uint16(fr.Data[27])<<8 | uint16(fr.Data[28])
		if len(fr.Data) <= last[port] {
			t.Fatalf("flow %d out of order", port)
		}
		last[port] = len(fr.Data)
		n++
	}
	if n != 30 {
		t.Errorf("%d frames came out", n)
	}
}

func TestAQMConfigValidate(t *testing.T) {
	for _, c := range []Config{
		{AQM: AQMRED + 1},
		{CoDel: true, AQM: AQMPIE, Variant: VariantOsmo},
		{CoDel: true, AQM: AQMRED, Variant: VariantOsmo},
		{RED: REDConfig{Min: 9000, Max: 3000}},
		{RED: REDConfig{MaxP: 101}},
		{RED: REDConfig{Wlog: 11}},
		{PIE: PIEConfig{Target: -1}},
		{PIE: PIEConfig{TUpdate: 11 * time.Second}},
	} {
		if c.Validate() == nil {
			t.Errorf("%+v accepted", c)
		}
	}
	c := Config{AQM: AQMCoDel, NoECN: true, NoFQ: true, PIE: PIEConfig{Target: 300 * time.Millisecond, MaxBurst: -1},
		RED: REDConfig{Min: 4000, Max: 12000, MaxP: 20, Wlog: 3}}
	if err := c.Validate(); err != nil {
		t.Fatal(err)
	}
	want := []string{" queue aqm codel", " no queue ecn", " no queue fq", " queue pie target 300", " queue pie max-burst 0",
		" queue red min 4000", " queue red max 12000", " queue red probability 20", " queue red ewma 3"}
	got := c.VTYExtLines()
	if len(got) != len(want) {
		t.Fatalf("%q", got)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("line %d: %q, want %q", i, got[i], want[i])
		}
	}
}

// TestParamsECNFor: ECN-capable frames get target = one MTU-time (≥ 150
// ms), interval = 2.5 targets (≥ 500 ms), never above the automatic
// values; set values and the osmo variant apply to them unchanged.
func TestParamsECNFor(t *testing.T) {
	for _, c := range []struct {
		rate       int
		target, iv time.Duration
	}{
		{6000, 250 * time.Millisecond, 625 * time.Millisecond},   // CS-2 x 4: MTU-time 250 ms
		{10000, 150 * time.Millisecond, 500 * time.Millisecond},  // CS-4 x 4: 150 ms
		{29600, 150 * time.Millisecond, 500 * time.Millisecond},  // MCS-9 x 4: floors
		{2000, 750 * time.Millisecond, 1875 * time.Millisecond},  // CS-1 x 2: 750 ms
		{1000, 1500 * time.Millisecond, 3750 * time.Millisecond}, // CS-1 x 1: 1.5 s
	} {
		p := Config{CoDel: true}.ParamsECNFor(c.rate)
		auto := Config{CoDel: true}.ParamsFor(c.rate)
		if p.Target != c.target || p.Interval != c.iv || p.Target > auto.Target || p.Interval > auto.Interval {
			t.Errorf("rate %d: %+v, want target %v interval %v (automatic %+v)", c.rate, p, c.target, c.iv, auto)
		}
	}
	for _, cfg := range []Config{{Interval: time.Second}, {Target: 100 * time.Millisecond}, {Variant: VariantOsmo}} {
		if cfg.ParamsECNFor(6000) != cfg.ParamsFor(6000) {
			t.Errorf("%+v: ECN parameters differ from the set ones", cfg)
		}
	}
}

// segmentedNPDU is N-PDU npdu, a 1500-octet IP packet (ECN-capable with
// ect, else Not-ECT) cut into three SNDCP segments as osmo-sgsn sends it
// with N201-U = 500: the first with the IP header (M: more segments
// follow), then two later ones.
func segmentedNPDU(npdu uint16, ect bool) [][]byte {
	f := ectFrame(1000, 500)
	if !ect {
		f[8] = 0
		binary.BigEndian.PutUint16(f[17:], 0)
		binary.BigEndian.PutUint16(f[17:], ipv4Sum(f[7:27]))
	}
	f[3] |= 0x10 // M
	f[5], f[6] = byte(npdu>>8)&0x0f, byte(npdu)
	putFCS(f)
	return [][]byte{f, segment(npdu, 1, true, 500), segment(npdu, 2, false, 500)}
}

// segmentedFlow is a queue of s draining 25 000 octets/s and the flow's
// sender: each call enqueues the next N-PDU's segments (segmentedNPDU,
// N-PDU 1 first) at now, all of them even when one fails; it returns the
// first error.
func segmentedFlow(s *Shared, ect bool) (*Queue, func(now time.Duration) error) {
	q := s.NewQueue(nil)
	q.SetDrainRate(25000)
	npdu := uint16(0)
	return q, func(now time.Duration) error {
		npdu++
		var first error
		for _, fr := range segmentedNPDU(npdu, ect) {
			if err := q.Enqueue(now, fr, LifetimeInfinite); err != nil && first == nil {
				first = err
			}
		}
		return first
	}
}

// TestCoDelMarksSegmentedECT: a TCP flow of ECN-capable 1500-octet IP
// packets, each cut into a first SNDCP segment (with the IP header) and
// two later segments, as osmo-sgsn sends them with N201-U = 500: CoDel's
// decisions that fall on a later segment mark the next N-PDU's first
// segment instead, so no frame is dropped (in the real network three
// decisions in four fell on later segments and were drops).
func TestCoDelMarksSegmentedECT(t *testing.T) {
	s := mustShared(t, Config{CoDel: true, Interval: 100 * time.Millisecond, Target: 5 * time.Millisecond})
	q, next := segmentedFlow(s, true)
	enq := func(now time.Duration) {
		if err := next(now); err != nil {
			t.Fatal(err)
		}
	}
	marks, onLater := 0, 0
	for now := time.Duration(0); now < 20*time.Second; now += 20 * time.Millisecond {
		if now%(40*time.Millisecond) == 0 { // 3 frames per 40 ms against 1 per 20 ms
			enq(now)
		}
		fr, ok, d := q.Dequeue(now)
		if d.CoDel != 0 { // (the memory limit may drop: the source ignores the marks)
			t.Fatalf("%v: %d frames dropped by CoDel (%+v)", now, d.CoDel, d)
		}
		marks += d.Marked
		if ok && d.Marked > 0 {
			if _, _, first, _, _ := sndcpSegment(fr.Data); !first {
				onLater++ // the decision fell on a later segment: the mark went ahead
			}
		}
	}
	c := s.Counters()
	if marks == 0 || c.CoDel != 0 || onLater == 0 {
		t.Fatalf("%d marks (%d from later segments), %d AQM drops, no-mark %v", marks, onLater, c.CoDel, c.NoMark)
	}
	t.Logf("%d marks, %d of them decided on a later segment", marks, onLater)
}

// TestECNParamsSegmentedFlow: a standing queue of 300 ms in an ECN-capable
// flow of segmented 1500-octet packets (drain rate 25 000 octets/s:
// automatic CoDel target 500 ms, ECN target 150 ms) is marked: the ECN
// parameters follow the flow, later segments included; the same queue of
// Not-ECT packets stays below the automatic target and is not dropped.
func TestECNParamsSegmentedFlow(t *testing.T) {
	for _, ect := range []bool{true, false} {
		s := mustShared(t, Config{CoDel: true})
		q, enq := segmentedFlow(s, ect)
		for k := 0; k < 5; k++ { // 15 frames: 300 ms at one frame per 20 ms
			enq(0)
		}
		for now := time.Duration(0); now < 20*time.Second; now += 20 * time.Millisecond {
			if now%(60*time.Millisecond) == 0 {
				enq(now)
			}
			q.Dequeue(now)
		}
		c := s.Counters()
		switch {
		case ect && (c.Marked == 0 || c.CoDel != 0):
			t.Errorf("ECN-capable: %d marks, %d drops", c.Marked, c.CoDel)
		case !ect && (c.Marked != 0 || c.CoDel != 0):
			t.Errorf("Not-ECT: %d marks, %d drops (sojourn below the automatic target)", c.Marked, c.CoDel)
		}
		t.Logf("ECT %v: %d marks, %d drops", ect, c.Marked, c.CoDel)
	}
}
