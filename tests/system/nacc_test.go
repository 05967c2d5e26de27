package system

import (
	"bytes"
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gopcu/gopcu/bssgp"
	"github.com/gopcu/gopcu/gsmtap"
	"github.com/gopcu/gopcu/internal/emu/btsemu"
	"github.com/gopcu/gopcu/internal/emu/msemu"
	"github.com/gopcu/gopcu/internal/syncbuf"
	"github.com/gopcu/gopcu/internal/testutil"
	"github.com/gopcu/gopcu/pcu"
	"github.com/gopcu/gopcu/pcu/pcuif"
	"github.com/gopcu/gopcu/rlcmac"
)

// The target cell of the NACC tests: ARFCN 880, BSIC 10, CGI-PS
// 901-70-2-3-7000, and its SI1, SI3 and SI13 as a RAN-INFORMATION carries
// them (21 octets from the message type on).
var (
	naccTarget = bssgp.CellID{RAI: bssgp.RAI{MCC: 901, MNC: 70, LAC: 2, RAC: 3}, CI: 7000}
	naccSI1    = testutil.MustHex("19" + "000000000000000000000000000000" + "01" + "e50400" + "2b")
	naccSI3    = testutil.MustHex("1b" + "1b58" + "09f1070002" + "480300" + "25" + "4740" + "e50400" + "2b2b2b2b")
	naccSI13   = testutil.MustHex("0082a64c1e940fc5ef692a5053cb4b2b2b2b2b2b2b")
)

// rimGb is the SGSN side for NACC: it records the RIM PDUs the engine
// sends on the signalling BVC.
type rimGb struct {
	*fakeGb
	out syncbuf.List[bssgp.PDU]
}

func (g *rimGb) SendSignalling(p bssgp.PDU) error {
	b, err := bssgp.Marshal(p)
	if err != nil {
		return err
	}
	q, err := bssgp.Parse(b) // a copy, as the SGSN would see it
	if err != nil {
		return err
	}
	g.out.Append(q)
	return nil
}

func (g *rimGb) take() []bssgp.PDU { return g.out.Take() }

// naccInfo is the target cell's RAN-INFORMATION answering req.
func naccInfo(req *bssgp.RIM, rep bssgp.CellID, si ...[]byte) *bssgp.RIM {
	a := bssgp.NACCInfo{ReportingCell: rep, SI: si}
	c := bssgp.RIMContainer{AppID: bssgp.RIMAppNACC, SeqNum: 1, HasSeqNum: true, ProtVer: 1, HasProtVer: true, AppCont: a.Marshal()}
	c.SetPDUInd(bssgp.RIMInfoSingle, false)
	return req.Mirror(bssgp.PDURANInformation, bssgp.MarshalRIMContainer(bssgp.IERANInfoRIMCont, &c))
}

type naccRig struct {
	*radioRig
	gb       *rimGb
	neighReq []pcuif.NeighAddrReq
	mu       sync.Mutex
}

// startNACC starts a cell (BTS emulator in version v) whose BSC resolves
// ARFCN 880 / BSIC 10 to naccTarget and nothing else.
func startNACC(t *testing.T, v pcuif.Version) *naccRig {
	r := &naccRig{radioRig: startRadio(t, v, bulkParams(), 5)}
	r.gb = &rimGb{fakeGb: r.radioRig.gb}
	r.eng.Call(func() { r.eng.SetGb(r.gb) })
	r.bts.OnContainer(func(c pcuif.Container) pcuif.Message {
		req, err := pcuif.ParseNeighAddrReq(c.Data)
		if c.MsgType != pcuif.ContNeighAddrReq || err != nil {
			t.Errorf("unexpected container %+v", c)
			return nil
		}
		r.mu.Lock()
		r.neighReq = append(r.neighReq, req)
		r.mu.Unlock()
		cnf := pcuif.NeighAddrCnf{Req: req, ErrCode: 1}
		if req.TgtARFCN == 880 && req.TgtBSIC == 10 {
			cnf = pcuif.NeighAddrCnf{Req: req, MCC: 901, MNC: 70, LAC: 2, RAC: 3, CellID: 7000}
		}
		return &pcuif.Container{MsgType: pcuif.ContNeighAddrCnf, Data: cnf.Marshal()}
	})
	return r
}

