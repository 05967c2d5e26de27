package pcu

import (
	"fmt"
	"log/slog"
	"time"

	"github.com/gopcu/gopcu/internal/logx"
	"github.com/gopcu/gopcu/internal/ratectr"
)

// The engine's state machines are transition tables of one kind,
// fsmTable: the TBF lifecycle (tbf_fsm.go, lifecycle) and the TBF control
// procedures (ctlTable). NACC (pcu/nacc) uses the same table as package
// pcu/fsm, with exported fields; the TBF tables move there once the files
// that write their rows are quiet (issue #27), and this copy goes.
//
// A row holds a set of states, an event, a guard, the state to enter, the
// timer the new state runs, and an action. An event goes to the first row
// whose states hold the machine's state, whose event it is and whose
// guard (if any) holds in the old state. Then, in this order:
//
//  1. the state changes (unless the row stays): the old state's timer
//     stops and the row's timer starts (the table's enter hook), as
//     osmo_fsm_inst_state_chg() does with its timeout and T arguments
//     (libosmocore fsm.c state_chg);
//  2. the row's action runs, in the new state.
//
// The action runs after the state change because actions fire further
// events, at this machine (a settled assignment goes on to FLOW, a NACC
// state's entry finds the answer in a cache) or at another one (an
// acknowledged assignment releases its carrier): those must see the new
// state, and nothing may set the state after them. In osmo_fsm the
// state's action is entered in the old state and changes the state itself
// (osmo_fsm_inst_state_chg()), mostly before the rest of its work (osmo-pcu
// tbf_dl_fsm.c, tbf_ul_fsm.c); the new state's onenter runs inside the
// state change, after the state is set, and may dispatch further events.
// A row's action is that rest and that onenter; its guard is the test an
// osmo_fsm action makes before it changes the state: it sees the old one.
//
// An event that no row accepts is rejected: it changes nothing, and the
// table's reject hook counts it (fsm:rejected_event) and logs it at NOTICE
// (rate-limited), where osmo_fsm logs "Event %s not permitted" at ERROR
// (libosmocore fsm.c _osmo_fsm_inst_dispatch). An event that is expected
// in a state but has nothing to do there has a row that stays and does
// nothing, as osmo_fsm's in_event_mask permits events that its action
// ignores. A terminal state (final) takes no event and drops them
// quietly, as osmo_fsm drops events to an instance that terminates.

// fsmStates is a set of states of one machine (bit n: state n).
type fsmStates uint16

// fsmIn is the set of states s.
func fsmIn[S ~uint8](s ...S) fsmStates {
	var m fsmStates
	for _, x := range s {
		m |= 1 << x
	}
	return m
}

// fsmStay as the state a row enters: the state does not change, nor do
// its timers.
const fsmStay = 0xff

// fsmTimer names a timer of a machine for its enter hook; 0 is none.
type fsmTimer uint8

// fsmRow is one transition of a table.
type fsmRow[S ~uint8, E ~uint8, X any] struct {
	from  fsmStates
	ev    E
	guard func(X) bool // nil: always
	to    S            // fsmStay: no state change
	timer fsmTimer     // the timer to start on entering to (0: none)
	act   func(X)      // nil: none
}

// fsmTable is a state machine: its rows, in order, and hooks. X is what an
// event is delivered with: the instance and the event's data.
type fsmTable[S ~uint8, E ~uint8, X any] struct {
	rows []fsmRow[S, E, X]
	// state is the instance's state variable.
	state func(X) *S
	// final are the terminal states (no event is taken in them).
	final fsmStates
	// enter runs on every state change, re-entering the same state
	// included, after the state is set and before the row's action: it
	// stops the old state's timers and starts timer. nil: no timers.
	enter func(x X, to S, timer fsmTimer)
	// trace logs a transition (before its action); nil: none.
	trace func(x X, ev E, from S)
	// reject counts and logs an event no row accepted; nil: none.
	reject func(x X, ev E, in S)
}

// fire delivers ev to the instance x: the first row that accepts it
// changes the state, then runs its action. It reports whether a row
// accepted the event.
func (m *fsmTable[S, E, X]) fire(x X, ev E) bool {
	p := m.state(x)
	from := *p
	if m.final&(1<<from) != 0 {
		return false
	}
	for i := range m.rows {
		r := &m.rows[i]
		if r.ev != ev || r.from&(1<<from) == 0 || r.guard != nil && !r.guard(x) {
			continue
		}
		if r.to != fsmStay {
			*p = r.to
			if m.enter != nil {
				m.enter(x, r.to, r.timer)
			}
		}
		if m.trace != nil {
			m.trace(x, ev, from)
		}
		if r.act != nil {
			r.act(x)
		}
		return true
	}
	if m.reject != nil {
		m.reject(x, ev, from)
	}
	return false
}

// fsmSink counts the events the engine's state machines rejected
// (fsm:rejected_event in the pcu:l1if group) and logs them at NOTICE, at
// most one line every opEventInterval of engine time; a line that passes
// after others were held back says how many. Engine goroutine only. A nil
// sink (state machines of unit tests) logs every line and counts nothing.
type fsmSink struct {
	ctr *ratectr.Group
	now *time.Duration // the engine's time
	log *slog.Logger   // for the machines without a logger of their own (tbf)
	lim logx.Limiter
}

func newFSMSink(ctr *ratectr.Group, now *time.Duration, log *slog.Logger) *fsmSink {
	return &fsmSink{ctr: ctr, now: now, log: log, lim: logx.Limiter{Interval: opEventInterval}}
}

// rejected counts a rejected event and logs it to log (nil: the sink's):
// "<instance>{<state>}: Event <event> not permitted", osmo_fsm's words;
// machine, when not empty, names which of the instance's machines it was
// ("<instance>{<machine>:<state>}"). Nothing is formatted for a line held
// back.
func (k *fsmSink) rejected(log *slog.Logger, inst fmt.Stringer, machine, state, event string) {
	if log == nil {
		if k == nil {
			return
		}
		log = k.log
	}
	line := func(suppressed int) string {
		if machine != "" {
			state = machine + ":" + state
		}
		return fmt.Sprintf("%s{%s}: Event %s not permitted%s", inst, state, event, suppressedNote(suppressed))
	}
	if k == nil {
		logx.Notice(log, line(0))
		return
	}
	k.ctr.Inc(L1FSMRejected)
	if ok, s := k.lim.Allow(*k.now); ok {
		logx.Notice(log, line(s))
	}
}
