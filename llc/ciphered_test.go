package llc

import (
	"testing"
	"time"
)

// cFrame is a ciphered LLC UI frame (SAPI 3, E bit set) of n octets with
// N-PDU number npdu and segment seg written into its (opaque) payload for
// the test to read back.
func cFrame(npdu, seg, n int) []byte {
	b := make([]byte, n)
	b[0], b[1], b[2] = 0x03, 0xc0, 0x02
	b[3], b[4], b[5] = byte(npdu>>8), byte(npdu), byte(seg)
	return b
}

// cNPDU returns the ciphered frames of one N-PDU of size octets in
// SN-UNITDATA PDUs of at most N201-U = 500 octets (a first segment's header
// is 4 octets, a later one's 3: TS 44.065 §7.2), as osmo-sgsn segments it:
// frames of 3 + 500 + 3 = 506 octets, the last one shorter.
func cNPDU(npdu, size int) [][]byte {
	var fs [][]byte
	for seg := 0; size > 0; seg++ {
		hdr := 3
		if seg == 0 {
			hdr = 4
		}
		k := min(size, 500-hdr)
		fs = append(fs, cFrame(npdu, seg, 3+hdr+k+3))
		size -= k
	}
	return fs
}

type delivered struct{ npdu, seg, n int }

func drain(q *Queue, now time.Duration) (out []delivered, d Discard) {
	for q.Len() > 0 {
		fr, ok, dd := q.Dequeue(now)
		d.Frames += dd.Frames
		if ok {
			out = append(out, delivered{int(fr.Data[3])<<8 | int(fr.Data[4]), int(fr.Data[5]), len(fr.Data)})
		}
	}
	return out, d
}

// checkWhole fails if a frame of another N-PDU comes between two segments
// of one N-PDU, or if an N-PDU's segments leave out of order.
func checkWhole(t *testing.T, out []delivered) {
	t.Helper()
	for i := 1; i < len(out); i++ {
		p, c := out[i-1], out[i]
		if p.n == 506 && (c.npdu != p.npdu || c.seg != p.seg+1) {
			t.Fatalf("frame %d: N-PDU %d segment %d follows unfinished N-PDU %d segment %d", i, c.npdu, c.seg, p.npdu, p.seg)
		}
	}
}

// TestCipheredPingOvertakes: a ciphered ping (a short frame after an N-PDU
// end) leaves ahead of the ciphered download queued before it, at an
// N-PDU boundary; a ping that would overtake too many frames (the N(U)
// window) keeps its place.
func TestCipheredPingOvertakes(t *testing.T) {
	s := mustShared(t, Config{})
	q := s.NewQueue(nil)
	for npdu := 1; npdu <= 4; npdu++ { // 4 × 1500 octets: 4 frames each (506, 506, 506, 19)
		for _, f := range cNPDU(npdu, 1500) {
			q.Enqueue(0, f, LifetimeInfinite)
		}
	}
	q.Dequeue(time.Millisecond) // the download is being sent: N-PDU 1 segment 0
	q.Enqueue(2*time.Millisecond, cFrame(100, 0, 94), LifetimeInfinite)
	out, _ := drain(q, 3*time.Millisecond)
	checkWhole(t, append([]delivered{{1, 0, 506}}, out...))
	if len(out) != 16 {
		t.Fatalf("%d frames", len(out))
	}
	pos := -1
	for i, o := range out {
		if o.npdu == 100 {
			pos = i
		}
	}
	// N-PDU 1 has 3 more frames; the download's DRR quantum (1543 octets)
	// was not spent after them, so DRR lets it start N-PDU 2, which then
	// goes out whole: the ping leaves after N-PDU 2, not after N-PDUs 2-4.
	if pos != 7 {
		t.Fatalf("ping left at position %d: %v", pos, out)
	}

	// 8 N-PDUs (32 frames) queued: overtaking all would break the N(U)
	// window; the ping overtakes the last N-PDUs within it instead: it
	// leaves after N-PDU 1 (4 frames) and before N-PDU 2, 28 frames early.
	for npdu := 1; npdu <= 8; npdu++ {
		for _, f := range cNPDU(npdu, 1500) {
			q.Enqueue(4*time.Millisecond, f, LifetimeInfinite)
		}
	}
	q.Enqueue(5*time.Millisecond, cFrame(100, 0, 94), LifetimeInfinite)
	out, _ = drain(q, 6*time.Millisecond)
	checkWhole(t, out)
	if len(out) != 33 || out[4].npdu != 100 {
		t.Fatalf("ping not after N-PDU 1: %v", out)
	}
}

