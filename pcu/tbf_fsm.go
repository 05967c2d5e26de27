package pcu

import (
	"context"
	"log/slog"
	"slices"
	"time"

	"github.com/gopcu/gopcu/pcu/fsm"
)

// The TBF lifecycle as explicit state machines.
//
// Every TBF runs one lifecycle machine (NEW, ASSIGN, FLOW, FINISHED,
// WAIT_RELEASE, RELEASING, and RELEASED, where it is gone; TS 44.060
// §8.1.1, §9.3.2.4, §9.3.3, §13) and up
// to three control procedures, each a small machine of its own: the UL
// assignment (Packet Uplink Assignment on PACCH), the DL assignment
// (Packet Downlink Assignment on PACCH) and the UL acknowledgement (Packet
// Uplink Ack/Nack). osmo-pcu has the same split (tbf_ul_fsm.c, tbf_dl_fsm.c,
// tbf_ul_ass_fsm.c, tbf_dl_ass_fsm.c, tbf_ul_ack_fsm.c).
//
// What moves a TBF is an event (tbfEvent), the expiry of a timer
// included. lifecycle below is the whole transition table, one fsm.Table
// (fsm.go) per direction: for a set of states and an event, the state to
// enter, the timer to start there (the state's other timers stop), and
// what to do. Events a state does not accept are rejected, counted and
// logged, as an osmo_fsm logs "event not permitted". Nothing else changes
// a TBF's state: the end of a TBF, for whatever reason, is evRelease, and
// freeTBF is the action of the rows that enter RELEASED. The timers and
// the N counters of the lifecycle are data too: tbfTimers and
// tbfCounters.

// tbfEvent is an input to a TBF's lifecycle machine.
type tbfEvent uint8

// Lifecycle events.
const (
	evAssignCCCH    tbfEvent = iota // assignment sent (again) on CCCH: IMM ASS
	evAssignPACCH                   // assignment to be sent on PACCH
	evAssignCnf                     // the BTS sent the DL IMM ASS on PCH (DATA_CNF)
	evAssignSettled                 // X2002 after the CCCH assignment: the MS is on the PDCH
	evAssignAcked                   // Packet Control Ack for the PACCH assignment
	evData                          // UL: a data block of the TBF; DL: an Ack/Nack (N3101, N3105 restart)
	evLastSent                      // DL: final block sent with poll; UL: final Ack/Nack sent
	evFinalAck                      // DL: final Ack/Nack; UL: Control Ack for the final Ack/Nack
	evAckMiss                       // DL: an Ack/Nack poll was not answered (below N3105)
	evMaxN3101                      // UL: N3101 reached
	evMaxN3103                      // UL: N3103 reached
	evMaxN3105                      // DL: N3105 reached
	evReuse                         // DL in WAIT_RELEASE: carries the next TBF's assignment
	evContention                    // UL: contention resolution done (the TLLI went back in a Packet Uplink Ack/Nack)
	evRelease                       // the TBF ends at once (why: relReason); every state but RELEASED takes it
	evTimeout                       // the first timer's expiry: evTimeout + k - 1 is timer k's (timeoutEv)
	evCount         = evTimeout + tbfEvent(tmCount) - 1
)

var tbfEventNames = [evCount]string{"ASSIGN_ADD_CCCH", "ASSIGN_ADD_PACCH", "ASSIGN_PCUIF_CNF", "ASSIGN_READY_CCCH",
	"ASSIGN_ACK_PACCH", "DATA_RECVD", "LAST_DATA_SENT", "FINAL_ACK", "DL_ACKNACK_MISS", "MAX_N3101", "MAX_N3103",
	"MAX_N3105", "REUSE_AS_CARRIER", "CONTENTION_RESOLUTION_MS_SUCCESS", "RELEASE"}

func init() {
	for k := timerKind(1); k < tmCount; k++ {
		tbfEventNames[timeoutEv(k)] = "TIMEOUT_" + tbfTimers[k].name
	}
}

func (ev tbfEvent) String() string { return tbfEventNames[ev] }

// timeoutEv is the event of timer k's expiry.
func timeoutEv(k timerKind) tbfEvent { return evTimeout + tbfEvent(k) - 1 }

// timerKind names a TBF timer (0: none).
type timerKind = fsm.Timer

