package pcu

import (
	"fmt"
	"testing"
	"time"

	"github.com/gopcu/gopcu/pcu/pcuif"
	"github.com/gopcu/gopcu/rlcmac"
)

// fakeClock is a monotonic clock the test moves.
type fakeClock struct{ t time.Duration }

func (c *fakeClock) Now() time.Duration { return c.t }

// fsmEngine is an engine with one active BTS (CS-1..4, PDCHs on TS 0-7,
// TRX 0 on ARFCN 871) on a clock the test moves, fed directly. mod edits
// the INFO_IND first. Radio time starts at FN 0.
func fsmEngine(tb testing.TB, clk *fakeClock, mod func(*pcuif.InfoInd)) (*Engine, *BTS) {
	ii := &pcuif.InfoInd{Version: pcuif.V12, Flags: pcuif.FlagActive | pcuif.FlagCS(1) | pcuif.FlagCS(2) | pcuif.FlagCS(3) | pcuif.FlagCS(4), InitialCS: 2}
	ii.TRX[0].PDCHMask = 0xff
	ii.TRX[0].ARFCN = 871
	if mod != nil {
		mod(ii)
	}
	p := DefaultParams()
	p.AllocAlgo = "a" // one slot per TBF: no multislot upgrade after X2002
	e, bts := configEngine(tb, Config{Clock: clk, Params: &p}, ii)
	e.advance(bts, 0)
	return e, bts
}

// tbfIn makes a TBF of direction dir for a new MS (TLLI tlli), in state s.
func tbfIn(tb testing.TB, e *Engine, bts *BTS, dir Dir, s TBFState, tlli uint32) *TBF {
	m := e.newMS(bts, tlli)
	m.MSClass = 1
	var t *TBF
	var err error
	if dir == DirUL {
		t, err = e.allocUL(bts, m)
	} else {
		t, err = e.allocDL(bts, m, true)
	}
	if err != nil {
		tb.Fatal(err)
	}
	t.state = s
	return t
}

