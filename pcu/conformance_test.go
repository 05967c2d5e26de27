package pcu

import (
	"encoding/binary"
	"encoding/hex"
	"testing"
	"time"

	"github.com/gopcu/gopcu/bssgp"
	"github.com/gopcu/gopcu/pcu/pcuif"
	"github.com/gopcu/gopcu/rlcmac"
)

// Behaviours the Osmocom PCU conformance suite (osmo-ttcn3-hacks pcu/PCU_Tests.ttcn)
// found different from osmo-pcu, each driven through the engine on
// virtual time, without the MS emulator.

// sentData collects the DATA_REQs the engine sends.
func sentData(e *Engine) *[]pcuif.Data {
	var out []pcuif.Data
	e.sent = func(m pcuif.Message) {
		if d, ok := m.(*pcuif.Data); ok {
			c := *d
			c.Payload = append([]byte(nil), d.Payload...)
			out = append(out, c)
		}
	}
	return &out
}

// TestDLImmAssWithoutIMSIOnAGCH: DL-UNITDATA without IMSI leaves no paging
// group, so the DL Immediate Assignment goes on AGCH (AGCH_2, confirmed by
// msg_id = TLLI), as osmo-pcu; with an IMSI it goes on PCH.
func TestDLImmAssWithoutIMSIOnAGCH(t *testing.T) {
	e, bts := fsmEngine(t, &fakeClock{}, nil)
	out := sentData(e)
	llcUI := []byte{0x41, 0xc0, 1, 2, 3}
	for _, c := range []struct {
		tlli uint32
		imsi string
		sapi pcuif.SAPI
	}{{0xc0800001, "", pcuif.SAPIAGCH2}, {0xc0800002, "001010000000002", pcuif.SAPIPCH2}} {
		*out = (*out)[:0]
		e.HandleDLUnitdata(0, &DLUnitdata{TLLI: c.tlli, IMSI: c.imsi, Lifetime: 1000, LLC: append([]byte(nil), llcUI...)})
		if len(*out) != 1 || (*out)[0].SAPI != c.sapi {
			t.Fatalf("IMSI %q: sent %+v, want one DATA_REQ on SAPI %v", c.imsi, *out, c.sapi)
		}
		if c.sapi == pcuif.SAPIAGCH2 {
			var a pcuif.AGCH2
			if err := a.Unmarshal((*out)[0].Payload); err != nil || a.MsgID != c.tlli || !a.Confirm {
				t.Fatalf("AGCH_2 %+v (%v): want msg_id %08x with confirmation", a, err, c.tlli)
			}
			var ia rlcmac.ImmediateAssignment
			if err := rlcmac.DecodeImmediateAssignment(a.MAC[:], &ia); err != nil || ia.Rest.Kind != rlcmac.IARPacketDownlink || ia.Rest.TLLI != c.tlli {
				t.Fatalf("not a DL assignment for the TLLI: %+v %v", ia.Rest, err)
			}
			e.onDataCnf2(bts, &pcuif.DataCnf2{MsgID: c.tlli})
			if !bts.ms.byTLLI[c.tlli].DL.running(tmX2002) {
				t.Fatal("the AGCH_2 confirmation did not start X2002")
			}
		}
	}
}

// TestPUAOnPACCHByTLLI: an MS asks for an UL TBF in its DL Ack/Nack's
// Channel Request Description; the Packet Uplink Assignment on the DL
// TBF's PACCH names it by its TLLI (osmo-pcu), not by the DL TBF's TFI.
func TestPUAOnPACCHByTLLI(t *testing.T) {
	e, bts := fsmEngine(t, &fakeClock{}, nil)
	dl := tbfIn(t, e, bts, DirDL, TBFFlow, 0xc0900001)
	dl.ms.DL = dl
	e.chanReqInAck(bts, dl, true)
	ul := dl.ms.UL
	if ul == nil || ul.ulAss != ctlSend {
		t.Fatal("no UL TBF to assign")
	}
	fn := nextBlockFN(0)
	rts := pcuif.RTSReq{SAPI: pcuif.SAPIPDTCH, FN: fn, ARFCN: 871, TS: dl.ctrlTS, BlockNr: uint8(blockNr(fn))}
	blk := e.schedule(bts, &bts.TRX[0].PDCH[dl.ctrlTS], &rts)
	_, msg, err := rlcmac.DecodeDL(blk)
	if err != nil {
		t.Fatal(err)
	}
	pua, ok := msg.(*rlcmac.PacketUplinkAssignment)
	if !ok || pua.ID.Kind != rlcmac.IDTLLI || pua.ID.TLLI != 0xc0900001 {
		t.Fatalf("sent %s %+v, want a Packet Uplink Assignment for TLLI c0900001", msg.Name(), msg)
	}
}

