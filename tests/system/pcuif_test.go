// Package system holds gopcu's system tests: the engine in-process against
// the project's emulators (and, in tests/lab, against real Osmocom programs).
package system

import (
	"context"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/gopcu/gopcu/internal/emu/btsemu"
	"github.com/gopcu/gopcu/internal/testutil"
	"github.com/gopcu/gopcu/pcu"
	"github.com/gopcu/gopcu/pcu/pcuif"
)

func l1(e *pcu.Engine, i int) uint64 { return e.L1Counters().Value(i) }

// TestRTSAnsweredEveryBlock: gopcu activates all PDCHs of the INFO_IND and
// answers 100 % of 10 000 blocks' RTS_REQs with the right FN/TRX/TS, in
// each PCUIF version.
func TestRTSAnsweredEveryBlock(t *testing.T) {
	for _, v := range []pcuif.Version{pcuif.V10, pcuif.V11, pcuif.V12} {
		t.Run(v.String(), func(t *testing.T) {
			r := startRig(t, v, 0)
			r.waitActive(4)
			if got := r.bts.ActivePDCHs(); fmt.Sprint(got) != "[[0 4] [0 5] [0 6] [0 7]]" {
				t.Fatalf("active PDCHs %v", got)
			}
			if txt := r.bts.TxtInds(); len(txt) != 1 || txt[0] != pcu.Version {
				t.Fatalf("TXT_IND %q", txt)
			}
			r.bts.SetFN(2715648 - 52*3) // cross the hyperframe wrap on the way
			ctx := context.Background()
			blocks := 10000
			if testing.Short() {
				blocks = 2000
			}
			for i := 0; i < blocks; i++ {
				blk, err := r.bts.Step(ctx, 2*time.Second)
				if err != nil {
					t.Fatalf("block %d: %v", i, err)
				}
				for _, d := range blk.Answers {
					if d.FN != blk.FN && !(d.SAPI == pcuif.SAPIPTCCH && d.FN == blk.FN+4) {
						t.Fatalf("answer FN %d for block FN %d", d.FN, blk.FN)
					}
					if d.ARFCN != 871 || d.TRX != 0 || d.TS < 4 || int(d.BlockNr) != blk.BlockNr {
						t.Fatalf("bad answer %+v", d)
					}
					// Idle: osmo-bts-trx style model (v12) and v10/v11 get empty blocks.
					if len(d.Payload) != 0 {
						t.Fatalf("idle PDCH got payload %x", d.Payload)
					}
				}
			}
			st := r.bts.Stats()
			if st.RTSSent != st.Answered || st.Mismatched != 0 || st.Unanswered != 0 || st.BadMessages != 0 {
				t.Fatalf("stats %+v", st)
			}
			if st.RTSSent < blocks*4 {
				t.Fatalf("only %d RTS sent", st.RTSSent)
			}
		})
	}
}

// TestIdleBlocksV12: a v12 BTS whose model needs idle blocks (UNSPEC) gets
// Packet Downlink Dummy Control Blocks on TRX 0 and idle PTCCH/D messages.
func TestIdleBlocksV12(t *testing.T) {
	path := filepath.Join(t.TempDir(), "pcu_bts")
	info := btsemu.DefaultInfo(pcuif.V12)
	info.BTSModel = pcuif.BTSModelUnspec
	bts, err := btsemu.Listen(btsemu.Config{Path: path, Version: pcuif.V12, Info: info})
	if err != nil {
		t.Fatal(err)
	}
	newRig(t, bts, pcu.Config{SocketPath: path}).run().waitActive(4)
	ctx := context.Background()
	var ptcch int
	for i := 0; i < 30; i++ {
		blk, err := bts.Step(ctx, 2*time.Second)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range blk.Answers {
			switch d.SAPI {
			case pcuif.SAPIPDTCH:
				if fmt.Sprintf("%x", d.Payload) != "4794"+fmt.Sprintf("%x", repeat(0x2b, 21)) {
					t.Fatalf("PDTCH idle block %x", d.Payload)
				}
			case pcuif.SAPIPTCCH:
				ptcch++
				if fmt.Sprintf("%x", d.Payload) != fmt.Sprintf("%x%x", repeat(0x7f, 16), repeat(0x2b, 7)) {
					t.Fatalf("PTCCH idle block %x", d.Payload)
				}
			}
		}
	}
	if ptcch == 0 {
		t.Fatal("no PTCCH RTS answered")
	}
}