// TBF timers (tbfTimers has their durations; timeoutEv(k) is the event of
// their expiry).
const (
	tmNone    timerKind = iota // no timer
	tmX2001                    // DL PACCH assignment guard
	tmX2002                    // CCCH assignment settle
	tmCCCHCnf                  // the BTS's DATA_CNF for a DL IMM ASS on PCH
	tmT3141                    // UL one-phase access: contention resolution
	tmT3168                    // UL PACCH assignment guard
	tmT3169                    // UL RELEASING: the USFs may be reused
	tmT3191                    // DL FINISHED: the final block polled, no final ack
	tmT3193                    // DL WAIT_RELEASE: the MS's T3192 runs
	tmT3195                    // DL RELEASING: the TFI may be reused
	tmCount
)

// tbfTimer describes a TBF timer: where it comes from and how long it is
// for a TBF (INFO_IND values override the configured ones, as osmo-pcu's
// pcu_l1_if.cpp does when the BTS sends T3142 != 0).
type tbfTimer struct {
	name string
	ref  string // its definition
	dur  func(e *Engine, t *TBF) time.Duration
}

var tbfTimers = [tmCount]tbfTimer{
	tmX2001:   {"X2001", "osmo-pcu X2001 (`timer X2001`)", func(e *Engine, t *TBF) time.Duration { return e.params.X2001 }},
	tmX2002:   {"X2002", "osmo-pcu X2002 (`timer X2002`)", func(e *Engine, t *TBF) time.Duration { return e.params.X2002 }},
	tmCCCHCnf: {"CCCH-CNF", "gopcu: DATA_CNF of the PCH IMM ASS (2 s), then it is sent again", func(*Engine, *TBF) time.Duration { return 2 * time.Second }},
	tmT3141:   {"T3141", "TS 44.060 §13.1 (`timer T3141`)", func(e *Engine, t *TBF) time.Duration { return e.params.T3141 }},
	tmT3168:   {"T3168", "TS 44.060 §13.1, 4 × T3168 from SI13 (osmo-pcu tbf_ul_ass_fsm.c)", func(e *Engine, t *TBF) time.Duration { return 4 * t3168(t.bts) }},
	tmT3169:   {"T3169", "TS 44.060 §13.1, INFO_IND", func(e *Engine, t *TBF) time.Duration { return e.btsTimer(t.bts, tmT3169) }},
	tmT3191:   {"T3191", "TS 44.060 §13.1, INFO_IND", func(e *Engine, t *TBF) time.Duration { return e.btsTimer(t.bts, tmT3191) }},
	tmT3193:   {"T3193", "TS 44.060 §13.1, INFO_IND", func(e *Engine, t *TBF) time.Duration { return e.btsTimer(t.bts, tmT3193) }},
	tmT3195:   {"T3195", "TS 44.060 §13.1, INFO_IND", func(e *Engine, t *TBF) time.Duration { return e.btsTimer(t.bts, tmT3195) }},
}

// T3190 (TS 44.060 §13.1, `timer T3190`) is the MS's DL inactivity timer:
// the scheduler polls a DL TBF before half of it passes (highAge); it is
// never armed on a TBF.

// btsTimer is the duration of T3169/T3191/T3193/T3195 for TBFs of bts: the
// BTS's INFO_IND value when it sent one (T3142 != 0), else the default.
func (e *Engine) btsTimer(bts *BTS, k timerKind) time.Duration {
	p := &e.params
	if bts != nil && bts.Info.T3142 != 0 {
		in := &bts.Info
		switch k {
		case tmT3169:
			return time.Duration(in.T3169) * time.Second
		case tmT3191:
			return time.Duration(in.T3191) * time.Second
		case tmT3193:
			return time.Duration(in.T3193x10ms) * 10 * time.Millisecond
		case tmT3195:
			return time.Duration(in.T3195) * time.Second
		}
	}
	switch k {
	case tmT3169:
		return p.T3169
	case tmT3191:
		return p.T3191
	case tmT3193:
		return p.T3193
	}
	return p.T3195
}

// t3168 is T3168 from the cell's SI13 (GPRS Cell Options), 4 s without one.
func t3168(bts *BTS) time.Duration {
	if bts != nil && bts.HaveSI13 {
		return bts.SI13.T3168()
	}
	return 4 * time.Second
}

