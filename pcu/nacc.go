package pcu

import (
	"log/slog"
	"time"

	"github.com/gopcu/gopcu/bssgp"
	"github.com/gopcu/gopcu/internal/logx"
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
// The transitions are one table, naccTable (an fsmTable, fsm.go), whose
// rows start the new state's timer and run osmo-pcu's entry actions;
// TestNACCTable checks every event in every state. A repeated PCCN with
// the same target changes nothing; one with another GSM target restarts
// at WAIT_RESOLVE_RAC_CI; one with a UTRAN/E-UTRAN target goes to
// TX_CELL_CHG_CONTINUE (osmo-pcu handle_retrans_pkt_cell_chg_notif).

type naccState uint8

const (
	naccInitial naccState = iota
	naccWaitResolve
	naccWaitSI
	naccTxNeighbourData
	naccTxContinue
	naccWaitContinueAck
	naccDone
)

var naccStateNames = [...]string{"INITIAL", "WAIT_RESOLVE_RAC_CI", "WAIT_REQUEST_SI", "TX_NEIGHBOUR_DATA",
	"TX_CELL_CHG_CONTINUE", "WAIT_CELL_CHG_CONTINUE_ACK", "DONE"}

func (s naccState) String() string { return naccStateNames[s] }

// naccEnv is what the state machine asks of the engine (or of a test).
type naccEnv interface {
	// neighLookup consults the neighbour cache.
	neighLookup(k neighKey) (bssgp.CellID, bool)
	// neighRequest asks the BSC to resolve k (PCUIF NEIGH_ADDR_REQ or the
	// CTRL interface); the answer comes as rxRACCI.
	neighRequest(k neighKey) error
	// localSI returns the SI of another cell of this PCU with this CGI-PS.
	localSI(cgi bssgp.CellID) (siInfo, bool)
	// siLookup consults the SI cache.
	siLookup(cgi bssgp.CellID) (siInfo, bool)
	// rimRequest sends a RAN-INFORMATION-REQUEST for cgi; the answer comes
	// as rxSI.
	rimRequest(cgi bssgp.CellID) error
	// timeouts are X1 (resolution) and X2 (RAN-INFORMATION).
	timeouts() (x1, x2 time.Duration)
}

// naccFSM is the NACC state machine of one MS.
type naccFSM struct {
	state      naccState
	key        neighKey
	keyPresent bool // the target is a GSM cell (ARFCN, BSIC)
	cgi        bssgp.CellID
	si         siInfo
	sent       int   // SI octets sent in Packet Neighbour Cell Data
	contIdx    uint8 // CONTAINER_INDEX of the next one
	timerOn    bool
	deadline   time.Duration
	timerX     int // 1 or 2
	pollFN     uint32
	pollTS     uint8
	log        *slog.Logger
	env        naccEnv
	localLAC   uint16
	localCI    uint16
	terminated bool     // ended with an error (DONE without Continue)
	sink       *fsmSink // counts rejected events (nil: only logged)
}

func newNACCFSM(env naccEnv, servingLAC, servingCI uint16, log *slog.Logger) *naccFSM {
	return &naccFSM{env: env, localLAC: servingLAC, localCI: servingCI, log: log}
}

// naccEvent is an input of the NACC state machine.
type naccEvent uint8

const (
	naccEvNewTarget    naccEvent = iota // a PCCN names a GSM cell other than the current target
	naccEvSameTarget                    // a PCCN repeats the current target
	naccEvNoSI                          // a PCCN names a UTRAN/E-UTRAN cell (no SI provided)
	naccEvNoTarget                      // a PCCN names no cell at all
	naccEvResolved                      // the target's CGI-PS is known (cache or NEIGH_ADDR_CNF)
	naccEvResolveFail                   // the resolution failed or could not be asked
	naccEvSI                            // the target's SI is known (local cell, cache, RAN-INFORMATION)
	naccEvSIFail                        // the SI request failed or was refused
	naccEvTimeout                       // X1 (resolution) or X2 (RAN-INFORMATION) expired
	naccEvDataSent                      // the last Packet Neighbour Cell Data went out
	naccEvContinueSent                  // the Packet Cell Change Continue went out with a poll
	naccEvCtrlAck                       // the MS acknowledged the Continue
	naccEvPollTimeout                   // the Continue's poll stayed unanswered
	naccEvAbort                         // a message could not be encoded: give up
	naccEvCount
)

var naccEventNames = [naccEvCount]string{"NEW_TARGET", "SAME_TARGET", "NO_SI_TARGET", "NO_TARGET", "RAC_CI_RESOLVED",
	"RAC_CI_FAILED", "SI_RECEIVED", "SI_FAILED", "TIMEOUT", "NEIGHBOUR_DATA_SENT", "CONTINUE_SENT", "CTRL_ACK",
	"POLL_TIMEOUT", "ABORT"}

func (e naccEvent) String() string { return naccEventNames[e] }

// naccArg is what an event carries.
type naccArg struct {
	key neighKey
	cgi bssgp.CellID
	si  siInfo
}

// naccX is what a NACC event is delivered with.
type naccX struct {
	f   *naccFSM
	a   *naccArg
	now time.Duration
}

// naccRow is one transition (fsm.go): the rows that enter a state start
// its timer (X1 in WAIT_RESOLVE_RAC_CI, X2 in WAIT_REQUEST_SI; osmo-pcu
// nacc_fsm_timeouts[]) and run its entry action (osmo-pcu's onenter).
type naccRow = fsmRow[naccState, naccEvent, naccX]

// NACC timers (naccFSM.timerX).
const (
	naccX1 fsmTimer = 1 // WAIT_RESOLVE_RAC_CI: the neighbour resolution
	naccX2 fsmTimer = 2 // WAIT_REQUEST_SI: the RAN-INFORMATION
)

func naccIn(s ...naccState) fsmStates { return fsmIn(s...) }

// naccActive is every state but INITIAL and DONE.
var naccActive = naccIn(naccWaitResolve, naccWaitSI, naccTxNeighbourData, naccTxContinue, naccWaitContinueAck)

// naccTable is the NACC state machine (osmo-pcu nacc_fsm.c, its
// nacc_fsm_states[] and handle_retrans_pkt_cell_chg_notif()). The first
// row that matches the state and the event applies; DONE is terminal (the
// machine is reaped). (Set in init: the entry actions fire events.)
var naccTable fsmTable[naccState, naccEvent, naccX]

func init() {
	naccTable = fsmTable[naccState, naccEvent, naccX]{
		rows:   naccRows(),
		state:  func(x naccX) *naccState { return &x.f.state },
		final:  naccIn(naccDone),
		enter:  naccEnter,
		trace:  naccTrace,
		reject: naccReject,
	}
}

func naccRows() []naccRow {
	terminate := func(x naccX) { x.f.terminated = true }
	return []naccRow{
		// a Packet Cell Change Notification
		{from: naccIn(naccInitial) | naccActive, ev: naccEvNewTarget, to: naccWaitResolve, timer: naccX1,
			act: func(x naccX) { x.f.key, x.f.keyPresent = x.a.key, true; x.f.onEnterWaitResolve(x.now) }},
		{from: naccIn(naccInitial), ev: naccEvNoSI, to: naccTxContinue, act: func(x naccX) { x.f.keyPresent = false }},
		{from: naccIn(naccInitial), ev: naccEvNoTarget, to: naccDone, act: terminate},
		// TX_CELL_CHG_CONTINUE is not re-entered from itself (osmo-pcu)
		{from: naccActive &^ naccIn(naccTxContinue), ev: naccEvNoSI, to: naccTxContinue},
		{from: naccActive &^ naccIn(naccTxContinue), ev: naccEvNoTarget, to: naccTxContinue},
		{from: naccIn(naccTxContinue), ev: naccEvNoSI, to: fsmStay},
		{from: naccIn(naccTxContinue), ev: naccEvNoTarget, to: fsmStay},
		// a duplicate: carry on
		{from: naccActive, ev: naccEvSameTarget, to: fsmStay},
		// WAIT_RESOLVE_RAC_CI (X1)
		{from: naccIn(naccWaitResolve), ev: naccEvResolved, to: naccWaitSI, timer: naccX2,
			act: func(x naccX) { x.f.cgi = x.a.cgi; x.f.onEnterWaitSI(x.now) }},
		{from: naccIn(naccWaitResolve), ev: naccEvResolveFail, to: naccTxContinue},
		// WAIT_REQUEST_SI (X2)
		{from: naccIn(naccWaitSI), ev: naccEvSI, to: naccTxNeighbourData,
			act: func(x naccX) { x.f.si = x.a.si; x.f.sent, x.f.contIdx = 0, 0 }},
		{from: naccIn(naccWaitSI), ev: naccEvSIFail, to: naccTxContinue},
		{from: naccIn(naccWaitResolve, naccWaitSI), ev: naccEvTimeout, to: naccTxContinue},
		// the scheduler's messages
		{from: naccIn(naccTxNeighbourData), ev: naccEvDataSent, to: naccTxContinue},
		{from: naccIn(naccTxContinue), ev: naccEvContinueSent, to: naccWaitContinueAck},
		{from: naccIn(naccWaitContinueAck), ev: naccEvCtrlAck, to: naccDone},
		{from: naccIn(naccWaitContinueAck), ev: naccEvPollTimeout, to: naccTxContinue},
		{from: naccActive, ev: naccEvAbort, to: naccDone, act: terminate},
	}
}

// naccEnter: a state change stops the timer; the row starts the new
// state's.
func naccEnter(x naccX, _ naccState, k fsmTimer) {
	x.f.timerOn = false
	if k != 0 {
		x.f.startTimer(int(k), x.now)
	}
}

func naccTrace(x naccX, ev naccEvent, from naccState) {
	x.f.log.Debug("NACC state change", "from", from.String(), "to", x.f.state.String(), "event", ev.String())
}

func naccReject(x naccX, ev naccEvent, s naccState) {
	x.f.sink.rejected(x.f.log, fsmName("NACC"), "", s.String(), ev.String())
}

// naccNoArg stands for the data of an event that carries none.
var naccNoArg naccArg

// fire applies event ev with the data a (nil: none) at now (naccTable).
func (f *naccFSM) fire(ev naccEvent, a *naccArg, now time.Duration) {
	if a == nil {
		a = &naccNoArg
	}
	naccTable.fire(naccX{f, a, now}, ev)
}

func (f *naccFSM) startTimer(x int, now time.Duration) {
	x1, x2 := f.env.timeouts()
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
func (f *naccFSM) targetOf(m *rlcmac.PacketCellChangeNotification) (k neighKey, present, ok bool) {
	if arfcn, bsic, gsm := m.TargetGSM(); gsm {
		logx.Notice(f.log, "TargetCell: RAT=GSM", "arfcn", arfcn, "bsic", bsic)
		return neighKey{f.localLAC, f.localCI, arfcn, bsic}, true, true
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
		return neighKey{}, false, false
	}
	return neighKey{}, false, true
}

// rxNotification handles a Packet Cell Change Notification.
func (f *naccFSM) rxNotification(m *rlcmac.PacketCellChangeNotification, now time.Duration) {
	k, present, ok := f.targetOf(m)
	switch {
	case !ok:
		f.fire(naccEvNoTarget, nil, now)
	case !present:
		f.fire(naccEvNoSI, nil, now)
	case f.state != naccInitial && f.keyPresent && k == f.key:
		f.fire(naccEvSameTarget, nil, now) // a duplicate: carry on
	default:
		f.fire(naccEvNewTarget, &naccArg{key: k}, now)
	}
}

func (f *naccFSM) onEnterWaitResolve(now time.Duration) {
	if cgi, ok := f.env.neighLookup(f.key); ok {
		f.fire(naccEvResolved, &naccArg{cgi: cgi}, now)
		return
	}
	f.log.Debug("no CGI-PS in cache, resolving", "arfcn", f.key.ARFCN, "bsic", f.key.BSIC)
	if err := f.env.neighRequest(f.key); err != nil {
		f.log.Error("neighbour resolution request failed", "err", err)
		f.fire(naccEvResolveFail, nil, now)
	}
}

// rxRACCI is the answer of the neighbour resolution for k (nil: failed).
func (f *naccFSM) rxRACCI(k neighKey, cgi *bssgp.CellID, now time.Duration) {
	if f.state != naccWaitResolve || k != f.key {
		return
	}
	if cgi == nil {
		f.fire(naccEvResolveFail, nil, now)
		return
	}
	f.fire(naccEvResolved, &naccArg{cgi: *cgi}, now)
}

func (f *naccFSM) onEnterWaitSI(now time.Duration) {
	if si, ok := f.env.localSI(f.cgi); ok {
		f.log.Debug("neighbour CGI-PS addresses a local BTS", "cgi", f.cgi.String())
		f.fire(naccEvSI, &naccArg{si: si}, now)
		return
	}
	if si, ok := f.env.siLookup(f.cgi); ok {
		f.fire(naccEvSI, &naccArg{si: si}, now)
		return
	}
	f.log.Info("Tx RIM RAN-INFO to request SI", "cgi", f.cgi.String())
	if err := f.env.rimRequest(f.cgi); err != nil {
		f.log.Error("failed transmitting RIM RAN-INFO", "cgi", f.cgi.String(), "err", err)
		f.fire(naccEvSIFail, nil, now)
	}
}

// waitingSI reports whether the FSM waits for the SI of cgi.
func (f *naccFSM) waitingSI(cgi bssgp.CellID) bool {
	return f.state == naccWaitSI && f.cgi.Equal(cgi)
}

// rxSI delivers the SI of the cell being waited for.
func (f *naccFSM) rxSI(cgi bssgp.CellID, si siInfo, now time.Duration) {
	if !f.waitingSI(cgi) {
		return
	}
	f.fire(naccEvSI, &naccArg{si: siInfo{si.psi, append([]byte(nil), si.buf...)}}, now)
}

// rxSIError: the SGSN or the target's BSS refused the request for cgi
// (RAN-INFORMATION-ERROR, -APPLICATION-ERROR, or a RAN-INFORMATION with an
// application error): the Continue without SI, not waiting for X2.
func (f *naccFSM) rxSIError(cgi bssgp.CellID, now time.Duration) {
	if f.waitingSI(cgi) {
		f.fire(naccEvSIFail, nil, now)
	}
}

// tick fires X1/X2.
func (f *naccFSM) tick(now time.Duration) {
	if f.timerOn && now >= f.deadline {
		f.timerOn = false
		f.log.Info("NACC timeout", "timer", f.timerX, "state", f.state.String())
		f.fire(naccEvTimeout, nil, now)
	}
}

// rts reports whether the FSM has a control message for the scheduler.
func (f *naccFSM) rts() bool { return f.state == naccTxNeighbourData || f.state == naccTxContinue }

// Container sizes of a Packet Neighbour Cell Data (TS 44.060 §11.2.9e):
// the first message carries ARFCN/BSIC and 17 container octets, the others
// 19; the first octet of each is PD (3 bits) + CD_LENGTH (5 bits).
const (
	pncdFirstData = 17 - 1
	pncdNextData  = 19 - 1
	cdLenContinue = 0x1f // "the container continues in the next message"
)

// neighbourData builds the next Packet Neighbour Cell Data (osmo-pcu
// create_packet_neighbour_cell_data): one container per message, filled
// up to its size with CD_LENGTH 31 while more follows; the last one has the
// remaining length, or 0 when the previous message ended exactly.
func (f *naccFSM) neighbourData(tfi rlcmac.GlobalTFI, now time.Duration) *rlcmac.PacketNeighbourCellData {
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
	if f.si.psi {
		pd = 1
	}
	left := len(f.si.buf) - f.sent
	done := true
	switch {
	case left == 0:
		cont[0] = pd << 5
	case left >= max:
		done = false // a full container always has a successor, maybe empty
		cont[0] = pd<<5 | cdLenContinue
		copy(cont[1:], f.si.buf[f.sent:f.sent+max])
		f.sent += max
	default:
		cont[0] = pd<<5 | byte(left)
		copy(cont[1:], f.si.buf[f.sent:])
		f.sent += left
	}
	f.contIdx++
	if done {
		f.fire(naccEvDataSent, nil, now)
	}
	return m
}

// cellChangeContinue builds the Packet Cell Change Continue (TS 44.060
// §11.2.2a; osmo-pcu: ARFCN/BSIC when the target is a GSM cell,
// CONTAINER_ID 0).
func (f *naccFSM) cellChangeContinue(tfi rlcmac.GlobalTFI) *rlcmac.PacketCellChangeContinue {
	m := &rlcmac.PacketCellChangeContinue{GlobalTFI: tfi}
	if f.keyPresent {
		m.HasID, m.ARFCN, m.BSIC = true, f.key.ARFCN, f.key.BSIC
	}
	return m
}

// continueSent: the Continue went out with a poll at (fn, ts).
func (f *naccFSM) continueSent(fn uint32, ts uint8, now time.Duration) {
	f.pollFN, f.pollTS = fn, ts
	f.fire(naccEvContinueSent, nil, now)
}

// expectsAck reports whether a Packet Control Ack at (fn, ts) answers the
// Continue's poll (osmo-pcu nacc_fsm_exp_ctrl_ack).
func (f *naccFSM) expectsAck(fn uint32, ts uint8) bool {
	return f.state == naccWaitContinueAck && f.pollFN == fn && f.pollTS == ts
}

// rxControlAck: the MS acknowledged the Continue.
func (f *naccFSM) rxControlAck(now time.Duration) { f.fire(naccEvCtrlAck, nil, now) }

// continueTimeout: the poll of the Continue stayed unanswered.
func (f *naccFSM) continueTimeout(now time.Duration) {
	f.fire(naccEvPollTimeout, nil, now)
}
