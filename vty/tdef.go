package vty

import (
	"fmt"
	"strconv"
)

// TdefUnit is the unit of a timer (libosmocore enum osmo_tdef_unit).
type TdefUnit int

// Timer units.
const (
	UnitS TdefUnit = iota
	UnitMS
	UnitM
	UnitCustom
	UnitMinutes
	UnitUS
)

func (u TdefUnit) String() string {
	switch u {
	case UnitS:
		return "s"
	case UnitMS:
		return "ms"
	case UnitM:
		return "m"
	case UnitMinutes:
		return "min"
	case UnitUS:
		return "us"
	}
	return "custom-unit"
}

// Tdef is one configurable timer (libosmocore struct osmo_tdef). T > 0 is
// a 3GPP timer "T3113", T < 0 an Osmocom timer "X2031".
type Tdef struct {
	T        int
	Default  uint64
	Unit     TdefUnit
	Desc     string
	Val      uint64
	Min, Max uint64
}

// Name is "T3113" or "X2031".
func (t *Tdef) Name() string {
	if t.T >= 0 {
		return fmt.Sprintf("T%d", t.T)
	}
	return fmt.Sprintf("X%d", -t.T)
}

// Tdefs is a timer table.
type Tdefs []*Tdef

// Reset sets every timer to its default.
func (ts Tdefs) Reset() {
	for _, t := range ts {
		t.Val = t.Default
	}
}

// Get returns the timer with number T (negative for X timers).
func (ts Tdefs) Get(T int) *Tdef {
	for _, t := range ts {
		if t.T == T {
			return t
		}
	}
	return nil
}

// parseT parses "T1234"/"X1234" and prints libosmocore's messages.
func (ts Tdefs) parseT(c *Context, arg string) *Tdef {
	s := arg
	sign := 1
	if len(s) > 0 && (s[0] == 't' || s[0] == 'T') {
		s = s[1:]
	} else if len(s) > 0 && (s[0] == 'x' || s[0] == 'X') {
		s = s[1:]
		sign = -1
	}
	n, err := strconv.ParseInt(s, 10, 32)
	if len(s) == 0 || s[0] < '0' || s[0] > '9' || err != nil || n < 0 {
		c.Printf("%% Invalid T timer argument (should be 'T1234' or 'X1234'): '%s'\n", arg)
		return nil
	}
	T := int(n) * sign
	t := ts.Get(T)
	if t == nil {
		if T >= 0 {
			c.Printf("%% No such timer: T%d\n", T)
		} else {
			c.Printf("%% No such timer: X%d\n", -T)
		}
	}
	return t
}

func (t *Tdef) rangeStr() string {
	if t.Max == 0 {
		return fmt.Sprintf("[%d .. inf]", t.Min)
	}
	return fmt.Sprintf("[%d .. %d]", t.Min, t.Max)
}

// ShowOne prints one timer line like osmo_tdef_vty_out_one.
func (t *Tdef) ShowOne(c *Context, prefix string) {
	c.Print(prefix)
	c.Printf("%s = %d", t.Name(), t.Val)
	if t.Unit != UnitCustom {
		c.Printf(" %s", t.Unit)
	}
	c.Printf("\t%s (default: %d", t.Desc, t.Default)
	if t.Unit != UnitCustom {
		c.Printf(" %s", t.Unit)
	}
	if t.Min != 0 || t.Max != 0 {
		c.Printf(", range: %s", t.rangeStr())
	}
	c.Print(")\n")
}

// Show implements `show timer [TNNNN]` (osmo_tdef_vty_show_cmd).
func (ts Tdefs) Show(c *Context, arg string, prefix string) error {
	if arg != "" {
		t := ts.parseT(c, arg)
		if t == nil {
			return ErrWarning
		}
		t.ShowOne(c, prefix)
		return nil
	}
	for _, t := range ts {
		t.ShowOne(c, prefix)
	}
	return nil
}

// Set implements `timer TNNNN (<0-2147483647>|default)`.
func (ts Tdefs) Set(c *Context, arg, val string) error {
	t := ts.parseT(c, arg)
	if t == nil {
		return ErrWarning
	}
	var v uint64
	if val == "default" {
		v = t.Default
	} else {
		n, _ := strconv.ParseInt(val, 10, 64)
		v = uint64(n)
	}
	if v < t.Min || (t.Max != 0 && v > t.Max) {
		return c.Warnf("%% Timer %s value %d is out of range %s\n", t.Name(), v, t.rangeStr())
	}
	t.Val = v
	return nil
}

// Write emits "<prefix>TNNNN VAL" for each non-default timer.
func (ts Tdefs) Write(c *Context, prefix string) {
	for _, t := range ts {
		if t.Val != t.Default {
			c.Printf("%s%s %d\n", prefix, t.Name(), t.Val)
		}
	}
}

// TimerCmd is the handler of osmo's `timer [TNNNN] [(<0-2147483647>|default)]`:
// with fewer than two arguments it shows, otherwise it sets.
func (ts Tdefs) TimerCmd(c *Context) error {
	switch len(c.Args) {
	case 0:
		return ts.Show(c, "", "")
	case 1:
		return ts.Show(c, c.Args[0], "")
	}
	return ts.Set(c, c.Args[0], c.Args[1])
}