// nCounter names an N counter of the lifecycle (TS 44.060 §13.3).
type nCounter uint8

const (
	nN3101 nCounter = iota // UL: granted blocks left unused
	nN3103                 // UL: final Ack/Nack polls unanswered
	nN3105                 // DL: polls unanswered
	nCount
)

// tbfCounters: each N counter's maximum (INFO_IND's when the BTS sent one,
// as osmo-pcu) and the event its maximum raises, once: as osmo-pcu's
// tbf_n_inc(), "counter == max" after the increment (a maximum of 0 never
// triggers).
var tbfCounters = [nCount]struct {
	name string
	ev   tbfEvent
	max  func(e *Engine, bts *BTS) int
}{
	nN3101: {"N3101", evMaxN3101, func(e *Engine, b *BTS) int { return e.btsN(b, nN3101) }},
	nN3103: {"N3103", evMaxN3103, func(e *Engine, b *BTS) int { return e.btsN(b, nN3103) }},
	nN3105: {"N3105", evMaxN3105, func(e *Engine, b *BTS) int { return e.btsN(b, nN3105) }},
}

func (e *Engine) btsN(bts *BTS, n nCounter) int {
	if bts != nil && bts.Info.T3142 != 0 {
		return int([nCount]uint8{bts.Info.N3101, bts.Info.N3103, bts.Info.N3105}[n])
	}
	return [nCount]int{e.params.N3101, e.params.N3103, e.params.N3105}[n]
}

// count increments N counter n of t and raises its maximum's event when
// it reaches the maximum. It reports whether it did.
func (e *Engine) count(t *TBF, n nCounter) bool {
	t.n[n]++
	c := &tbfCounters[n]
	if mx := c.max(e, t.bts); mx > 0 && t.n[n] == mx {
		e.tbfLog.Info(c.name+" reached", "tbf", t, "n", t.n[n])
		e.fire(t, c.ev)
		return true
	}
	return false
}

// relReason is why a TBF is released (evRelease, freeTBF).
type relReason uint8

// Release reasons.
const (
	relNone        relReason = iota // (events other than evRelease)
	relFinalAck                     // UL: the final Ack/Nack acknowledged (Control Ack, or a Packet Resource Request in its poll)
	relT3168                        // UL: the PACCH assignment not acknowledged in 4 × T3168
	relX2001                        // DL: the PACCH assignment not acknowledged in X2001
	relT3141                        // UL: no contention resolution in T3141
	relT3169                        // UL: RELEASING ended, the USFs are free
	relT3191                        // DL: no final Ack/Nack in T3191
	relT3193                        // DL: WAIT_RELEASE (or a kept carrier) ended
	relT3195                        // DL: RELEASING after N3105 ended
	relNewUL                        // UL: the MS asked for (or is on) a new UL TBF
	relCCCHPending                  // DL: assigned on CCCH, but the MS is on the PDCH now: assigned again on PACCH
	relCCCHAccess                   // DL: the MS accessed on CCCH, so it has left the TBF: assigned again on PACCH
	relCarrierDone                  // DL: the kept TBF that carried the next TBF's assignment, acknowledged now
	relMerged                       // the MS object merged into another one that has a TBF of this direction
	relSuspend                      // the MS left for a CS call (SUSP_REQ)
	relBTSDown                      // the BTS's radio state is dropped (PCU socket lost, BTS inactive)
	relCount
)

// relReasons: each reason's name and whether the TBF counts as aborted
// (tbf:ul:aborted, tbf:dl:aborted).
var relReasons = [relCount]struct {
	name    string
	aborted bool
}{
	relNone: {"NONE", false}, relFinalAck: {"FINAL_ACK", false}, relT3168: {"T3168", false}, relX2001: {"X2001", false},
	relT3141: {"T3141", true}, relT3169: {"T3169", false}, relT3191: {"T3191", false}, relT3193: {"T3193", false},
	relT3195: {"T3195", false}, relNewUL: {"NEW_UL_TBF", true}, relCCCHPending: {"CCCH_PENDING", false},
	relCCCHAccess: {"CCCH_ACCESS", false}, relCarrierDone: {"CARRIER_DONE", false}, relMerged: {"MS_MERGED", false}, relSuspend: {"SUSPEND", true},
	relBTSDown: {"BTS_DOWN", true},
}

