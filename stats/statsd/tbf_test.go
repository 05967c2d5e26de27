package statsd

import (
	"context"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gopcu/gopcu/internal/emu/btsemu"
	"github.com/gopcu/gopcu/internal/emu/msemu"
	"github.com/gopcu/gopcu/pcu"
	"github.com/gopcu/gopcu/pcu/driver"
	"github.com/gopcu/gopcu/pcu/pcuif"
)

// ulSink is the SGSN side of the scripted TBF test: it counts UL-UNITDATA.
type ulSink struct{ n atomic.Int64 }

func (s *ulSink) ULUnitdata(uint8, uint32, []byte)          { s.n.Add(1) }
func (s *ulSink) LLCDiscarded(uint8, uint32, uint8, uint32) {}
func (s *ulSink) frames() int                               { return int(s.n.Load()) }

// TestTBFCountersOverStatsd scripts an uplink TBF (one-phase access, one
// 200-octet LLC frame) and then a downlink TBF (one 300-octet frame, sent
// on CCCH to the MS in packet idle) over the emulated radio, and checks how
// far the BTS counters moved as osmo-pcu's TTCN-3 reporter config sends
// them over statsd: one RACH and Immediate Assignment each way, one TBF
// allocated and freed each way, the LLC octets both ways.
func TestTBFCountersOverStatsd(t *testing.T) {
	g := startGopcu(t, btsemu.Config{Version: pcuif.V12}, pcu.Config{}, driver.Options{}, nil)
	eng, bts, r, c := g.eng, g.bts, g.r, g.c
	sink := &ulSink{}
	eng.Call(func() { eng.SetGb(sink) })
	wctx, wcancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer wcancel()
	if err := bts.WaitActive(wctx, 4); err != nil {
		t.Fatal(err)
	}
	r.Report(time.Now())
	c.take() // the start-up flush and the PDCHs' activation

	cell := msemu.NewCell(bts, 1)
	ms := cell.AddMS(0xc0001001, "901700000001001", 12)
	step := func(until func() bool) {
		t.Helper()
		for i := 0; i < 3000; i++ {
			if until() {
				return
			}
			if err := cell.Step(wctx); err != nil {
				t.Fatal(err)
			}
		}
		t.Fatalf("not done after 3000 blocks: %s", ms.Debug())
	}
	idle := func() bool {
		var n int
		eng.Call(func() {
			if m, ok := eng.MSViewByTLLI(ms.TLLI); ok && (m.UL != nil || m.DL != nil) {
				n++
			}
		})
		return n == 0 && !ms.Busy()
	}
	frame := make([]byte, 200)
	frame[0], frame[1] = 0x03, 0xc0
	ms.SendLLC(frame)
	step(func() bool { return sink.frames() == 1 && idle() })
	r.Report(time.Now())
	ul := sumCounters(c.take(), "TTCN3.")

	got := 0
	ms.OnLLC = func([]byte) { got++ }
	dl := make([]byte, 300)
	dl[0], dl[1] = 0x03, 0xc0
	eng.Call(func() {
		eng.HandleDLUnitdata(0, &pcu.DLUnitdata{TLLI: ms.TLLI, IMSI: ms.IMSI, Lifetime: 0xffff, LLC: dl})
	})
	step(func() bool { return got == 1 && idle() })
	r.Report(time.Now())
	dlc := sumCounters(c.take(), "TTCN3.")

	check := func(what string, m map[string]int64, want map[string]int64) {
		t.Helper()
		var bad []string
		for k, v := range want {
			if m["bts.0."+k] != v {
				bad = append(bad, fmt.Sprintf("%s = %d, want %d", k, m["bts.0."+k], v))
			}
		}
		if len(bad) > 0 {
			t.Errorf("%s:\n%s", what, strings.Join(bad, "\n"))
		}
	}
	check("uplink TBF", ul, map[string]int64{
		"rach.requests": 1, "rach.requests.one_phase": 1, "rach.requests.two_phase": 0,
		"immediate.assignment_UL": 1, "immediate.assignment_ul.one_phase": 1, "immediate.assignment_DL": 0,
		"tbf.ul.alloc": 1, "tbf.ul.freed": 1, "tbf.ul.aborted": 0, "tbf.dl.alloc": 0,
		"llc.ul_bytes": 200, "pkt.ul_ack_nack_timeout": 0,
	})
	check("downlink TBF", dlc, map[string]int64{
		"rach.requests": 0, "immediate.assignment_DL": 1, "immediate.assignment_UL": 0,
		"tbf.dl.alloc": 1, "tbf.dl.freed": 1, "tbf.dl.aborted": 0, "tbf.ul.alloc": 0,
		"pkt.dl_ack_nack_timeout": 0, "pkt.dl_ack_nack_failed": 0, "llc.scheduled": 1,
	})
	// The LLC UI dummies of the delayed release (X2031) count as LLC and
	// RLC payload octets, as in osmo-pcu (TestTBFCountersMatchOsmoPCU).
	if b, p := dlc["bts.0.llc.dl_bytes"], dlc["bts.0.rlc.dl_payload_bytes"]; b < 300 || p != b {
		t.Errorf("downlink TBF: llc.dl_bytes %d, rlc.dl_payload_bytes %d, want equal and >= 300", b, p)
	}
	if ul["bts.0.rlc.ul_bytes"] == 0 || dlc["bts.0.rlc.sent"] == 0 || dlc["bts.0.rlc.dl_bytes"] == 0 {
		t.Errorf("RLC counters did not move: ul_bytes %d, sent %d, dl_bytes %d", ul["bts.0.rlc.ul_bytes"], dlc["bts.0.rlc.sent"], dlc["bts.0.rlc.dl_bytes"])
	}
}
