package pcu

import (
	"slices"

	"github.com/gopcu/gopcu/pcu/pcuif"
)

// rtsPacer learns the frame clock of a BTS that sends in real time, so
// that the engine loop can leave the PCU socket unwatched between radio
// blocks and read each block's messages in one wake-up, after they have
// all come (issue 16: the PCU's CPU in an idle cell is its wake-ups).
//
// OsmoBTS writes every message to the PCU socket on its own: a TIME_IND at
// each block start (pcu_tx_time_ind in osmo-bts's pcu_sock.c omits the
// other frames), the RTS_REQ of every PDCH some frames ahead of the block
// (osmo-bts-virtual: 5, RTS_ADVANCE in scheduler_virtbts.c), a PTCCH
// RTS_REQ twice per 52-multiframe (L1SAP_IS_PTCCH), one osmo_wqueue write
// per select loop turn. A PCU that watches the socket wakes about once per
// message (osmo-pcu 1.1.0 in the lab: 287 wake-ups a second for 283
// messages). The pacer instead predicts when the next burst of RTS_REQs
// will have arrived, from the kernel's send stamps of the bursts before
// it: a BTS asks for frame f at about c + f·P (P the TDMA frame, c its
// constant advance), so c is the least offset of a burst's first RTS_REQ
// from f·P over the last bursts, and the wake-up comes at c + f·P plus the
// time recent bursts took to complete. What came in between (TIME_IND,
// uplink data, RACH) is read then, in the order it was sent.
//
// It paces only while the offsets say real time: in virtual time (an
// emulator asking as fast as the PCU answers) the offsets fall block after
// block and the pacer stays off; a burst that has not completed when the
// loop wakes is waited for on the socket as without the pacer.
type rtsPacer struct {
	started bool
	bts     uint8  // the one BTS paced (several on the socket: off)
	base    uint32 // FN that is frame 0 of the relative count
	lastFN  uint32 // FN of the newest burst (for the wrap)
	rel     int64  // relative frame of the newest burst
	ptcch   bool   // the BTS sends PTCCH RTS_REQs

	cur burst // the newest burst, still counting

	// the last closed bursts: offsets of their first and last RTS_REQ
	// from their frame's time, ns
	first, last [pacerWindow]int64
	n           int // bursts recorded (up to pacerWindow: the ring is full)
	// the window's figures, computed when a burst closes
	c, margin int64
	stable    bool
	scratch   [pacerWindow]int64
	expect    int64 // relative frame of the burst next predicted
	// waiting: the loop woke at the predicted time and the burst was not
	// complete; no prediction until a later burst starts
	waiting bool

	// bursts the loop waited for after its wake-up (came late), and bursts
	// paced (read in the wake-up the pacer chose)
	late, paced uint64
}

type burst struct {
	rel         int64
	ptcch       bool
	count       int
	first, last int64 // kernel send stamps, ns (CLOCK_REALTIME)
	open        bool
}

const (
	// pacerWindow bursts (about 1.3 s of blocks) make the estimate
	pacerWindow = 64
	// pacerMinBursts must be seen before pacing starts
	pacerMinBursts = 32
	// pacerJitter: the 90th percentile of the bursts' first offsets may
	// be at most this far above the least, else the BTS is not sending in
	// real time (or the machine is too busy to tell) and the loop watches
	// the socket
	pacerJitter = 1_000_000
	// pacerMaxMargin bounds the wait after a burst's predicted start: the
	// RTS_REQ's answer is late by up to this (osmo-bts asks 5 frames,
	// 23 ms, ahead)
	pacerMaxMargin = 1_500_000
	// pacerSlack is added to the recent bursts' completion time
	pacerSlack = 100_000
)

// frameNs is the time of relative frame f: f TDMA frames of 120/26 ms.
func frameNs(f int64) int64 { return f * 120_000_000 / 26 }