// run steps the radio until done or n blocks passed; the SGSN answers
// every RAN-INFORMATION-REQUEST for naccTarget (answer=true) with its SI.
func (r *naccRig) run(t *testing.T, n int, answer bool, done func() bool) (reqs []*bssgp.RIM) {
	t.Helper()
	for i := 0; i < n && !done(); i++ {
		r.step(t)
		for _, p := range r.gb.take() {
			req, ok := p.(*bssgp.RIM)
			if !ok || req.PDUType != bssgp.PDURANInformationReq {
				t.Fatalf("unexpected PDU to the SGSN: %#v", p)
			}
			reqs = append(reqs, req)
			if answer && req.Dest.Cell.Equal(naccTarget) {
				info := naccInfo(req, naccTarget, naccSI1, naccSI3, naccSI13)
				r.eng.Do(func() { r.eng.RIMReceived(info) })
			}
		}
	}
	return reqs
}

func ulMS(r *naccRig, tlli uint32) *msemu.MS {
	ms := r.cell.AddMS(tlli, "901700000000077", 10)
	for i := 0; i < 8; i++ {
		ms.SendLLC(llcFrame(i, 1400)) // an UL TBF that lasts
	}
	return ms
}

// TestNACCOverPCUIF: an MS in uplink transfer reports a GSM target; gopcu
// resolves it over the PCU socket (NEIGH_ADDR_REQ/CNF, every PCUIF
// version), asks the SGSN for its SI (RAN-INFORMATION-REQUEST, NACC, single
// report), sends them as Packet Neighbour Cell Data (checked byte for byte
// by the MS) and a Packet Cell Change Continue, which the MS acknowledges.
// A second MS then reporting the same target is served from both caches.
func TestNACCOverPCUIF(t *testing.T) {
	for _, v := range []pcuif.Version{pcuif.V10, pcuif.V11, pcuif.V12} {
		t.Run(v.String(), func(t *testing.T) {
			r := startNACC(t, v)
			ms := ulMS(r, 0xc0000077)
			r.run(t, 300, false, func() bool { return ms.ULActive() })
			if !ms.ULActive() {
				t.Fatal("no UL TBF")
			}
			ms.SendCellChangeNotification(&rlcmac.PacketCellChangeNotification{ARFCN: 880, BSIC: 10, RXLevServing: 30})
			reqs := r.run(t, 400, true, func() bool { return len(ms.NACC.Continues) > 0 })
			if len(r.neighReq) != 1 || r.neighReq[0] != (pcuif.NeighAddrReq{LocalLAC: 1, LocalCI: 6969, TgtARFCN: 880, TgtBSIC: 10}) {
				t.Fatalf("NEIGH_ADDR_REQs %+v", r.neighReq)
			}
			if len(reqs) != 1 {
				t.Fatalf("%d RAN-INFORMATION-REQUESTs", len(reqs))
			}
			req := reqs[0]
			c, err := bssgp.ParseRIMContainer(bssgp.IERANInfoReqRIMCont, req.Container)
			if err != nil || c.AppID != bssgp.RIMAppNACC || c.SeqNum != 1 || c.PDUTypeExt() != bssgp.RIMReqSingle || c.AckRequested() || c.ProtVer != 1 {
				t.Fatalf("request container %+v %v", c, err)
			}
			rep, _ := bssgp.ParseNACCRequest(c.AppCont)
			serving := bssgp.CellID{RAI: bssgp.RAI{MCC: 901, MNC: 70, LAC: 1}, CI: 6969}
			if !rep.Equal(naccTarget) || !req.Dest.Cell.Equal(naccTarget) || !req.Src.Cell.Equal(serving) {
				t.Fatalf("request dest %v src %v reporting %v", req.Dest.Cell, req.Src.Cell, rep)
			}
			want := append(append(append([]byte(nil), naccSI1...), naccSI3...), naccSI13...)
			n := &ms.NACC
			if !bytes.Equal(n.Data, want) || !n.Complete || n.PSI || !n.HasID || n.ARFCN != 880 || n.BSIC != 10 {
				t.Fatalf("Neighbour Cell Data: %x (complete %v)\nwant %x", n.Data, n.Complete, want)
			}
			if !bytes.Equal(n.Indexes, []uint8{0, 1, 2, 3}) {
				t.Fatalf("container indexes %v", n.Indexes)
			}
			if cc := n.Continues[0]; !cc.HasID || cc.ARFCN != 880 || cc.BSIC != 10 || cc.ContainerID != 0 {
				t.Fatalf("Continue %+v", cc)
			}
			r.run(t, 30, true, func() bool { return false }) // the Control Ack is handled
			for ctr, want := range map[int]uint64{pcu.CtrPktCellChgNotification: 1, pcu.CtrPktNeighCellData: 4, pcu.CtrPktCellChgContinue: 1} {
				if got := r.btsCtr(ctr); got != want {
					t.Errorf("counter %s = %d, want %d", pcu.BTSCounterDescs[ctr].Name, got, want)
				}
			}

			// a second MS, same target: both caches hit (X10, X11 = 5 s)
			ms2 := ulMS(r, 0xc0000078)
			r.run(t, 300, false, func() bool { return ms2.ULActive() })
			ms2.SendCellChangeNotification(&rlcmac.PacketCellChangeNotification{ARFCN: 880, BSIC: 10})
			reqs = r.run(t, 300, false, func() bool { return len(ms2.NACC.Continues) > 0 })
			if len(reqs) != 0 || len(r.neighReq) != 1 || !bytes.Equal(ms2.NACC.Data, want) {
				t.Fatalf("cached run: %d RIM requests, %d resolutions, data %x", len(reqs), len(r.neighReq), ms2.NACC.Data)
			}
		})
	}
}

