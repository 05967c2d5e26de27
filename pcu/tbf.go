package pcu

import (
	"fmt"
	"iter"
	"time"

	"github.com/gopcu/gopcu/internal/ratectr"
	"github.com/gopcu/gopcu/llc"
	"github.com/gopcu/gopcu/pcu/alloc"
	"github.com/gopcu/gopcu/rlcmac"
)

// Dir is a TBF direction, the allocator's.
type Dir = alloc.Dir

// Directions.
const (
	DirUL = alloc.UL
	DirDL = alloc.DL
)

// TBFState is the lifecycle state of a TBF (tbf_fsm.go; osmo-pcu tbf_fsm.c
// has the same names).
type TBFState uint8

// TBF states.
const (
	TBFNew TBFState = iota
	TBFAssign
	TBFFlow
	TBFFinished
	TBFWaitRelease
	TBFReleasing
	// TBFReleased: the TBF is gone (its resources and its place in the
	// BTS and MS given back); it takes no more events. osmo-pcu frees the
	// object (tbf_free); here others may still hold a pointer to it.
	TBFReleased
)

var tbfStateNames = [...]string{"NEW", "ASSIGN", "FLOW", "FINISHED", "WAIT_RELEASE", "RELEASING", "RELEASED"}

func (s TBFState) String() string { return tbfStateNames[s] }

// dlBlock keeps a sent DL RLC data unit for retransmission.
type dlBlock struct {
	unit  [74]byte // up to an MCS-9 / MCS-6 data unit
	n     int
	e     bool
	fbi   bool
	small bool // completes a short (interactive) LLC frame
	cs    rlcmac.CodingScheme
	bytes int // LLC payload octets in it (goodput accounting)
	// spbNext is 3 while the second half of a unit resent as two split
	// blocks (SPB, ARQ type I) still has to go.
	spbNext uint8
}

// ulBlock keeps a received UL data unit until V(Q) passes it.
type ulBlock struct {
	e, ti, pi, last bool // the unit's header bits (last: CV == 0)
	data            [74]byte
	n               int
	spb             uint8 // split halves received: 1 first, 2 second
	spbLen          int   // their length (MCS-1..3 data length)
}

// inflightFrame is an LLC frame segmented into a DL TBF's window; last is
// the BSN of the block that carries its end.
type inflightFrame struct {
	fr   llc.Frame
	last int
}

// TBF is a Temporary Block Flow.
type TBF struct {
	dir     Dir
	ms      *MS
	bts     *BTS
	trx     uint8
	tfi     uint8
	slots   uint8 // timeslot mask
	ctrlTS  uint8
	state   TBFState
	ccch    bool // assigned on CCCH (else PACCH)
	created time.Duration
	cs      rlcmac.CodingScheme

	// deadline of each running timer (0: not running; tbf_fsm.go)
	deadline [tmCount]time.Duration
	// N3101, N3103, N3105 (tbfCounters)
	n [nCount]int

	attached bool   // owns its TFI, USFs and slots
	listed   bool   // in the BTS's TBF list
	listSeq  uint64 // its place in that list (BTS.listSeq when listed)
	inCtl    bool   // in the BTS's control index (BTS.ctl)

	// control procedures (tbf_fsm.go): the messages this TBF has to send
	// on its (or, for an assignment, its carrier's) control TS
	ulAss    ctlState // UL: Packet Uplink Assignment
	dlAss    ctlState // DL: Packet Downlink Assignment
	ulAck    ctlState // UL: Packet Uplink Ack/Nack
	ulRej    ctlState // DL: Packet Access Reject for the MS's UL request (no USF, TFI or slot free)
	assignOn *TBF     // TBF assigned on PACCH: the TBF whose control TS carries the assignment
	puaTS    int8     // two-phase access: the PDCH the PUA goes on (no carrier TBF); -1 none
	puaTRX   uint8    // and its TRX (the TBF may be on another one)

	// egprs: an EGPRS TBF (MCS-1..9, SNS 2048)
	egprs    bool
	ctr      *ratectr.Group // "pcu:tbf"
	gprsCtr  *ratectr.Group // "tbf:gprs" (nil for an EGPRS DL TBF)
	egprsCtr *ratectr.Group // "tbf:egprs" (nil for a GPRS DL TBF)

	// the state of one direction only: exactly one of dl and ul is set
	dl *dlTBF
	ul *ulTBF
}