// TestULLinkAdaptationFromZeroDB: 0 dB is a measurement. UL blocks at
// 0 dB take an UL TBF from CS-4 down to CS-1 (one step a block, as
// osmo-pcu's ms_update_cs_ul: this and the previous value below the
// window), and a Packet Resource Request at 0 dB gives the new TBF CS-1
// from the INFO_IND's initial CS-2.
func TestULLinkAdaptationFromZeroDB(t *testing.T) {
	e, bts := fsmEngine(t, &fakeClock{}, nil)
	ul := tbfIn(t, e, bts, DirUL, TBFFlow, 0xc0a00001)
	ul.cs = rlcmac.CS4
	for i := 0; i < 5; i++ {
		e.adaptULCS(ul, 0)
		ul.ms.LinkQ = 0
	}
	if ul.cs != rlcmac.CS1 {
		t.Fatalf("after 5 blocks at 0 dB: %v, want CS-1", ul.cs)
	}
	// two-phase access: the single block's Packet Resource Request at 0 dB
	e.params.TwoPhaseAccess = true
	e.onRACH(bts, &pcuif.RACHInd{SAPI: pcuif.SAPIRACH, RA: 0x78, FN: 0})
	p, r := sbaOf(t, bts)
	prr, _ := hex.DecodeString("4016713dc094270ca2ae57ef909006aa0fc0001f80222b") // osmo-pcu RLCMACTest.cpp
	e.handleDataInd(bts, &pcuif.Data{SAPI: pcuif.SAPIPDTCH, FN: r.fn, TRX: p.TRX, TS: p.TS, ARFCN: 871, Payload: prr, LqualCb: 0})
	m := bts.ms.byTLLI[0xc4f70250]
	if m == nil || m.UL == nil || m.UL.cs != rlcmac.CS1 {
		t.Fatalf("UL TBF after a 0 dB Packet Resource Request: %v", m)
	}
}

// TestTwoPhaseEGPRSFromRAC: an 8-bit RACH (two-phase access) whose Packet
// Resource Request announces EGPRS in its MS Radio Access Capability
// (osmo-pcu's golden PRR: TLLI c4f70250, multislot class 11, EGPRS class
// 11) gets an EGPRS UL TBF with `mcs` initial, as osmo-pcu.
func TestTwoPhaseEGPRSFromRAC(t *testing.T) {
	e, bts := fsmEngine(t, &fakeClock{}, func(ii *pcuif.InfoInd) {
		for i := 1; i <= 9; i++ {
			ii.Flags |= pcuif.FlagMCS(i)
		}
		ii.InitialMCS = 6
	})
	e.params.TwoPhaseAccess = true
	e.onRACH(bts, &pcuif.RACHInd{SAPI: pcuif.SAPIRACH, RA: 0x78, FN: 0})
	p, r := sbaOf(t, bts)
	prr, _ := hex.DecodeString("4016713dc094270ca2ae57ef909006aa0fc0001f80222b")
	e.handleDataInd(bts, &pcuif.Data{SAPI: pcuif.SAPIPDTCH, FN: r.fn, TRX: p.TRX, TS: p.TS, ARFCN: 871, Payload: prr, LqualCb: 200})
	m := bts.ms.byTLLI[0xc4f70250]
	if m == nil || m.UL == nil || !m.UL.egprs || m.UL.cs != rlcmac.MCS6 {
		t.Fatalf("no EGPRS UL TBF at MCS-6 for the EGPRS MS: %+v", m)
	}
}

