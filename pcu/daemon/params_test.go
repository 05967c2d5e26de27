package daemon

import (
	"strings"
	"testing"
	"time"

	"github.com/gopcu/gopcu/pcu"
	"github.com/gopcu/gopcu/pcu/config"
	"github.com/gopcu/gopcu/vty"
)

// TestNACCParamsFromVTY: `timer X1/X2/X10/X11` and `neighbor resolution`
// reach the engine's NACC parameters.
func TestNACCParamsFromVTY(t *testing.T) {
	v, cfg := config.New("test")
	if err := v.ReadConfig(strings.NewReader("pcu\n timer X1 300\n timer X2 400\n timer X10 7\n timer X11 9\n neighbor resolution 10.1.2.3 4000\n"), "c"); err != nil {
		t.Fatal(err)
	}
	p := ParamsFromConfig(cfg).NACC
	want := pcu.NACCParams{X1: 300 * time.Millisecond, X2: 400 * time.Millisecond, X10: 7 * time.Second, X11: 9 * time.Second,
		NeighCtrlAddr: "10.1.2.3", NeighCtrlPort: 4000}
	if p.X1 != want.X1 || p.X2 != want.X2 || p.X10 != want.X10 || p.X11 != want.X11 || p.NeighCtrlAddr != want.NeighCtrlAddr || p.NeighCtrlPort != want.NeighCtrlPort {
		t.Fatalf("%+v, want %+v", p, want)
	}
	if d := pcu.DefaultParams().NACC; d.X1 != time.Second || d.X2 != time.Second || d.X10 != 5*time.Second || d.X11 != 5*time.Second || d.NeighCtrlAddr != "" {
		t.Fatalf("defaults %+v", d)
	}
}

// TestTimersFromVTY: `timer T3113` and `timer T3172` reach the engine's
// parameters.
func TestTimersFromVTY(t *testing.T) {
	v, cfg := config.New(pcu.Version)
	s := v.NewSession(vty.ExecutorFunc(func(f func()) { f() }).Do)
	defer s.Release()
	s.Start()
	for _, c := range []string{"enable", "configure terminal", "pcu", "timer T3113 9", "timer T3172 3000"} {
		if out := string(s.Feed([]byte(c + "\r"))); strings.Contains(out, "%") {
			t.Fatalf("%s: %s", c, out)
		}
	}
	if p := ParamsFromConfig(cfg); p.T3113 != 9*time.Second || p.T3172 != 3*time.Second {
		t.Fatalf("T3113 %v T3172 %v", p.T3113, p.T3172)
	}
}
