package config

import (
	"strings"
	"testing"

	"github.com/gopcu/gopcu/vty"
)

func TestExpertModeShowsHidden(t *testing.T) {
	v, _ := newTree(t)
	s := v.NewSession(nil)
	s.Start()
	s.Exec("enable")
	s.Exec("configure terminal")
	s.Exec("pcu")
	if out := s.Exec("list with-flags"); strings.Contains(out, "multislot-class") {
		t.Error("hidden command listed outside expert mode")
	}
	s.Exec("end")
	s.Exec("disable")
	s.Exec("enable expert-mode")
	s.Exec("configure terminal")
	s.Exec("pcu")
	out := s.Exec("list with-flags")
	if !strings.Contains(out, "  ^ n..  multislot-class default <1-45>\n") {
		t.Errorf("expert list:\n%s", out)
	}
	if out := s.Exec("multislot-class default 8"); out != "" {
		t.Errorf("%q", out)
	}
	if !strings.Contains(s.Exec("show running-config"), " multislot-class default 8\n") {
		t.Error("not written back")
	}
}

func TestShowBTSTimers(t *testing.T) {
	v, _ := newTree(t)
	bts := BTSTimers()
	bts.Get(3192).Val = 500
	if err := v.SetHandlerVE("show bts-timer [TNNNN]", func(c *vty.Context) error { return ShowBTSTimers(c, 0, bts) }); err != nil {
		t.Fatal(err)
	}
	s := v.NewSession(nil)
	s.Start()
	got := s.Exec("show bts-timer T3192")
	want := "BTS0:\n T3192 = 500 ms\tTime MS stays monitoring the PDCH after transmitting DL ACK/NACK for last DL block (FBI=1). Configured at the BSC (SI13). (default: 1500 ms)\n"
	if got != want {
		t.Errorf("%q", got)
	}
	if got := s.Exec("show bts-timer T3142"); !strings.HasSuffix(got, "(default: 20 s, range: [0 .. 255])\n") {
		t.Errorf("%q", got)
	}
}