// sbaOf is the single block reserved on bts (and its PDCH).
func sbaOf(t *testing.T, bts *BTS) (*PDCH, resv) {
	t.Helper()
	for i := range bts.TRX[0].PDCH {
		p := &bts.TRX[0].PDCH[i]
		for _, r := range p.resv {
			if r.kind == resvSBA {
				return p, r
			}
		}
	}
	t.Fatal("no single block allocated")
	return nil, resv{}
}

// scheduleOn asks for the block at the next block FN after *fn on TS ts
// and decodes it as a control message (nil: a data block).
func scheduleOn(t *testing.T, e *Engine, bts *BTS, ts uint8, fn *uint32) ([]byte, rlcmac.Message) {
	t.Helper()
	*fn = nextBlockFN(*fn)
	rts := pcuif.RTSReq{SAPI: pcuif.SAPIPDTCH, FN: *fn, ARFCN: 871, TS: ts, BlockNr: uint8(blockNr(*fn))}
	blk := e.schedule(bts, &bts.TRX[0].PDCH[ts], &rts)
	if len(blk) == 0 || blk[0]>>6 == rlcmac.PTData {
		return blk, nil
	}
	_, m, err := rlcmac.DecodeDL(blk)
	if err != nil {
		t.Fatalf("undecodable control block % x: %v", blk, err)
	}
	return blk, m
}

// TestControlRotation: osmo-pcu's order of pending control messages. With
// the final Packet Uplink Ack/Nack pending when DL data arrives, the
// Packet Downlink Assignment goes first; when it was not answered it goes
// again within X2001 although the UL TBF has an Ack/Nack pending at every
// block (round robin over UL-ASS, DL-ASS, UL-ACK).
func TestControlRotation(t *testing.T) {
	e, bts := fsmEngine(t, &fakeClock{}, nil)
	ul := tbfIn(t, e, bts, DirUL, TBFFlow, 0xc0b00001)
	ul.ms.UL = ul
	ul.ul.tlliKnown = true
	e.fire(ul, evContention) // the TLLI went back in an Ack/Nack (ul.go encodePUAN)
	ul.ctl(&ul.ulAck, ctlSched)
	ul.ms.Queue.Enqueue(e.now, []byte{0x41, 0xc0, 1, 2, 3}, 0xffff)
	e.establishDL(bts, ul.ms)
	dl := ul.ms.DL
	if dl == nil || dl.dlAss != ctlSend || dl.assignOn != ul {
		t.Fatal("no DL TBF assigned on the UL TBF's PACCH")
	}
	fn := uint32(0)
	names := func(n int) []string {
		var got []string
		for i := 0; i < n; i++ {
			ul.ctl(&ul.ulAck, ctlSched) // an Ack/Nack is always due
			_, m := scheduleOn(t, e, bts, ul.ctrlTS, &fn)
			if m == nil {
				got = append(got, "data")
				continue
			}
			got = append(got, m.Name())
		}
		return got
	}
	if got := names(2); got[0] != "Packet Downlink Assignment" || got[1] != "Packet Uplink Ack/Nack" {
		t.Fatalf("first control blocks %q: want the assignment before the Ack/Nack", got)
	}
	e.pollTimeout(dl, pollDLAss) // the MS did not answer
	got := names(3)
	found := false
	for _, n := range got {
		found = found || n == "Packet Downlink Assignment"
	}
	if !found {
		t.Fatalf("after the assignment's poll timed out: %q, the assignment is not repeated", got)
	}
}

