package fsm

import "testing"

type sw struct {
	state    uint8
	log      []string
	allow    bool
	rejected int
}

// TestFire: the first matching row wins, a guard sees the old state, the
// state changes before the action, a stay row keeps state and timers, an
// event no row takes goes to Reject, a final state drops events quietly.
func TestFire(t *testing.T) {
	const off, on, dead uint8 = 0, 1, 2
	const evOn, evOff, evKill uint8 = 0, 1, 2
	m := &Table[uint8, uint8, *sw]{
		Rows: []Row[uint8, uint8, *sw]{
			{From: In(off), Ev: evOn, Guard: func(s *sw) bool { return s.allow }, To: on, Timer: 7,
				Act: func(s *sw) { s.log = append(s.log, "act in "+string('0'+rune(s.state))) }},
			{From: In(off), Ev: evOn, To: Stay},
			{From: In(on), Ev: evOff, To: off},
			{From: In(off, on), Ev: evKill, To: dead},
		},
		State: func(s *sw) *uint8 { return &s.state },
		Final: In(dead),
		Enter: func(s *sw, to uint8, k Timer) {
			s.log = append(s.log, "enter "+string('0'+rune(to))+" timer "+string('0'+rune(k)))
		},
		Reject: func(s *sw, ev, in uint8) { s.rejected++ },
	}
	s := &sw{}
	if !m.Fire(s, evOn) || s.state != off || len(s.log) != 0 {
		t.Fatalf("guarded row taken or stay row changed state: %d %q", s.state, s.log)
	}
	s.allow = true
	if !m.Fire(s, evOn) || s.state != on || len(s.log) != 2 || s.log[0] != "enter 1 timer 7" || s.log[1] != "act in 1" {
		t.Fatalf("state %d log %q", s.state, s.log)
	}
	if m.Fire(s, evOn) || s.rejected != 1 {
		t.Fatalf("ON in ON accepted, rejected %d", s.rejected)
	}
	if !m.Fire(s, evKill) || s.state != dead {
		t.Fatalf("state %d after KILL", s.state)
	}
	if m.Fire(s, evOff) || s.rejected != 1 {
		t.Fatalf("an event in a final state taken or rejected (%d)", s.rejected)
	}
}
