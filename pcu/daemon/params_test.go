package daemon

import (
	"strings"
	"testing"
	"time"

	"github.com/gopcu/gopcu/bssgp/ns/nse"
	"github.com/gopcu/gopcu/llc"
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

// TestAQMFromVTY: the AQM commands reach llc.Config, are written back in
// llc's own order (VTYExtLines), and the llc configuration they make is
// valid; the defaults write nothing.
func TestAQMFromVTY(t *testing.T) {
	v, cfg := config.New("test")
	file := "pcu\n queue aqm red\n no queue ecn\n no queue fq\n queue pie target 300\n queue pie tupdate 100\n queue pie max-burst 0\n" +
		" queue red min 4000\n queue red max 12000\n queue red probability 20\n queue red ewma 3\n"
	if err := v.ReadConfig(strings.NewReader(file), "c"); err != nil {
		t.Fatal(err)
	}
	l := ParamsFromConfig(cfg).LLC
	if err := l.Validate(); err != nil {
		t.Fatal(err)
	}
	want := llc.Config{AQM: llc.AQMRED, NoECN: true, NoFQ: true,
		PIE: llc.PIEConfig{Target: 300 * time.Millisecond, TUpdate: 100 * time.Millisecond, MaxBurst: -time.Millisecond},
		RED: llc.REDConfig{Min: 4000, Max: 12000, MaxP: 20, Wlog: 3}}
	if l.AQM != want.AQM || l.NoECN != want.NoECN || l.NoFQ != want.NoFQ || l.PIE != want.PIE || l.RED != want.RED {
		t.Fatalf("llc config %+v", l)
	}
	if got, exp := cfg.String(), strings.Join(l.VTYExtLines(), "\n")+"\n"; !strings.Contains(got, exp) {
		t.Fatalf("running config:\n%s\nlacks\n%s", got, exp)
	}
	// Back to the defaults: nothing written, llc defaults.
	if err := v.ReadConfig(strings.NewReader("pcu\n no queue aqm\n queue ecn\n queue fq\n no queue pie target\n no queue pie tupdate\n"+
		" no queue pie max-burst\n no queue red min\n no queue red max\n no queue red probability\n no queue red ewma\n"), "c2"); err != nil {
		t.Fatal(err)
	}
	if s := cfg.String(); strings.Contains(s, "aqm") || strings.Contains(s, "ecn") || strings.Contains(s, " fq") ||
		strings.Contains(s, "pie") || strings.Contains(s, "red ") {
		t.Fatalf("defaults written back:\n%s", s)
	}
	if l := ParamsFromConfig(cfg).LLC; l.AQM != llc.AQMRED || l.NoECN || l.NoFQ || l.PIE != (llc.PIEConfig{}) || l.RED != (llc.REDConfig{}) {
		t.Fatalf("defaults: %+v", l)
	}
	// osmo-pcu's `queue codel interval N`, gopcu's CoDel target and the
	// osmo variant run CoDel without `queue aqm codel`; `queue aqm`
	// chooses over them.
	for conf, want := range map[string]llc.AQM{
		"pcu\n queue codel\n":                              llc.AQMRED,
		"pcu\n queue codel interval 100\n":                 llc.AQMCoDel,
		"pcu\n queue codel target 300000\n":                llc.AQMCoDel,
		"pcu\n queue codel variant osmo\n":                 llc.AQMCoDel,
		"pcu\n queue aqm codel\n":                          llc.AQMCoDel,
		"pcu\n queue codel interval 100\n queue aqm pie\n": llc.AQMPIE,
		"pcu\n queue codel interval 100\n queue aqm red\n": llc.AQMRED,
	} {
		v, c := config.New("test")
		if err := v.ReadConfig(strings.NewReader(conf), "c3"); err != nil {
			t.Fatalf("%q: %v", conf, err)
		}
		l := ParamsFromConfig(c)
		if err := l.LLC.Validate(); err != nil || l.LLC.AQM != want {
			t.Errorf("%q: AQM %v (%v), want %v", conf, l.LLC.AQM, err, want)
		}
	}
	// Refused: PIE with osmo-pcu's CoDel automaton, RED min above max.
	for _, bad := range []string{"pcu\n queue codel variant osmo\n queue aqm pie\n", "pcu\n queue codel variant osmo\n queue aqm red\n", "pcu\n queue aqm red\n queue codel variant osmo\n",
		"pcu\n queue red max 5000\n queue red min 6000\n", "pcu\n queue red min 6000\n queue red max 5000\n"} {
		v, _ := config.New("test")
		if err := v.ReadConfig(strings.NewReader(bad), "bad"); err == nil {
			t.Errorf("accepted:\n%s", bad)
		}
	}
}

// TestNSTimersFromVTY: the `ns` node's timers reach the NS entity's
// configuration; untouched ones keep libosmogb's defaults, and the
// defaults of the node are nse.DefaultTimers.
func TestNSTimersFromVTY(t *testing.T) {
	v, _ := config.New("test")
	if got := NSTimersFromVTY(v.NS); got != nse.DefaultTimers() {
		t.Fatalf("defaults %+v, want %+v", got, nse.DefaultTimers())
	}
	file := "ns\n timer tns-test 12\n timer tns-alive 2\n timer tns-alive-retries 4\n timer tns-reset 0\n timer tsns-procedures-retries 7\n"
	if err := v.ReadConfig(strings.NewReader(file), "c"); err != nil {
		t.Fatal(err)
	}
	want := nse.DefaultTimers()
	want.TnsTest, want.TnsAlive, want.TnsAliveRetries = 12*time.Second, 2*time.Second, 4
	want.TnsReset = time.Second // 0 s would fire on every loop turn
	want.TsnsProcRetries = 7
	if got := NSTimersFromVTY(v.NS); got != want {
		t.Fatalf("%+v, want %+v", got, want)
	}
}
