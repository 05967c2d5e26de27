package pcu

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/gopcu/gopcu/pcu/nacc"
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

// tbfIn makes a TBF of direction dir for a new MS (TLLI tlli) and drives
// it to state s (drive).
func tbfIn(tb testing.TB, e *Engine, bts *BTS, dir Dir, s TBFState, tlli uint32) *TBF {
	tb.Helper()
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
	drive(tb, e, t, s)
	return t
}

// drive moves t through the lifecycle table to state s as a TBF assigned
// on PACCH: NEW, ASSIGN (the assignment sent with a poll and acknowledged,
// as the MS does), FLOW, FINISHED, WAIT_RELEASE (DL: the final Ack/Nack);
// RELEASING by N3101 (UL) or N3105 (DL) from FLOW; RELEASED by evRelease.
// Tests never set a TBF's state: they drive it.
func drive(tb testing.TB, e *Engine, t *TBF, s TBFState) { driveVia(tb, e, t, s, false) }

// driveVia is drive, with the assignment on CCCH when ccch: the IMM ASS,
// (DL: its DATA_CNF,) X2002's expiry.
func driveVia(tb testing.TB, e *Engine, t *TBF, s TBFState, ccch bool) {
	tb.Helper()
	step := func(ev tbfEvent) {
		tb.Helper()
		if !e.fire(t, ev) {
			tb.Fatalf("driving %s to %s: %s not accepted", t, s, ev)
		}
	}
	for n := 0; t.state != s; n++ {
		if n > 8 {
			tb.Fatalf("%s does not reach %s", t, s)
		}
		switch {
		case s == TBFReleased:
			e.fireRelease(t, relNone)
		case t.state == TBFNew && ccch:
			step(evAssignCCCH)
		case t.state == TBFNew:
			step(evAssignPACCH)
		case t.state == TBFAssign && t.ccch:
			if t.dir == DirDL {
				step(evAssignCnf)
			}
			step(timeoutEv(tmX2002))
		case t.state == TBFAssign:
			proc := &t.dlAss
			if t.dir == DirUL {
				proc = &t.ulAss
			}
			t.ctl(proc, ctlSentPolled)
			t.ctl(proc, ctlAck)
			step(evAssignAcked)
		case t.state == TBFFlow && s == TBFReleasing && t.dir == DirUL:
			step(evMaxN3101)
		case t.state == TBFFlow && s == TBFReleasing:
			step(evMaxN3105)
		case t.state == TBFFlow:
			step(evLastSent)
		case t.state == TBFFinished && t.dir == DirDL:
			step(evFinalAck)
		default:
			tb.Fatalf("%s does not reach %s", t, s)
		}
	}
	// the acknowledged assignment leaves the BTS's control index, as at
	// the scheduler's next look (buildControl)
	if t.bts != nil && t.inCtl && !t.ctlPending() {
		t.bts.ctl = slices.DeleteFunc(t.bts.ctl, func(x *TBF) bool { return x == t })
		t.inCtl = false
	}
}