func (r relReason) String() string { return relReasons[r].name }

// in is the set of TBF states s.
func in(s ...TBFState) fsm.States { return fsm.In(s...) }

// stay as the target keeps the state (and its timers).
const stay TBFState = fsm.Stay

// live is every state but RELEASED.
var live = in(TBFNew, TBFAssign, TBFFlow, TBFFinished, TBFWaitRelease, TBFReleasing)

// tbfX is what a lifecycle event is delivered with.
type tbfX struct {
	e   *Engine
	t   *TBF
	why relReason // evRelease
}

// tbfRow is a row of the lifecycle table.
type tbfRow = fsm.Row[TBFState, tbfEvent, tbfX]

// lifecycle is the TBF lifecycle (TS 44.060 §7, §8.1, §9.3, §13; osmo-pcu
// tbf_ul_fsm.c and tbf_dl_fsm.c), one table per direction (DirUL, DirDL).
// The first matching row wins. (Set in init: its actions lead back to
// fire, which reads it.)
var lifecycle [2]fsm.Table[TBFState, tbfEvent, tbfX]

func init() {
	ul, dl := lifecycleRows()
	for d, rows := range [2][]tbfRow{DirUL: ul, DirDL: dl} {
		lifecycle[d] = fsm.Table[TBFState, tbfEvent, tbfX]{
			Rows:   rows,
			State:  func(x tbfX) *TBFState { return &x.t.state },
			Final:  in(TBFReleased),
			Enter:  tbfEnter,
			Trace:  tbfTrace,
			Reject: tbfReject,
		}
	}
}