// TestCipheredShortSegmentNotTaken: a short frame right after a
// full-length frame may be an N-PDU's last segment: it stays in order.
func TestCipheredShortSegmentNotTaken(t *testing.T) {
	s := mustShared(t, Config{})
	q := s.NewQueue(nil)
	for _, f := range cNPDU(1, 1500) { // learns the full length
		q.Enqueue(0, f, LifetimeInfinite)
	}
	q.Enqueue(0, cFrame(2, 0, 506), LifetimeInfinite) // N-PDU 2 segment 0 ...
	q.Enqueue(0, cFrame(2, 1, 60), LifetimeInfinite)  // ... and its short last segment
	out, _ := drain(q, time.Millisecond)
	checkWhole(t, out)
	if len(out) != 6 || out[5] != (delivered{2, 1, 60}) {
		t.Fatalf("%v", out)
	}
}

// TestCipheredDropWholeNPDU: CoDel's drops of ciphered frames take the
// rest of the N-PDU with them, so no N-PDU leaves with a hole: the
// delivered segments of every N-PDU are 0, 1, ... without a gap.
func TestCipheredDropWholeNPDU(t *testing.T) {
	s := mustShared(t, Config{CoDel: true, Interval: 100 * time.Millisecond, Target: 5 * time.Millisecond})
	q := s.NewQueue(nil)
	npdu := 0
	next := map[int]int{}
	drops := 0
	for now := time.Duration(0); now < 20*time.Second; now += 20 * time.Millisecond {
		if now%(60*time.Millisecond) == 0 { // 1500 octets per 60 ms against 506 per 20 ms
			npdu++
			for _, f := range cNPDU(npdu, 1500) {
				q.Enqueue(now, f, LifetimeInfinite)
			}
		}
		drops += dequeueInOrder(t, q, now, next)
	}
	if drops == 0 {
		t.Fatal("CoDel never dropped")
	}
}

// TestCipheredFramesNotParsed: every reader of SNDCP or IP headers in gopcu
// (FlowKey, sndcpSegment, ECNOf/MarkCE; nothing outside package llc reads
// them) refuses a frame with the E bit set, even when its ciphertext looks
// like an SNDCP first segment with an ECN-capable IPv4 header.
func TestCipheredFramesNotParsed(t *testing.T) {
	b := ectFrame(1, 200)
	if _, _, k := FlowKey(b); k != KeyIP {
		t.Fatal("the clear frame has no flow key")
	}
	if _, _, _, _, ok := sndcpSegment(b); !ok {
		t.Fatal("the clear frame has no SNDCP header")
	}
	b[2] |= 0x02 // E: ciphered
	before := append([]byte(nil), b...)
	if _, _, k := FlowKey(b); k != KeyNone {
		t.Errorf("FlowKey of a ciphered frame: kind %d", k)
	}
	if _, _, _, _, ok := sndcpSegment(b); ok {
		t.Error("sndcpSegment read a ciphered frame")
	}
	if r := ECNOf(b); r != NoMarkCiphered {
		t.Errorf("ECNOf: %v", r)
	}
	if r := MarkCE(b); r != NoMarkCiphered || string(b) != string(before) {
		t.Errorf("MarkCE: %v, frame changed %v", r, string(b) != string(before))
	}
}

// TestCipheredReorderBound: small ciphered frames that keep arriving while
// a ciphered download drains never make a frame leave more than 31 frames
// out of enqueue order (the receiver's N(U) window), and the download's
// N-PDUs stay whole.
func TestCipheredReorderBound(t *testing.T) {
	s := mustShared(t, Config{})
	q := s.NewQueue(nil)
	idx := map[[2]int]int{}
	n := 0
	add := func(f []byte) {
		idx[[2]int{int(f[3])<<8 | int(f[4]), int(f[5])}] = n
		n++
		q.Enqueue(0, f, LifetimeInfinite)
	}
	for npdu := 1; npdu <= 16; npdu++ { // 64 frames: deeper than the window
		for _, f := range cNPDU(npdu, 1500) {
			add(f)
		}
	}
	var out []delivered
	maxIdx, worst := -1, 0
	firstPing := -1
	for k := 0; q.Len() > 0 || k < 60; k++ {
		if k < 60 {
			add(cFrame(1000+k, 0, 94))
		}
		fr, ok, _ := q.Dequeue(time.Millisecond)
		if !ok {
			continue
		}
		d := delivered{int(fr.Data[3])<<8 | int(fr.Data[4]), int(fr.Data[5]), len(fr.Data)}
		out = append(out, d)
		if d.npdu >= 1000 && firstPing < 0 {
			firstPing = len(out) - 1
		}
		i := idx[[2]int{d.npdu, d.seg}]
		worst = max(worst, maxIdx-i)
		maxIdx = max(maxIdx, i)
	}
	checkWhole(t, out)
	if worst > 31 {
		t.Fatalf("a frame left %d frames out of order", worst)
	}
	// the first ping, enqueued behind 64 frames, overtakes about 30 of them
	if firstPing < 0 || firstPing > 64-28 {
		t.Fatalf("the first ping left as frame %d", firstPing)
	}
	t.Logf("worst reordering %d frames; the first ping left as frame %d of %d", worst, firstPing, len(out))
}

