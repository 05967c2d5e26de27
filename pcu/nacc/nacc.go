// Package nacc is NACC, Network Assisted Cell Change, for one MS at a
// time: the state machine (FSM, one per MS) and the caches of neighbour
// resolutions and system information. It asks everything else of its Env
// (the engine, pcu/nacc_engine.go: the caches it keeps, NEIGH_ADDR_REQ or
// the CTRL interface, RIM over Gb) and is driven by the engine with the
// MS's messages, the answers and its clock.
package nacc

import (
	"fmt"
	"log/slog"
	"time"

	"github.com/gopcu/gopcu/bssgp"
	"github.com/gopcu/gopcu/internal/logx"
	"github.com/gopcu/gopcu/pcu/fsm"
	"github.com/gopcu/gopcu/rlcmac"
)

// NACC: Network Assisted Cell Change (TS 44.060 §8.8.2, TS 48.018 §8c), one
// state machine per MS, with osmo-pcu's states, events and timers
// (osmo-pcu src/nacc_fsm.c):
//
//	INITIAL --PCCN, GSM target--> WAIT_RESOLVE_RAC_CI
//	INITIAL --PCCN, UTRAN/E-UTRAN target--> TX_CELL_CHG_CONTINUE
//	WAIT_RESOLVE_RAC_CI: neighbour cache hit or NEIGH_ADDR_CNF -> WAIT_REQUEST_SI;
//	    X1 or failure -> TX_CELL_CHG_CONTINUE
//	WAIT_REQUEST_SI: target is another cell of this PCU, SI cache hit or
//	    RAN-INFORMATION -> TX_NEIGHBOUR_DATA; X2 or failure -> TX_CELL_CHG_CONTINUE
//	TX_NEIGHBOUR_DATA: the scheduler takes Packet Neighbour Cell Data until
//	    all SI octets went -> TX_CELL_CHG_CONTINUE
//	TX_CELL_CHG_CONTINUE: the scheduler takes Packet Cell Change Continue
//	    with a poll -> WAIT_CELL_CHG_CONTINUE_ACK
//	WAIT_CELL_CHG_CONTINUE_ACK: Packet Control Ack -> DONE; poll timeout ->
//	    TX_CELL_CHG_CONTINUE (sent again, no limit, as osmo-pcu)
//
// The transitions are one table, machine (an fsm.Table, pcu/fsm), whose
// rows start the new state's timer and run osmo-pcu's entry actions;
// TestNACCTable checks every event in every state. A repeated PCCN with
// the same target changes nothing; one with another GSM target restarts
// at WAIT_RESOLVE_RAC_CI; one with a UTRAN/E-UTRAN target goes to
// TX_CELL_CHG_CONTINUE (osmo-pcu handle_retrans_pkt_cell_chg_notif).

type State uint8

const (
	Initial State = iota
	WaitResolve
	WaitSI
	TxNeighbourData
	TxContinue
	WaitContinueAck
	Done
)

var stateNames = [...]string{"INITIAL", "WAIT_RESOLVE_RAC_CI", "WAIT_REQUEST_SI", "TX_NEIGHBOUR_DATA",
	"TX_CELL_CHG_CONTINUE", "WAIT_CELL_CHG_CONTINUE_ACK", "DONE"}

func (s State) String() string { return stateNames[s] }

// Env is what the state machine asks of the engine (or of a test).
type Env interface {
	// NeighLookup consults the neighbour cache.
	NeighLookup(k Key) (bssgp.CellID, bool)
	// NeighRequest asks the BSC to resolve k (PCUIF NEIGH_ADDR_REQ or the
	// CTRL interface); the answer comes as RxRACCI.
	NeighRequest(k Key) error
	// LocalSI returns the SI of another cell of this PCU with this CGI-PS.
	LocalSI(cgi bssgp.CellID) (SI, bool)
	// SILookup consults the SI cache.
	SILookup(cgi bssgp.CellID) (SI, bool)
	// RIMRequest sends a RAN-INFORMATION-REQUEST for cgi; the answer comes
	// as RxSI.
	RIMRequest(cgi bssgp.CellID) error
	// Timeouts are X1 (resolution) and X2 (RAN-INFORMATION).
	Timeouts() (x1, x2 time.Duration)
}