// lifecycleRows are the UL and the DL lifecycle.
func lifecycleRows() (ul, dl []tbfRow) {
	// every state ends at once on evRelease (an old TBF of an MS that
	// accessed again, a suspended MS, the BTS gone, ...)
	release := tbfRow{From: live, Ev: evRelease, To: TBFReleased, Act: func(x tbfX) { x.e.freeTBF(x.t, x.why) }}
	ul = []tbfRow{
		release,
		// --- assignment --------------------------------------------------------------------
		// one-phase access (IMM ASS on AGCH): the MS comes after X2002;
		// contention resolution must end within T3141 (§7.1.2.3).
		{From: in(TBFNew), Ev: evAssignCCCH, To: TBFAssign, Timer: tmX2002,
			Act: func(x tbfX) { x.t.ccch = true; x.e.startTimer(x.t, tmT3141) }},
		{From: in(TBFAssign), Ev: timeoutEv(tmX2002), To: TBFFlow},
		// on PACCH: a Packet Uplink Assignment, repeated until acked, for
		// at most 4 × T3168
		{From: in(TBFNew, TBFAssign), Ev: evAssignPACCH, To: TBFAssign, Timer: tmT3168,
			Act: func(x tbfX) { x.t.ccch = false; x.t.ctl(&x.t.ulAss, ctlSched) }},
		{From: in(TBFAssign), Ev: timeoutEv(tmT3168), To: TBFReleased,
			Act: func(x tbfX) { x.t.ctl(&x.t.ulAss, ctlAbort); x.e.freeTBF(x.t, relT3168) }},
		// the assignment acknowledged, or the MS shows up on the PDCH
		{From: in(TBFAssign), Ev: evAssignAcked, To: TBFFlow},
		{From: in(TBFAssign), Ev: evData, To: TBFFlow, Act: func(x tbfX) {
			x.t.n[nN3101] = 0
			if x.t.ulAss == ctlSend {
				x.e.ulAssignConfirmed(x.t) // a repetition not sent yet is not needed
			}
		}},
		// --- data transfer -----------------------------------------------------------------
		// every data block restarts N3101 (§13.3: the MS uses its USFs)
		{From: in(TBFFlow, TBFFinished), Ev: evData, To: stay, Act: func(x tbfX) { x.t.n[nN3101] = 0 }},
		// contention resolution done (TS 44.018 §3.5.2.1.4, TS 44.060
		// §7.1.2.3): T3141 stops, and a DL TBF may now be assigned on the
		// PACCH (osmo-pcu tbf_ul.cpp contention_resolution_success()). (A
		// TBF whose N3101 ran out may still send its Ack/Nack.)
		{From: in(TBFFlow, TBFFinished, TBFReleasing), Ev: evContention, To: stay, Act: func(x tbfX) {
			t := x.t
			t.ul.contention = true
			t.bts.Ctr.Inc(CtrImmAssULContentionResolutionSuccess)
			x.e.stopTimer(t, tmT3141)
			if t.ms.Queue.Len() > 0 && t.ms.DL == nil {
				x.e.establishDL(t.bts, t.ms)
			}
		}},
		// --- data transfer ends ------------------------------------------------------------
		// the final Ack/Nack went with a poll: N3103 counts the polls
		// unanswered (§13.3); (one sent again after N3101 ran out counts
		// afresh, the TBF stays RELEASING)
		{From: in(TBFFlow, TBFAssign), Ev: evLastSent, To: TBFFinished, Act: func(x tbfX) { x.t.n[nN3103] = 0 }},
		{From: in(TBFReleasing), Ev: evLastSent, To: stay, Act: func(x tbfX) { x.t.n[nN3103] = 0 }},
		{From: in(TBFFinished), Ev: evFinalAck, To: TBFReleased, Act: func(x tbfX) { x.e.freeTBF(x.t, relFinalAck) }},
		// --- failures --------------------------------------------------------------------------
		{From: in(TBFAssign, TBFFlow, TBFFinished), Ev: evMaxN3101, To: TBFReleasing, Timer: tmT3169},
		{From: in(TBFFinished), Ev: evMaxN3103, To: TBFReleasing, Timer: tmT3169,
			Act: func(x tbfX) { x.t.bts.Ctr.Inc(CtrPktULAckNackFailed) }},
		{From: in(TBFReleasing), Ev: timeoutEv(tmT3169), To: TBFReleased, Act: func(x tbfX) { x.e.freeTBF(x.t, relT3169) }},
		// contention resolution not done in T3141 (§7.1.2.3): the TBF goes
		{From: in(TBFAssign, TBFFlow), Ev: timeoutEv(tmT3141), To: TBFReleased, Act: func(x tbfX) { x.e.freeTBF(x.t, relT3141) }},
	}
	dl = []tbfRow{
		release,
		// --- assignment --------------------------------------------------------------------
		// on PCH (IMM ASS, confirmed by the BTS), settled after X2002
		{From: in(TBFNew, TBFAssign, TBFFlow), Ev: evAssignCCCH, To: TBFAssign, Timer: tmCCCHCnf,
			Act: func(x tbfX) { x.t.ccch = true; x.e.sendDLImmAss(x.t) }},
		{From: in(TBFAssign), Ev: timeoutEv(tmCCCHCnf), To: TBFAssign, Timer: tmCCCHCnf,
			Act: func(x tbfX) { x.e.sendDLImmAss(x.t) }}, // never confirmed: again
		{From: in(TBFAssign), Ev: evAssignCnf, Guard: func(x tbfX) bool { return x.t.ccch }, To: TBFAssign, Timer: tmX2002},
		// a DATA_CNF of an IMM ASS sent again, or of an older TBF's (the
		// TBF assigned on PACCH since; osmo-pcu tbf_dl_fsm.c: ignored)
		{From: in(TBFAssign, TBFFlow), Ev: evAssignCnf, To: stay},
		{From: in(TBFAssign), Ev: timeoutEv(tmX2002), To: stay, Act: func(x tbfX) { x.e.dlAssignSettled(x.t) }},
		{From: in(TBFAssign), Ev: evAssignSettled, To: TBFFlow, Act: func(x tbfX) { x.t.dl.lastPoll, x.t.dl.flowAt = x.e.now, x.e.now }},
		// on PACCH (Packet Downlink Assignment on a carrier's control TS),
		// guarded by X2001
		{From: in(TBFNew, TBFAssign), Ev: evAssignPACCH, To: TBFAssign, Timer: tmX2001,
			Act: func(x tbfX) { x.t.ccch = false; x.t.ctl(&x.t.dlAss, ctlSched) }},
		{From: in(TBFAssign), Ev: timeoutEv(tmX2001), To: TBFReleased,
			Act: func(x tbfX) { x.t.bts.Ctr.Inc(CtrDLAssTimeout); x.e.freeTBF(x.t, relX2001) }},
		// the assignment acknowledged, or the MS shows up on the PDCH
		{From: in(TBFAssign), Ev: evAssignAcked, To: TBFFlow,
			Act: func(x tbfX) { x.t.n[nN3105], x.t.dl.flowAt = 0, x.e.now; x.e.dlAssignAcked(x.t) }},
		{From: in(TBFAssign), Ev: evData, To: TBFFlow, Act: func(x tbfX) { x.t.n[nN3105], x.t.dl.flowAt = 0, x.e.now }},
		// --- data transfer -----------------------------------------------------------------
		// every Ack/Nack restarts N3105 (§13.3)
		{From: in(TBFFlow, TBFFinished, TBFWaitRelease, TBFReleasing), Ev: evData, To: stay,
			Act: func(x tbfX) { x.t.n[nN3105] = 0 }},
		// --- data transfer ends ------------------------------------------------------------
		// T3191 (re)starts with every poll of the final block (§9.3.2.3)
		{From: in(TBFFlow, TBFFinished), Ev: evLastSent, To: TBFFinished, Timer: tmT3191,
			Act: func(x tbfX) { x.t.dl.t3191 = x.t.deadline[tmT3191] }},
		// (a failed DL TBF's frames are discarded, and the MS gets no new
		// DL TBF before new data or its access: dropDLFrames, MS.dlFailed)
		{From: in(TBFFinished), Ev: timeoutEv(tmT3191), To: TBFReleased,
			Act: func(x tbfX) {
				x.t.bts.Ctr.Inc(CtrRLCRelTimedout)
				x.e.dropDLFrames(x.t)
				x.e.freeTBF(x.t, relT3191)
				x.t.ms.dlFailed = true
			}},
		// §9.3.2.4: the MS waits T3192 on the old PACCH; T3193 covers it
		{From: in(TBFFinished), Ev: evFinalAck, To: TBFWaitRelease, Timer: tmT3193,
			Act: func(x tbfX) {
				if x.t.ms.Queue.Len() > 0 {
					x.e.establishDL(x.t.bts, x.t.ms)
				}
			}},
		{From: in(TBFWaitRelease), Ev: evReuse, To: TBFReleasing, Timer: tmT3193, Act: func(x tbfX) { x.e.detachKeep(x.t) }},
		{From: in(TBFWaitRelease, TBFReleasing), Ev: timeoutEv(tmT3193), To: TBFReleased,
			Act: func(x tbfX) { x.e.freeTBF(x.t, relT3193) }},
		// --- failures --------------------------------------------------------------------------
		// a CCCH-assigned DL TBF never acknowledged: the MS probably missed the
		// IMM ASS, assign it again (§7.2.1.1)
		{From: in(TBFFlow), Ev: evAckMiss, Guard: func(x tbfX) bool { return x.t.ccch && !x.t.dl.everAcked },
			To: TBFAssign, Timer: tmCCCHCnf, Act: func(x tbfX) { x.e.sendDLImmAss(x.t) }},
		// otherwise N3105 counts the miss, no more (osmo-pcu tbf_dl_fsm.c:
		// DL_ACKNACK_MISS is permitted from FLOW on)
		{From: in(TBFFlow, TBFFinished, TBFWaitRelease, TBFReleasing), Ev: evAckMiss, To: stay},
		// N3105 with the final block polled: T3191 still ends the TBF if
		// it ends before T3195 (osmo-pcu tbf.cpp: T3191 is a timer of its
		// own that frees the TBF in any state, RELEASING included; TS
		// 44.060 §9.3.2.3: at T3191 the TFI may be reused)
		{From: in(TBFFinished), Ev: evMaxN3105, To: TBFReleasing, Timer: tmT3195,
			Act: func(x tbfX) {
				x.e.dropDLFrames(x.t)
				if at := x.t.dl.t3191; at != 0 && at < x.t.deadline[tmT3195] {
					x.t.deadline[tmT3195] = at
					if x.e.nextDeadline == 0 || at < x.e.nextDeadline {
						x.e.nextDeadline = at
					}
				}
			}},
		{From: in(TBFAssign, TBFFlow, TBFWaitRelease), Ev: evMaxN3105, To: TBFReleasing, Timer: tmT3195,
			Act: func(x tbfX) { x.e.dropDLFrames(x.t) }},
		{From: in(TBFReleasing), Ev: timeoutEv(tmT3195), To: TBFReleased,
			Act: func(x tbfX) { x.e.freeTBF(x.t, relT3195); x.t.ms.dlFailed = true }},
	}
	return ul, dl
}

