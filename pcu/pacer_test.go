package pcu

import (
	"testing"

	"github.com/gopcu/gopcu/pcu/pcuif"
)

// virtBTS feeds p the RTS_REQs of a real-time BTS as osmo-bts-virtual
// sends them (scheduler_virtbts.c): in frame f, for frame f+5, one
// RTS_REQ per PDCH (spaced 10 µs) when f+5 starts a block or is a PTCCH
// frame. t0 is frame 0's time of the BTS's (relative) clock; delay(i)
// adds a delay to the i-th burst. It returns the last frame asked for.
func virtBTS(p *rtsPacer, fn0 uint32, frames, pdchs int, t0 int64, delay func(i int) int64) uint32 {
	last := fn0
	bursts := 0
	for i := 0; i < frames; i++ {
		f := (fn0 + uint32(i)) % pcuif.MaxFN
		rf := (f + 5) % pcuif.MaxFN
		m := rf % 52
		ptcch := m == 12 || m == 38
		if !ptcch && nextRTSFrame((rf+pcuif.MaxFN-1)%pcuif.MaxFN, false) != rf {
			continue
		}
		at := t0 + frameNs(int64(i)) + delay(bursts)
		for k := 0; k < pdchs; k++ {
			p.rts(0, ptcch, rf, at+int64(k)*10_000)
		}
		bursts++
		last = rf
	}
	return last
}

func noDelay(int) int64 { return 0 }

func TestNextRTSFrame(t *testing.T) {
	// block starts of the 52-multiframe (TS 45.002 §6.3.2.2) and the PTCCH
	// frames 12 and 38
	blocks := []uint32{0, 4, 8, 13, 17, 21, 26, 30, 34, 39, 43, 47, 52}
	withPTCCH := []uint32{0, 4, 8, 12, 13, 17, 21, 26, 30, 34, 38, 39, 43, 47, 52}
	for _, c := range []struct {
		ptcch  bool
		frames []uint32
	}{{false, blocks}, {true, withPTCCH}} {
		for i := 0; i+1 < len(c.frames); i++ {
			for f := c.frames[i]; f < c.frames[i+1]; f++ {
				if got := nextRTSFrame(f+52*7, c.ptcch); got != c.frames[i+1]+52*7 {
					t.Errorf("nextRTSFrame(%d, PTCCH %v) = %d, want %d", f+52*7, c.ptcch, got, c.frames[i+1]+52*7)
				}
			}
		}
	}
	if got := nextRTSFrame(pcuif.MaxFN-5, false); got != 0 {
		t.Errorf("nextRTSFrame(MaxFN-5) = %d, want 0 (wrap; MaxFN is a multiple of 52)", got)
	}
}

func TestPacerRealTime(t *testing.T) {
	for _, fn0 := range []uint32{1000, pcuif.MaxFN - 300} { // and across the FN wrap
		var p rtsPacer
		const t0 = 1_700_000_000_000_000_000
		last := virtBTS(&p, fn0, 52*4, 4, t0, noDelay)
		at, ok := p.next(4)
		if !ok {
			t.Fatalf("fn0 %d: not pacing after %d bursts (stable %v, c %d, margin %d)", fn0, p.n, p.stable, p.c, p.margin)
		}
		// the next burst is sent in frame nextRTS-5 of the BTS's clock; its
		// last RTS_REQ 30 µs later; the pacer wakes after that, with its slack
		nf := nextRTSFrame(last, true)
		i := int64((nf + pcuif.MaxFN - 5 - fn0) % pcuif.MaxFN)
		start := t0 + frameNs(i)
		if at < start+30_000 || at > start+30_000+pacerSlack+1000 {
			t.Errorf("fn0 %d: wake-up at start%+d ns, want 30 µs + slack (%d ns) after the burst's start", fn0, at-start, pacerSlack)
		}
		if _, ok := p.next(5); ok {
			t.Errorf("fn0 %d: pacing with 5 PDCHs enabled and 4 RTS_REQs in the burst", fn0)
		}
	}
}

func TestPacerOffWhenNotRealTime(t *testing.T) {
	// virtual time: every burst 50 µs after the last, whatever its frame
	var p rtsPacer
	at := int64(1_000_000_000)
	fn := uint32(0)
	for range 200 {
		for range 4 {
			p.rts(0, false, fn, at)
		}
		at += 50_000
		fn = nextRTSFrame(fn, false)
	}
	if _, ok := p.next(4); ok {
		t.Errorf("pacing a BTS in virtual time (jitter %d ns)", p.margin)
	}
}

func TestPacerJitter(t *testing.T) {
	// 1 burst in 20 late by 3 ms: paced, the margin not raised by them
	var p rtsPacer
	virtBTS(&p, 0, 52*6, 4, 0, func(i int) int64 {
		if i%20 == 7 {
			return 3_000_000
		}
		return 0
	})
	if _, ok := p.next(4); !ok {
		t.Fatalf("not pacing with 5 %% late bursts (margin %d)", p.margin)
	}
	if p.margin > 30_000+pacerSlack+1000 { // frameNs rounds to the ns
		t.Errorf("margin %d ns with 5 %% late bursts, want %d", p.margin, 30_000+pacerSlack)
	}
	// 1 in 4 late: the clock cannot be told; not paced
	p = rtsPacer{}
	virtBTS(&p, 0, 52*6, 4, 0, func(i int) int64 {
		if i%4 == 1 {
			return 3_000_000
		}
		return 0
	})
	if _, ok := p.next(4); ok {
		t.Errorf("pacing with 25 %% of the bursts 3 ms late")
	}
}

func TestPacerResets(t *testing.T) {
	var p rtsPacer
	last := virtBTS(&p, 0, 52*4, 4, 0, noDelay)
	if _, ok := p.next(4); !ok {
		t.Fatal("not pacing")
	}
	p.rts(1, false, nextRTSFrame(last, true), frameNs(52*4))
	if _, ok := p.next(1); ok {
		t.Error("pacing with two BTSs on the socket")
	}
	p = rtsPacer{}
	last = virtBTS(&p, 0, 52*4, 4, 0, noDelay)
	p.rts(0, false, last-4, frameNs(52*4)) // an older frame: the BTS restarted
	if _, ok := p.next(1); ok {
		t.Error("pacing after an older frame")
	}
}