// FSM is the NACC state machine of one MS.
type FSM struct {
	state      State
	key        Key
	keyPresent bool // the target is a GSM cell (ARFCN, BSIC)
	cgi        bssgp.CellID
	si         SI
	sent       int   // SI octets sent in Packet Neighbour Cell Data
	contIdx    uint8 // CONTAINER_INDEX of the next one
	timerOn    bool
	deadline   time.Duration
	timerX     int // 1 or 2
	pollFN     uint32
	pollTS     uint8
	log        *slog.Logger
	env        Env
	localLAC   uint16
	localCI    uint16
	terminated bool // ended with an error (DONE without Continue)
	// Sink counts and logs rejected events (nil: every one is logged)
	Sink Rejecter
}

func New(env Env, servingLAC, servingCI uint16, log *slog.Logger) *FSM {
	return &FSM{env: env, localLAC: servingLAC, localCI: servingCI, log: log}
}

// Event is an input of the NACC state machine.
type Event uint8

const (
	EvNewTarget    Event = iota // a PCCN names a GSM cell other than the current target
	EvSameTarget                // a PCCN repeats the current target
	EvNoSI                      // a PCCN names a UTRAN/E-UTRAN cell (no SI provided)
	EvNoTarget                  // a PCCN names no cell at all
	EvResolved                  // the target's CGI-PS is known (cache or NEIGH_ADDR_CNF)
	EvResolveFail               // the resolution failed or could not be asked
	EvSI                        // the target's SI is known (local cell, cache, RAN-INFORMATION)
	EvSIFail                    // the SI request failed or was refused
	EvTimeout                   // X1 (resolution) or X2 (RAN-INFORMATION) expired
	EvDataSent                  // the last Packet Neighbour Cell Data went out
	EvContinueSent              // the Packet Cell Change Continue went out with a poll
	EvCtrlAck                   // the MS acknowledged the Continue
	EvPollTimeout               // the Continue's poll stayed unanswered
	EvAbort                     // a message could not be encoded: give up
	evCount
)

var eventNames = [evCount]string{"NEW_TARGET", "SAME_TARGET", "NO_SI_TARGET", "NO_TARGET", "RAC_CI_RESOLVED",
	"RAC_CI_FAILED", "SI_RECEIVED", "SI_FAILED", "TIMEOUT", "NEIGHBOUR_DATA_SENT", "CONTINUE_SENT", "CTRL_ACK",
	"POLL_TIMEOUT", "ABORT"}

func (e Event) String() string { return eventNames[e] }

// eventArg is what an event carries.
type eventArg struct {
	key Key
	cgi bssgp.CellID
	si  SI
}

// delivery is what a NACC event is delivered with.
type delivery struct {
	f   *FSM
	a   *eventArg
	now time.Duration
}

// transition is one transition (pcu/fsm): the rows that enter a state start
// its timer (X1 in WAIT_RESOLVE_RAC_CI, X2 in WAIT_REQUEST_SI; osmo-pcu
// nacc_fsm_timeouts[]) and run its entry action (osmo-pcu's onenter).
type transition = fsm.Row[State, Event, delivery]

// NACC timers (FSM.timerX).
const (
	timerX1 fsm.Timer = 1 // WAIT_RESOLVE_RAC_CI: the neighbour resolution
	timerX2 fsm.Timer = 2 // WAIT_REQUEST_SI: the RAN-INFORMATION
)

func inStates(s ...State) fsm.States { return fsm.In(s...) }

// activeStates is every state but INITIAL and DONE.
var activeStates = inStates(WaitResolve, WaitSI, TxNeighbourData, TxContinue, WaitContinueAck)

// machine is the NACC state machine (osmo-pcu nacc_fsm.c, its
// nacc_fsm_states[] and handle_retrans_pkt_cell_chg_notif()). The first
// row that matches the state and the event applies; DONE is terminal (the
// machine is reaped). (Set in init: the entry actions fire events.)
var machine fsm.Table[State, Event, delivery]

func init() {
	machine = fsm.Table[State, Event, delivery]{
		Rows:   tableRows(),
		State:  func(x delivery) *State { return &x.f.state },
		Final:  inStates(Done),
		Enter:  onEnter,
		Trace:  onTrace,
		Reject: onReject,
	}
}