// tbfEnter: a transition, to another state or back into this one, stops
// the state's timers; the row starts the new one.
func tbfEnter(x tbfX, _ TBFState, k timerKind) {
	x.e.stopStateTimers(x.t)
	if k != tmNone {
		x.e.startTimer(x.t, k)
	}
}

func tbfTrace(x tbfX, ev tbfEvent, from TBFState) {
	if x.e.tbfLog.Enabled(context.Background(), slog.LevelDebug) { // the arguments allocate
		x.e.tbfLog.Debug("TBF event", "tbf", x.t, "event", ev.String(), "from", from.String())
	}
}

func tbfReject(x tbfX, ev tbfEvent, s TBFState) {
	x.e.fsm.rejected(x.e.tbfLog, x.t, "", s.String(), ev.String())
}

// fire delivers ev to t's lifecycle machine. It reports whether a row
// accepted it (a released TBF takes no event).
func (e *Engine) fire(t *TBF, ev tbfEvent) bool {
	return lifecycle[t.dir].Fire(tbfX{e, t, relNone}, ev)
}

// fireRelease delivers evRelease: t ends at once, for why (a released TBF
// stays so). A DL TBF whose IMMEDIATE ASSIGNMENT the BTS has not sent yet
// leaves its TFI held (holdTFI, looked at before the state change stops
// its CCCH-CNF timer).
func (e *Engine) fireRelease(t *TBF, why relReason) bool {
	e.holdTFI(t)
	return lifecycle[t.dir].Fire(tbfX{e, t, why}, evRelease)
}