// dlTBF is what only a downlink TBF has: the send window, the LLC frame
// being segmented and the Ack/Nack polling (TS 44.060 §9.1).
type dlTBF struct {
	sw       rlcmac.SendWindow
	blk      []dlBlock // indexed by BSN & (len-1); len >= WS, a power of two
	cur      []byte    // rest of the LLC frame being sent
	curFrame []byte
	curFr    llc.Frame // the frame as dequeued (put back unchanged)
	// inflight are the frames fully segmented into the window whose last
	// block is not acknowledged yet, in order: an aborted TBF puts them
	// back into the MS's queue (at-least-once delivery, osmo-pcu loses them).
	inflight  []inflightFrame
	haveCur   bool
	sincePoll int
	// t3191 is when T3191 of the last polled final block ends (FINISHED;
	// it bounds T3195 after N3105 there, evMaxN3105)
	t3191     time.Duration
	pollOut   bool // a DL Ack/Nack poll is outstanding
	pollSoon  bool // a short frame was completed: poll at the next chance
	lastPoll  time.Duration
	flowAt    time.Duration // when the TBF entered FLOW (the idle-ack timer's condition)
	everAcked bool
	drained   time.Duration // when the LLC queue drained (keep-open start), -1 if data
	sentBytes uint64        // LLC octets sent
	airtime   uint64        // DL data blocks sent, retransmissions included (fairness)
	laUp      time.Duration // last link adaptation step
}

// ulTBF is what only an uplink TBF has: the receive window, the LLC frame
// being reassembled, contention resolution and the USFs (TS 44.060 §9.1,
// §7.1.2.3).
type ulTBF struct {
	rw         rlcmac.ReceiveWindow
	ub         []ulBlock // received units by BSN & (len-1); len a power of two >= WS
	llcBuf     []byte
	tlliKnown  bool
	contention bool // contention resolution done (TLLI echoed in a PUAN)
	sinceAck   int
	lastSeen   bool     // CV=0 received
	usf        [8]uint8 // USF per timeslot
}

func (t *TBF) String() string {
	return fmt.Sprintf("TBF(%s TFI=%d TRX=%d TS=%08b %s %s)", t.dir, t.tfi, t.trx, t.slots, t.state, t.ms)
}

// State is the TBF's state.
func (t *TBF) State() TBFState { return t.state }

// released reports whether the TBF is gone (TBFReleased).
func (t *TBF) released() bool { return t.state == TBFReleased }

// TFI is the TBF's TFI.
func (t *TBF) TFI() uint8 { return t.tfi }

// Slots is the timeslot mask of the TBF.
func (t *TBF) Slots() uint8 { return t.slots }

// Dir is the TBF's direction.
func (t *TBF) Dir() Dir { return t.dir }

// TRX is the number of the TRX the TBF is on.
func (t *TBF) TRX() uint8 { return t.trx }

// USF is the USF of an uplink TBF on timeslot ts.
func (t *TBF) USF(ts uint8) uint8 {
	if t.ul == nil {
		return 0
	}
	return t.ul.usf[ts&7]
}

// Attached reports whether the TBF holds its TFI, USFs and slots.
func (t *TBF) Attached() bool { return t.attached }

// TLLI is the TLLI of the TBF's MS.
func (t *TBF) TLLI() uint32 { return t.ms.TLLI }

// pdchs are the TBF's PDCHs (its slots on its TRX) with their TS, in TS
// order.
func (t *TBF) pdchs() iter.Seq2[uint8, *PDCH] {
	return func(yield func(uint8, *PDCH) bool) {
		trx := &t.bts.TRX[t.trx]
		for ts := uint8(0); ts < 8; ts++ {
			if t.slots&(1<<ts) != 0 && !yield(ts, &trx.PDCH[ts]) {
				return
			}
		}
	}
}