// TestLifecycleTable drives every event, and every timer's expiry, into
// a TBF of each direction in each state, and checks the outcome against
// the transition table written out here from TS 44.060 and osmo-pcu's
// tbf_ul_fsm.c / tbf_dl_fsm.c: the next state, whether the TBF is freed
// and which timer runs. Anything not listed must be ignored (state and
// timers unchanged).
func TestLifecycleTable(t *testing.T) {
	type key struct {
		dir  Dir
		from TBFState
		ev   tbfEvent
		tm   timerKind // evTimer: the timer that expired
	}
	type want struct {
		to    TBFState
		freed bool
		timer timerKind // running afterwards (tmNone: none checked)
	}
	const (
		N, A, F, Fi, W, R = TBFNew, TBFAssign, TBFFlow, TBFFinished, TBFWaitRelease, TBFReleasing
	)
	ok := map[key]want{}
	add := func(dir Dir, froms []TBFState, ev tbfEvent, tm timerKind, w want) {
		for _, s := range froms {
			ok[key{dir, s, ev, tm}] = w
		}
	}
	ss := func(s ...TBFState) []TBFState { return s }
	free := want{to: TBFReleased, freed: true, timer: tmNone}
	// uplink
	add(DirUL, ss(N), evAssignCCCH, tmNone, want{A, false, tmX2002})
	add(DirUL, ss(N, A), evAssignPACCH, tmNone, want{A, false, tmT3168})
	add(DirUL, ss(A), timeoutEv(tmX2002), tmNone, want{F, false, tmNone})
	add(DirUL, ss(A), timeoutEv(tmT3168), tmNone, free)
	add(DirUL, ss(A), evAssignAcked, tmNone, want{F, false, tmNone})
	add(DirUL, ss(A), evData, tmNone, want{F, false, tmNone})
	for _, st := range ss(F, Fi) {
		add(DirUL, ss(st), evData, tmNone, want{st, false, tmNone})
	}
	for _, st := range ss(F, Fi, R) {
		add(DirUL, ss(st), evContention, tmNone, want{st, false, tmNone})
	}
	add(DirUL, ss(R), evLastSent, tmNone, want{R, false, tmNone})
	add(DirUL, ss(A, F), evLastSent, tmNone, want{Fi, false, tmNone})
	add(DirUL, ss(Fi), evFinalAck, tmNone, free)
	add(DirUL, ss(A, F, Fi), evMaxN3101, tmNone, want{R, false, tmT3169})
	add(DirUL, ss(Fi), evMaxN3103, tmNone, want{R, false, tmT3169})
	add(DirUL, ss(R), timeoutEv(tmT3169), tmNone, free)
	add(DirUL, ss(A, F), timeoutEv(tmT3141), tmNone, free)
	// downlink
	add(DirDL, ss(N, A, F), evAssignCCCH, tmNone, want{A, false, tmCCCHCnf})
	add(DirDL, ss(A), timeoutEv(tmCCCHCnf), tmNone, want{A, false, tmCCCHCnf})
	add(DirDL, ss(A), evAssignCnf, tmNone, want{A, false, tmX2002})
	add(DirDL, ss(F), evAssignCnf, tmNone, want{F, false, tmNone})
	add(DirDL, ss(A), timeoutEv(tmX2002), tmNone, want{F, false, tmNone})
	add(DirDL, ss(A), evAssignSettled, tmNone, want{F, false, tmNone})
	add(DirDL, ss(N, A), evAssignPACCH, tmNone, want{A, false, tmX2001})
	add(DirDL, ss(A), timeoutEv(tmX2001), tmNone, free)
	add(DirDL, ss(A), evAssignAcked, tmNone, want{F, false, tmNone})
	add(DirDL, ss(A), evData, tmNone, want{F, false, tmNone})
	for _, st := range ss(F, Fi, W, R) {
		add(DirDL, ss(st), evData, tmNone, want{st, false, tmNone})
	}
	add(DirDL, ss(F, Fi), evLastSent, tmNone, want{Fi, false, tmT3191})
	add(DirDL, ss(Fi), timeoutEv(tmT3191), tmNone, free)
	add(DirDL, ss(Fi), evFinalAck, tmNone, want{W, false, tmT3193})
	add(DirDL, ss(W), evReuse, tmNone, want{R, false, tmT3193})
	add(DirDL, ss(W, R), timeoutEv(tmT3193), tmNone, free)
	add(DirDL, ss(F), evAckMiss, tmNone, want{A, false, tmCCCHCnf})
	for _, st := range ss(Fi, W, R) {
		add(DirDL, ss(st), evAckMiss, tmNone, want{st, false, tmNone})
	}
	add(DirDL, ss(A, F, Fi, W), evMaxN3105, tmNone, want{R, false, tmT3195})
	add(DirDL, ss(R), timeoutEv(tmT3195), tmNone, free)

	for _, d := range []Dir{DirUL, DirDL} {
		add(d, ss(N, A, F, Fi, W, R), evRelease, tmNone, free)
	}

	clk := &fakeClock{}
	e, bts := fsmEngine(t, clk, nil)
	tlli := uint32(0xc0100000)
	seen := 0
	for _, dir := range []Dir{DirUL, DirDL} {
		for s := TBFNew; s <= TBFReleasing; s++ {
			for ev := tbfEvent(0); ev < evCount; ev++ {
				tm := tmNone
				tlli++
				tb := tbfIn(t, e, bts, dir, s, tlli)
				tb.ccch = true // (the guards of the CCCH rows hold)
				name := fmt.Sprintf("%s %s %s", dir, s, ev)
				w, accepted := ok[key{dir, s, ev, tm}]
				got := e.fire(tb, ev)
				switch {
				case got != accepted:
					t.Errorf("%s: accepted %v, want %v", name, got, accepted)
				case !accepted && tb.state != s:
					t.Errorf("%s: ignored event moved the TBF to %s", name, tb.state)
				case accepted && (tb.state != w.to || tb.released() != w.freed):
					t.Errorf("%s: -> %s, want %s", name, tb.state, w.to)
				case accepted && w.timer != tmNone && !tb.running(w.timer):
					t.Errorf("%s: %s not running (%s)", name, tbfTimers[w.timer].name, tb.Debug())
				}
				if accepted {
					seen++
				}
				e.fireRelease(tb, relNone)
			}
		}
	}
	if seen != len(ok) {
		t.Errorf("%d listed transitions accepted, %d listed", seen, len(ok))
	}
}