// stateTimers are the timers that belong to a state and stop when the
// TBF leaves it; T3141 runs across ASSIGN and FLOW until contention
// resolution.
const stateTimers = 1<<tmX2001 | 1<<tmX2002 | 1<<tmCCCHCnf | 1<<tmT3168 | 1<<tmT3169 | 1<<tmT3191 | 1<<tmT3193 | 1<<tmT3195

func (e *Engine) stopStateTimers(t *TBF) {
	for k := timerKind(0); k < tmCount; k++ {
		if stateTimers&(1<<k) != 0 {
			t.deadline[k] = 0
		}
	}
}

// startTimer arms timer k of t for its duration from tbfTimers.
func (e *Engine) startTimer(t *TBF, k timerKind) {
	at := e.now + tbfTimers[k].dur(e, t)
	if at <= 0 {
		at = 1 // 0 means "not running"
	}
	t.deadline[k] = at
	if e.nextDeadline == 0 || at < e.nextDeadline {
		e.nextDeadline = at
	}
}

func (e *Engine) stopTimer(t *TBF, k timerKind) { t.deadline[k] = 0 }

// running reports whether timer k of t runs.
func (t *TBF) running(k timerKind) bool { return t.deadline[k] != 0 }

// expireTimers fires the due timers of t, earliest first; it returns the
// earliest deadline still running (0: none).
func (e *Engine) expireTimers(t *TBF) time.Duration {
	for !t.released() {
		k, at := tmNone, time.Duration(0)
		for i := timerKind(1); i < tmCount; i++ {
			if d := t.deadline[i]; d != 0 && (at == 0 || d < at) {
				k, at = i, d
			}
		}
		if k == tmNone || at > e.now {
			return at
		}
		t.deadline[k] = 0
		e.tbfLog.Debug("TBF timer expired", "tbf", t, "timer", tbfTimers[k].name)
		e.fire(t, timeoutEv(k))
	}
	return 0
}

// --- control procedures ------------------------------------------------------------------

// ctlState is the state of a per-TBF control procedure: a PACCH message
// that has to be sent and, when polled, acknowledged (osmo-pcu
// tbf_ul_ass_fsm.c, tbf_dl_ass_fsm.c, tbf_ul_ack_fsm.c).
type ctlState uint8

