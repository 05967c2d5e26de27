package system

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/gopcu/gopcu/internal/emu/btsemu"
	"github.com/gopcu/gopcu/internal/emu/msemu"
	"github.com/gopcu/gopcu/pcu"
	"github.com/gopcu/gopcu/pcu/pcuif"
)

// twoTRXInfo is the default INFO_IND with a second TRX (ARFCN 873) whose
// TS 4-7 are PDCHs as well.
func twoTRXInfo() *pcuif.InfoInd {
	info := btsemu.DefaultInfo(pcuif.V12)
	info.TRX[1].ARFCN = 873
	info.TRX[1].PDCHMask = 0xf0
	for ts := range info.TRX[1].TS {
		info.TRX[1].TS[ts].TSC = 7
	}
	return info
}

// checkTRXInvariants checks the allocation of every attached TBF: TFIs
// unique per TRX and direction, USFs unique per PDCH (TRX, TS), slots on
// enabled PDCHs of the TBF's TRX, and no MS with its uplink and downlink
// on different TRX. It returns the number of TBFs per TRX and whether a
// TFI (same direction) or a USF (same TS) was in use on both TRX at once.
func checkTRXInvariants(t *testing.T, r *radioRig) (perTRX [2]int, sharedTFI, sharedUSF bool) {
	t.Helper()
	var errs []string
	r.eng.Call(func() {
		tfis := map[[2]uint8]pcu.TBFView{} // (TRX, TFI) per direction
		usfs := map[[3]uint8]pcu.TBFView{} // (TRX, TS, USF)
		trxOf := map[uint32]map[pcu.Dir]uint8{}
		bts, _ := r.eng.BTSView(0)
		for _, tb := range r.eng.TBFViews(0, nil) {
			if !tb.Attached {
				continue
			}
			trx := tb.TRX
			if trx > 1 {
				errs = append(errs, fmt.Sprintf("%v on TRX %d", tb, trx))
				continue
			}
			perTRX[trx]++
			k := [2]uint8{trx<<1 | uint8(tb.Dir), tb.TFI}
			if o, dup := tfis[k]; dup {
				errs = append(errs, fmt.Sprintf("TFI %d twice on TRX %d: %v and %v", tb.TFI, trx, o, tb))
			}
			tfis[k] = tb
			if trxOf[tb.TLLI] == nil {
				trxOf[tb.TLLI] = map[pcu.Dir]uint8{}
			}
			trxOf[tb.TLLI][tb.Dir] = trx
			for ts := uint8(0); ts < 8; ts++ {
				if tb.Slots&(1<<ts) == 0 {
					continue
				}
				if !bts.TRX[trx].PDCH[ts].Enabled {
					errs = append(errs, fmt.Sprintf("%v on disabled TS %d", tb, ts))
				}
				if tb.Dir != pcu.DirUL {
					continue
				}
				u := [3]uint8{trx, ts, tb.USF[ts]}
				if tb.USF[ts] > 6 {
					errs = append(errs, fmt.Sprintf("%v has USF %d on TS %d", tb, tb.USF[ts], ts))
				}
				if o, dup := usfs[u]; dup {
					errs = append(errs, fmt.Sprintf("USF %d twice on TRX %d TS %d: %v and %v", u[2], trx, ts, o, tb))
				}
				usfs[u] = tb
			}
		}
		for k := range tfis {
			if _, ok := tfis[[2]uint8{k[0] | 2, k[1]}]; k[0]>>1 == 0 && ok {
				sharedTFI = true
			}
		}
		for k := range usfs {
			if _, ok := usfs[[3]uint8{1, k[1], k[2]}]; k[0] == 0 && ok {
				sharedUSF = true
			}
		}
		for tlli, m := range trxOf {
			if len(m) == 2 && m[pcu.DirUL] != m[pcu.DirDL] {
				errs = append(errs, fmt.Sprintf("MS %#x: UL TBF on TRX %d, DL TBF on TRX %d", tlli, m[pcu.DirUL], m[pcu.DirDL]))
			}
		}
	})
	for _, e := range errs {
		t.Error(e)
	}
	if len(errs) > 0 {
		t.FailNow()
	}
	return perTRX, sharedTFI, sharedUSF
}

