package system

import (
	"bytes"
	"net/netip"
	"strings"
	"testing"
	"time"

	"github.com/gopcu/gopcu/internal/emu/btsemu"
	"github.com/gopcu/gopcu/pcu"
	"github.com/gopcu/gopcu/pcu/pcuif"
)

// TestNACCViaRealSGSN: two gopcu instances with their BTS emulators and
// different cells (A: 901-70-1-0-6969, ARFCN 871 BSIC 63; B:
// 901-70-2-3-7000, ARFCN 880 BSIC 10) on Debian's osmo-sgsn 1.9. An MS in
// cell A reports B as target: A's BSC resolves it, A's
// RAN-INFORMATION-REQUEST goes through osmo-sgsn's RIM routing to B, B
// answers with the SI1/SI3/SI13 its BTS broadcasts, and the MS receives
// them in Packet Neighbour Cell Data byte for byte.
func TestNACCViaRealSGSN(t *testing.T) {
	n, dir := startOsmoSGSN(t)

	infoA := btsemu.DefaultInfo(pcuif.V12)
	infoB := btsemu.DefaultInfo(pcuif.V12)
	infoB.BSIC, infoB.LAC, infoB.RAC, infoB.CellID, infoB.BVCI, infoB.NSEI = 10, 2, 3, 7000, 1801, 102
	infoB.TRX[0].ARFCN = 880
	infoB.SetRemote(0, 102, 23002, netip.MustParseAddrPort("127.0.0.1:23000"))
	// the radio runs faster than real time here: X1 and X2 an hour
	a := startGbCell(t, n, dir, "bts_a", infoA, "pcu\n timer X1 3600000\n timer X2 3600000\n")
	b := startGbCell(t, n, dir, "bts_b", infoB, "")
	a.waitGb(t)
	b.waitGb(t)
	out, _ := n.Output("python3", "../lab/tools/vty.py", "4245", "show bssgp")
	for _, w := range []string{"BVCI  1800, RA-ID: 901-70-1-0, CID: 6969, STATE: UNBLOCKED", "BVCI  1801, RA-ID: 901-70-2-3, CID: 7000, STATE: UNBLOCKED"} {
		if !strings.Contains(out, w) {
			t.Fatalf("osmo-sgsn show bssgp lacks %q:\n%s", w, out)
		}
	}
	// cell B's BTS broadcasts its SI
	for _, si := range bcchSI() {
		if err := b.bts.Send(&pcuif.Data{Kind: pcuif.TypeDataInd, SAPI: pcuif.SAPIBCCH, Payload: si}); err != nil {
			t.Fatal(err)
		}
	}
	// cell A's BSC knows B as neighbour
	a.bts.OnContainer(func(c pcuif.Container) pcuif.Message {
		req, _ := pcuif.ParseNeighAddrReq(c.Data)
		cnf := pcuif.NeighAddrCnf{Req: req, ErrCode: 1}
		if req.TgtARFCN == 880 && req.TgtBSIC == 10 {
			cnf = pcuif.NeighAddrCnf{Req: req, MCC: 901, MNC: 70, LAC: 2, RAC: 3, CellID: 7000}
		}
		return &pcuif.Container{MsgType: pcuif.ContNeighAddrCnf, Data: cnf.Marshal()}
	})

	_, ms := naccByCCN(t, a.bts, 31, 0xd0000002, "901700000000043", 5*time.Second)
	want := append(append(append([]byte(nil), naccSI1...), naccSI3...), naccSI13...)
	if !bytes.Equal(ms.NACC.Data, want) || !ms.NACC.Complete || len(ms.NACC.Continues) != 1 {
		t.Fatalf("MS got %x (%d Continues), want %x", ms.NACC.Data, len(ms.NACC.Continues), want)
	}
	for c, wantN := range map[int]uint64{pcu.CtrPktNeighCellData: 4, pcu.CtrPktCellChgContinue: 1} {
		var got uint64
		a.eng.Call(func() { b, _ := a.eng.BTSView(0); got = b.Ctr.Value(c) })
		if got != wantN {
			t.Errorf("%s = %d, want %d", pcu.BTSCounterDescs[c].Name, got, wantN)
		}
	}
}