func repeat(b byte, n int) []byte {
	out := make([]byte, n)
	for i := range out {
		out[i] = b
	}
	return out
}

func fdCount(t *testing.T) int {
	ents, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		t.Skip("needs /proc/self/fd (Linux)")
	}
	return len(ents)
}

// TestReconnect: the BTS dies and comes back three times; gopcu does not
// exit, drops radio state, reconnects, re-activates its PDCHs and serves
// again, without goroutine or file-descriptor growth.
func TestReconnect(t *testing.T) {
	for _, v := range []pcuif.Version{pcuif.V10, pcuif.V12} {
		t.Run(v.String(), func(t *testing.T) {
			r := startRig(t, v, 0)
			r.waitActive(4)
			ctx := context.Background()
			if _, err := r.bts.Step(ctx, time.Second); err != nil {
				t.Fatal(err)
			}
			runtime.GC()
			g0, fd0 := runtime.NumGoroutine(), fdCount(t)
			for i := 0; i < 3; i++ {
				r.bts.Close() // the BTS process dies
				testutil.Eventually(t, 5*time.Second, func() bool {
					var connected bool
					r.eng.Call(func() { connected = r.eng.Connected() })
					return !connected
				}, "engine did not notice the loss")
				var active bool
				r.eng.Call(func() { b, _ := r.eng.BTSView(0); active = b.Active || b.EnabledPDCHs() != 0 })
				if active {
					t.Fatal("radio state kept after loss")
				}
				bts, err := btsemu.Listen(btsemu.Config{Path: r.path, Version: v})
				if err != nil {
					t.Fatal(err)
				}
				r.bts = bts
				r.waitActive(4)
				for j := 0; j < 50; j++ {
					if _, err := r.bts.Step(ctx, 2*time.Second); err != nil {
						t.Fatalf("cycle %d block %d: %v", i, j, err)
					}
				}
			}
			if got := l1(r.eng, pcu.L1Lost); got != 3 {
				t.Fatalf("lost counter %d, want 3", got)
			}
			if got := l1(r.eng, pcu.L1Connected); got != 4 {
				t.Fatalf("connected counter %d, want 4", got)
			}
			// closed connections' goroutines finish on their own
			var g, fd int
			if !testutil.Poll(2*time.Second, func() bool {
				runtime.GC()
				g, fd = runtime.NumGoroutine(), fdCount(t)
				return g <= g0 && fd <= fd0
			}) {
				t.Fatalf("growth: goroutines %d -> %d, fds %d -> %d", g0, g, fd0, fd)
			}
		})
	}
}