// TestTwoTRX: a BTS with two TRX of four PDCHs each. 20 MSs (class 12)
// each receive 16 kB and send 8 kB at the same time; the TBFs spread over
// both TRX (the allocator picks the TRX with the most free TFIs), TFIs are
// unique per TRX and direction and USFs per PDCH throughout while the
// same TFI and USF values are in use on both TRX (the MSs tell them apart
// by TRX), `show tbf` names both TRX, and all data arrives intact and in
// order.
func TestTwoTRX(t *testing.T) {
	r := startRadioInfo(t, twoTRXInfo(), bulkParams(), 21, 8)
	const n = 20
	var mss []*msemu.MS
	got := make([][][]byte, n)
	wantDL := make([][][]byte, n)
	wantUL := make([][][]byte, n)
	for i := 0; i < n; i++ {
		i := i
		ms := r.cell.AddMS(0xc0007000+uint32(i), fmt.Sprintf("9017000000070%02d", i), 12)
		ms.OnLLC = func(f []byte) { got[i] = append(got[i], f) }
		mss = append(mss, ms)
		for k, f := range frames(16<<10, 1000) {
			f = llcFrame(i<<8|k, len(f))
			wantDL[i] = append(wantDL[i], f)
			r.dl(ms.TLLI, ms.IMSI, f)
		}
		for k, f := range frames(8<<10, 700) {
			f = llcFrame(0x8000|i<<8|k, len(f))
			wantUL[i] = append(wantUL[i], f)
			ms.SendLLC(f)
		}
	}
	done := func() bool {
		for i, ms := range mss {
			if len(got[i]) < len(wantDL[i]) || len(r.gb.frames(ms.TLLI)) < len(wantUL[i]) {
				return false
			}
		}
		return true
	}
	var peak [2]int
	var sharedTFI, sharedUSF bool
	tbfText := ""
	steps := 0
	for ; steps < 20000 && !done(); steps++ {
		r.step(t)
		if steps%10 != 0 {
			continue
		}
		c, st, su := checkTRXInvariants(t, r)
		sharedTFI, sharedUSF = sharedTFI || st, sharedUSF || su
		if min(c[0], c[1]) > min(peak[0], peak[1]) {
			peak = c
			tbfText = r.show("show tbf all")
		}
	}
	for i, ms := range mss {
		checkDelivery(t, got[i], wantDL[i], r.btsCtr(pcu.CtrPktDLAckNackFailed))
		checkFrames(t, r.gb.frames(ms.TLLI), wantUL[i], fmt.Sprintf("MS %d: SGSN, UL (%s)", i, ms.Debug()))
	}
	t.Logf("%d MSs, 16 kB down and 8 kB up each, in %d block periods; at most %d TBFs on TRX 0 and %d on TRX 1 at once",
		n, steps, peak[0], peak[1])
	if peak[0] < n/2 || peak[1] < n/2 {
		t.Fatalf("TBFs per TRX at best %v, want both TRX carrying at least %d", peak, n/2)
	}
	if !sharedTFI || !sharedUSF {
		t.Fatalf("TFIs used on both TRX at once: %v, USFs on the same TS of both TRX: %v", sharedTFI, sharedUSF)
	}
	for _, w := range []string{"TRX_ID=0", "TRX_ID=1"} {
		if !strings.Contains(tbfText, w) {
			t.Fatalf("show tbf all without %s:\n%s", w, tbfText)
		}
	}
	if r.btsCtr(pcu.CtrTBFAllocFailed) != 0 {
		t.Fatalf("%d allocation failures", r.btsCtr(pcu.CtrTBFAllocFailed))
	}
}