// rts records an RTS_REQ of BTS bts for frame fn (PTCCH or PDTCH) sent at
// at (the kernel's stamp, ns).
func (p *rtsPacer) rts(bts uint8, ptcch bool, fn uint32, at int64) {
	if fn >= pcuif.MaxFN {
		return
	}
	if !p.started {
		*p = rtsPacer{started: true, bts: bts, base: fn, lastFN: fn}
		p.cur = burst{rel: 0, ptcch: ptcch, count: 1, first: at, last: at, open: true}
		return
	}
	if bts != p.bts {
		// several BTSs on one socket: each has its own clock; not paced
		p.reset()
		return
	}
	d := int64((fn + pcuif.MaxFN - p.lastFN) % pcuif.MaxFN)
	if d > pcuif.MaxFN/2 { // an older frame: out of order, or the BTS restarted
		p.reset()
		return
	}
	if ptcch {
		p.ptcch = true
	}
	if d == 0 && p.cur.open && p.cur.ptcch == ptcch {
		p.cur.count++
		p.cur.last = max(p.cur.last, at)
		p.cur.first = min(p.cur.first, at)
		return
	}
	if d == 0 {
		// PDTCH and PTCCH for the same frame: not a BTS pattern this pacer knows
		p.reset()
		return
	}
	p.close()
	p.waiting = false
	p.lastFN = fn
	p.rel += d
	p.cur = burst{rel: p.rel, ptcch: ptcch, count: 1, first: at, last: at, open: true}
}

// reset forgets the clock (pacing stops until it is learnt again).
func (p *rtsPacer) reset() {
	late, paced := p.late, p.paced
	*p = rtsPacer{late: late, paced: paced}
}

// close records the newest burst in the window.
func (p *rtsPacer) close() {
	b := &p.cur
	if !b.open {
		return
	}
	b.open = false
	i := p.n % pacerWindow
	t := frameNs(b.rel)
	p.first[i], p.last[i] = b.first-t, b.last-t
	p.n++
	p.estimate()
}

// estimate computes the clock offset, the margin and whether to pace
// from the window.
func (p *rtsPacer) estimate() {
	k := min(p.n, pacerWindow)
	s := p.scratch[:k]
	copy(s, p.first[:k])
	slices.Sort(s)
	p.c = s[0]
	jitter := s[k*9/10] - p.c
	copy(s, p.last[:k])
	slices.Sort(s)
	p.margin = s[k*9/10] - p.c + pacerSlack
	p.stable = p.n >= pacerMinBursts && jitter <= pacerJitter && p.margin <= pacerMaxMargin
}

// next returns when the loop should next read the socket (ns, the
// clock of the kernel's stamps) and whether to pace at all: false while
// the clock is not learnt or not real time, or while the newest burst
// has fewer than want RTS_REQs (want: the BTS's enabled PDCHs; osmo-bts
// asks for each PDCH's PDTCH and PTCCH blocks): the loop then watches
// the socket until they come.
func (p *rtsPacer) next(want int) (int64, bool) {
	if !p.stable || p.waiting || !p.cur.open || want == 0 || p.cur.count < want {
		return 0, false
	}
	fn := nextRTSFrame(p.lastFN, p.ptcch)
	d := int64((fn + pcuif.MaxFN - p.lastFN) % pcuif.MaxFN)
	p.expect = p.rel + d
	return p.c + frameNs(p.rel+d) + p.margin, true
}

// fired counts the loop's wake-up at the time next gave: paced if the
// burst it waited for was complete by then, late if not.
func (p *rtsPacer) fired(want int) {
	if p.cur.open && p.cur.rel == p.expect && want > 0 && p.cur.count >= want {
		p.paced++
	} else {
		p.late++
		p.waiting = p.cur.rel < p.expect
	}
}

// nextRTSFrame is the first frame after fn for which a BTS sends
// RTS_REQs: a radio block's first frame (TS 45.002 §6.3.2.2: B0..B11 of
// the 52-multiframe) or, when the BTS sends them, a PTCCH frame (12 and
// 38 of the 52-multiframe, osmo-bts's L1SAP_IS_PTCCH).
func nextRTSFrame(fn uint32, ptcch bool) uint32 {
	for d := uint32(1); ; d++ {
		f := (fn + d) % pcuif.MaxFN
		m := f % 52
		if ptcch && (m == 12 || m == 38) {
			return f
		}
		if m != 12 && m != 25 && m != 38 && m != 51 && (m%13)%4 == 0 {
			return f
		}
	}
}