// TestPacketAccessRejectWaitIndication: an MS asks for an UL TBF in its
// DL Ack/Nack when no USF is free: it gets a Packet Access Reject on the
// DL TBF's PACCH with WAIT_INDICATION from T3172, in 20 ms units (size 1)
// when it fits, else in seconds (size 0), as osmo-pcu (TTCN-3
// TC_t3172_wait_ind_size0/1).
func TestPacketAccessRejectWaitIndication(t *testing.T) {
	for _, c := range []struct {
		t3172 time.Duration
		wait  uint8
		size  bool
	}{{5000 * time.Millisecond, 250, true}, {6 * time.Second, 6, false}} {
		e, bts := fsmEngine(t, &fakeClock{}, func(ii *pcuif.InfoInd) { ii.TRX[0].PDCHMask = 0x80 })
		e.params.T3172 = c.t3172
		for i := uint32(0); i < 7; i++ { // every USF of the PDCH
			tbfIn(t, e, bts, DirUL, TBFFlow, 0xc0c00010+i)
		}
		dl := tbfIn(t, e, bts, DirDL, TBFFlow, 0xc0c00001)
		dl.ms.DL = dl
		rejects := bts.Ctr.Value(CtrPktAccessReject)
		e.chanReqInAck(bts, dl, true)
		fn := uint32(0)
		_, m := scheduleOn(t, e, bts, 7, &fn)
		r, ok := m.(*rlcmac.PacketAccessReject)
		if !ok {
			t.Fatalf("T3172 %v: sent %v, want a Packet Access Reject", c.t3172, m)
		}
		if x := r.Reject[0]; x.IDKind != rlcmac.RejectTLLI || x.TLLI != 0xc0c00001 || !x.HasWait || x.Wait != c.wait || x.WaitSize != c.size {
			t.Fatalf("T3172 %v: reject %+v, want wait %d size %v", c.t3172, x, c.wait, c.size)
		}
		if bts.Ctr.Value(CtrPktAccessReject) != rejects+1 || dl.ms.UL != nil {
			t.Fatal("reject not counted, or an UL TBF exists")
		}
	}
}

// TestPollAfterLostPoll: a CCCH-assigned DL TBF whose first poll was not
// answered is assigned again; once it is back in FLOW its retransmitted
// data carries a poll (RRBP) at once, as osmo-pcu polls when "the
// previous poll was lost".
func TestPollAfterLostPoll(t *testing.T) {
	e, bts := fsmEngine(t, &fakeClock{}, nil)
	m := e.newMS(bts, 0xc0d00001)
	m.MSClass = 1
	m.Queue.Enqueue(e.now, []byte{0x41, 0xc0, 1, 2, 3}, 0xffff)
	e.establishDL(bts, m)
	dl := m.DL
	e.dlImmAssConfirmed(bts, m.TLLI)
	e.fire(dl, timeoutEv(tmX2002))
	fn := uint32(0)
	blk, _ := scheduleOn(t, e, bts, dl.ctrlTS, &fn)
	if len(blk) == 0 || blk[0]&0x08 == 0 {
		t.Fatalf("first data block % x without poll", blk)
	}
	bts.TRX[0].PDCH[dl.ctrlTS].dropReservations(dl)
	e.pollTimeout(dl, pollDLAck)
	if dl.state != TBFAssign {
		t.Fatalf("poll lost on a never acknowledged CCCH TBF: %s, want ASSIGN", dl.state)
	}
	e.dlImmAssConfirmed(bts, m.TLLI)
	e.fire(dl, timeoutEv(tmX2002))
	blk, _ = scheduleOn(t, e, bts, dl.ctrlTS, &fn)
	if len(blk) == 0 || blk[0]>>6 != rlcmac.PTData || blk[0]&0x08 == 0 {
		t.Fatalf("retransmission % x: want a data block with S/P set", blk)
	}
}

// dlOnCCCH queues a frame for a new MS (TLLI, IMSI) and gets its DL TBF
// assigned on CCCH.
func dlOnCCCH(t *testing.T, e *Engine, bts *BTS, tlli uint32) *TBF {
	t.Helper()
	m := e.newMS(bts, tlli)
	bts.ms.setIMSI(m, "001010000000099")
	m.Queue.Enqueue(e.now, []byte{0x41, 0xc0, 1, 2, 3}, 0xffff)
	e.establishDL(bts, m)
	if m.DL == nil || !m.DL.ccch || m.DL.state != TBFAssign {
		t.Fatal("no DL TBF assigned on CCCH")
	}
	return m.DL
}