// TestTwoTRXTwoPhase: MSs doing two-phase access on a BTS with two TRX.
// The single blocks are on the first TRX; the UL TBFs are spread over
// both, so a Packet Uplink Assignment sent on TRX 0 moves an MS to TRX 1
// (its Frequency Parameters name TRX 1's ARFCN). Every MS's data arrives.
func TestTwoTRXTwoPhase(t *testing.T) {
	r := startRadioInfo(t, twoTRXInfo(), bulkParams(), 22, 8)
	const n = 6
	var mss []*msemu.MS
	want := make([][][]byte, n)
	for i := 0; i < n; i++ {
		ms := r.cell.AddMS(0xc0007100+uint32(i), fmt.Sprintf("9017000000071%02d", i), 12)
		ms.TwoPhase = true
		for k, f := range frames(6<<10, 1000) {
			f = llcFrame(i<<8|k, len(f))
			want[i] = append(want[i], f)
			ms.SendLLC(f)
		}
		mss = append(mss, ms)
	}
	var peak [2]int
	tbfText := ""
	for steps := 0; steps < 3000; steps++ {
		r.step(t)
		c, _, _ := checkTRXInvariants(t, r)
		if min(c[0], c[1]) > min(peak[0], peak[1]) {
			peak = c
			tbfText = r.show("show tbf all")
		}
	}
	for i, ms := range mss {
		checkFrames(t, r.gb.frames(ms.TLLI), want[i], fmt.Sprintf("MS %d: SGSN (%s)", i, ms.Debug()))
	}
	if peak[0] == 0 || peak[1] == 0 || !strings.Contains(tbfText, "TRX_ID=1") {
		t.Fatalf("UL TBFs per TRX at best %v:\n%s", peak, tbfText)
	}
	if v := r.btsCtr(pcu.CtrPktULAssignment); v != n {
		t.Fatalf("%d Packet Uplink Assignments, want %d", v, n)
	}
	if v := r.btsCtr(pcu.CtrSBATimedout); v != 0 {
		t.Fatalf("%d single blocks timed out", v)
	}
}

// TestTwoTRXReuse: new data for an MS whose DL TBF on a two-TRX BTS is
// in WAIT_RELEASE (T3192 runs on the MS) gets a new DL TBF assigned on the
// old TBF's PACCH, on the same TRX, although the other TRX has more free
// TFIs; the frame arrives within a fraction of a second, without a second
// CCCH assignment.
func TestTwoTRXReuse(t *testing.T) {
	p := bulkParams()
	p.X2031 = 0 // final block at once: WAIT_RELEASE follows the first frame
	r := startRadioInfo(t, twoTRXInfo(), p, 23, 8)
	ms := r.cell.AddMS(0xc0007201, "901700000007201", 12)
	got := 0
	ms.OnLLC = func([]byte) { got++ }
	r.dl(ms.TLLI, ms.IMSI, llcFrame(1, 300))
	for i := 0; i < 200 && got == 0; i++ {
		stepFor(t, r.cell, 20*time.Millisecond)
	}
	for i := 0; i < 50; i++ {
		if s := tbfStates(r); len(s) == 1 && s[0] == pcu.TBFWaitRelease {
			break
		}
		stepFor(t, r.cell, 20*time.Millisecond)
	}
	if s := tbfStates(r); got != 1 || len(s) != 1 || s[0] != pcu.TBFWaitRelease {
		t.Fatalf("got %d frames, TBF states %v (want one in WAIT_RELEASE)", got, s)
	}
	pda0 := r.btsCtr(pcu.CtrPktDLAssignment) // the multislot upgrade after the CCCH assignment
	r.dl(ms.TLLI, ms.IMSI, llcFrame(2, 300))
	stepFor(t, r.cell, 400*time.Millisecond)
	if got != 2 {
		t.Fatalf("second frame not received 400 ms after it was queued; TBFs:\n%s", r.show("show tbf all"))
	}
	if ia, pda := r.btsCtr(pcu.CtrImmAssDL), r.btsCtr(pcu.CtrPktDLAssignment)-pda0; ia != 1 || pda != 1 {
		t.Fatalf("IMM ASS DL %d, Packet DL Assignments for the new TBF %d (want 1, 1)", ia, pda)
	}
	var trx []uint8
	r.eng.Call(func() {
		for _, tb := range r.eng.TBFViews(0, nil) {
			trx = append(trx, tb.TRX)
		}
	})
	for _, x := range trx {
		if x != 0 {
			t.Fatalf("TBFs on TRX %v, want all on TRX 0", trx)
		}
	}
}