// TestBadInput: truncated, oversized, unknown-type, wrong-version and
// out-of-range messages are counted and logged; gopcu keeps serving.
func TestBadInput(t *testing.T) {
	r := startRig(t, pcuif.V12, 0)
	r.waitActive(4)
	good, _ := pcuif.Marshal(&pcuif.RTSReq{SAPI: pcuif.SAPIPDTCH, FN: 0, ARFCN: 871, TS: 4}, pcuif.V12)
	mod := func(off int, v byte) []byte { b := append([]byte(nil), good...); b[off] = v; return b }
	info, _ := pcuif.Marshal(btsemu.DefaultInfo(pcuif.V12), pcuif.V12)
	info[4] = 9 // INFO_IND version 9
	cases := []struct {
		name string
		msg  []byte
		ctr  int
	}{
		{"truncated", good[:10], pcu.L1ErrShort},
		{"oversized", append(append([]byte(nil), good...), make([]byte, 10)...), pcu.L1ErrLong},
		{"unknown type", mod(0, 0x7e), pcu.L1ErrUnknownType},
		{"INFO_IND version 9", info, pcu.L1ErrVersion},
		{"DATA_CNF in v12", mod(0, byte(pcuif.TypeDataCnf)), pcu.L1ErrVersion},
		{"TRX 9", mod(4+10, 9), pcu.L1ErrRange},
		{"TS 8", mod(4+11, 8), pcu.L1ErrRange},
		{"ACT_REQ from the BTS", func() []byte { b, _ := pcuif.Marshal(&pcuif.ActReq{Activate: true}, pcuif.V12); return b }(), pcu.L1RxUnexpected},
	}
	ctx := context.Background()
	for _, c := range cases {
		before := l1(r.eng, c.ctr)
		if err := r.bts.SendRaw(c.msg); err != nil {
			t.Fatal(err)
		}
		if _, err := r.bts.Step(ctx, 2*time.Second); err != nil { // still serving
			t.Fatalf("%s: %v", c.name, err)
		}
		var after uint64
		r.eng.Call(func() { after = r.eng.L1Counters().Value(c.ctr) })
		if after != before+1 {
			t.Fatalf("%s: counter %s %d -> %d", c.name, pcu.L1CounterDescs[c.ctr].Name, before, after)
		}
	}
	if st := r.bts.Stats(); st.Connections != 1 {
		t.Fatalf("connection dropped: %+v", st)
	}
}

// TestInfoIndDelta: a later INFO_IND that changes the PDCH set activates
// and deactivates only the difference.
func TestInfoIndDelta(t *testing.T) {
	r := startRig(t, pcuif.V12, 0)
	r.waitActive(4)
	acts := r.bts.Stats().ActReqs
	info := btsemu.DefaultInfo(pcuif.V12)
	info.TRX[0].PDCHMask = 0x3c // TS 2-5: +2 +3, -6 -7
	if err := r.bts.Send(info); err != nil {
		t.Fatal(err)
	}
	testutil.Eventually(t, 5*time.Second, func() bool {
		return fmt.Sprint(r.bts.ActivePDCHs()) == "[[0 2] [0 3] [0 4] [0 5]]"
	}, "active PDCHs not TS 2-5")
	if got := r.bts.Stats().ActReqs - acts; got != 4 {
		t.Fatalf("%d ACT_REQs for a delta of 4", got)
	}
	// An INFO_IND without ACTIVE deactivates everything; the engine keeps running.
	info.Flags &^= pcuif.FlagActive
	r.bts.Send(info)
	testutil.Eventually(t, 5*time.Second, func() bool { return len(r.bts.ActivePDCHs()) == 0 }, "PDCHs still active")
}

// TestPinnedVersion: with a pinned version, an INFO_IND of another version
// is refused and counted; with auto-detection it is adopted.
func TestPinnedVersion(t *testing.T) {
	r := startRig(t, pcuif.V10, pcuif.V12)
	testutil.Eventually(t, 3*time.Second, func() bool { return l1(r.eng, pcu.L1VersionMismatch) > 0 }, "version mismatch not counted")
	if n := len(r.bts.ActivePDCHs()); n != 0 {
		t.Fatalf("%d PDCHs activated despite version mismatch", n)
	}
	var v pcuif.Version
	r.eng.Call(func() { v = r.eng.ProtocolVersion() })
	if v != pcuif.V12 {
		t.Fatalf("version %s", v)
	}
}