// TestNACCContinueRetransmitted: a lost Control Ack makes gopcu send the
// Packet Cell Change Continue again (osmo-pcu: poll timeout ->
// TX_CELL_CHG_CONTINUE); unresolvable targets and a silent SGSN end in the
// Continue after X1 / X2 (1 s).
func TestNACCContinueRetransmitted(t *testing.T) {
	r := startNACC(t, pcuif.V12)
	ms := ulMS(r, 0xc0000079)
	r.run(t, 300, false, func() bool { return ms.ULActive() })
	ms.NACC.DropContinueAcks = 1
	ms.SendCellChangeNotification(&rlcmac.PacketCellChangeNotification{ARFCN: 880, BSIC: 10})
	r.run(t, 600, true, func() bool { return len(ms.NACC.Continues) >= 2 })
	if len(ms.NACC.Continues) != 2 || r.btsCtr(pcu.CtrPktCellChgContinue) != 2 {
		t.Fatalf("%d Continues", len(ms.NACC.Continues))
	}

	// unknown ARFCN/BSIC: the BSC answers with an error, Continue at once
	ms2 := ulMS(r, 0xc000007a)
	r.run(t, 300, false, func() bool { return ms2.ULActive() })
	ms2.SendCellChangeNotification(&rlcmac.PacketCellChangeNotification{ARFCN: 99, BSIC: 1})
	r.run(t, 300, false, func() bool { return len(ms2.NACC.Continues) > 0 })
	if len(ms2.NACC.Continues) != 1 || len(ms2.NACC.Indexes) != 0 || !ms2.NACC.Continues[0].HasID || ms2.NACC.Continues[0].ARFCN != 99 {
		t.Fatalf("unresolved target: %+v", ms2.NACC)
	}

}

// TestNACCSilentSGSN: no RAN-INFORMATION comes; X2 (1000 ms) after the
// request the MS gets the Continue, without Neighbour Cell Data.
func TestNACCSilentSGSN(t *testing.T) {
	r := startNACC(t, pcuif.V12)
	ms := ulMS(r, 0xc000007b)
	r.run(t, 300, false, func() bool { return ms.ULActive() })
	ms.SendCellChangeNotification(&rlcmac.PacketCellChangeNotification{ARFCN: 880, BSIC: 10})
	var reqs []*bssgp.RIM
	blocks := 0
	for blocks = 0; blocks < 300 && len(reqs) == 0; blocks++ {
		reqs = append(reqs, r.run(t, 1, false, func() bool { return false })...)
	}
	if len(reqs) != 1 {
		t.Fatal("no RAN-INFORMATION-REQUEST")
	}
	n := 0
	for ; n < 300 && len(ms.NACC.Continues) == 0; n++ {
		r.run(t, 1, false, func() bool { return false })
	}
	// 1000 ms = 50 radio blocks (12 blocks per 52 frames of 4.615 ms); the
	// Continue goes in one of the next blocks on the control TS
	if len(ms.NACC.Continues) != 1 || len(ms.NACC.Indexes) != 0 || n < 49 || n > 53 {
		t.Fatalf("Continue after %d blocks: %+v", n, ms.NACC)
	}
}

