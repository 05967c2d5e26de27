package vty

import (
	"log/slog"
	"strings"
	"testing"

	"github.com/gopcu/gopcu/internal/logx"
)

// runningLog is the `log stderr` section of `show running-config`.
func runningLog(t *testing.T, s *Session) string {
	t.Helper()
	out := s.Exec("show running-config")
	i := strings.Index(out, "log stderr\n")
	if i < 0 {
		t.Fatalf("no log stderr in %q", out)
	}
	out = out[i:]
	if j := strings.Index(out, "\n!"); j >= 0 {
		out = out[:j+1]
	}
	return out
}

// TestForceAll: `logging level force-all <level>` forces every category of
// the target to the level and is written back before the category levels;
// `no logging level force-all` (and the deprecated `logging level all
// everything`) releases it and the category levels apply again, as
// libosmocore's log_target.loglevel.
func TestForceAll(t *testing.T) {
	v := testTree()
	if err := v.ReadConfig(strings.NewReader("log stderr\n logging level rlcmac error\n logging level force-all info\n"), "t.cfg"); err != nil {
		t.Fatal(err)
	}
	tg := v.Logging.Find("stderr", "")
	if l, ok := tg.Forced(); !ok || l != logx.LevelInfo {
		t.Fatalf("Forced() = %v, %v", l, ok)
	}
	// Forced: the category levels do not matter.
	if !tg.Wants(logx.CatRLCMAC, logx.LevelInfo) || tg.Wants(logx.CatPCU, logx.LevelDebug) {
		t.Fatal("force-all info not applied to every category")
	}
	s := v.NewSession(nil)
	s.Start()
	s.Exec("enable")
	got := runningLog(t, s)
	if !strings.Contains(got, " logging print file 1\n logging level force-all info\n") ||
		!strings.Contains(got, " logging level rlcmac error\n") {
		t.Fatalf("running-config:\n%s", got)
	}
	s.Exec("configure terminal")
	s.Exec("log stderr")
	if out := s.Exec("no logging level force-all"); out != "" {
		t.Fatalf("no logging level force-all: %q", out)
	}
	if _, ok := tg.Forced(); ok {
		t.Fatal("still forced")
	}
	if got := runningLog(t, s); strings.Contains(got, "force-all") {
		t.Fatalf("running-config after release:\n%s", got)
	}
	// Released: the category levels are back.
	if tg.Wants(logx.CatRLCMAC, logx.LevelNotice) || !tg.Wants(logx.CatPCU, logx.LevelNotice) {
		t.Fatal("category levels not back")
	}
	// The deprecated forms.
	s.Exec("logging level all error")
	if l, ok := tg.Forced(); !ok || l != logx.LevelError {
		t.Fatalf("logging level all error: %v %v", l, ok)
	}
	s.Exec("logging level all everything")
	if _, ok := tg.Forced(); ok {
		t.Fatal("logging level all everything did not release")
	}
}

// TestForceAllSession: force-all on a telnet session's `logging enable`
// target, shown by `show logging vty` as libosmocore's "Global Loglevel".
func TestForceAllSession(t *testing.T) {
	s := testSession()
	// showLogging checks `show logging vty`: its Global Loglevel line and
	// a line it contains (when names the step in the failure).
	showLogging := func(when, global, contains string) {
		t.Helper()
		if out := s.Exec("show logging vty"); !strings.HasPrefix(out, " Global Loglevel: "+global+"\n") ||
			!strings.Contains(out, contains) {
			t.Fatalf("show logging vty%s: %q", when, out)
		}
	}
	s.Exec("logging enable")
	showLogging("", "unknown 0x0", "")
	s.Exec("logging level rlcmac debug")
	s.Exec("logging level force-all error")
	showLogging("", "ERROR", "  RLCMAC     DEBUG")
	tg := s.LogTarget()
	if tg.Wants(logx.CatRLCMAC, logx.LevelNotice) || !tg.Wants(logx.CatRLCMAC, logx.LevelError) {
		t.Fatal("session target not forced to error")
	}
	s.Exec("no logging level force-all")
	showLogging(" after release", "unknown 0x0", "")
	if !tg.Wants(logx.CatRLCMAC, logx.LevelDebug) {
		t.Fatal("rlcmac debug not back")
	}
}

// TestSetLogMask: `logging set-log-mask MASK` (libosmocore
// log_parse_category_mask; VIEW/ENABLE only, for the session's own
// `logging enable` target) switches every category of the target off,
// then on for each entry by its libosmocore name: "DRLCMAC" at DEBUG,
// "DLNS,7" at ERROR, and "DRLCMACDL,3" (with a level: a name prefix) every
// category starting with DRLCMACDL at INFO; the deprecated `logging set log
// mask` does the same. Without `logging enable` there is nothing to set.
func TestSetLogMask(t *testing.T) {
	s := testSession()
	s.Exec("enable")
	if out := s.Exec("logging set-log-mask DPCU"); !strings.Contains(out, "Logging was not enabled") {
		t.Fatalf("without logging enable: %q", out)
	}
	s.Exec("logging enable")
	if out := s.Exec("logging set-log-mask drlcmac:DLNS,7:DRLCMACDL,3"); out != "" {
		t.Fatalf("set-log-mask: %q", out)
	}
	tg := s.LogTarget()
	for _, c := range []struct {
		cat  string
		l    slog.Level
		want bool
	}{
		{logx.CatRLCMAC, logx.LevelDebug, true},
		{logx.CatPCU, logx.LevelFatal, false}, // not named: off
		{"lns", logx.LevelError, true},
		{"lns", logx.LevelNotice, false},
		{logx.CatRLCMACDL, logx.LevelInfo, true},
		{logx.CatRLCMACDL, logx.LevelDebug, false},
	} {
		if got := tg.Wants(c.cat, c.l); got != c.want {
			t.Errorf("after the mask, %s at %v: wants %v, want %v", c.cat, c.l, got, c.want)
		}
	}
	s.Exec("logging set log mask DPCU")
	if !tg.Wants(logx.CatPCU, logx.LevelDebug) || tg.Wants(logx.CatRLCMAC, logx.LevelFatal) {
		t.Fatal("deprecated `logging set log mask` not applied")
	}
}