// TestPDCHEnergySaving: with a BTS model that transmits nothing on its own
// (osmo-bts-trx, PCUIF v12), a PDCH without TBFs is answered with an empty
// DATA_REQ, so the BTS can leave the timeslot dark (osmo-pcu pcu_l1_if.cpp decide_gen_idle_blocks(),
// TTCN-3 TC_pdch_energy_saving); a PDCH with a TBF gets blocks on every
// RTS, and it goes dark again once the TBF is released.
func TestPDCHEnergySaving(t *testing.T) {
	info := btsemu.DefaultInfo(pcuif.V12)
	info.BTSModel = pcuif.BTSModelTRX
	r := startRadioInfo(t, info, bulkParams(), 5, 4)
	step := func(n int) (idle int) {
		before := r.cell.Blocks.Idle
		for i := 0; i < n; i++ {
			r.step(t)
		}
		return r.cell.Blocks.Idle - before
	}
	if n := step(20); n != 20*4 {
		t.Fatalf("idle cell: %d empty blocks in 20 block periods on 4 PDCHs, want 80", n)
	}
	ms := r.cell.AddMS(0xc0005301, "901700000005301", 12) // Rx 4: every PDCH
	var got int
	ms.OnLLC = func([]byte) { got++ }
	for i := 0; i < 8; i++ {
		r.dl(ms.TLLI, ms.IMSI, llcFrame(i, 500))
	}
	for s := 0; s < 2000 && !ms.Busy(); s++ {
		step(1)
	}
	for i := 0; i < 40; i++ {
		var slots uint8
		r.eng.Call(func() {
			if m, ok := r.eng.MSViewByTLLI(ms.TLLI); ok && m.DL != nil {
				slots = m.DL.Slots
			}
		})
		if slots == 0 {
			t.Fatalf("no DL TBF after %d block periods", i)
		}
		before := r.cell.IdleTS
		step(1)
		for ts := 0; ts < 8; ts++ {
			if slots&(1<<ts) != 0 && r.cell.IdleTS[ts] != before[ts] {
				t.Fatalf("TS %d of the DL TBF (slots %08b) answered with an empty block", ts, slots)
			}
		}
	}
	for s := 0; s < 500 && strings.Contains(r.show("show tbf all"), "TBF:"); s++ {
		step(10)
	}
	if got != 8 {
		t.Fatalf("MS got %d of 8 frames", got)
	}
	if n := step(20); n != 20*4 {
		t.Fatalf("after the release: %d empty blocks in 20 block periods, want 80", n)
	}
}

// TestSI13FromBCCH: an SI13 on BCCH (DATA_IND) sets T3168 and T3192 as
// `show bts-timer` shows them (its GPRS Cell Options: T3168 code 7 =
// 4000 ms, T3192 code 5 = 120 ms; tshark decodes the same block alike in
// rlcmac's oracle test); an undecodable SI13 is counted and changes nothing.
func TestSI13FromBCCH(t *testing.T) {
	r := startRadio(t, pcuif.V12, nil, 1)
	before := r.show("show bts-timer")
	if !strings.Contains(before, "T3168 = 4000 ms") || !strings.Contains(before, "T3192 = 1500 ms") {
		t.Fatalf("defaults:\n%s", before)
	}
	si13, _ := hex.DecodeString("01060082a64c1e940fc5ef692a5053cb4b2b2b2b2b2b2b")
	bad := append([]byte(nil), si13...)
	bad[3] ^= 0x80 // rest octets start with L: nothing there
	send := func(b []byte) {
		if err := r.bts.Send(&pcuif.Data{Kind: pcuif.TypeDataInd, SAPI: pcuif.SAPIBCCH, FN: 0, Payload: b}); err != nil {
			t.Fatal(err)
		}
		// the socket is ordered: once the next RTS is answered, the
		// DATA_IND before it was handled
		r.step(t)
	}
	send(si13)
	got := r.show("show bts-timer")
	for _, want := range []string{"T3168 = 4000 ms", "T3192 = 120 ms"} {
		if !strings.Contains(got, want) {
			t.Fatalf("after SI13 no %q:\n%s", want, got)
		}
	}
	dec := r.btsCtr(pcu.CtrDecodeErrors)
	send(bad)
	if r.show("show bts-timer") != got || r.btsCtr(pcu.CtrDecodeErrors) != dec+1 {
		t.Fatalf("an undecodable SI13 changed the timers or was not counted")
	}
}
