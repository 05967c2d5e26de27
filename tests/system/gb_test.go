package system

import (
	"bytes"
	"testing"
	"time"

	"github.com/gopcu/gopcu/internal/emu/msemu"
	"github.com/gopcu/gopcu/internal/emu/sgsnemu"
	"github.com/gopcu/gopcu/internal/testutil"
	"github.com/gopcu/gopcu/pcu"
	"github.com/gopcu/gopcu/pcu/pcuif"
)

// TestGbEndToEnd: NS and BVC come up against the SGSN emulator; a
// DL-UNITDATA reaches the MS over the radio, and the MS's uplink frames
// reach the SGSN as UL-UNITDATA.
func TestGbEndToEnd(t *testing.T) {
	for _, v := range []pcuif.Version{pcuif.V10, pcuif.V12} {
		t.Run(v.String(), func(t *testing.T) {
			g := startGb(t, v)
			ms := g.cell.AddMS(0xc0002001, "901700000002001", 12)
			var got [][]byte
			ms.OnLLC = func(f []byte) { got = append(got, f) }
			dl := [][]byte{llcFrame(1, 300), llcFrame(2, 1200)}
			for _, f := range dl {
				if err := g.sgsn.SendDLUnitdata(1800, ms.TLLI, ms.IMSI, f); err != nil {
					t.Fatal(err)
				}
			}
			ul := [][]byte{llcFrame(3, 80), llcFrame(4, 700)}
			testutil.Eventually(t, 5*time.Second, func() bool { // the DL-UNITDATAs come over the NS socket
				n := 0
				g.eng.Call(func() {
					if v, ok := g.eng.MSViewByTLLI(ms.TLLI); ok {
						n = v.QueueFrames
					}
				})
				return n == len(dl)
			}, "%d DL-UNITDATAs not queued for the MS", len(dl))
			for s := 0; s < 3000 && len(got) < len(dl); s++ {
				g.step(t)
			}
			for _, f := range ul {
				ms.SendLLC(f)
			}
			for s := 0; s < 3000 && len(g.ulFrames(ms.TLLI)) < len(ul); s++ {
				g.step(t)
			}
			if len(got) != len(dl) || !bytes.Equal(got[0], dl[0]) || !bytes.Equal(got[1], dl[1]) {
				t.Fatalf("MS got %d DL frames", len(got))
			}
			gu := g.ulFrames(ms.TLLI)
			if len(gu) != len(ul) || !bytes.Equal(gu[0], ul[0]) || !bytes.Equal(gu[1], ul[1]) {
				t.Fatalf("SGSN got %d UL frames", len(gu))
			}
		})
	}
}

// TestFlowControlMS: with `flow-control-ms`, while an MS has a DL TBF,
// gopcu sends FLOW-CONTROL-MS for it every flow-control interval (osmo-pcu
// never does; neither does gopcu by default: TestNoFlowControlMS), sized from its
// drain rate: CS-2 on 4 slots = 6000 octets/s = 480 x 100 bit/s (more
// after link adaptation), bucket = one CoDel interval (4 s) of it plus one
// LLC PDU.
func TestFlowControlMS(t *testing.T) {
	g := startGb(t, pcuif.V12)
	g.eng.Call(func() {
		p := g.eng.Params()
		p.FlowControlMS = true
		g.eng.SetParams(p)
	})
	ms := g.dlMS(t, 0xc0002002, "901700000002002", 60)
	deadline := time.Now().Add(4 * time.Second)
	for time.Now().Before(deadline) {
		g.mu.Lock()
		f := g.fcms[ms.TLLI]
		g.mu.Unlock()
		if f != nil {
			// CS-2, -3 or -4 on 4 slots (link adaptation may have moved up)
			if f.LeakRate != 480 && f.LeakRate != 576 && f.LeakRate != 800 {
				t.Fatalf("leak rate %d x 100 bit/s, want 480/576/800", f.LeakRate)
			}
			rate := int(f.LeakRate) * 100 / 8
			want := (rate*4 + 1543) / 100
			if d := int(f.BucketSize) - want; d < -2 || d > 2 {
				t.Fatalf("bucket %d x 100 octets, want about %d", f.BucketSize, want)
			}
			return
		}
		g.step(t)
		time.Sleep(2 * time.Millisecond) // the radio in about real time: FLOW-CONTROL-MS runs on the wall clock, on purpose
	}
	t.Fatal("no FLOW-CONTROL-MS within 4 s")
}

// dlMS adds a class-12 MS of tlli and imsi to the cell, with its radio
// access capability at the SGSN, and has the SGSN send it n 1500-octet
// frames on BVC 1800.
func (g *gbRig) dlMS(t *testing.T, tlli uint32, imsi string, n int) *msemu.MS {
	t.Helper()
	ms := g.cell.AddMS(tlli, imsi, 12)
	g.sgsn.SetMSRAC(ms.TLLI, sgsnemu.MultislotRAC(12))
	for i := 0; i < n; i++ {
		if err := g.sgsn.SendDLUnitdata(1800, ms.TLLI, ms.IMSI, llcFrame(i, 1500)); err != nil {
			t.Fatal(err)
		}
	}
	return ms
}

// TestNoFlowControlMS: by default gopcu sends no FLOW-CONTROL-MS, as
// osmo-pcu 1.1.0 (the Osmocom TTCN-3 suite's BSSGP emulation fails a
// testcase on one, TC_multiplex_dl_gprs_egprs), through 3 s of an MS's DL
// TBF, three flow-control intervals.
func TestNoFlowControlMS(t *testing.T) {
	g := startGb(t, pcuif.V12)
	ms := g.dlMS(t, 0xc0002003, "901700000002003", 60)
	for end := time.Now().Add(3 * time.Second); time.Now().Before(end); {
		g.step(t)
		time.Sleep(2 * time.Millisecond) // the radio in about real time for 3 s of flow control, on purpose
	}
	var hadDL bool
	g.eng.Call(func() { b, _ := g.eng.BTSView(0); hadDL = b.Ctr.Value(pcu.CtrTBFDLAlloc) > 0 })
	g.mu.Lock()
	defer g.mu.Unlock()
	if !hadDL {
		t.Fatal("no DL TBF: the test shows nothing")
	}
	if f := g.fcms[ms.TLLI]; f != nil {
		t.Fatalf("FLOW-CONTROL-MS sent without flow-control-ms: %+v", f)
	}
}
