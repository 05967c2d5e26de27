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