func tableRows() []transition {
	terminate := func(x delivery) { x.f.terminated = true }
	return []transition{
		// a Packet Cell Change Notification
		{From: inStates(Initial) | activeStates, Ev: EvNewTarget, To: WaitResolve, Timer: timerX1,
			Act: func(x delivery) { x.f.key, x.f.keyPresent = x.a.key, true; x.f.onEnterWaitResolve(x.now) }},
		{From: inStates(Initial), Ev: EvNoSI, To: TxContinue, Act: func(x delivery) { x.f.keyPresent = false }},
		{From: inStates(Initial), Ev: EvNoTarget, To: Done, Act: terminate},
		// TX_CELL_CHG_CONTINUE is not re-entered from itself (osmo-pcu)
		{From: activeStates &^ inStates(TxContinue), Ev: EvNoSI, To: TxContinue},
		{From: activeStates &^ inStates(TxContinue), Ev: EvNoTarget, To: TxContinue},
		{From: inStates(TxContinue), Ev: EvNoSI, To: fsm.Stay},
		{From: inStates(TxContinue), Ev: EvNoTarget, To: fsm.Stay},
		// a duplicate: carry on
		{From: activeStates, Ev: EvSameTarget, To: fsm.Stay},
		// WAIT_RESOLVE_RAC_CI (X1)
		{From: inStates(WaitResolve), Ev: EvResolved, To: WaitSI, Timer: timerX2,
			Act: func(x delivery) { x.f.cgi = x.a.cgi; x.f.onEnterWaitSI(x.now) }},
		{From: inStates(WaitResolve), Ev: EvResolveFail, To: TxContinue},
		// WAIT_REQUEST_SI (X2)
		{From: inStates(WaitSI), Ev: EvSI, To: TxNeighbourData,
			Act: func(x delivery) { x.f.si = x.a.si; x.f.sent, x.f.contIdx = 0, 0 }},
		{From: inStates(WaitSI), Ev: EvSIFail, To: TxContinue},
		{From: inStates(WaitResolve, WaitSI), Ev: EvTimeout, To: TxContinue},
		// the scheduler's messages
		{From: inStates(TxNeighbourData), Ev: EvDataSent, To: TxContinue},
		{From: inStates(TxContinue), Ev: EvContinueSent, To: WaitContinueAck},
		{From: inStates(WaitContinueAck), Ev: EvCtrlAck, To: Done},
		{From: inStates(WaitContinueAck), Ev: EvPollTimeout, To: TxContinue},
		{From: activeStates, Ev: EvAbort, To: Done, Act: terminate},
	}
}

// onEnter: a state change stops the timer; the row starts the new
// state's.
func onEnter(x delivery, _ State, k fsm.Timer) {
	x.f.timerOn = false
	if k != 0 {
		x.f.startTimer(int(k), x.now)
	}
}

func onTrace(x delivery, ev Event, from State) {
	x.f.log.Debug("NACC state change", "from", from.String(), "to", x.f.state.String(), "event", ev.String())
}

// Rejecter takes the events a state machine rejected: the engine counts
// them (fsm:rejected_event) and logs them, rate-limited, in osmo_fsm's
// words: "<inst>{<state>}: Event <event> not permitted" (machine, when not
// empty, names the instance's machine: "<inst>{<machine>:<state>}").
type Rejecter interface {
	Rejected(log *slog.Logger, inst fmt.Stringer, machine, state, event string)
}

// name names a machine instance in the log lines.
type name string

func (n name) String() string { return string(n) }

func onReject(x delivery, ev Event, s State) {
	if x.f.Sink == nil {
		logx.Notice(x.f.log, fmt.Sprintf("NACC{%s}: Event %s not permitted", s, ev))
		return
	}
	x.f.Sink.Rejected(x.f.log, name("NACC"), "", s.String(), ev.String())
}

// noArg stands for the data of an event that carries none.
var noArg eventArg

// fire applies event ev with the data a (nil: none) at now (machine).
func (f *FSM) fire(ev Event, a *eventArg, now time.Duration) {
	if a == nil {
		a = &noArg
	}
	machine.Fire(delivery{f, a, now}, ev)
}

func (f *FSM) startTimer(x int, now time.Duration) {
	x1, x2 := f.env.Timeouts()
	d := x1
	if x == 2 {
		d = x2
	}
	f.timerOn, f.timerX, f.deadline = true, x, now+d
}