// TestNewULAccessReassignsDLOnPACCH: an MS whose DL TBF was assigned on
// PCH accesses again with a one-phase RACH (it never got the assignment).
// Its first UL block with its TLLI ends the CCCH-assigned DL TBF, whose
// frame goes back to the queue, and once the Packet Uplink Ack/Nack has
// resolved the contention the DL TBF is assigned again with a Packet
// Downlink Assignment on the UL TBF's PACCH (osmo-pcu tbf_ul_fsm.c).
func TestNewULAccessReassignsDLOnPACCH(t *testing.T) {
	e, bts := fsmEngine(t, &fakeClock{}, nil)
	const tlli = 0xc0e00001
	old := dlOnCCCH(t, e, bts, tlli)
	ul := onePhaseAccess(t, e, bts, tlli)
	ms := bts.ms.byTLLI[tlli]
	if !old.released() || ms.UL != ul || ms.DL != nil || ms.Queue.Len() != 1 {
		t.Fatalf("after the first UL block with the TLLI: old DL freed=%v, MS UL ours=%v, DL %v, queue %d", old.released(), ms.UL == ul, ms.DL, ms.Queue.Len())
	}
	fn := uint32(0)
	if _, m := scheduleOn(t, e, bts, ul.ctrlTS, &fn); m == nil || m.Name() != "Packet Uplink Ack/Nack" {
		t.Fatalf("sent %v, want the Packet Uplink Ack/Nack", m)
	}
	if _, m := scheduleOn(t, e, bts, ul.ctrlTS, &fn); m == nil || m.Name() != "Packet Downlink Assignment" {
		t.Fatalf("sent %v, want the Packet Downlink Assignment on PACCH", m)
	}
	if ms.DL == nil || ms.DL.ccch || ms.DL.assignOn != ul {
		t.Fatalf("DL TBF %v not assigned on the UL TBF's PACCH", ms.DL)
	}
}

// TestTwoPhaseReassignsDLOnPACCH: the same with two-phase access. The
// Packet Resource Request frees the MS's CCCH-assigned DL TBF; once the
// Packet Uplink Assignment is acknowledged, the DL TBF is assigned again
// on the new UL TBF's PACCH.
func TestTwoPhaseReassignsDLOnPACCH(t *testing.T) {
	e, bts := fsmEngine(t, &fakeClock{}, nil)
	const tlli = 0xc4f70250 // the golden Packet Resource Request's
	old := dlOnCCCH(t, e, bts, tlli)
	e.onRACH(bts, &pcuif.RACHInd{SAPI: pcuif.SAPIRACH, RA: 0x70, FN: 0})
	p, r := sbaOf(t, bts)
	prr, _ := hex.DecodeString("4016713dc094270ca2ae57ef909006aa0fc0001f80222b") // osmo-pcu RLCMACTest.cpp
	e.handleDataInd(bts, &pcuif.Data{SAPI: pcuif.SAPIPDTCH, FN: r.fn, TRX: p.TRX, TS: p.TS, ARFCN: 871, Payload: prr, LqualCb: 100})
	ms := bts.ms.byTLLI[tlli]
	if !old.released() || ms.UL == nil || ms.DL != nil {
		t.Fatalf("after the Packet Resource Request: old DL freed=%v, UL %v, DL %v", old.released(), ms.UL, ms.DL)
	}
	fn := r.fn
	if _, m := scheduleOn(t, e, bts, p.TS, &fn); m == nil || m.Name() != "Packet Uplink Assignment" {
		t.Fatalf("sent %v, want the Packet Uplink Assignment", m)
	}
	var poll uint32
	for _, x := range p.resv {
		if x.kind == resvPoll && x.reason == pollULAss {
			poll = x.fn
		}
	}
	var blk [rlcmac.MaxBlockLen]byte
	n, err := rlcmac.EncodeUL(blk[:], &rlcmac.ULCtrlHeader{}, &rlcmac.PacketControlAck{TLLI: tlli, CtrlAck: 3})
	if err != nil {
		t.Fatal(err)
	}
	e.handleDataInd(bts, &pcuif.Data{SAPI: pcuif.SAPIPDTCH, FN: poll, TRX: p.TRX, TS: p.TS, ARFCN: 871, Payload: blk[:n]})
	if ms.UL.state != TBFFlow || ms.DL == nil || ms.DL.ccch || ms.DL.assignOn != ms.UL || ms.DL.dlAss != ctlSend {
		t.Fatalf("after the assignment's Control Ack: UL %s, DL %v: want a DL TBF assigned on the UL TBF's PACCH", ms.UL.state, ms.DL)
	}
}

