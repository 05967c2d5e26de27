package logx

import (
	"bytes"
	"context"
	"log/slog"
	"strings"
	"testing"
)

// textLogger is a Registry writing text into the returned buffer, and its
// logger of category cat.
func textLogger(cat string) (*Registry, *bytes.Buffer, *slog.Logger) {
	b := new(bytes.Buffer)
	r := NewText(b)
	return r, b, r.Logger(cat)
}

func TestCategoryLevels(t *testing.T) {
	r, b, l := textLogger(CatL1IF)
	l.Info("hidden")
	if b.Len() != 0 {
		t.Fatalf("info logged at default notice level: %q", b.String())
	}
	if err := r.SetLevel(CatL1IF, LevelDebug); err != nil {
		t.Fatal(err)
	}
	l.Debug("shown", "fn", 42)
	if !strings.Contains(b.String(), "shown") || !strings.Contains(b.String(), "cat=l1if") {
		t.Fatalf("debug line missing: %q", b.String())
	}
	if err := r.SetLevel("nope", LevelDebug); err == nil {
		t.Fatal("unknown category accepted")
	}
	if lv, err := ParseLevel("notice"); err != nil || lv != LevelNotice {
		t.Fatal("ParseLevel notice")
	}
}

// TestDisabledCategory: osmo-pcu 1.1.0 starts with csn1 disabled: nothing
// is logged for it, at any level, until SetLevel (`logging level csn1 X`)
// or SetAll enables it; SetEnabled turns it off again.
func TestDisabledCategory(t *testing.T) {
	r, b, l := textLogger(CatCSN1)
	l.Error("off")
	if b.Len() != 0 {
		t.Fatalf("disabled csn1 logged: %q", b.String())
	}
	for _, c := range r.Categories() {
		if c.Enabled != (c.Name != CatCSN1) {
			t.Errorf("%s enabled=%v", c.Name, c.Enabled)
		}
	}
	if err := r.SetLevel(CatCSN1, LevelNotice); err != nil {
		t.Fatal(err)
	}
	l.Info("info-hidden")
	l.Error("on")
	if got := b.String(); !strings.Contains(got, "msg=on") || strings.Contains(got, "info-hidden") {
		t.Fatalf("after SetLevel: %q", got)
	}
	if err := r.SetEnabled(CatCSN1, false); err != nil {
		t.Fatal(err)
	}
	b.Reset()
	l.Error("off-again")
	if b.Len() != 0 {
		t.Fatalf("csn1 logged after SetEnabled(false): %q", b.String())
	}
	if lv, _ := r.Level(CatCSN1); lv != LevelNotice {
		t.Fatalf("level lost: %v", lv)
	}
	r.SetAll(LevelError)
	l.Error("set-all")
	if !strings.Contains(b.String(), "set-all") {
		t.Fatalf("SetAll did not enable csn1: %q", b.String())
	}
}

// TestDemand: a demand (another output's wish, e.g. a telnet session at
// debug) lowers the level loggers emit at without touching the base
// level; removing it restores the base; a disabled category is emitted
// when a demand wants it.
func TestDemand(t *testing.T) {
	r, b, l := textLogger(CatPCU)
	l.Debug("before")
	r.SetDemand("sess", map[string]slog.Level{CatPCU: LevelDebug, CatCSN1: LevelInfo})
	l.Debug("during")
	r.Logger(CatCSN1).Info("csn1-during")
	r.Logger(CatCSN1).Debug("csn1-debug")
	if lv, _ := r.Level(CatPCU); lv != LevelNotice {
		t.Fatalf("base level changed: %v", lv)
	}
	if lv, _ := r.Effective(CatPCU); lv != LevelDebug {
		t.Fatalf("effective %v", lv)
	}
	r.SetDemand("other", map[string]slog.Level{CatPCU: LevelError})
	r.SetDemand("sess", nil)
	l.Debug("after")
	got := b.String()
	if strings.Contains(got, "before") || !strings.Contains(got, "during") || !strings.Contains(got, "csn1-during") ||
		strings.Contains(got, "csn1-debug") || strings.Contains(got, "after") {
		t.Fatalf("%q", got)
	}
	if lv, _ := r.Effective(CatCSN1); lv != LevelOff {
		t.Fatalf("csn1 effective %v after the demand went", lv)
	}
	// A category created after the demand gets it too.
	r.SetDemand("sess", map[string]slog.Level{"newcat": LevelDebug})
	if !r.Logger("newcat").Enabled(context.Background(), LevelDebug) {
		t.Fatal("demand not applied to a new category")
	}
}

// TestNotWantedCostsNothing: a record below every level is dropped by one
// atomic load, without allocating.
func TestNotWantedCostsNothing(t *testing.T) {
	r := New(NewFanout(discardHandler{}))
	r.SetDemand("sess", map[string]slog.Level{CatRLCMAC: LevelInfo})
	l := r.Logger(CatPCU).With("bts", 0)
	c := r.Logger(CatCSN1)
	if n := testing.AllocsPerRun(1000, func() {
		l.Debug("x", "tfi", 1)
		c.Error("y", "tfi", 2)
	}); n != 0 {
		t.Fatalf("%v allocations per unwanted record", n)
	}
}

// BenchmarkNotWanted is the cost of a debug record nothing wants.
func BenchmarkNotWanted(b *testing.B) {
	l := New(NewFanout(discardHandler{})).Logger(CatPCU).With("bts", 0)
	b.ReportAllocs()
	for b.Loop() {
		l.Debug("x", "tfi", 1)
	}
}

// TestLevelNameAndColor: each slog level between two Osmocom levels takes
// the name and color of the upper one; above ERROR it is FATAL, red.
func TestLevelNameAndColor(t *testing.T) {
	for _, c := range []struct {
		l           slog.Level
		name, color string
	}{
		{LevelDebug - 1, "DEBUG", "\033[1;34m"}, {LevelDebug, "DEBUG", "\033[1;34m"}, {LevelDebug + 1, "INFO", "\033[1;32m"},
		{LevelInfo, "INFO", "\033[1;32m"}, {LevelNotice, "NOTICE", "\033[1;33m"}, {LevelNotice + 1, "ERROR", "\033[1;31m"},
		{LevelError, "ERROR", "\033[1;31m"}, {LevelError + 1, "FATAL", "\033[1;31m"}, {LevelFatal, "FATAL", "\033[1;31m"},
	} {
		if n, col := LevelName(c.l), levelColor(c.l); n != c.name || col != c.color {
			t.Errorf("level %d: %s %q, want %s %q", c.l, n, col, c.name, c.color)
		}
	}
}