// attach registers the TBF on its PDCHs and the TRX's TFI table, and (the
// first time) in the BTS's TBF list.
func (e *Engine) attach(t *TBF) {
	trx := &t.bts.TRX[t.trx]
	if t.dir == DirUL {
		trx.ulTFI |= 1 << t.tfi
	} else {
		trx.dlTFI |= 1 << t.tfi
		trx.dlBy[t.tfi&31] = t
	}
	for ts, p := range t.pdchs() {
		if t.dir == DirUL {
			p.ul = append(p.ul, t)
			p.usfOwner[t.ul.usf[ts]] = t
		} else {
			// fairness: a newcomer starts level with the least served
			for _, o := range p.dl {
				if o.dl.airtime < t.dl.airtime || t.dl.airtime == 0 {
					t.dl.airtime = o.dl.airtime
				}
			}
			p.dl = append(p.dl, t)
		}
	}
	if !t.listed {
		t.bts.tbfs = append(t.bts.tbfs, t)
		t.listed = true
		t.bts.listSeq++
		t.listSeq = t.bts.listSeq
		if t.ctlPending() {
			t.noteCtl()
		}
	}
	t.attached = true
	if t.ms != nil {
		e.assignTAI(t)
	}
}

// detach gives back the TBF's TFI, USFs and slots.
func (e *Engine) detach(t *TBF) {
	trx := &t.bts.TRX[t.trx]
	if t.dir == DirUL {
		trx.ulTFI &^= 1 << t.tfi
	} else {
		trx.dlTFI &^= 1 << t.tfi
		if trx.dlBy[t.tfi&31] == t {
			trx.dlBy[t.tfi&31] = nil
		}
	}
	for ts, p := range t.pdchs() {
		if t.dir == DirUL {
			p.ul = removeTBF(p.ul, t)
			if p.usfOwner[t.ul.usf[ts]] == t {
				p.usfOwner[t.ul.usf[ts]] = nil
			}
		} else {
			p.dl = removeTBF(p.dl, t)
		}
		p.dropReservations(t)
	}
	t.attached = false
}

func removeTBF(l []*TBF, t *TBF) []*TBF {
	for i, x := range l {
		if x == t {
			return append(l[:i], l[i+1:]...)
		}
	}
	return l
}

// freeTBF is the action of the lifecycle's transitions to RELEASED
// (evRelease and the timers and acknowledgements that end a TBF): the TBF
// gives back its resources and leaves its BTS and MS. It runs once per
// TBF, in the state RELEASED; why says why (and whether the TBF counts as
// aborted).
func (e *Engine) freeTBF(t *TBF, why relReason) {
	aborted := relReasons[why].aborted
	if t.attached {
		e.detach(t)
	}
	// its control TS may still carry reservations (carrier of an assignment)
	if trx := &t.bts.TRX[t.trx]; int(t.ctrlTS) < len(trx.PDCH) {
		trx.PDCH[t.ctrlTS].dropReservations(t)
	}
	bts := t.bts
	bts.tbfs = removeTBF(bts.tbfs, t)
	if t.inCtl { // not left for the scheduler: a BTS without RTS would keep it
		bts.ctl = removeTBF(bts.ctl, t)
		t.inCtl = false
	}
	e.dropTBFCounters(t)
	if t.dir == DirUL {
		bts.Ctr.Inc(CtrTBFULFreed)
		if aborted {
			bts.Ctr.Inc(CtrTBFULAborted)
		}
		if t.ms.UL == t {
			t.ms.UL = nil
		}
	} else {
		bts.Ctr.Inc(CtrTBFDLFreed)
		if aborted {
			bts.Ctr.Inc(CtrTBFDLAborted)
		}
		if t.ms.DL == t {
			t.ms.DL = nil
		}
		// The frame being segmented and the frames not acknowledged go
		// back to the queue head, last dequeued first, unless the TBF
		// ended normally (final Ack/Nack: everything acknowledged). A
		// frame whose octets are all in blocks but that is not closed yet
		// (EGPRS: a unit filled exactly, the closing empty chunk still to
		// send) goes back too: the MS cannot have it.
		if t.dl.haveCur {
			t.ms.Queue.PutBack(e.now, t.dl.curFr)
		}
		t.dl.curFr, t.dl.cur, t.dl.curFrame = llc.Frame{}, nil, nil // the queue owns it again
		if n := len(t.dl.inflight); n > 0 {
			for i := n - 1; i >= 0; i-- {
				t.ms.Queue.PutBack(e.now, t.dl.inflight[i].fr)
			}
			e.l1ctr.Add(L1LLCRequeued, uint64(n))
			e.tbfLog.Info("unacknowledged LLC frames put back", "tbf", t, "frames", n)
		}
		clear(t.dl.inflight)
		t.dl.inflight = t.dl.inflight[:0]
		t.dl.haveCur = false
		t.ms.Queue.StopTransmit() // sojourn of later frames starts at the next TBF
	}
	if t.ms.UL == nil && t.ms.DL == nil {
		e.releaseTAI(t.ms)
	}
	// TBFs assigned through this one lose their carrier
	for _, o := range bts.tbfs {
		if o.assignOn == t {
			o.assignOn = nil
		}
	}
	t.deadline = [tmCount]time.Duration{}
	t.ulAss, t.dlAss, t.ulAck, t.ulRej = ctlNone, ctlNone, ctlNone, ctlNone
	if !t.ms.Active() {
		t.ms.idleSince = e.now
		e.releaseSlots(t.ms)
		e.watchMS(t.ms)
	}
	e.tbfLog.Debug("TBF freed", "tbf", t, "reason", relReasons[why].name)
}