// TestControlProcedureTable: the UL/DL assignment and UL ack procedures
// (osmo-pcu tbf_ul_ass_fsm.c, tbf_dl_ass_fsm.c, tbf_ul_ack_fsm.c).
func TestControlProcedureTable(t *testing.T) {
	type step struct {
		from ctlState
		ev   ctlEvent
		to   ctlState
		ok   bool
	}
	for _, c := range []step{
		{ctlNone, ctlSched, ctlSend, true},
		{ctlNone, ctlAck, ctlNone, false},
		{ctlNone, ctlPollTimeout, ctlNone, false},
		{ctlSend, ctlSent, ctlNone, true},
		{ctlSend, ctlSentPolled, ctlWaitAck, true},
		{ctlSend, ctlAck, ctlSend, false},
		{ctlWaitAck, ctlAck, ctlNone, true},
		{ctlWaitAck, ctlPollTimeout, ctlSend, true},
		{ctlWaitAck, ctlSched, ctlSend, true},
		{ctlWaitAck, ctlAbort, ctlNone, true},
		{ctlSend, ctlAbort, ctlNone, true},
	} {
		s := c.from
		if got := ctlTable.fire(ctlX{nil, &s}, c.ev); got != c.ok || s != c.to {
			t.Errorf("%s + %d: %s accepted=%v, want %s %v", c.from, c.ev, s, got, c.to, c.ok)
		}
	}
}

// TestNCountersFromInfoInd: the N counters' maxima come from INFO_IND
// (T3142 != 0), as in osmo-pcu: with N3101 = 9 the USF stops after the
// 9th unused grant, with N3105 = 2 a DL TBF is released after 2
// unanswered polls, with the INFO_IND's T3169/T3195.
func TestNCountersFromInfoInd(t *testing.T) {
	e, bts := fsmEngine(t, &fakeClock{}, func(ii *pcuif.InfoInd) {
		ii.T3142, ii.T3169, ii.T3195, ii.N3101, ii.N3103, ii.N3105 = 20, 3, 2, 9, 4, 2
	})
	ul := tbfIn(t, e, bts, DirUL, TBFFlow, 0xc0200001)
	for i := 1; i <= 9; i++ {
		e.usfTimeout(ul)
		if want := map[bool]TBFState{true: TBFReleasing, false: TBFFlow}[i == 9]; ul.state != want {
			t.Fatalf("after %d unused USFs: %s, want %s", i, ul.state, want)
		}
	}
	if d := ul.deadline[tmT3169] - e.now; d != 3*time.Second {
		t.Errorf("T3169 %v, want the INFO_IND's 3 s", d)
	}
	// N3103 = 4: the final Packet Uplink Ack/Nack's poll unanswered 4 times
	fin := tbfIn(t, e, bts, DirUL, TBFFinished, 0xc0200003)
	for i := 1; i <= 4; i++ {
		e.pollTimeout(fin, pollULAck)
	}
	if fin.state != TBFReleasing || bts.Ctr.Value(CtrPktULAckNackFailed) != 1 || bts.Ctr.Value(CtrPktULAckNackTimeout) < 4 {
		t.Fatalf("after 4 final-ack poll timeouts: %s, pkt:ul_ack_nack_failed %d, pkt:ul_ack_nack_timeout %d", fin.state,
			bts.Ctr.Value(CtrPktULAckNackFailed), bts.Ctr.Value(CtrPktULAckNackTimeout))
	}
	dl := tbfIn(t, e, bts, DirDL, TBFFlow, 0xc0200002)
	e.pollTimeout(dl, pollDLAck)
	if dl.state != TBFFlow {
		t.Fatalf("after 1 poll timeout: %s", dl.state)
	}
	e.pollTimeout(dl, pollDLAck)
	if dl.state != TBFReleasing || dl.deadline[tmT3195]-e.now != 2*time.Second {
		t.Fatalf("after 2 poll timeouts: %s %s, want RELEASING with T3195 = 2 s", dl.state, dl.Debug())
	}
}