// TestNACCUTRANTarget: a UTRAN target gets the Continue at once, without
// ARFCN/BSIC and without resolution or RIM.
func TestNACCUTRANTarget(t *testing.T) {
	r := startNACC(t, pcuif.V12)
	ms := ulMS(r, 0xc000007c)
	r.run(t, 300, false, func() bool { return ms.ULActive() })
	ms.SendCellChangeNotification(&rlcmac.PacketCellChangeNotification{Target: rlcmac.PCCNTarget3G, Has3G: true,
		UTRAN: rlcmac.PCCN3GTarget{HasFDD: true, FDDARFCN: 10700, ScramblingCode: 1}})
	reqs := r.run(t, 300, true, func() bool { return len(ms.NACC.Continues) > 0 })
	if len(ms.NACC.Continues) != 1 || ms.NACC.Continues[0].HasID || len(reqs) != 0 || len(r.neighReq) != 0 || len(ms.NACC.Indexes) != 0 {
		t.Fatalf("UTRAN target: %+v, %d RIM, %d resolutions", ms.NACC, len(reqs), len(r.neighReq))
	}
}

// rimReq is a RAN-INFORMATION-REQUEST from cell src for dest, app app,
// reporting cell rep (nil: no application container).
func rimReq(dest, src bssgp.RIMRoutingInfo, app uint8, rep *bssgp.CellID) *bssgp.RIM {
	c := bssgp.RIMContainer{AppID: app, SeqNum: 1, HasSeqNum: true, ProtVer: 1, HasProtVer: true}
	if rep != nil {
		c.AppCont = bssgp.MarshalNACCRequest(*rep)
	}
	c.SetPDUInd(bssgp.RIMReqSingle, false)
	return &bssgp.RIM{PDUType: bssgp.PDURANInformationReq, Dest: dest, Src: src,
		Container: bssgp.MarshalRIMContainer(bssgp.IERANInfoReqRIMCont, &c)}
}