// TestCipheredNoFQ: with one FIFO (`no queue fq`) an AQM drop of a ciphered
// frame takes at most the rest of its N-PDU, never the whole queue.
func TestCipheredNoFQ(t *testing.T) {
	s := mustShared(t, Config{CoDel: true, NoFQ: true, Interval: 100 * time.Millisecond, Target: 5 * time.Millisecond})
	q := s.NewQueue(nil)
	npdu := 0
	for now := time.Duration(0); now < 10*time.Second; now += 20 * time.Millisecond {
		if now%(60*time.Millisecond) == 0 {
			npdu++
			for _, f := range cNPDU(npdu, 1500) {
				q.Enqueue(now, f, LifetimeInfinite)
			}
		}
		_, _, d := q.Dequeue(now)
		if d.CoDel > 4 {
			t.Fatalf("%v: one Dequeue dropped %d frames (an N-PDU is 4)", now, d.CoDel)
		}
	}
	if s.Counters().CoDel == 0 {
		t.Fatal("CoDel never dropped")
	}
}

// TestCipheredFullRunBounded: N-PDUs that fill whole segments (no short
// last segment) do not pin the download's flow for ever: a ping of another
// flow still gets out within one N-PDU's worth of frames.
func TestCipheredFullRunBounded(t *testing.T) {
	s := mustShared(t, Config{})
	q := s.NewQueue(nil)
	for i := 0; i < 20; i++ { // 20 full-length frames: N-PDUs of exactly 4 x 496 octets
		q.Enqueue(0, cFrame(i/4, i%4, 506), LifetimeInfinite)
	}
	q.Dequeue(time.Millisecond)
	q.Enqueue(time.Millisecond, ipFrame(1, 7, 0, 84), LifetimeInfinite) // an unciphered ping (another flow)
	for k := 1; ; k++ {
		fr, ok, _ := q.Dequeue(2 * time.Millisecond)
		if !ok {
			t.Fatal("the ping never left")
		}
		if len(fr.Data) == 84 {
			if k > 8 {
				t.Fatalf("the ping left after %d download frames", k)
			}
			return
		}
	}
}

// dequeueInOrder dequeues once at now, fails if the frame delivered (a
// cFrame) is not the next of its N-PDU (next: frames delivered per N-PDU,
// counted here), and returns the AQM's drops.
func dequeueInOrder(t *testing.T, q *Queue, now time.Duration, next map[int]int) int {
	t.Helper()
	fr, ok, d := q.Dequeue(now)
	if ok {
		id, seg := int(fr.Data[3])<<8|int(fr.Data[4]), int(fr.Data[5])
		if seg != next[id] {
			t.Fatalf("%v: N-PDU %d frame %d after frame %d", now, id, seg, next[id]-1)
		}
		next[id]++
	}
	return d.CoDel
}

// TestCipheredAQMDropsWholeNPDUs is TestAQMDropsWholeNPDUs for ciphered
// frames: the N-PDU boundaries come from frame lengths (learnCiphered), so
// a drop decided on a frame that continues an N-PDU waits for the next
// N-PDU's first frame, and every N-PDU is delivered whole or not at all.
func TestCipheredAQMDropsWholeNPDUs(t *testing.T) {
	for _, aqm := range []AQM{AQMCoDel, AQMPIE, AQMRED} {
		cfg := DefaultConfig()
		cfg.AQM = aqm
		switch aqm {
		case AQMCoDel:
			cfg.Target, cfg.Interval = 5*time.Millisecond, 100*time.Millisecond
		case AQMPIE:
			cfg.PIE.Target = 20 * time.Millisecond
		case AQMRED:
			cfg.RED.Min, cfg.RED.Max, cfg.RED.MaxP = 2000, 40000, 50
		}
		s := mustShared(t, cfg)
		s.Seed(3, 4)
		q := s.NewQueue(nil)
		q.SetDrainRate(10000)
		const n = 60
		for p := 1; p <= n; p++ {
			for _, f := range cNPDU(p, 1400) { // 506, 506 and 403 octets
				if err := q.Enqueue(0, f, LifetimeInfinite); err != nil {
					t.Fatal(err)
				}
			}
		}
		got := map[int]int{} // per N-PDU: frames delivered
		dropped := 0
		for now := time.Duration(0); q.Len() > 0; {
			now += 50 * time.Millisecond
			dropped += dequeueInOrder(t, q, now, got)
		}
		partial := 0
		for _, k := range got {
			if k != 3 {
				partial++
			}
		}
		t.Logf("%s: %d drops, %d N-PDUs delivered, %d partial", aqm, dropped, len(got), partial)
		if dropped == 0 {
			t.Fatalf("%s: the AQM never dropped", aqm)
		}
		if partial != 0 || dropped%3 != 0 || len(got)*3+dropped != 3*n {
			t.Fatalf("%s: %d drops, %d N-PDUs partial: not whole N-PDUs", aqm, dropped, partial)
		}
	}
}