// TestT3113PCHPaging: a PS paging on PCH starts T3113 for its IMSI
// (`timer T3113`). While it runs, another paging of the IMSI is counted
// as pch:requests:already and not sent; its expiry counts
// pch:requests:timeout; an MS that comes to the PDCH stops it (osmo-pcu
// bts_pch_timer.c).
func TestT3113PCHPaging(t *testing.T) {
	clk := &fakeClock{}
	e, bts := fsmEngine(t, clk, nil)
	e.params.T3113 = 2 * time.Second
	out := sentData(e)
	page := func(imsi string) {
		mi, err := bssgp.EncodeIMSI(imsi)
		if err != nil {
			t.Fatal(err)
		}
		e.pagingPS(&bssgp.PagingPS{IMSI: mi})
	}
	ctr := func(i int) uint64 { return bts.Ctr.Value(i) }
	page("001010000000111")
	page("001010000000111")
	if len(*out) != 1 || ctr(CtrPCHRequests) != 1 || ctr(CtrPCHRequestsAlready) != 1 {
		t.Fatalf("two pagings within T3113: %d sent, requests %d, already %d", len(*out), ctr(CtrPCHRequests), ctr(CtrPCHRequestsAlready))
	}
	clk.t += 2100 * time.Millisecond
	e.timersDue()
	if ctr(CtrPCHRequestsTimedout) != 1 {
		t.Fatalf("T3113 passed: timeout %d", ctr(CtrPCHRequestsTimedout))
	}
	page("001010000000111")
	if len(*out) != 2 || ctr(CtrPCHRequests) != 2 {
		t.Fatal("no paging after T3113")
	}
	// the MS answers: a one-phase access and its first block with its TLLI
	m := e.newMS(bts, 0xc0f00001)
	bts.ms.setIMSI(m, "001010000000111")
	e.onRACH(bts, &pcuif.RACHInd{SAPI: pcuif.SAPIRACH, RA: 0x78, FN: 0})
	var ul *TBF
	for _, x := range bts.tbfs {
		if x.dir == DirUL {
			ul = x
		}
	}
	e.fire(ul, timeoutEv(tmX2002))
	unit := make([]byte, rlcmac.CS1.DataLen())
	binary.BigEndian.PutUint32(unit, m.TLLI)
	var blk [rlcmac.MaxBlockLen]byte
	n, _ := rlcmac.EncodeGPRSUL(blk[:], rlcmac.CS1, &rlcmac.GPRSULHeader{CV: 15, TFI: ul.tfi, TI: true, E: true}, unit)
	e.handleDataInd(bts, &pcuif.Data{SAPI: pcuif.SAPIPDTCH, FN: ulBlockFN(0), TS: uint8(lowestSlot(ul.slots)), ARFCN: 871, Payload: blk[:n]})
	clk.t += 2100 * time.Millisecond
	e.timersDue()
	if ctr(CtrPCHRequestsTimedout) != 1 {
		t.Fatalf("the paged MS came, yet T3113 expired (timeouts %d)", ctr(CtrPCHRequestsTimedout))
	}
}