// targetOf derives the neighbour key from a notification (osmo-pcu
// fill_neigh_key_from_bts_pkt_cell_chg_not). present=false: a UTRAN or
// E-UTRAN target, for which no SI is provided (TS 48.018 §8c.6.1); ok=false:
// no target at all.
func (f *FSM) targetOf(m *rlcmac.PacketCellChangeNotification) (k Key, present, ok bool) {
	if arfcn, bsic, gsm := m.TargetGSM(); gsm {
		logx.Notice(f.log, "TargetCell: RAT=GSM", "arfcn", arfcn, "bsic", bsic)
		return Key{f.localLAC, f.localCI, arfcn, bsic}, true, true
	}
	switch {
	case m.Has3G && m.UTRAN.HasFDD:
		logx.Notice(f.log, "TargetCell: RAT=UTRAN => no system information provided", "fdd_arfcn", m.UTRAN.FDDARFCN)
	case m.Has3G && m.UTRAN.HasTDD:
		logx.Notice(f.log, "TargetCell: RAT=UTRAN => no system information provided", "tdd_arfcn", m.UTRAN.TDDARFCN)
	case m.Has3G:
	case m.HasEUTRAN:
		logx.Notice(f.log, "TargetCell: RAT=E-UTRAN => no system information provided",
			"earfcn", m.EUTRAN.EARFCN, "pcid", m.EUTRAN.PCID)
	default:
		logx.Notice(f.log, "TargetCell: (none, invalid)")
		return Key{}, false, false
	}
	return Key{}, false, true
}

// RxNotification handles a Packet Cell Change Notification.
func (f *FSM) RxNotification(m *rlcmac.PacketCellChangeNotification, now time.Duration) {
	k, present, ok := f.targetOf(m)
	switch {
	case !ok:
		f.fire(EvNoTarget, nil, now)
	case !present:
		f.fire(EvNoSI, nil, now)
	case f.state != Initial && f.keyPresent && k == f.key:
		f.fire(EvSameTarget, nil, now) // a duplicate: carry on
	default:
		f.fire(EvNewTarget, &eventArg{key: k}, now)
	}
}

func (f *FSM) onEnterWaitResolve(now time.Duration) {
	if cgi, ok := f.env.NeighLookup(f.key); ok {
		f.fire(EvResolved, &eventArg{cgi: cgi}, now)
		return
	}
	f.log.Debug("no CGI-PS in cache, resolving", "arfcn", f.key.ARFCN, "bsic", f.key.BSIC)
	if err := f.env.NeighRequest(f.key); err != nil {
		f.log.Error("neighbour resolution request failed", "err", err)
		f.fire(EvResolveFail, nil, now)
	}
}

// RxRACCI is the answer of the neighbour resolution for k (nil: failed).
func (f *FSM) RxRACCI(k Key, cgi *bssgp.CellID, now time.Duration) {
	if f.state != WaitResolve || k != f.key {
		return
	}
	if cgi == nil {
		f.fire(EvResolveFail, nil, now)
		return
	}
	f.fire(EvResolved, &eventArg{cgi: *cgi}, now)
}

func (f *FSM) onEnterWaitSI(now time.Duration) {
	if si, ok := f.env.LocalSI(f.cgi); ok {
		f.log.Debug("neighbour CGI-PS addresses a local BTS", "cgi", f.cgi.String())
		f.fire(EvSI, &eventArg{si: si}, now)
		return
	}
	if si, ok := f.env.SILookup(f.cgi); ok {
		f.fire(EvSI, &eventArg{si: si}, now)
		return
	}
	f.log.Info("Tx RIM RAN-INFO to request SI", "cgi", f.cgi.String())
	if err := f.env.RIMRequest(f.cgi); err != nil {
		f.log.Error("failed transmitting RIM RAN-INFO", "cgi", f.cgi.String(), "err", err)
		f.fire(EvSIFail, nil, now)
	}
}

// WaitingSI reports whether the FSM waits for the SI of cgi.
func (f *FSM) WaitingSI(cgi bssgp.CellID) bool {
	return f.state == WaitSI && f.cgi.Equal(cgi)
}

// RxSI delivers the SI of the cell being waited for.
func (f *FSM) RxSI(cgi bssgp.CellID, si SI, now time.Duration) {
	if !f.WaitingSI(cgi) {
		return
	}
	f.fire(EvSI, &eventArg{si: SI{si.PSI, append([]byte(nil), si.Buf...)}}, now)
}

// RxSIError: the SGSN or the target's BSS refused the request for cgi
// (RAN-INFORMATION-ERROR, -APPLICATION-ERROR, or a RAN-INFORMATION with an
// application error): the Continue without SI, not waiting for X2.
func (f *FSM) RxSIError(cgi bssgp.CellID, now time.Duration) {
	if f.WaitingSI(cgi) {
		f.fire(EvSIFail, nil, now)
	}
}