// TestLifecycleTable drives every event into a TBF of each direction in
// each state it can reach, assigned on CCCH and on PACCH (and, DL, having
// had an Ack/Nack or not), and checks the outcome against the transitions
// written out here from TS 44.060 and osmo-pcu's tbf_ul_fsm.c /
// tbf_dl_fsm.c: the next state, the timer running, the N counter
// restarted, T3141 stopped. Anything not listed must be rejected (state
// and timers unchanged, counted in fsm:rejected_event). Every row of the
// table must have been taken, and every guarded row must have met its
// event in a state of its own with the guard both true and false.
func TestLifecycleTable(t *testing.T) {
	const (
		N, A, F, Fi, W, R, X = TBFNew, TBFAssign, TBFFlow, TBFFinished, TBFWaitRelease, TBFReleasing, TBFReleased
	)
	// the context a TBF meets an event in
	type ctx struct{ ccch, acked bool }
	type want struct {
		to    TBFState
		timer timerKind // running afterwards (tmNone: none checked)
		reset nCounter  // restarted (nCount: none)
	}
	type spec struct {
		dir  Dir
		from []TBFState
		ev   tbfEvent
		when func(ctx) bool // nil: always
		w    want
	}
	ss := func(s ...TBFState) []TBFState { return s }
	to := func(s TBFState, k timerKind) want { return want{s, k, nCount} }
	restart := func(s TBFState, n nCounter) want { return want{s, tmNone, n} }
	gone := to(X, tmNone)
	specs := []spec{
		// uplink
		{DirUL, ss(N), evAssignCCCH, nil, to(A, tmX2002)},
		{DirUL, ss(N, A), evAssignPACCH, nil, to(A, tmT3168)},
		{DirUL, ss(A), timeoutEv(tmX2002), nil, to(F, tmNone)},
		{DirUL, ss(A), timeoutEv(tmT3168), nil, gone},
		{DirUL, ss(A), evAssignAcked, nil, to(F, tmNone)},
		{DirUL, ss(A), evData, nil, restart(F, nN3101)},
		{DirUL, ss(F), evData, nil, restart(F, nN3101)},
		{DirUL, ss(Fi), evData, nil, restart(Fi, nN3101)},
		{DirUL, ss(F), evContention, nil, to(F, tmNone)},
		{DirUL, ss(Fi), evContention, nil, to(Fi, tmNone)},
		{DirUL, ss(R), evContention, nil, to(R, tmNone)},
		{DirUL, ss(A, F), evLastSent, nil, restart(Fi, nN3103)},
		{DirUL, ss(R), evLastSent, nil, restart(R, nN3103)},
		{DirUL, ss(Fi), evFinalAck, nil, gone},
		{DirUL, ss(A, F, Fi), evMaxN3101, nil, to(R, tmT3169)},
		{DirUL, ss(Fi), evMaxN3103, nil, to(R, tmT3169)},
		{DirUL, ss(R), timeoutEv(tmT3169), nil, gone},
		{DirUL, ss(A, F), timeoutEv(tmT3141), nil, gone},
		{DirUL, ss(N, A, F, Fi, R), evRelease, nil, gone},
		// downlink
		{DirDL, ss(N, A, F), evAssignCCCH, nil, to(A, tmCCCHCnf)},
		{DirDL, ss(A), timeoutEv(tmCCCHCnf), nil, to(A, tmCCCHCnf)},
		{DirDL, ss(A), evAssignCnf, func(c ctx) bool { return c.ccch }, to(A, tmX2002)},
		{DirDL, ss(A), evAssignCnf, nil, to(A, tmNone)}, // (not on CCCH: ignored)
		{DirDL, ss(F), evAssignCnf, nil, to(F, tmNone)},
		{DirDL, ss(A), timeoutEv(tmX2002), nil, to(F, tmNone)}, // (no multislot upgrade with algorithm A)
		{DirDL, ss(A), evAssignSettled, nil, to(F, tmNone)},
		{DirDL, ss(N, A), evAssignPACCH, nil, to(A, tmX2001)},
		{DirDL, ss(A), timeoutEv(tmX2001), nil, gone},
		{DirDL, ss(A), evAssignAcked, nil, restart(F, nN3105)},
		{DirDL, ss(A), evData, nil, restart(F, nN3105)},
		{DirDL, ss(F), evData, nil, restart(F, nN3105)},
		{DirDL, ss(Fi), evData, nil, restart(Fi, nN3105)},
		{DirDL, ss(W), evData, nil, restart(W, nN3105)},
		{DirDL, ss(R), evData, nil, restart(R, nN3105)},
		{DirDL, ss(F, Fi), evLastSent, nil, to(Fi, tmT3191)},
		{DirDL, ss(Fi), timeoutEv(tmT3191), nil, gone},
		{DirDL, ss(Fi), evFinalAck, nil, to(W, tmT3193)},
		{DirDL, ss(W), evReuse, nil, to(R, tmT3193)},
		{DirDL, ss(W, R), timeoutEv(tmT3193), nil, gone},
		{DirDL, ss(F), evAckMiss, func(c ctx) bool { return c.ccch && !c.acked }, to(A, tmCCCHCnf)},
		{DirDL, ss(F), evAckMiss, nil, to(F, tmNone)},
		{DirDL, ss(Fi), evAckMiss, nil, to(Fi, tmNone)},
		{DirDL, ss(W), evAckMiss, nil, to(W, tmNone)},
		{DirDL, ss(R), evAckMiss, nil, to(R, tmNone)},
		{DirDL, ss(A, F, Fi, W), evMaxN3105, nil, to(R, tmT3195)},
		{DirDL, ss(R), timeoutEv(tmT3195), nil, gone},
		{DirDL, ss(N, A, F, Fi, W, R), evRelease, nil, gone},
	}
	lookup := func(dir Dir, s TBFState, ev tbfEvent, c ctx) (want, bool) {
		for _, sp := range specs {
			if sp.dir == dir && sp.ev == ev && slices.Contains(sp.from, s) && (sp.when == nil || sp.when(c)) {
				return sp.w, true
			}
		}
		return want{}, false
	}
	// the row the table takes, found as fire finds it
	type guardSeen struct{ yes, no bool }
	taken := [2][]bool{make([]bool, len(lifecycle[DirUL].Rows)), make([]bool, len(lifecycle[DirDL].Rows))}
	guards := [2]map[int]*guardSeen{{}, {}}
	rowOf := func(e *Engine, tb *TBF, ev tbfEvent) int {
		for i := range lifecycle[tb.dir].Rows {
			r := &lifecycle[tb.dir].Rows[i]
			if r.Ev != ev || r.From&(1<<tb.state) == 0 {
				continue
			}
			if r.Guard != nil {
				g := guards[tb.dir][i]
				if g == nil {
					g = &guardSeen{}
					guards[tb.dir][i] = g
				}
				if !r.Guard(tbfX{e, tb, relNone}) {
					g.no = true
					continue
				}
				g.yes = true
			}
			return i
		}
		return -1
	}

	e, bts := fsmEngine(t, &fakeClock{}, nil)
	tlli := uint32(0xc0100000)
	reachable := [2][]TBFState{DirUL: ss(N, A, F, Fi, R), DirDL: ss(N, A, F, Fi, W, R)}
	for _, dir := range []Dir{DirUL, DirDL} {
		for _, s := range reachable[dir] {
			for _, c := range []ctx{{false, false}, {true, false}, {false, true}, {true, true}} {
				if c.acked && dir == DirUL {
					continue
				}
				for ev := tbfEvent(0); ev < evCount; ev++ {
					tlli++
					tb := tbfIn(t, e, bts, dir, TBFNew, tlli)
					driveVia(t, e, tb, s, c.ccch)
					if dir == DirDL {
						tb.dl.everAcked = c.acked
					}
					tb.n = [nCount]int{1, 1, 1}
					t3141 := tb.running(tmT3141)
					timers := tb.deadline
					name := fmt.Sprintf("%s %s ccch=%v acked=%v %s", dir, s, c.ccch, c.acked, ev)
					w, accepted := lookup(dir, s, ev, c)
					row := rowOf(e, tb, ev)
					rejected := e.l1ctr.Value(L1FSMRejected)
					got := e.fire(tb, ev)
					if row >= 0 {
						taken[dir][row] = true
					}
					switch {
					case got != accepted || got != (row >= 0):
						t.Errorf("%s: accepted %v (row %d), want %v", name, got, row, accepted)
					case !accepted && (tb.state != s || tb.deadline != timers || e.l1ctr.Value(L1FSMRejected) != rejected+1):
						t.Errorf("%s: rejected event moved the TBF to %s (%s), or was not counted", name, tb.state, tb.Debug())
					case accepted && e.l1ctr.Value(L1FSMRejected) != rejected:
						t.Errorf("%s: accepted, but counted as rejected", name)
					case accepted && tb.state != w.to:
						t.Errorf("%s: -> %s, want %s", name, tb.state, w.to)
					case accepted && w.timer != tmNone && !tb.running(w.timer):
						t.Errorf("%s: %s not running (%s)", name, tbfTimers[w.timer].name, tb.Debug())
					case accepted && w.reset != nCount && tb.n[w.reset] != 0:
						t.Errorf("%s: %s not restarted", name, tbfCounters[w.reset].name)
					case accepted && w.to == X && tb.deadline != [tmCount]time.Duration{}:
						t.Errorf("%s: timers of a released TBF run: %s", name, tb.Debug())
					case ev == evContention && accepted && (tb.running(tmT3141) || !tb.ul.contention):
						t.Errorf("%s: T3141 runs on, or the contention is not resolved (%s)", name, tb.Debug())
					case ev == evContention && accepted && s != R && c.ccch && !t3141:
						t.Errorf("%s: T3141 did not run before (the test's CCCH path)", name)
					}
					e.fireRelease(tb, relNone)
				}
			}
		}
	}
	for d, rows := range taken {
		for i, ok := range rows {
			if !ok {
				r := &lifecycle[d].Rows[i]
				t.Errorf("%s row %d (%s -> %s) never taken", Dir(d), i, r.Ev, r.To)
			}
		}
		for i, g := range guards[d] {
			if !g.yes || !g.no {
				t.Errorf("%s row %d (%s): guard seen true %v, false %v", Dir(d), i, lifecycle[d].Rows[i].Ev, g.yes, g.no)
			}
		}
	}
	if len(guards[DirDL]) != 2 {
		t.Errorf("%d guarded DL rows met, want 2 (DATA_CNF on CCCH, ACKNACK_MISS before any Ack/Nack)", len(guards[DirDL]))
	}
	// RELEASED is terminal: nothing is taken, nothing is counted
	for _, dir := range []Dir{DirUL, DirDL} {
		tlli++
		tb := tbfIn(t, e, bts, dir, TBFReleased, tlli)
		rejected := e.l1ctr.Value(L1FSMRejected)
		for ev := tbfEvent(0); ev < evCount; ev++ {
			if e.fire(tb, ev) || tb.state != TBFReleased {
				t.Errorf("%s RELEASED took %s", dir, ev)
			}
		}
		if e.l1ctr.Value(L1FSMRejected) != rejected {
			t.Errorf("%s: events to a released TBF counted as rejected", dir)
		}
	}
}