// TestAssignmentPollFailed: every unanswered poll of an assignment counts
// in N3105 of the TBF that sent it (osmo-pcu tbf.cpp poll_timeout); at
// N3105 that TBF is released and rlc:ass:failed and ul:assignment_failed
// (dl:assignment_failed for a Packet Downlink Assignment) count it.
func TestAssignmentPollFailed(t *testing.T) {
	e, bts := fsmEngine(t, &fakeClock{}, func(ii *pcuif.InfoInd) {
		ii.T3142, ii.T3169, ii.T3191, ii.T3193x10ms, ii.T3195, ii.N3101, ii.N3103, ii.N3105 = 20, 5, 5, 160, 5, 10, 4, 3
	})
	dl := tbfIn(t, e, bts, DirDL, TBFFlow, 0xc1000001)
	dl.ms.DL = dl
	e.chanReqInAck(bts, dl, true)
	ul := dl.ms.UL
	for i := 1; i <= 3; i++ {
		e.pollTimeout(ul, pollULAss)
	}
	if bts.Ctr.Value(CtrRLCAssFailed) != 1 || bts.Ctr.Value(CtrULAssFailed) != 1 || dl.state != TBFReleasing || ul.ulAss != ctlNone {
		t.Fatalf("3 unanswered PUA polls with N3105 = 3: ass failed %d, ul failed %d, carrier %s, assignment %s",
			bts.Ctr.Value(CtrRLCAssFailed), bts.Ctr.Value(CtrULAssFailed), dl.state, ul.ulAss)
	}
	// a DL TBF assigned on its own PACCH (multislot upgrade): its own N3105
	d2 := tbfIn(t, e, bts, DirDL, TBFAssign, 0xc1000002)
	e.assignPACCH(d2, d2)
	for i := 1; i <= 3; i++ {
		e.pollTimeout(d2, pollDLAss)
	}
	if bts.Ctr.Value(CtrDLAssFailed) != 1 || d2.state != TBFReleasing || d2.dlAss != ctlNone {
		t.Fatalf("3 unanswered PDA polls: dl failed %d, TBF %s, assignment %s", bts.Ctr.Value(CtrDLAssFailed), d2.state, d2.dlAss)
	}
}

// TestSuspendKeepsMSSilent: SUSPEND (PCUIF SUSP_REQ) of an MS with an
// active DL TBF frees its TBFs; the MS is then silent: only idle blocks,
// no new Immediate Assignment at once, though frames are still queued.
// New DL data from the SGSN brings the DL TBF back.
func TestSuspendKeepsMSSilent(t *testing.T) {
	e, bts := fsmEngine(t, &fakeClock{}, nil)
	dl := tbfIn(t, e, bts, DirDL, TBFFlow, 0xc1100001)
	m := dl.ms
	m.DL = dl
	e.setupDLWindow(dl)
	for i := 0; i < 3; i++ {
		m.Queue.Enqueue(e.now, []byte{0x41, 0xc0, byte(i), 2, 3}, 0xffff)
	}
	imm := bts.Ctr.Value(CtrImmAssDL)
	e.onSuspReq(bts, &pcuif.SuspReq{TLLI: m.TLLI})
	if !dl.released() || m.DL != nil || m.Queue.Len() == 0 {
		t.Fatalf("after SUSPEND: DL freed=%v, DL %v, queue %d", dl.released(), m.DL, m.Queue.Len())
	}
	fn := uint32(0)
	for i := 0; i < 20; i++ {
		if blk, msg := scheduleOn(t, e, bts, dl.ctrlTS, &fn); len(blk) > 0 && (msg == nil || msg.Name() != "Packet Downlink Dummy Control Block") {
			t.Fatalf("block %d after SUSPEND: % x, want idle", i, blk)
		}
	}
	if bts.Ctr.Value(CtrImmAssDL) != imm || m.DL != nil {
		t.Fatal("the suspended MS was assigned again")
	}
	e.HandleDLUnitdata(0, &DLUnitdata{TLLI: m.TLLI, Lifetime: 1000, LLC: []byte{0x41, 0xc0, 9}})
	if m.DL == nil || bts.Ctr.Value(CtrImmAssDL) != imm+1 {
		t.Fatal("new DL data did not bring the DL TBF back")
	}
}