// TestRIMServer: gopcu answers RAN-INFORMATION-REQUESTs about its own cell
// as osmo-pcu: RAN-INFORMATION with the SI1, SI3 and SI13 the BTS sent on
// BCCH; RAN-INFORMATION-ERROR for another application or reporting cell;
// STATUS for a non-GERAN or unknown destination; nothing for an
// undecodable application container.
func TestRIMServer(t *testing.T) {
	r := startNACC(t, pcuif.V12)
	serving := bssgp.CellID{RAI: bssgp.RAI{MCC: 901, MNC: 70, LAC: 1}, CI: 6969}
	// the BTS's SI on BCCH: L2 pseudo length, PD, then the 21 octets
	for _, b := range bcchSI() {
		if err := r.bts.Send(&pcuif.Data{Kind: pcuif.TypeDataInd, SAPI: pcuif.SAPIBCCH, Payload: b}); err != nil {
			t.Fatal(err)
		}
	}
	r.run(t, 2, false, func() bool { return false })
	geran := func(c bssgp.CellID) bssgp.RIMRoutingInfo {
		return bssgp.RIMRoutingInfo{Discr: bssgp.RIMRoutingGERAN, Cell: c}
	}
	ask := func(p *bssgp.RIM) []bssgp.PDU {
		r.eng.Call(func() { r.eng.RIMReceived(p) })
		return r.gb.take()
	}
	other := naccTarget
	out := ask(rimReq(geran(serving), geran(other), bssgp.RIMAppNACC, &serving))
	if len(out) != 1 {
		t.Fatalf("answers %v", out)
	}
	info, ok := out[0].(*bssgp.RIM)
	if !ok || info.PDUType != bssgp.PDURANInformation || !info.Dest.Cell.Equal(other) || !info.Src.Cell.Equal(serving) {
		t.Fatalf("answer %#v", out[0])
	}
	c, err := bssgp.ParseRIMContainer(bssgp.IERANInfoRIMCont, info.Container)
	if err != nil || c.AppID != bssgp.RIMAppNACC || c.SeqNum != 1 || c.PDUTypeExt() != bssgp.RIMInfoSingle || c.ProtVer != 1 {
		t.Fatalf("container %+v %v", c, err)
	}
	a, err := bssgp.ParseNACCInfo(c.AppCont)
	if err != nil || !a.ReportingCell.Equal(serving) || a.PSI || len(a.SI) != 3 ||
		!bytes.Equal(a.SI[0], naccSI1) || !bytes.Equal(a.SI[1], naccSI3) || !bytes.Equal(a.SI[2], naccSI13) {
		t.Fatalf("NACC info %+v %v", a, err)
	}

	for name, req := range map[string]*bssgp.RIM{
		"wrong reporting cell": rimReq(geran(serving), geran(other), bssgp.RIMAppNACC, &other),
		"wrong application":    rimReq(geran(serving), geran(other), bssgp.RIMAppSI3, nil),
	} {
		out := ask(req)
		e, ok := out[0].(*bssgp.RIM)
		if len(out) != 1 || !ok || e.PDUType != bssgp.PDURANInformationError {
			t.Fatalf("%s: %#v", name, out)
		}
		ec, err := bssgp.ParseRIMContainer(bssgp.IERANInfoErrorRIMCont, e.Container)
		if err != nil || ec.AppID != bssgp.RIMAppNACC || !ec.HasCause || ec.Cause != 0 || !bytes.Equal(ec.PDUInError, req.Container) {
			t.Fatalf("%s: error container %+v %v", name, ec, err)
		}
	}
	for name, tc := range map[string]struct {
		req   *bssgp.RIM
		cause bssgp.Cause
	}{
		"unknown destination": {rimReq(geran(other), geran(serving), bssgp.RIMAppNACC, &other), bssgp.CauseUnknownDestination},
		"UTRAN destination": {rimReq(bssgp.RIMRoutingInfo{Discr: bssgp.RIMRoutingUTRAN, Cell: serving}, geran(other), bssgp.RIMAppNACC, &serving),
			bssgp.CauseUnknownRIMAppIdentity},
	} {
		out := ask(tc.req)
		st, ok := out[0].(*bssgp.Status)
		if len(out) != 1 || !ok || st.Cause != tc.cause {
			t.Fatalf("%s: %#v", name, out)
		}
	}
	bad := rimReq(geran(serving), geran(other), bssgp.RIMAppSI3, &serving) // libosmogb cannot decode SI3 containers
	if out := ask(bad); len(out) != 0 {
		t.Fatalf("undecodable request answered: %#v", out)
	}
}

// TestNACCOverCTRL: with osmo-pcu 1.1.0's `neighbor resolution ADDR PORT`
// the target is resolved over the BSC's CTRL interface (no PCUIF
// container), with osmo-pcu's command and id (ARFCN*100+BSIC); an ERROR
// reply ends in the Continue.
func TestNACCOverCTRL(t *testing.T) {
	addr, port, cmds := testutil.FakeBSCCtrl(t)
	p := bulkParams()
	p.NACC.NeighCtrlAddr, p.NACC.NeighCtrlPort = addr, port
	p.NACC.X1 = time.Hour // radio time runs faster than the CTRL goroutines here
	r := &naccRig{radioRig: startRadio(t, pcuif.V12, p, 6)}
	r.gb = &rimGb{fakeGb: r.radioRig.gb}
	r.eng.Call(func() { r.eng.SetGb(r.gb) })
	r.bts.OnContainer(func(c pcuif.Container) pcuif.Message {
		t.Errorf("PCUIF container %+v despite `neighbor resolution`", c)
		return nil
	})
	ms := ulMS(r, 0xc0000080)
	r.run(t, 300, false, func() bool { return ms.ULActive() })
	ms.SendCellChangeNotification(&rlcmac.PacketCellChangeNotification{ARFCN: 880, BSIC: 10})
	// the CTRL answer comes from another goroutine: step the radio until
	// the Continue arrives
	continued := func(m *msemu.MS) func() bool {
		return func() bool {
			r.run(t, 1, true, func() bool { return false })
			return len(m.NACC.Continues) > 0
		}
	}
	testutil.Eventually(t, 5*time.Second, continued(ms), "no Packet Cell Change Continue after the CTRL answer")
	select {
	case c := <-cmds:
		if c != "GET 88010 neighbor_resolve_cgi_ps_from_lac_ci.1.6969.880.10" {
			t.Fatalf("CTRL command %q", c)
		}
	default:
		t.Fatal("no CTRL command")
	}
	want := append(append(append([]byte(nil), naccSI1...), naccSI3...), naccSI13...)
	if !bytes.Equal(ms.NACC.Data, want) || len(ms.NACC.Continues) != 1 {
		t.Fatalf("NACC over CTRL: %+v", ms.NACC)
	}
	ms2 := ulMS(r, 0xc0000081)
	r.run(t, 300, false, func() bool { return ms2.ULActive() })
	ms2.SendCellChangeNotification(&rlcmac.PacketCellChangeNotification{ARFCN: 12, BSIC: 3})
	testutil.Eventually(t, 5*time.Second, continued(ms2), "no Packet Cell Change Continue after the CTRL ERROR")
	if c := <-cmds; c != "GET 1203 neighbor_resolve_cgi_ps_from_lac_ci.1.6969.12.3" {
		t.Fatalf("CTRL command %q", c)
	}
	if len(ms2.NACC.Continues) != 1 || len(ms2.NACC.Indexes) != 0 {
		t.Fatalf("after CTRL ERROR: %+v", ms2.NACC)
	}
}

