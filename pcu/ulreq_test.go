package pcu

import (
	"testing"

	"github.com/gopcu/gopcu/pcu/pcuif"
	"github.com/gopcu/gopcu/rlcmac"
)

// TestChanReqInAckAfterLostFinalAck: the MS of a running DL TBF finished
// its UL TBF and answered the final Packet Uplink Ack/Nack, but the
// Packet Control Acknowledgement was lost. The network repeats the final
// Ack/Nack (N3103; at N3103's maximum the TBF waits out T3169), which the
// MS, out of that TBF, no longer answers. Its next UL data it asks for in
// a Channel Request Description of a Packet Downlink Ack/Nack, which an MS
// sends only without an UL TBF (TS 44.060 §8.1.2.5): the old TBF is over
// for it, goes, and the new one is assigned on the DL TBF's PACCH, as a
// Packet Resource Request ends an old UL TBF (osmo-pcu
// sched_ul_ass_or_rej allocates whatever the old TBF's state). The
// request was dropped while the old TBF lived on: the MS's TCP acks
// waited up to T3169 + T3168 and the bufferbloat demo's downloads
// stalled under radio block loss (`demo -fast -scenario sfq-red -loss
// 0.01` without queue idle-ack-delay).
func TestChanReqInAckAfterLostFinalAck(t *testing.T) {
	for _, s := range []TBFState{TBFFinished, TBFReleasing} {
		clk := &fakeClock{}
		e, bts := fsmEngine(t, clk, nil)
		dl := tbfIn(t, e, bts, DirDL, TBFFlow, 0xc1000000)
		ms := dl.ms
		old, err := e.allocUL(bts, ms)
		if err != nil {
			t.Fatal(err)
		}
		drive(t, e, old, TBFFinished) // the last block came, the final Ack/Nack goes
		if s == TBFReleasing {
			for !e.fire(old, evMaxN3103) {
				t.Fatalf("%s: N3103 not accepted", old)
			}
			if !old.running(tmT3169) {
				t.Fatalf("%s: T3169 not running", old.Debug())
			}
		}

		// the MS's Packet Downlink Ack/Nack on the DL TBF's control TS,
		// with a Channel Request Description
		var blk [rlcmac.ControlBlockLen]byte
		n, err := rlcmac.EncodeUL(blk[:], &rlcmac.ULCtrlHeader{}, &rlcmac.PacketDownlinkAckNack{DownlinkTFI: dl.tfi, HasChanReq: true,
			ChanReq: rlcmac.ChannelRequestDescription{RLCOctetCount: 40}})
		if err != nil {
			t.Fatal(err)
		}
		e.ulControl(bts, &bts.TRX[dl.trx].PDCH[dl.ctrlTS], &pcuif.Data{SAPI: pcuif.SAPIPDTCH, FN: 1000, TS: dl.ctrlTS, Payload: blk[:n]})

		nu := ms.UL
		if nu == nil || nu == old || !old.released() {
			t.Fatalf("old UL TBF %s: the request in the DL Ack/Nack got no new UL TBF (MS UL %v)", s, nu)
		}
		if nu.state != TBFAssign || nu.assignOn != dl || nu.ulAss != ctlSend {
			t.Fatalf("old UL TBF %s: the new UL TBF is not assigned on the DL TBF's PACCH: %s", s, nu.Debug())
		}
		if ms.DL != dl || dl.state != TBFFlow {
			t.Fatalf("old UL TBF %s: the DL TBF changed: %s", s, dl.Debug())
		}
	}
}

// TestPUANotRepeatedAfterData: the MS got the Packet Uplink Assignment of
// an UL TBF requested in its DL Ack/Nack and sends on it, but its Packet
// Control Acknowledgement was lost. Its data on the TBF shows that the
// assignment arrived: the assignment ends as acknowledged and is not sent
// again, whether the poll timed out after the first data block or before
// it (a repetition waiting to go). It was: with the MS's few blocks all
// sent and acknowledged, the repetition reached the MS after its final
// Packet Uplink Ack/Nack, the MS took it for a new UL TBF with nothing to
// send and stayed on it (`demo -fast -scenario gopcu -loss 0.1` never
// finished). osmo-pcu grants no USF before the Control Ack (tbf_ul_fsm.c
// ASSIGN), so the MS cannot finish before it; it ignores a poll timeout
// of an assignment not waiting for one (tbf.cpp poll_timeout, "POLL_UL_ASS
// not expected").
func TestPUANotRepeatedAfterData(t *testing.T) {
	for _, dataFirst := range []bool{true, false} {
		clk := &fakeClock{}
		e, bts := fsmEngine(t, clk, nil)
		dl := tbfIn(t, e, bts, DirDL, TBFFlow, 0xc1000000)
		e.ulOnPACCH(bts, dl)
		ul := dl.ms.UL
		if ul == nil || ul.state != TBFAssign || ul.ulAss != ctlSend {
			t.Fatalf("no UL TBF assigned on PACCH: %v", ul)
		}
		ul.ctl(&ul.ulAss, ctlSentPolled) // the PUA goes with a poll
		n3105 := dl.n[nN3105]
		rejected := e.l1ctr.Value(L1FSMRejected)

		// the MS's first data block and the poll's time passing
		// unanswered (its Control Ack lost), in either order
		if dataFirst {
			e.fire(ul, evData)
			e.pollTimeout(ul, pollULAss)
		} else {
			e.pollTimeout(ul, pollULAss)
			if ul.ulAss != ctlSend {
				t.Fatalf("the poll timed out before any data: the assignment is not repeated: %s", ul.Debug())
			}
			n3105 = dl.n[nN3105]
			e.fire(ul, evData)
		}
		if ul.state != TBFFlow || ul.ulAss != ctlNone || ul.assignOn != nil || ul.ctlPending() {
			t.Fatalf("data first %v: the assignment goes again after the MS sent on the TBF: %s (assignOn %v)", dataFirst, ul.Debug(), ul.assignOn)
		}
		if dl.n[nN3105] != n3105 || e.l1ctr.Value(L1FSMRejected) != rejected {
			t.Fatalf("data first %v: N3105 of the carrier %d -> %d, rejected events %d -> %d",
				dataFirst, n3105, dl.n[nN3105], rejected, e.l1ctr.Value(L1FSMRejected))
		}
		// a stale timeout of the ended assignment changes nothing
		e.pollTimeout(ul, pollULAss)
		if ul.ulAss != ctlNone || dl.n[nN3105] != n3105 || e.l1ctr.Value(L1FSMRejected) != rejected {
			t.Fatalf("data first %v: a poll timeout after the assignment ended: %s, N3105 %d, rejected %d",
				dataFirst, ul.Debug(), dl.n[nN3105], e.l1ctr.Value(L1FSMRejected))
		}
	}
}
