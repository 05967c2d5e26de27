package config

import (
	"strings"
	"testing"
)

// TestQueueExtRoundTrip: gopcu's queue extension commands are accepted in a
// config file, written back after `queue codel`, and absent from the
// running config when not set.
func TestQueueExtRoundTrip(t *testing.T) {
	v, cfg := New("test")
	file := "pcu\n queue codel interval 200\n queue codel target 750000\n queue codel maxpacket 600\n" +
		" queue codel quantum 300\n queue limit ms 100000\n queue limit global 10000000\n"
	if err := v.ReadConfig(strings.NewReader(file), "t.cfg"); err != nil {
		t.Fatal(err)
	}
	if cfg.CodelIntervalMS != 2000 || cfg.Queue.Variant != "" || cfg.Queue.TargetUS != 750000 || cfg.Queue.MaxPacket != 600 ||
		cfg.Queue.Quantum != 300 || cfg.Queue.MSLimit != 100000 || cfg.Queue.GlobalLimit != 10000000 {
		t.Fatalf("config %+v %+v", cfg.CodelIntervalMS, cfg.Queue)
	}
	out := cfg.String()
	want := " queue codel interval 200\n queue codel target 750000\n queue codel maxpacket 600\n" +
		" queue codel quantum 300\n queue limit ms 100000\n queue limit global 10000000\n alloc-algorithm dynamic\n"
	if !strings.Contains(out, want) {
		t.Fatalf("running config:\n%s", out)
	}
	if err := v.ReadConfig(strings.NewReader("pcu\n no queue codel target\n queue codel variant osmo\n queue codel maxpacket 512\n"), "t1.cfg"); err != nil {
		t.Fatal(err)
	}
	if s := cfg.String(); !strings.Contains(s, " queue codel interval 200\n queue codel variant osmo\n queue codel maxpacket 512\n") {
		t.Fatalf("osmo variant:\n%s", s)
	}
	v2, cfg2 := New("test")
	if err := v2.ReadConfig(strings.NewReader("pcu\n no queue codel\n"), "t2.cfg"); err != nil {
		t.Fatal(err)
	}
	if s := cfg2.String(); strings.Contains(s, "variant") || strings.Contains(s, "queue limit") || !strings.Contains(s, " no queue codel\n") {
		t.Fatalf("defaults written back:\n%s", s)
	}
}

// TestMSMaxRoundTrip: `ms-max` (gopcu) is read, written to the running
// config only when set, and `no ms-max` takes it back to the default.
func TestMSMaxRoundTrip(t *testing.T) {
	v, cfg := New("test")
	if err := v.ReadConfig(strings.NewReader("pcu\n ms-max 500\n"), "t.cfg"); err != nil {
		t.Fatal(err)
	}
	if cfg.MSMax != 500 || !strings.Contains(cfg.String(), " ms-max 500\n") {
		t.Fatalf("ms-max %d, running config:\n%s", cfg.MSMax, cfg.String())
	}
	if err := v.ReadConfig(strings.NewReader("pcu\n no ms-max\n"), "t2.cfg"); err != nil {
		t.Fatal(err)
	}
	if cfg.MSMax != 0 || strings.Contains(cfg.String(), "ms-max") {
		t.Fatalf("after no ms-max: %d\n%s", cfg.MSMax, cfg.String())
	}
}