// naccByCCN has an MS (class 10) of a new cell on bts (seed) start an
// uplink transfer and, once its UL TBF is up, send a Packet Cell Change
// Notification for ARFCN 880 / BSIC 10; it steps the radio in real time
// (the SGSN answers over UDP) until the MS has a Packet Cell Change
// Continue, waiting at most ulWait for the TBF and 10 s for the Continue.
func naccByCCN(t *testing.T, bts *btsemu.BTS, seed int64, tlli uint32, imsi string, ulWait time.Duration) (*msemu.Cell, *msemu.MS) {
	cell := msemu.NewCell(bts, seed)
	ms := cell.AddMS(tlli, imsi, 10)
	for i := 0; i < 8; i++ {
		ms.SendLLC(llcFrame(i, 1400))
	}
	step := func(until func() bool, d time.Duration) {
		for deadline := time.Now().Add(d); !until() && time.Now().Before(deadline); {
			if err := cell.Step(context.Background()); err != nil {
				t.Fatal(err)
			}
			time.Sleep(2 * time.Millisecond) // real time: the SGSN answers over UDP, on purpose
		}
	}
	step(ms.ULActive, ulWait)
	if !ms.ULActive() {
		t.Fatal("no UL TBF")
	}
	ms.SendCellChangeNotification(&rlcmac.PacketCellChangeNotification{ARFCN: 880, BSIC: 10, RXLevServing: 20})
	step(func() bool { return len(ms.NACC.Continues) > 0 }, 10*time.Second)
	return cell, ms
}

