package config

import (
	"os"
	"strings"
	"testing"
)

// shippedExample has the commands of osmo-pcu's doc/examples/osmo-pcu.cfg:
// a stderr log target and a small pcu node.
const shippedExample = `log stderr
 logging color 1
 logging print category-hex 0
 logging print category 1
 logging timestamp 0
 logging print file basename last
 logging print level 1
pcu
 flow-control-interval 10
 cs 2
 alloc-algorithm dynamic
 gamma 0
`

func TestShippedExamplesLoad(t *testing.T) {
	lab, err := os.ReadFile("testdata/lab-osmo-pcu.cfg")
	if err != nil {
		t.Fatal(err)
	}
	texts := map[string]string{"shipped": shippedExample, "lab": string(lab)}
	// Debian's osmo-pcu package ships the example; checked when installed.
	const debian = "/usr/share/doc/osmo-pcu/examples/osmo-pcu/osmo-pcu.cfg"
	if b, err := os.ReadFile(debian); err == nil {
		texts[debian] = string(b)
	}
	for name, text := range texts {
		v, cfg := newTree(t)
		if err := v.ReadConfig(strings.NewReader(text), name); err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		if cfg.FCInterval != 10 || !cfg.ForceInitialCS || cfg.InitialCSDL != 2 || cfg.InitialCSUL != 2 {
			t.Errorf("%s: pcu node not applied: %+v", name, cfg)
		}
		// what we write loads again into the same running config
		rc := v.RunningConfig()
		v2, _ := newTree(t)
		if err := v2.ReadConfig(strings.NewReader(rc), "rc"); err != nil {
			t.Fatalf("%s: re-read: %v\n%s", name, err, rc)
		}
		if rc2 := v2.RunningConfig(); rc2 != rc {
			t.Errorf("%s: running config not stable:\n%s\n---\n%s", name, rc, rc2)
		}
	}
	v, _ := newTree(t)
	if err := v.ReadConfig(strings.NewReader(shippedExample), "x"); err != nil {
		t.Fatal(err)
	}
	want := "log stderr\n logging filter all 0\n logging color 1\n logging print category-hex 0\n logging print category 1\n" +
		" logging print thread-id 0\n logging timestamp 0\n logging print level 1\n logging print file basename last\n logging level csn1 notice\n"
	if !strings.Contains(v.RunningConfig(), want) {
		t.Errorf("log target written as\n%s", v.RunningConfig())
	}
}

func TestPCUCommandErrors(t *testing.T) {
	v, cfg := newTree(t)
	err := v.ReadConfig(strings.NewReader("pcu\n cs threshold 50 20\n"), "bad.cfg")
	if err == nil || !strings.Contains(err.Error(), "bad.cfg:2: The lower limit must be less than or equal to the upper limit.") {
		t.Errorf("got %v", err)
	}
	if !cfg.CSAdjEnabled || cfg.CSAdjLower != 10 {
		t.Error("failed command must not change the config")
	}
	err = v.ReadConfig(strings.NewReader("pcu\n timer X9999 5\n"), "t.cfg")
	if err == nil || !strings.Contains(err.Error(), "% No such timer: X9999") {
		t.Errorf("got %v", err)
	}
	// deprecated commands are accepted in files and do their job
	if err := v.ReadConfig(strings.NewReader("pcu\n dl-tbf-idle-time 100\n ms-idle-time 30\n egprs only\n"), "d.cfg"); err != nil {
		t.Fatal(err)
	}
	if cfg.Timers.Get(-2031).Val != 100 || cfg.Timers.Get(-2030).Val != 30 {
		t.Error("deprecated aliases must set X2031/X2030")
	}
}