// TestQueueExtRefused: a target the variant does not use, or a target of
// 0, is refused with a message that says why and what to do, in a session
// and in a config file (which then does not load); the setting in force
// stays.
func TestQueueExtRefused(t *testing.T) {
	for _, c := range []struct {
		cmds []string
		want string
	}{
		{[]string{"queue codel variant osmo", "queue codel target 200000"}, "% The osmo variant derives its target from the interval"},
		{[]string{"queue codel target 600000", "queue codel variant osmo"}, "% The osmo variant derives its target from the interval (interval x 13/256): 'no queue codel target' first"},
		{[]string{"queue codel target 0"}, "% A target of 0 means nothing: 'no queue codel target' makes it automatic"},
		{[]string{"queue codel target 10000001"}, "% "},
	} {
		v, cfg := New("test")
		s := v.NewSession(nil)
		s.Start()
		for _, cmd := range []string{"enable", "configure terminal", "pcu"} {
			s.Exec(cmd)
		}
		out := ""
		before := cfg.String()
		for i, cmd := range c.cmds {
			if out = s.Exec(cmd); i < len(c.cmds)-1 && strings.Contains(out, "%") {
				t.Fatalf("%s: %q", cmd, out)
			}
			if i == len(c.cmds)-2 {
				before = cfg.String()
			}
		}
		if !strings.Contains(out, c.want) {
			t.Errorf("%q: %q, want %q", c.cmds, out, c.want)
		}
		if after := cfg.String(); after != before {
			t.Errorf("%q changed the config:\n%s\nwas\n%s", c.cmds, after, before)
		}
		s.Release()
		file := "pcu\n " + strings.Join(c.cmds, "\n ") + "\n"
		v2, _ := New("test")
		if err := v2.ReadConfig(strings.NewReader(file), "t.cfg"); err == nil {
			t.Errorf("config file %q loaded", file)
		}
	}
}

// TestQueueExtListed: every gopcu queue extension command (and ms-max) is
// listed under `?` and in `list` with its help text.
func TestQueueExtListed(t *testing.T) {
	v, _ := New("test")
	s := v.NewSession(nil)
	defer s.Release()
	s.Start()
	for _, cmd := range []string{"enable", "configure terminal", "pcu"} {
		s.Exec(cmd)
	}
	help := func(in string) string {
		out := string(s.Feed([]byte(in)))
		s.Feed([]byte("\x15")) // ^U: clear the line
		return out
	}
	for in, want := range map[string][]string{
		"queue codel ?": {"  interval   Specify interval", "  variant    CoDel variant", "  target     CoDel target delay (rfc variant; automatic unless set)",
			"  maxpacket  No drop while a flow holds at most this many octets", "  quantum    Deficit round robin quantum across flows"},
		"queue ?":                    {"  limit           Memory limits"},
		"queue limit ?":              {"  ms      Per MS", "  global  All MSs together"},
		"queue codel target ?":       {"  <0-10000000>  Target in microseconds (below 500000 starves TCP on GPRS)"},
		"queue codel variant ?":      {"  rfc   RFC 8289 CoDel per flow (gopcu default)", "  osmo  osmo-pcu's CoDel automaton"},
		"no queue codel ?":           {"  variant", "  target", "  maxpacket", "  quantum"},
		"ms-max ?":                   {"  <1-1000000>  Number of MSs"},
		"no queue codel maxpacket ?": {"<cr>"},
	} {
		out := help(in)
		for _, w := range want {
			if !strings.Contains(out, w) {
				t.Errorf("%q lacks %q:\n%s", in, w, out)
			}
		}
	}
	list := s.Exec("list")
	for str := range extHelp {
		if !strings.Contains(list, "  "+str+"\n") {
			t.Errorf("list lacks %q", str)
		}
	}
}

// TestFlowControlMSRoundTrip: `flow-control-ms` (gopcu; osmo-pcu never
// sends FLOW-CONTROL-MS) is off by default, written back only when on, and
// `no flow-control-ms` turns it off again.
func TestFlowControlMSRoundTrip(t *testing.T) {
	v, cfg := New("test")
	if cfg.FlowControlMS || strings.Contains(cfg.String(), "flow-control-ms") {
		t.Fatalf("default on:\n%s", cfg.String())
	}
	if err := v.ReadConfig(strings.NewReader("pcu\n flow-control-ms\n"), "t.cfg"); err != nil {
		t.Fatal(err)
	}
	if !cfg.FlowControlMS || !strings.Contains(cfg.String(), "\n flow-control-ms\n") {
		t.Fatalf("flow-control-ms %v, running config:\n%s", cfg.FlowControlMS, cfg.String())
	}
	if err := v.ReadConfig(strings.NewReader("pcu\n no flow-control-ms\n"), "t2.cfg"); err != nil {
		t.Fatal(err)
	}
	if cfg.FlowControlMS || strings.Contains(cfg.String(), "flow-control-ms") {
		t.Fatalf("after no flow-control-ms:\n%s", cfg.String())
	}
}
