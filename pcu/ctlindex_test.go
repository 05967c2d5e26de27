package pcu

import (
	"slices"
	"testing"

	"github.com/gopcu/gopcu/pcu/pcuif"
	"github.com/gopcu/gopcu/rlcmac"
)

// TestControlIndex: the scheduler finds the TBFs with a control message
// through the BTS's control index (BTS.ctl), which holds them in the
// order of the BTS's TBF list whatever the order they got their message
// in, and loses them once they have nothing to send or are freed.
func TestControlIndex(t *testing.T) {
	e, bts := benchEngine(t)
	var tb []*TBF
	for i := 0; i < 3; i++ {
		m := e.newMS(bts, 0xc0000000+uint32(i))
		x := flowingDL(e, m, 0, uint8(i), 3, rlcmac.CS4)
		tb = append(tb, x)
	}
	// Packet Access Reject on PACCH (TS 44.060 §11.2.1) for TBFs 2, then 0
	tb[2].ctl(&tb[2].ulRej, ctlSched)
	tb[0].ctl(&tb[0].ulRej, ctlSched)
	if !slices.Equal(bts.ctl, []*TBF{tb[0], tb[2]}) {
		t.Fatalf("index %v, want TBFs 0 and 2 in list order", bts.ctl)
	}
	p := &bts.TRX[0].PDCH[3]
	rts := pcuif.RTSReq{SAPI: pcuif.SAPIPDTCH, ARFCN: 871, TS: 3}
	fn := uint32(0)
	step := func() {
		t.Helper()
		rts.FN, rts.BlockNr = fn, uint8(blockNr(fn))
		if e.schedule(bts, p, &rts) == nil {
			t.Fatal("no block")
		}
		fn = nextBlockFN(fn)
	}
	// as a walk over every TBF: the last candidate in list order goes first
	step()
	if tb[2].ulRej != ctlNone || tb[0].ulRej != ctlSend {
		t.Fatalf("after one block: TBF 0 %v, TBF 2 %v; want TBF 2 sent first", tb[0].ulRej, tb[2].ulRej)
	}
	tb[1].ctl(&tb[1].ulRej, ctlSched)
	e.fireRelease(tb[1], relNone) // freed with its message: never sent, out of the index at once
	if tb[1].inCtl || slices.Contains(bts.ctl, tb[1]) {
		t.Fatalf("freed TBF still in the index %v", bts.ctl)
	}
	step()
	if tb[0].ulRej != ctlNone || !slices.Equal(bts.ctl, []*TBF{tb[0]}) {
		t.Fatalf("after two blocks: TBF 0 %v, index %v", tb[0].ulRej, bts.ctl)
	}
	step()
	if len(bts.ctl) != 0 || tb[0].inCtl || tb[1].inCtl || tb[2].inCtl {
		t.Fatalf("index %v after every message went", bts.ctl)
	}
	// a TBF with a message when it is listed enters the index then
	m := e.newMS(bts, 0xc0000010)
	x := &TBF{dir: DirDL, ms: m, bts: bts, trx: 0, tfi: 5, slots: 1 << 3, ctrlTS: 3, cs: rlcmac.CS4, dl: &dlTBF{drained: -1}}
	x.ctl(&x.ulRej, ctlSched)
	if x.inCtl {
		t.Fatal("an unlisted TBF entered the index")
	}
	e.attach(x)
	if !slices.Equal(bts.ctl, []*TBF{x}) {
		t.Fatalf("index %v after listing a TBF with a message", bts.ctl)
	}
}