// TestT3191OnMonotonicClock: T3191 = 1 s; the final block went with its
// poll, no answer, and the BTS sends no RTS for more than 1 s. New DL
// data must find the old TBF released and get a new Immediate Assignment
// (osmo-pcu: TBF timers run on the monotonic clock), not queue on the
// dead TBF.
func TestT3191OnMonotonicClock(t *testing.T) {
	clk := &fakeClock{}
	e, bts := fsmEngine(t, clk, func(ii *pcuif.InfoInd) {
		ii.T3142, ii.T3169, ii.T3191, ii.T3193x10ms, ii.T3195, ii.N3101, ii.N3103, ii.N3105 = 20, 5, 1, 160, 5, 10, 4, 8
	})
	old := tbfIn(t, e, bts, DirDL, TBFFlow, 0xc0300001)
	old.ms.DL = old
	e.fire(old, evLastSent)
	if old.state != TBFFinished || old.deadline[tmT3191]-e.now != time.Second {
		t.Fatalf("final block polled: %s", old.Debug())
	}
	imm := bts.Ctr.Value(CtrImmAssDL)
	clk.t += 1100 * time.Millisecond // no frame from the BTS meanwhile
	e.HandleDLUnitdata(0, &DLUnitdata{TLLI: 0xc0300001, IMSI: "001010000000001", Lifetime: 1000, LLC: []byte{0x41, 0xc0, 1, 2, 3}})
	if !old.released() {
		t.Fatalf("T3191 passed on the monotonic clock, the old TBF is still %s", old.state)
	}
	if nt := old.ms.DL; nt == nil || nt == old || nt.state != TBFAssign || !nt.ccch {
		t.Fatalf("no new DL TBF assigned on CCCH: %v", nt)
	}
	if bts.Ctr.Value(CtrImmAssDL) != imm+1 {
		t.Fatal("no new Immediate Assignment")
	}
	if bts.Ctr.Value(CtrRLCRelTimedout) != 1 {
		t.Fatal("T3191's expiry not counted in rlc:rel:timedout")
	}
}

// TestX2002OnMonotonicClock: after the BTS confirmed the DL Immediate
// Assignment, X2002 (200 ms) passes on the monotonic clock while the BTS
// sends no RTS; the next RTS (one block later in radio time) carries the
// TBF's data, not a dummy block.
func TestX2002OnMonotonicClock(t *testing.T) {
	clk := &fakeClock{}
	e, bts := fsmEngine(t, clk, nil)
	m := e.newMS(bts, 0xc0400001)
	m.MSClass = 1
	m.Queue.Enqueue(e.now, append([]byte{0x41, 0xc0}, make([]byte, 40)...), 0xffff)
	e.establishDL(bts, m)
	dl := m.DL
	if dl == nil || dl.state != TBFAssign {
		t.Fatal("no DL TBF assigned")
	}
	e.dlImmAssConfirmed(bts, m.TLLI)
	if !dl.running(tmX2002) {
		t.Fatalf("X2002 not started: %s", dl.Debug())
	}
	clk.t += 250 * time.Millisecond
	ts := lowestSlot(dl.slots)
	fn := nextBlockFN(0)
	rts := pcuif.RTSReq{SAPI: pcuif.SAPIPDTCH, FN: fn, ARFCN: 871, TS: uint8(ts), BlockNr: uint8(blockNr(fn))}
	blk := e.schedule(bts, &bts.TRX[0].PDCH[ts], &rts)
	if dl.state != TBFFlow {
		t.Fatalf("X2002 passed, TBF still %s", dl.state)
	}
	if len(blk) == 0 || blk[0]>>6 != rlcmac.PTData {
		t.Fatalf("the next block is not the TBF's data: % x", blk)
	}
}

