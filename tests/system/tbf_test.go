package system

import (
	"bytes"
	"fmt"
	"testing"

	"github.com/gopcu/gopcu/pcu"
	"github.com/gopcu/gopcu/pcu/pcuif"
)

// llcFrame makes a recognisable LLC UI frame on SAPI 3 of n octets.
func llcFrame(seq, n int) []byte {
	b := make([]byte, n)
	b[0], b[1] = 0x03, 0xc0 // SAPI 3, UI
	for i := 2; i < n; i++ {
		b[i] = byte(seq + i)
	}
	if n >= 4 {
		b[2], b[3] = byte(seq>>8), byte(seq)
	}
	return b
}

// dl queues a DL-UNITDATA for tlli with the MS's multislot class, as an
// SGSN that has the MS Radio Access Capability from the attach sends it
// (TS 48.018 §10.2.1); the engine assumes one slot for an unknown class.
func (r *radioRig) dl(tlli uint32, imsi string, frame []byte) {
	f := append([]byte(nil), frame...)
	class := 0
	for _, m := range r.cell.MSs {
		if m.TLLI == tlli {
			class = m.Class
		}
	}
	r.eng.Call(func() {
		r.eng.HandleDLUnitdata(0, &pcu.DLUnitdata{TLLI: tlli, IMSI: imsi, Lifetime: 0xffff, MSClass: class, LLC: f})
	})
}

func TestDownlinkTransfer(t *testing.T) {
	for _, v := range []pcuif.Version{pcuif.V10, pcuif.V12} {
		t.Run(v.String(), func(t *testing.T) {
			r := startRadio(t, v, bulkParams(), 1)
			ms := r.cell.AddMS(0xc0000001, "901700000000001", 10)
			var got [][]byte
			ms.OnLLC = func(f []byte) { got = append(got, f) }
			var want [][]byte
			for i := 0; i < 20; i++ {
				f := llcFrame(i, 200+i*37%900)
				want = append(want, f)
				r.dl(ms.TLLI, ms.IMSI, f)
			}
			for i := 0; i < 3000 && len(got) < len(want); i++ {
				r.step(t)
			}
			checkFrames(t, got, want, fmt.Sprintf("received, %d reported discarded", r.gb.discarded))
		})
	}
}

func TestUplinkTransfer(t *testing.T) {
	r := startRadio(t, pcuif.V12, nil, 2)
	ms := r.cell.AddMS(0xc0000002, "901700000000002", 10)
	var want [][]byte
	for i := 0; i < 10; i++ {
		want = append(want, llcFrame(i, 100+i*53))
	}
	got, _ := r.ulTransfer(t, ms, want, 2000)
	checkFrames(t, got, want, "SGSN")
}

// TestULTBFReuseInFinalAck: data the MS gets during its countdown makes it
// answer the final Packet Uplink Ack/Nack's poll (TBF_EST = 1) with a
// Packet Resource Request (TS 44.060 §9.3.3.3); the PCU confirms the old
// TBF and assigns the next one on PACCH at once, as osmo-pcu does: no
// second access burst. An MS that does not use it (NoReuse) accesses
// again on the RACH.
func TestULTBFReuseInFinalAck(t *testing.T) {
	for _, reuse := range []bool{true, false} {
		t.Run(fmt.Sprintf("reuse=%v", reuse), func(t *testing.T) {
			r := startRadio(t, pcuif.V12, bulkParams(), 21)
			ms := r.cell.AddMS(0xc0002101, "901700000002101", 12)
			ms.NoReuse = !reuse
			ms.SendLLC(llcFrame(1, 200))
			s := 0
			// Until the MS's first UL data block: a TBF assigned on CCCH
			// gets its first USF only X2002 after the assignment (as
			// osmo-pcu), and a frame queued before that joins the TBF.
			for ; s < 2000 && (!ms.ULActive() || ms.ULBlocks == 0); s++ {
				r.step(t)
			}
			for i := 0; i < 3; i++ { // the countdown runs: the new frame cannot join
				r.step(t)
			}
			ms.SendLLC(llcFrame(2, 200))
			for ; s < 4000 && len(r.gb.frames(ms.TLLI)) < 2; s++ {
				r.step(t)
			}
			got := r.gb.frames(ms.TLLI)
			if len(got) != 2 || !bytes.Equal(got[1], llcFrame(2, 200)) {
				t.Fatalf("SGSN got %d frames", len(got))
			}
			rach := r.btsCtr(pcu.CtrRACHRequests)
			t.Logf("reuse %v: %d RACH, %d Packet Resource Requests in final-ack polls, done after %d blocks", reuse, rach, ms.ULReuses, s)
			if reuse && (ms.ULReuses != 1 || rach != 1) {
				t.Fatalf("reuse: %d requests in the final ack's poll, %d RACHs; want 1 and 1", ms.ULReuses, rach)
			}
			if !reuse && (ms.ULReuses != 0 || rach != 2) {
				t.Fatalf("no reuse: %d requests, %d RACHs; want 0 and 2", ms.ULReuses, rach)
			}
		})
	}
}
