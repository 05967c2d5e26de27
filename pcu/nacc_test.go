package pcu

import (
	"testing"
	"time"

	"github.com/gopcu/gopcu/bssgp"
	"github.com/gopcu/gopcu/pcu/nacc"
	"github.com/gopcu/gopcu/pcu/pcuif"
)

// The NACC state machine and caches have their tests in pcu/nacc; these
// are the engine's part (nacc_engine.go).

// TestNACCPaddedNeighAddrCnf: a NEIGH_ADDR_CNF padded to the PCUIF union
// size (1007 octets), as the Osmocom TTCN-3 suite's BTS sends every
// message (TC_nacc_outbound_success), resolves the neighbour; it was
// discarded as a bad CONTAINER length.
func TestNACCPaddedNeighAddrCnf(t *testing.T) {
	e, _ := fsmEngine(t, &fakeClock{}, nil)
	cnf := pcuif.NeighAddrCnf{Req: pcuif.NeighAddrReq{LocalLAC: 1, LocalCI: 6969, TgtARFCN: 871, TgtBSIC: 63},
		MCC: 901, MNC: 70, LAC: 2, RAC: 3, CellID: 7000}
	b := make([]byte, pcuif.V12.FullSize())
	copy(b, []byte{byte(pcuif.TypeContainer), 0, 0, 0, pcuif.ContNeighAddrCnf, 0, 0, 18})
	copy(b[8:], cnf.Marshal())
	e.handleMessage(b)
	want := bssgp.CellID{RAI: bssgp.RAI{MCC: 901, MNC: 70, LAC: 2, RAC: 3}, CI: 7000}
	got, ok := e.naccState().neigh.Lookup(nacc.Key{LocalLAC: 1, LocalCI: 6969, ARFCN: 871, BSIC: 63}, e.now, time.Hour)
	if !ok || got != want {
		t.Fatalf("neighbour cache %+v %v, want %+v", got, ok, want)
	}
}