// TestUSFExpiryOnDataInd: a USF granted for the uplink block at FN f and
// left unused counts for N3101 as soon as the BTS reports that block
// (DATA.ind for f, empty), as osmo-pcu does, not 26 frames later.
func TestUSFExpiryOnDataInd(t *testing.T) {
	e, bts := fsmEngine(t, &fakeClock{}, nil)
	ul := tbfIn(t, e, bts, DirUL, TBFFlow, 0xc0500001)
	ts := lowestSlot(ul.slots)
	p := &bts.TRX[0].PDCH[ts]
	fn := nextBlockFN(0)
	rts := pcuif.RTSReq{SAPI: pcuif.SAPIPDTCH, FN: fn, ARFCN: 871, TS: uint8(ts), BlockNr: uint8(blockNr(fn))}
	blk := e.schedule(bts, p, &rts)
	if len(blk) == 0 || blk[0]&7 != ul.ul.usf[ts] {
		t.Fatalf("USF %d not granted: % x", ul.ul.usf[ts], blk)
	}
	e.handleDataInd(bts, &pcuif.Data{SAPI: pcuif.SAPIPDTCH, FN: ulBlockFN(fn), TRX: 0, TS: uint8(ts), ARFCN: 871})
	if ul.n[nN3101] != 1 {
		t.Fatalf("N3101 = %d after the empty granted block was reported, want 1", ul.n[nN3101])
	}
}

// TestT3168EndsPACCHAssignment: an UL TBF assigned on PACCH whose Packet
// Uplink Assignment is never acknowledged is released after 4 × T3168
// (4 × 4 s without SI13), which ends the repetitions.
func TestT3168EndsPACCHAssignment(t *testing.T) {
	clk := &fakeClock{}
	e, bts := fsmEngine(t, clk, nil)
	ul := tbfIn(t, e, bts, DirUL, TBFNew, 0xc0600001)
	ul.puaTRX, ul.puaTS = 0, int8(lowestSlot(ul.slots))
	e.fire(ul, evAssignPACCH)
	clk.t += 15 * time.Second
	e.timersDue()
	if ul.released() || ul.ulAss != ctlSend {
		t.Fatalf("released before 4 × T3168: %s", ul.Debug())
	}
	clk.t += 1100 * time.Millisecond
	e.timersDue()
	if !ul.released() || ul.ulAss != ctlNone {
		t.Fatalf("4 × T3168 passed, the assignment still goes: freed=%v %s", ul.released(), ul.Debug())
	}
}

// TestT3141ContentionResolution: an UL TBF assigned on CCCH whose MS never
// identifies itself is released, as aborted, after T3141.
func TestT3141ContentionResolution(t *testing.T) {
	clk := &fakeClock{}
	e, bts := fsmEngine(t, clk, nil)
	ul := tbfIn(t, e, bts, DirUL, TBFNew, 0xc0700001)
	e.fire(ul, evAssignCCCH)
	aborted := bts.Ctr.Value(CtrTBFULAborted)
	clk.t += e.params.T3141 + time.Millisecond
	e.timersDue()
	if !ul.released() || bts.Ctr.Value(CtrTBFULAborted) != aborted+1 {
		t.Fatalf("T3141 passed: freed=%v aborted %d", ul.released(), bts.Ctr.Value(CtrTBFULAborted)-aborted)
	}
}