// dropDLFrames discards the frames a failed DL TBF holds (T3191 without the
// final Ack/Nack, N3105): the one being segmented and those not
// acknowledged. They are reported in LLC-DISCARDED and counted as
// llc:dropped. An MS that never acknowledged a block keeps them: they go
// back to the queue when the TBF is freed, as osmo-pcu merges back the
// frames sent before the first DL Ack/Nack (tbf_dl.cpp
// tx_llc_until_first_dl_ack_rcvd); otherwise osmo-pcu frees them with the
// TBF.
func (e *Engine) dropDLFrames(t *TBF) {
	if t.dir != DirDL || !t.dl.everAcked {
		return
	}
	var d llc.Discard
	drop := func(f *llc.Frame) {
		d.Frames++
		d.Octets += len(f.Data)
		e.llcShared.Release(f)
	}
	if t.dl.haveCur {
		drop(&t.dl.curFr)
		t.dl.curFr, t.dl.cur, t.dl.curFrame, t.dl.haveCur = llc.Frame{}, nil, nil, false
	}
	for i := range t.dl.inflight {
		drop(&t.dl.inflight[i].fr)
	}
	clear(t.dl.inflight)
	t.dl.inflight = t.dl.inflight[:0]
	if d.Frames > 0 {
		e.tbfLog.Info("unacknowledged LLC frames of a failed DL TBF discarded", "tbf", t, "frames", d.Frames)
		e.reportDiscard(t.ms, d)
	}
}

// Debug summarises internal state (tests and traces).
func (t *TBF) Debug() string {
	var timers []string
	for k := timerKind(0); k < tmCount; k++ {
		if t.running(k) {
			timers = append(timers, fmt.Sprintf("%s@%v", tbfTimers[k].name, t.deadline[k]))
		}
	}
	ctl := fmt.Sprintf("timers=%v ul_ass=%s dl_ass=%s ul_ack=%s assignOn=%v q=%d", timers, t.ulAss, t.dlAss, t.ulAck, t.assignOn != nil, t.ms.Queue.Len())
	if d := t.dl; d != nil {
		return fmt.Sprintf("vs=%d va=%d unacked=%d pollOut=%v haveCur=%v drained=%v %s",
			d.sw.VS(), d.sw.VA(), d.sw.CountUnacked(), d.pollOut, d.haveCur, d.drained, ctl)
	}
	return fmt.Sprintf("vq=%d vr=%d last=%v contention=%v %s", t.ul.rw.VQ(), t.ul.rw.VR(), t.ul.lastSeen, t.ul.contention, ctl)
}

// dlb is the stored unit of a BSN.
func (t *TBF) dlb(bsn int) *dlBlock { return &t.dl.blk[bsn&(len(t.dl.blk)-1)] }

// ulb is the receive store of an UL BSN.
func (t *TBF) ulb(bsn int) *ulBlock { return &t.ul.ub[bsn&(len(t.ul.ub)-1)] }
