package pcu

import (
	"testing"
	"time"

	"github.com/gopcu/gopcu/pcu/pcuif"
)

// runFor steps radio blocks on TS 3 until engine time passed d.
func runFor(e *Engine, bts *BTS, d time.Duration) {
	p := &bts.TRX[0].PDCH[3]
	rts := pcuif.RTSReq{SAPI: pcuif.SAPIPDTCH, ARFCN: 871, TS: 3}
	for end := e.now + d; e.now < end; {
		rts.FN = nextBlockFN(bts.CurFN)
		bts.CurFN = rts.FN
		rts.BlockNr = uint8(blockNr(rts.FN))
		e.schedule(bts, p, &rts)
	}
}

// TestIdleMSReleasedAfterX2030: an idle MS with a TLLI goes when X2030
// has passed since its last TBF, not before; one without a TLLI at the
// next timer run; MSs that became idle later stay.
func TestIdleMSReleasedAfterX2030(t *testing.T) {
	e, bts := benchEngine(t)
	e.params.X2030 = 2 * time.Second
	runFor(e, bts, 10*time.Millisecond)
	a := e.newMS(bts, 0xc0000001)
	noTLLI := e.newMS(bts, TLLIUnset)
	runFor(e, bts, time.Second)
	if e.msByTLLI(0, 0xc0000001) != a {
		t.Fatal("MS released before X2030")
	}
	for _, m := range bts.ms.all {
		if m == noTLLI {
			t.Fatal("MS without TLLI kept")
		}
	}
	b := e.newMS(bts, 0xc0000002)
	runFor(e, bts, 1100*time.Millisecond)
	if e.msByTLLI(0, 0xc0000001) != nil {
		t.Error("MS not released after X2030")
	}
	if e.msByTLLI(0, 0xc0000002) != b {
		t.Error("the later MS released early")
	}
	runFor(e, bts, time.Second)
	if len(bts.ms.all) != 0 || len(bts.idle.heap) != 0 || len(bts.idle.pending) != 0 {
		t.Errorf("%d MSs, %d heap entries, %d pending left", len(bts.ms.all), len(bts.idle.heap), len(bts.idle.pending))
	}
}

// TestIdleMSDataRetried: DL data for an idle MS that gets no TBF (no
// PDCH enabled) is assigned at a later timer run once a PDCH is back, and the
// MS is not released meanwhile.
func TestIdleMSDataRetried(t *testing.T) {
	e, bts := benchEngine(t)
	e.params.X2030 = time.Hour
	runFor(e, bts, 10*time.Millisecond)
	e.newMS(bts, 0xc0000009)
	runFor(e, bts, 10*time.Millisecond) // idle, known: in the heap
	var saved [8]bool
	for ts := range bts.TRX[0].PDCH {
		saved[ts] = bts.TRX[0].PDCH[ts].Enabled
		bts.TRX[0].setEnabled(ts, false)
	}
	e.HandleDLUnitdata(0, &DLUnitdata{TLLI: 0xc0000009, IMSI: "901700000000009", Lifetime: 10000, LLC: []byte{0x03, 0xc0, 1, 2, 3, 4}})
	m := e.msByTLLI(0, 0xc0000009)
	if m == nil || m.DL != nil {
		t.Fatalf("MS %v: want an MS without a DL TBF", m)
	}
	bts.TRX[0].setEnabled(3, saved[3]) // TS 3 only: runFor's RTSs
	p := &bts.TRX[0].PDCH[3]
	rts := pcuif.RTSReq{SAPI: pcuif.SAPIPDTCH, ARFCN: 871, TS: 3}
	for i := 0; i < 200 && m.DL == nil; i++ {
		rts.FN = nextBlockFN(bts.CurFN)
		bts.CurFN = rts.FN
		e.schedule(bts, p, &rts)
	}
	if m.DL == nil {
		t.Fatal("no DL TBF after the PDCH came back")
	}
	if e.msByTLLI(0, 0xc0000009) != m {
		t.Fatal("MS with data released")
	}
}
