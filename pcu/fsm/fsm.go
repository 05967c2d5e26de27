// Package fsm is the transition table the engine's state machines are
// written as: the TBF lifecycle (pcu tbf_fsm.go lifecycle), the TBF
// control procedures (pcu tbf_fsm.go ctlTable) and NACC (pcu/nacc). The
// engine's side, why the order is what it is and the counting and logging
// of rejected events, is pcu/fsm.go.
//
// A row holds a set of states, an event, a guard, the state to enter, the
// timer the new state runs, and an action. An event goes to the first row
// whose states hold the machine's state, whose event it is and whose
// guard (if any) holds in the old state. Then, in this order:
//
//  1. the state changes (unless the row stays): the table's Enter hook
//     stops the old state's timer and starts the row's, as
//     osmo_fsm_inst_state_chg() does with its timeout and T arguments
//     (libosmocore fsm.c state_chg);
//  2. the row's action runs, in the new state.
//
// The action runs after the state change because actions fire further
// events, which must see the new state. An event no row accepts changes
// nothing and goes to the Reject hook (osmo_fsm's "Event %s not
// permitted", libosmocore fsm.c _osmo_fsm_inst_dispatch); a terminal
// state takes no event and drops them quietly.
package fsm

// States is a set of states of one machine (bit n: state n).
type States uint16

// In is the set of states s.
func In[S ~uint8](s ...S) States {
	var m States
	for _, x := range s {
		m |= 1 << x
	}
	return m
}

// Stay as the state a row enters: the state does not change, nor do its
// timers.
const Stay = 0xff

// Timer names a timer of a machine for its Enter hook; 0 is none.
type Timer uint8

// Row is one transition of a table.
type Row[S ~uint8, E ~uint8, X any] struct {
	From  States
	Ev    E
	Guard func(X) bool // nil: always
	To    S            // Stay: no state change
	Timer Timer        // the timer to start on entering To (0: none)
	Act   func(X)      // nil: none
}

// Table is a state machine: its rows, in order, and hooks. X is what an
// event is delivered with: the instance and the event's data.
type Table[S ~uint8, E ~uint8, X any] struct {
	Rows []Row[S, E, X]
	// State is the instance's state variable.
	State func(X) *S
	// Final are the terminal states (no event is taken in them).
	Final States
	// Enter runs on every state change, re-entering the same state
	// included, after the state is set and before the row's action: it
	// stops the old state's timers and starts timer. nil: no timers.
	Enter func(x X, to S, timer Timer)
	// Trace logs a transition (before its action); nil: none.
	Trace func(x X, ev E, from S)
	// Reject counts and logs an event no row accepted; nil: none.
	Reject func(x X, ev E, in S)
}

// Fire delivers ev to the instance x: the first row that accepts it
// changes the state, then runs its action. It reports whether a row
// accepted the event.
func (m *Table[S, E, X]) Fire(x X, ev E) bool {
	p := m.State(x)
	from := *p
	if m.Final&(1<<from) != 0 {
		return false
	}
	for i := range m.Rows {
		r := &m.Rows[i]
		if r.Ev != ev || r.From&(1<<from) == 0 || r.Guard != nil && !r.Guard(x) {
			continue
		}
		if r.To != Stay {
			*p = r.To
			if m.Enter != nil {
				m.Enter(x, r.To, r.Timer)
			}
		}
		if m.Trace != nil {
			m.Trace(x, ev, from)
		}
		if r.Act != nil {
			r.Act(x)
		}
		return true
	}
	if m.Reject != nil {
		m.Reject(x, ev, from)
	}
	return false
}
