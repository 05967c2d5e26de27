package pcu

import (
	"testing"
	"time"

	"github.com/gopcu/gopcu/pcu/pcuif"
	"github.com/gopcu/gopcu/rlcmac"
)

// discardGb records LLC-DISCARDED.
type discardGb struct {
	frames map[uint32]int
	total  int
}

func (g *discardGb) ULUnitdata(uint8, uint32, []byte) {}
func (g *discardGb) LLCDiscarded(_ uint8, tlli uint32, frames uint8, _ uint32) {
	g.frames[tlli] += int(frames)
	g.total += int(frames)
}

// advanceTo moves radio time to at least t in steps of one block.
func advanceTo(e *Engine, bts *BTS, fn *uint32, t time.Duration) {
	for e.now < t {
		*fn = (*fn + 4) % MaxFN
		e.advance(bts, *fn)
	}
}

// TestMSBound: DL-UNITDATA for ever new TLLIs (issue 17 bug 3: 100 000
// TLLIs made 55 879 MSs that never went). The MSs stay within ms-max plus
// the ones holding a TBF, the reclaimed ones' frames are reported in
// LLC-DISCARDED, queued frames expire by PDU lifetime although no TBF
// takes them (reported too), and after X2030 every MS is gone.
func TestMSBound(t *testing.T) {
	ii := &pcuif.InfoInd{Version: pcuif.V12, Flags: pcuif.FlagActive | pcuif.FlagCS(1), InitialCS: 1}
	ii.TRX[0].PDCHMask = 0xf0
	e, bts := infoEngine(t, ii)
	p := e.params
	p.MSMax = 100
	e.SetParams(p)
	g := &discardGb{frames: map[uint32]int{}}
	e.SetGb(g)
	var fn uint32
	advanceTo(e, bts, &fn, time.Second)
	const n = 1000
	frame := make([]byte, 100)
	frame[0], frame[1] = 0x03, 0xc0 // SAPI 3 UI
	for i := 0; i < n; i++ {
		e.HandleDLUnitdata(0, &DLUnitdata{TLLI: 0xc0000000 + uint32(i), Lifetime: 1000, LLC: append([]byte(nil), frame...)})
		if len(bts.ms.all) > p.MSMax+len(bts.tbfs) {
			t.Fatalf("after %d TLLIs: %d MSs, %d TBFs, ms-max %d", i+1, len(bts.ms.all), len(bts.tbfs), p.MSMax)
		}
	}
	reclaimed := e.l1ctr.Value(L1MSReclaimed)
	if reclaimed < n-uint64(p.MSMax)-uint64(len(bts.tbfs)) {
		t.Fatalf("reclaimed %d MSs", reclaimed)
	}
	if g.total < n-len(bts.ms.all) {
		t.Fatalf("LLC-DISCARDED for %d frames, %d MSs reclaimed", g.total, reclaimed)
	}
	queued := 0
	for _, m := range bts.ms.all {
		queued += m.Queue.Len()
	}
	// 10 s lifetime: gone at 11 s though no TBF dequeues them
	advanceTo(e, bts, &fn, 12*time.Second)
	left := 0
	for _, m := range bts.ms.all {
		left += m.Queue.Len()
	}
	if left != 0 {
		t.Fatalf("%d frames still queued at 12 s with a 10 s lifetime", left)
	}
	sched := int(bts.Ctr.Value(CtrLLCFrameSched))
	if g.total+sched != n {
		t.Fatalf("frames: %d reported discarded + %d scheduled, want %d (queued at the end of the flood %d)", g.total, sched, n, queued)
	}
	if got := bts.Ctr.Value(CtrLLCFrameDropped); int(got) != g.total {
		t.Fatalf("llc:dropped %d, LLC-DISCARDED %d", got, g.total)
	}
	// X2030 (60 s) later only the MSs holding a TBF are left (without
	// RTS_REQs nothing polls, so their TBFs cannot time out here)
	advanceTo(e, bts, &fn, time.Second+e.params.X2030+time.Second)
	for _, m := range bts.ms.all {
		if !m.Active() {
			t.Fatalf("%v idle since %v still there at %v (X2030 %v)", m, m.idleSince, e.now, e.params.X2030)
		}
	}
	if len(bts.ms.all) > len(bts.tbfs) || len(bts.ms.byTLLI) != len(bts.ms.all) {
		t.Fatalf("%d MSs (%d by TLLI) left after X2030, %d TBFs", len(bts.ms.all), len(bts.ms.byTLLI), len(bts.tbfs))
	}
}

// TestPagingQueueBounded: a flood of PACCH pages for an MS with a TBF
// keeps at most maxPagesPerPDCH on its PDCH (the newest), the others
// counted as paging:dropped.
func TestPagingQueueBounded(t *testing.T) {
	e, bts := benchEngine(t)
	m := e.newMS(bts, 0xc0000001)
	tb := &TBF{dir: DirDL, ms: m, bts: bts, trx: 0, tfi: 0, slots: 1 << 3, ctrlTS: 3, cs: rlcmac.CS1, dl: &dlTBF{drained: -1}}
	e.attach(tb)
	m.DL = tb
	drive(t, e, tb, TBFFlow)
	for i := 0; i < 1000; i++ {
		e.pagePACCH(bts, m, rlcmac.PageEntry{ForRR: true, TMSI: uint32(i)})
	}
	p := &bts.TRX[0].PDCH[3]
	if len(p.pages) != maxPagesPerPDCH || p.pages[len(p.pages)-1].e.TMSI != 999 || p.pages[0].e.TMSI != 1000-maxPagesPerPDCH {
		t.Fatalf("%d pages queued (first %d, last %d)", len(p.pages), p.pages[0].e.TMSI, p.pages[len(p.pages)-1].e.TMSI)
	}
	if got := e.l1ctr.Value(L1PagingDropped); got != 1000-maxPagesPerPDCH {
		t.Fatalf("paging:dropped %d", got)
	}
}