// TestGSMTAPSessionNACC: a NACC run tapped with GSMTAP (every category):
// tshark decodes the Packet Cell Change Notification, the four Packet
// Neighbour Cell Data, the Packet Cell Change Continue and its Packet
// Control Ack without a malformed packet.
func TestGSMTAPSessionNACC(t *testing.T) {
	sink := listenGSMTAP(t)
	p := bulkParams()
	p.GSMTAPCategories = 0xffffffff
	r := &naccRig{radioRig: startRadio(t, pcuif.V12, p, 7)}
	r.gb = &rimGb{fakeGb: r.radioRig.gb}
	r.eng.Call(func() { r.eng.SetGb(r.gb) })
	r.bts.OnContainer(func(c pcuif.Container) pcuif.Message {
		req, _ := pcuif.ParseNeighAddrReq(c.Data)
		cnf := pcuif.NeighAddrCnf{Req: req, MCC: 901, MNC: 70, LAC: 2, RAC: 3, CellID: 7000}
		return &pcuif.Container{MsgType: pcuif.ContNeighAddrCnf, Data: cnf.Marshal()}
	})
	ms := ulMS(r, 0xc0000090)
	r.run(t, 300, false, func() bool { return ms.ULActive() })
	ms.SendCellChangeNotification(&rlcmac.PacketCellChangeNotification{ARFCN: 880, BSIC: 10, RXLevServing: 30})
	r.run(t, 300, true, func() bool { return len(ms.NACC.Continues) > 0 })
	r.run(t, 10, true, func() bool { return false })
	testutil.NeedBinaries(t, "tshark")
	var pcap bytes.Buffer
	w, err := gsmtap.NewPcapWriter(&pcap)
	if err != nil {
		t.Fatal(err)
	}
	// the last datagrams on loopback: wait until the Control Ack is there
	sawAck := func() bool {
		sink.mu.Lock()
		defer sink.mu.Unlock()
		for _, b := range sink.pkts {
			var h gsmtap.Header
			if n, err := h.Unmarshal(b); err == nil && h.Uplink && h.SubType == gsmtap.ChannelPACCH {
				if _, m, err := rlcmac.DecodeUL(b[n:]); err == nil {
					if _, ok := m.(*rlcmac.PacketControlAck); ok {
						return true
					}
				}
			}
		}
		return false
	}
	testutil.Poll(2*time.Second, sawAck)
	sink.mu.Lock()
	for _, b := range sink.pkts {
		var h gsmtap.Header
		n, err := h.Unmarshal(b)
		if err != nil {
			t.Fatal(err)
		}
		if h.SubType != gsmtap.ChannelPACCH {
			continue
		}
		if err := w.Write(time.Now(), &h, b[n:]); err != nil {
			t.Fatal(err)
		}
	}
	sink.mu.Unlock()
	s := tsharkClean(t, pcap.Bytes())
	for w, n := range map[string]int{"RLC/MAC: PACKET_CELL_CHANGE_NOTIFICATION (12) (Uplink)": 1,
		"RLC/MAC: PACKET_NEIGHBOUR_CELL_DATA (12) (Downlink)": 4, "RLC/MAC: PACKET_CELL_CHANGE_CONTINUE (11) (Downlink)": 1,
		"RLC/MAC: PACKET_CONTROL_ACKNOWLEDGEMENT (1) (Uplink)": 1} {
		if got := strings.Count(s, w); got != n {
			t.Errorf("tshark shows %d × %q, want %d\n%s", got, w, n, testutil.GrepLines(s, "RLC/MAC:"))
		}
	}
}

// TestNACCRIMError: the SGSN answers the RAN-INFORMATION-REQUEST with
// RAN-INFORMATION-ERROR (or the target with an application error): the MS
// gets the Continue at once, without Neighbour Cell Data, not after X2.
func TestNACCRIMError(t *testing.T) {
	for _, appErr := range []bool{false, true} {
		r := startNACC(t, pcuif.V12)
		ms := ulMS(r, 0xc00000a0)
		r.run(t, 300, false, func() bool { return ms.ULActive() })
		ms.SendCellChangeNotification(&rlcmac.PacketCellChangeNotification{ARFCN: 880, BSIC: 10})
		var req *bssgp.RIM
		for i := 0; i < 100 && req == nil; i++ {
			if reqs := r.run(t, 1, false, func() bool { return false }); len(reqs) > 0 {
				req = reqs[0]
			}
		}
		if req == nil {
			t.Fatal("no RAN-INFORMATION-REQUEST")
		}
		var ans *bssgp.RIM
		if appErr {
			c := bssgp.RIMContainer{AppID: bssgp.RIMAppNACC, SeqNum: 1, HasSeqNum: true, ProtVer: 1, HasProtVer: true,
				AppError: []byte{bssgp.NACCCauseUnspecified}}
			c.SetPDUInd(bssgp.RIMInfoSingle, false)
			ans = req.Mirror(bssgp.PDURANInfoAppError, bssgp.MarshalRIMContainer(bssgp.IERANInfoAppErrRIM, &c))
		} else {
			c := bssgp.RIMContainer{AppID: bssgp.RIMAppNACC, HasCause: true, Cause: bssgp.CauseUnknownDestination, ProtVer: 1,
				HasProtVer: true, PDUInError: req.Container}
			ans = req.Mirror(bssgp.PDURANInformationError, bssgp.MarshalRIMContainer(bssgp.IERANInfoErrorRIMCont, &c))
		}
		r.eng.Call(func() { r.eng.RIMReceived(ans) })
		n := 0
		for ; n < 100 && len(ms.NACC.Continues) == 0; n++ {
			r.run(t, 1, false, func() bool { return false })
		}
		if len(ms.NACC.Continues) != 1 || len(ms.NACC.Indexes) != 0 || n > 10 {
			t.Fatalf("app error %v: Continue after %d blocks: %+v", appErr, n, ms.NACC)
		}
	}
}