// TestControlProcedureTable drives every event into a control procedure
// in every state (osmo-pcu tbf_ul_ass_fsm.c, tbf_dl_ass_fsm.c,
// tbf_ul_ack_fsm.c): the state reached, or the event rejected (counted).
func TestControlProcedureTable(t *testing.T) {
	const (
		N, S, W = ctlNone, ctlSend, ctlWaitAck
		no      = ctlStates // rejected
	)
	// want[state][event], events in ctlEvent order: SCHED, SENT,
	// SENT_POLLED, RX_CTRL_ACK, POLL_TIMEOUT, ABORT
	want := [ctlStates][ctlEvents]ctlState{
		N: {S, no, no, no, no, N},
		S: {S, N, W, no, no, N},
		W: {S, no, no, N, S, N},
	}
	e, bts := fsmEngine(t, &fakeClock{}, nil)
	tb := tbfIn(t, e, bts, DirUL, TBFFlow, 0xc0110001)
	for from := ctlState(0); from < ctlStates; from++ {
		for ev := ctlEvent(0); ev < ctlEvents; ev++ {
			tb.ctl(&tb.ulAck, ctlAbort) // back to NONE through the table (ABORT: every state)
			if tb.ulAck != ctlNone {
				t.Fatalf("ABORT left %v", tb.ulAck)
			}
			for _, step := range [ctlStates][]ctlEvent{N: nil, S: {ctlSched}, W: {ctlSched, ctlSentPolled}}[from] {
				tb.ctl(&tb.ulAck, step)
			}
			rejected := e.l1ctr.Value(L1FSMRejected)
			got := tb.ctl(&tb.ulAck, ev)
			w := want[from][ev]
			switch {
			case w == no && (got || tb.ulAck != from || e.l1ctr.Value(L1FSMRejected) != rejected+1):
				t.Errorf("%s + %s: accepted %v, %s; want rejected and counted", from, ev, got, tb.ulAck)
			case w != no && (!got || tb.ulAck != w || e.l1ctr.Value(L1FSMRejected) != rejected):
				t.Errorf("%s + %s: accepted %v, %s; want %s", from, ev, got, tb.ulAck, w)
			}
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

// TestRejectedEventLogged: an event no row accepts is counted in
// fsm:rejected_event and logged at NOTICE in osmo_fsm's words, at most
// one line in 10 s of engine time; the next line that passes says how many
// were held back. The control procedures' go the same way, and NACC's.
func TestRejectedEventLogged(t *testing.T) {
	e, bts, rec := dropEngine(t)
	ul := tbfIn(t, e, bts, DirUL, TBFFlow, 0xc0120001)
	rec.take("")
	for i := 0; i < 3; i++ {
		if e.fire(ul, evFinalAck) {
			t.Fatal("FINAL_ACK accepted in FLOW")
		}
	}
	want := fmt.Sprintf("tbf NOTICE %s{FLOW}: Event FINAL_ACK not permitted", ul)
	if got := rec.take("not permitted"); len(got) != 1 || got[0] != want {
		t.Fatalf("log %q, want %q", got, want)
	}
	if n := e.l1ctr.Value(L1FSMRejected); n != 3 {
		t.Fatalf("fsm:rejected_event %d, want 3", n)
	}
	e.now += opEventInterval
	ul.ctl(&ul.ulAck, ctlAck)
	want = fmt.Sprintf("tbf NOTICE %s{UL_ACK:NONE}: Event RX_CTRL_ACK not permitted (2 similar lines suppressed)", ul)
	if got := rec.take("not permitted"); len(got) != 1 || got[0] != want {
		t.Fatalf("log %q, want %q", got, want)
	}
	e.now += opEventInterval
	f := nacc.New(naccEnvE{e: e}, 1, 6969, e.tbfLog)
	f.Sink = naccSink{e.fsm}
	f.RxControlAck(e.now) // CTRL_ACK in INITIAL
	if got := rec.take("not permitted"); len(got) != 1 || !strings.HasSuffix(got[0], "NACC{INITIAL}: Event CTRL_ACK not permitted") ||
		e.l1ctr.Value(L1FSMRejected) != 5 {
		t.Fatalf("NACC: log %q, fsm:rejected_event %d", got, e.l1ctr.Value(L1FSMRejected))
	}
}
