package config

import (
	"strings"
	"testing"
)

// neighborScript exercises osmo-pcu 1.1.0's `neighbor resolution`
// (removed in 1.3.0): the deprecation warning, the default port 4248 and
// where `show running-config` writes it (before the timers).
var neighborScript = []string{"enable\r", "configure terminal\r", "pcu\r", "neighbor resolution 127.0.0.1\r",
	"show running-config\r", "neighbor resolution 192.0.2.1 4000\r", "do show running-config\r", "neighbor ?", "\x15exit\r"}

func TestNeighborResolution(t *testing.T) {
	v, cfg := newTree(t)
	if err := v.ReadConfig(strings.NewReader("pcu\n neighbor resolution 10.0.0.1\n"), "n.cfg"); err != nil {
		t.Fatal(err)
	}
	if cfg.NeighCtrlAddr != "10.0.0.1" || cfg.NeighCtrlPort != 4248 || !strings.Contains(cfg.String(), " neighbor resolution 10.0.0.1 4248\n timer ") &&
		!strings.HasSuffix(cfg.String(), " neighbor resolution 10.0.0.1 4248\n") {
		t.Fatalf("%+v\n%s", cfg, cfg.String())
	}
}

// TestNeighborResolutionLive compares those steps byte for byte with
// Debian's osmo-pcu 1.1.0 (the general transcript test leaves
// `neighbor` lines out, this one does not).
func TestNeighborResolutionLive(t *testing.T) {
	if testing.Short() {
		t.Skip("needs a run without -short (long test)")
	}
	ours := runOurs(t, neighborScript)
	ref := liveTranscript(t, neighborScript, ours)
	if len(ref) != len(neighborScript)+1 {
		t.Fatalf("%d steps from osmo-pcu", len(ref))
	}
	for i := range ref {
		if i >= len(ours) || ref[i] != ours[i] {
			var o step
			if i < len(ours) {
				o = ours[i]
			}
			t.Errorf("step %d %q:\nosmo-pcu %q\ngopcu    %q", i, ref[i].In, ref[i].Out, o.Out)
		}
	}
}
