package config

import (
	"strings"
	"testing"
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
