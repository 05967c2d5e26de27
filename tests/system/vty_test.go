package system

import (
	"strings"
	"testing"
	"time"

	"github.com/gopcu/gopcu/llc"
	"github.com/gopcu/gopcu/pcu"
	"github.com/gopcu/gopcu/pcu/pcuif"
)

// TestQueueCommandsReachExistingMS: the osmo-pcu `queue codel` commands,
// typed into the VTY while an MS exists, change that MS's queue at once
// (osmo-pcu applies them to new MSs only), and show running-config writes
// them as osmo-pcu does.
func TestQueueCommandsReachExistingMS(t *testing.T) {
	r := startRadio(t, pcuif.V12, nil, 1)
	s := r.engineVTY(true, nil)
	defer s.Release()
	run := func(cmds ...string) string {
		var out strings.Builder
		for _, c := range cmds {
			out.Write(s.Feed([]byte(c + "\r")))
		}
		return out.String()
	}
	tlli := uint32(0xc0004001)
	r.dl(tlli, "901700000004001", llcFrame(1, 100)) // the MS exists now
	stats := func() llc.QueueStats {
		var st llc.QueueStats
		r.eng.Call(func() {
			r.eng.QueueStats(0, func(m pcu.MSView, q llc.QueueStats) {
				if m.TLLI == tlli {
					st = q
				}
			})
		})
		return st
	}
	if st := stats(); !st.CoDel || st.Variant != llc.VariantRFC {
		t.Fatalf("default: %+v", st)
	}
	out := run("enable", "configure terminal", "pcu", "queue codel interval 200", "end", "show running-config")
	if !strings.Contains(out, " queue codel interval 200\r\n") {
		t.Fatalf("running config lacks the interval:\n%s", out)
	}
	if st := stats(); !st.CoDel || st.Params.Interval != 2*time.Second {
		t.Fatalf("interval 200 (2 s) did not reach the existing MS: %+v", st.Params)
	}
	out = run("configure terminal", "pcu", "no queue codel", "end", "show running-config")
	if !strings.Contains(out, " no queue codel\r\n") {
		t.Fatalf("running config lacks no queue codel:\n%s", out)
	}
	if st := stats(); st.CoDel {
		t.Fatal("no queue codel did not reach the existing MS")
	}
	out = run("configure terminal", "pcu", "queue codel", "queue codel variant osmo", "end", "show running-config")
	if !strings.Contains(out, " queue codel\r\n queue codel variant osmo\r\n") {
		t.Fatalf("running config:\n%s", out)
	}
	if st := stats(); !st.CoDel || st.Variant != llc.VariantOsmo || st.Params.Interval != 4*time.Second {
		t.Fatalf("osmo variant: %+v", st)
	}
	out = run("show llc-queue")
	if !strings.Contains(out, "TLLI=0xc0004001") {
		t.Fatalf("show llc-queue:\n%s", out)
	}
}
