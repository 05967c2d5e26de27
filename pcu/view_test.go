package pcu

import (
	"testing"

	"github.com/gopcu/gopcu/rlcmac"
)

// TestViews: the views of an UL and a DL TBF of one MS carry each
// direction's own state (V(Q)/V(R) for UL, V(A)/V(S) for DL: a DL field
// read from an UL TBF would be a nil dlTBF), the PDCH occupancy counts
// both, and the MS view points at both TBFs.
func TestViews(t *testing.T) {
	e, bts := fsmEngine(t, &fakeClock{}, nil)
	ul := tbfIn(t, e, bts, DirUL, TBFFlow, 0xc0000001)
	dl := tbfIn(t, e, bts, DirDL, TBFFlow, 0xc0000002)
	dl.dl.sentBytes, dl.dl.everAcked = 1500, true
	views := e.TBFViews(bts.Nr, nil)
	if len(views) != 2 {
		t.Fatalf("%d views, want 2", len(views))
	}
	u, d := views[0], views[1]
	if u.Dir != DirUL || u.TLLI != 0xc0000001 || u.WS != rlcmac.GPRSWS || u.EverAcked || u.SentBytes != 0 {
		t.Errorf("UL view %+v", u)
	}
	if d.Dir != DirDL || d.TLLI != 0xc0000002 || !d.EverAcked || d.SentBytes != 1500 || d.State != TBFFlow {
		t.Errorf("DL view %+v", d)
	}
	b, ok := e.BTSView(bts.Nr)
	if !ok || b.MSCount != 2 {
		t.Fatalf("BTS view %v %+v", ok, b)
	}
	var ulTBFs, dlTBFs int
	for _, p := range b.TRX[ul.trx].PDCH {
		ulTBFs += p.UL
		dlTBFs += p.DL
	}
	if ulTBFs != popcount8(ul.slots) || dlTBFs != popcount8(dl.slots) {
		t.Errorf("PDCH view: %d UL and %d DL attachments, want %d and %d", ulTBFs, dlTBFs, popcount8(ul.slots), popcount8(dl.slots))
	}
	m, ok := e.MSViewByTLLI(0xc0000002)
	if !ok || m.DL == nil || m.UL != nil || m.DL.TFI != dl.tfi {
		t.Fatalf("MS view %v %+v", ok, m)
	}
	if _, ok := e.MSViewByTLLI(0xc0000003); ok {
		t.Fatal("view of an unknown TLLI")
	}
}