// Tick fires X1/X2.
func (f *FSM) Tick(now time.Duration) {
	if f.timerOn && now >= f.deadline {
		f.timerOn = false
		f.log.Info("NACC timeout", "timer", f.timerX, "state", f.state.String())
		f.fire(EvTimeout, nil, now)
	}
}

// RTS reports whether the FSM has a control message for the scheduler.
func (f *FSM) RTS() bool { return f.state == TxNeighbourData || f.state == TxContinue }

// Container sizes of a Packet Neighbour Cell Data (TS 44.060 §11.2.9e):
// the first message carries ARFCN/BSIC and 17 container octets, the others
// 19; the first octet of each is PD (3 bits) + CD_LENGTH (5 bits).
const (
	pncdFirstData = 17 - 1
	pncdNextData  = 19 - 1
	cdLenContinue = 0x1f // "the container continues in the next message"
)

// NeighbourData builds the next Packet Neighbour Cell Data (osmo-pcu
// create_packet_neighbour_cell_data): one container per message, filled
// up to its size with CD_LENGTH 31 while more follows; the last one has the
// remaining length, or 0 when the previous message ended exactly.
func (f *FSM) NeighbourData(tfi rlcmac.GlobalTFI, now time.Duration) *rlcmac.PacketNeighbourCellData {
	m := &rlcmac.PacketNeighbourCellData{GlobalTFI: tfi, ContainerIndex: f.contIdx}
	var cont []byte
	max := pncdNextData
	if f.contIdx == 0 {
		m.HasID, m.ARFCN, m.BSIC = true, f.key.ARFCN, f.key.BSIC
		cont, max = m.Container[:17], pncdFirstData
	} else {
		cont = m.Container[:19]
	}
	var pd byte // 000: BCCH (SI) messages, 001: PSI
	if f.si.PSI {
		pd = 1
	}
	left := len(f.si.Buf) - f.sent
	done := true
	switch {
	case left == 0:
		cont[0] = pd << 5
	case left >= max:
		done = false // a full container always has a successor, maybe empty
		cont[0] = pd<<5 | cdLenContinue
		copy(cont[1:], f.si.Buf[f.sent:f.sent+max])
		f.sent += max
	default:
		cont[0] = pd<<5 | byte(left)
		copy(cont[1:], f.si.Buf[f.sent:])
		f.sent += left
	}
	f.contIdx++
	if done {
		f.fire(EvDataSent, nil, now)
	}
	return m
}

// CellChangeContinue builds the Packet Cell Change Continue (TS 44.060
// §11.2.2a; osmo-pcu: ARFCN/BSIC when the target is a GSM cell,
// CONTAINER_ID 0).
func (f *FSM) CellChangeContinue(tfi rlcmac.GlobalTFI) *rlcmac.PacketCellChangeContinue {
	m := &rlcmac.PacketCellChangeContinue{GlobalTFI: tfi}
	if f.keyPresent {
		m.HasID, m.ARFCN, m.BSIC = true, f.key.ARFCN, f.key.BSIC
	}
	return m
}

// ContinueSent: the Continue went out with a poll at (fn, ts).
func (f *FSM) ContinueSent(fn uint32, ts uint8, now time.Duration) {
	f.pollFN, f.pollTS = fn, ts
	f.fire(EvContinueSent, nil, now)
}

// ExpectsAck reports whether a Packet Control Ack at (fn, ts) answers the
// Continue's poll (osmo-pcu nacc_fsm_exp_ctrl_ack).
func (f *FSM) ExpectsAck(fn uint32, ts uint8) bool {
	return f.state == WaitContinueAck && f.pollFN == fn && f.pollTS == ts
}

// RxControlAck: the MS acknowledged the Continue.
func (f *FSM) RxControlAck(now time.Duration) { f.fire(EvCtrlAck, nil, now) }

// ContinueTimeout: the poll of the Continue stayed unanswered.
func (f *FSM) ContinueTimeout(now time.Duration) {
	f.fire(EvPollTimeout, nil, now)
}

// State is the machine's state.
func (f *FSM) State() State { return f.state }

// Abort gives up (a message could not be encoded): DONE, terminated.
func (f *FSM) Abort(now time.Duration) { f.fire(EvAbort, nil, now) }