// Control procedure states.
const (
	ctlNone    ctlState = iota // nothing to send
	ctlSend                    // scheduled: goes with the next chance on the control TS
	ctlWaitAck                 // sent with a poll: waiting for the Packet Control Ack
	ctlStates
)

var ctlStateNames = [ctlStates]string{"NONE", "SEND", "WAIT_ACK"}

func (s ctlState) String() string { return ctlStateNames[s] }

// ctlEvent is an input to a control procedure.
type ctlEvent uint8

const (
	ctlSched       ctlEvent = iota // the message is needed (again)
	ctlSent                        // sent without a poll
	ctlSentPolled                  // sent with a poll
	ctlAck                         // the poll was answered with a Packet Control Ack
	ctlPollTimeout                 // the poll was not answered
	ctlAbort                       // the procedure ends (TBF released, MS moved on)
	ctlEvents
)

var ctlEventNames = [ctlEvents]string{"SCHED", "SENT", "SENT_POLLED", "RX_CTRL_ACK", "POLL_TIMEOUT", "ABORT"}

func (ev ctlEvent) String() string { return ctlEventNames[ev] }

// ctlX is what a control procedure's event is delivered with: the TBF
// and which of its procedures.
type ctlX struct {
	t *TBF
	s *ctlState
}

// ctlTable is the transition table of every control procedure (fsm.go).
// A message scheduled while a polled one waits is sent again (a
// retransmitted UL block makes the final Packet Uplink Ack/Nack go again,
// with a new poll).
var ctlTable = fsm.Table[ctlState, ctlEvent, ctlX]{
	Rows: []fsm.Row[ctlState, ctlEvent, ctlX]{
		{From: ctlAll, Ev: ctlSched, To: ctlSend},
		{From: fsm.In(ctlSend), Ev: ctlSent, To: ctlNone},
		{From: fsm.In(ctlSend), Ev: ctlSentPolled, To: ctlWaitAck},
		{From: fsm.In(ctlWaitAck), Ev: ctlAck, To: ctlNone},
		{From: fsm.In(ctlWaitAck), Ev: ctlPollTimeout, To: ctlSend},
		{From: ctlAll, Ev: ctlAbort, To: ctlNone},
	},
	State:  func(x ctlX) *ctlState { return x.s },
	Reject: ctlReject,
}

// ctlAll is every control procedure state.
var ctlAll = fsm.In(ctlNone, ctlSend, ctlWaitAck)

func ctlReject(x ctlX, ev ctlEvent, s ctlState) {
	if x.t == nil {
		return // (a bare procedure: tests)
	}
	name := "UL_ACK"
	switch x.s {
	case &x.t.ulAss:
		name = "UL_ASS"
	case &x.t.dlAss:
		name = "DL_ASS"
	case &x.t.ulRej:
		name = "UL_ASS_REJ"
	}
	x.t.bts.fsm.rejected(nil, x.t, name, s.String(), ev.String())
}

// ctl fires ev on s, one of t's control procedures, and keeps the BTS's
// control index (BTS.ctl) up to date: a TBF with a message to send is in
// it, so that the scheduler looks at those TBFs only, not at every TBF of
// the BTS on every RTS_REQ.
func (t *TBF) ctl(s *ctlState, ev ctlEvent) bool {
	ok := ctlTable.Fire(ctlX{t, s}, ev)
	if *s == ctlSend {
		t.noteCtl()
	}
	return ok
}

// ctlPending reports whether one of t's control procedures has a message
// to send.
func (t *TBF) ctlPending() bool {
	return t.ulAss == ctlSend || t.dlAss == ctlSend || t.ulAck == ctlSend || t.ulRej == ctlSend
}

// noteCtl puts a listed TBF into its BTS's control index, kept in the
// order of the BTS's TBF list (listSeq) so that the scheduler sees the
// candidates in the same order as a walk over every TBF would. TBFs
// leave the index lazily, when the scheduler finds nothing to send.
func (t *TBF) noteCtl() {
	if t.inCtl || !t.listed || t.released() {
		return
	}
	b := t.bts
	i := len(b.ctl)
	for i > 0 && b.ctl[i-1].listSeq > t.listSeq {
		i--
	}
	b.ctl = slices.Insert(b.ctl, i, t)
	t.inCtl = true
}
