package pcu

import (
	"fmt"
	"log/slog"
	"time"

	"github.com/gopcu/gopcu/internal/logx"
	"github.com/gopcu/gopcu/internal/ratectr"
)

// The engine's state machines are transition tables of one kind,
// fsm.Table (package pcu/fsm): the TBF lifecycle (tbf_fsm.go, lifecycle),
// the TBF control procedures (ctlTable) and NACC (pcu/nacc). This file
// keeps the engine's side: why the order is what it is, and fsmSink, which
// counts and logs the events no row took.
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
