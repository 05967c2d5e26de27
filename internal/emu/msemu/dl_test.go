package msemu

import (
	"context"
	"testing"
	"time"

	"github.com/gopcu/gopcu/internal/emu/btsemu"
	"github.com/gopcu/gopcu/pcu/pcuif"
	"github.com/gopcu/gopcu/rlcmac"
)

// scriptAir is an Air whose downlink the test writes: the PDTCH blocks and
// CCCH messages of the next radio block; it keeps what the MSs send.
type scriptAir struct {
	fn   uint32
	next []pcuif.Data // PDTCH blocks of the next Step
	ccch []pcuif.Data // CCCH blocks of the next Step
	sent []pcuif.Message
	info pcuif.InfoInd
}

func newScriptAir() *scriptAir {
	a := &scriptAir{fn: 2916}
	a.info.TRX[0].ARFCN, a.info.TRX[0].PDCHMask = 871, 0xf0
	return a
}

func (a *scriptAir) FN() uint32 { return a.fn }

func (a *scriptAir) Step(context.Context, time.Duration) (btsemu.Block, error) {
	b := btsemu.Block{FN: a.fn, BlockNr: btsemu.BlockNr(a.fn), Answers: a.next}
	a.next = nil
	a.fn = btsemu.NextBlockFN(a.fn)
	return b, nil
}

func (a *scriptAir) CCCH() []pcuif.Data {
	c := a.ccch
	a.ccch = nil
	return c
}

func (a *scriptAir) Send(m pcuif.Message) error {
	a.sent = append(a.sent, m)
	return nil
}

func (a *scriptAir) Info() *pcuif.InfoInd { return &a.info }

// pdtch queues a downlink PDTCH block on ts for the next Step.
func (a *scriptAir) pdtch(ts uint8, b []byte) {
	a.next = append(a.next, pcuif.Data{Kind: pcuif.TypeDataInd, SAPI: pcuif.SAPIPDTCH, FN: a.fn, ARFCN: 871, TS: ts,
		BlockNr: uint8(btsemu.BlockNr(a.fn)), Payload: b})
}

// dlData is a CS-1 GPRS data block of DL TFI tfi (no LI: the unit is the
// middle of an LLC frame), polled with RRBP 0 when poll is set.
func dlData(t *testing.T, tfi, bsn uint8, poll bool) []byte {
	t.Helper()
	b := make([]byte, rlcmac.ControlBlockLen) // CS-1: 23 octets
	h := rlcmac.GPRSDLHeader{USF: 7, TFI: tfi, BSN: bsn, E: true, SP: poll}
	if _, err := h.MarshalTo(b); err != nil {
		t.Fatal(err)
	}
	for i := 3; i < len(b); i++ {
		b[i] = bsn
	}
	return b
}

// dlAckNacks decodes the Packet Downlink Ack/Nacks the MS sent so far (and
// forgets everything it sent).
func (a *scriptAir) dlAckNacks(t *testing.T) []rlcmac.PacketDownlinkAckNack {
	t.Helper()
	var out []rlcmac.PacketDownlinkAckNack
	for _, m := range a.sent {
		d, ok := m.(*pcuif.Data)
		if !ok || d.SAPI != pcuif.SAPIPDTCH {
			continue
		}
		_, msg, err := rlcmac.DecodeUL(d.Payload)
		if err != nil {
			t.Fatalf("undecodable UL block on TS %d: %v", d.TS, err)
		}
		if x, ok := msg.(*rlcmac.PacketDownlinkAckNack); ok {
			if d.TS != 6 {
				t.Errorf("Packet Downlink Ack/Nack on TS %d, want the polling TS 6", d.TS)
			}
			out = append(out, *x)
		}
	}
	a.sent = nil
	return out
}

// TestStaleDLImmAssKeepsRunningTBF replays the downlink stall of the
// two-phone lab row gopcu-2ms-noecn-plain-r3 (docs/reliability.md, "A
// phone that stalled on the real network"). The MS got its DL TBF (TFI 0
// on TS 4-7, polls on TS 6) in a Packet Downlink Assignment on PACCH and
// has acknowledged BSN 0..17. Then an IMMEDIATE ASSIGNMENT for its TLLI
// (TFI 0 on TS 7) comes on PCH: the PCU had sent it 720 ms earlier for a
// DL TBF that it freed when the MS accessed (its frames went on in the
// PACCH TBF, under the same TFI), and the BTS sent it in the MS's paging
// block only now. An MS in packet transfer mode does not act on it (TS
// 44.018 §3.5.3.1: the CCCH downlink assignment brings an MS from packet
// idle mode into packet transfer mode). The emulated MS did: it restarted
// its receive window (V(Q) = V(R) = 0, TS 44.060 §9.1.5) and moved to TS
// 7 while the network sent BSN 18.. of the running TBF; it never saw
// BSN 0..17 again, stopped answering the polls on TS 6 and, once the
// network assigned the next TBF, sat at V(Q) = 0, V(R) = 64 for minutes.
func TestStaleDLImmAssKeepsRunningTBF(t *testing.T) {
	const tlli = 0xdaa750db
	air := newScriptAir()
	c := NewCellAir(air, 1)
	m := c.AddMS(tlli, "901700000000001", 10)
	ctx := context.Background()
	step := func() {
		t.Helper()
		if err := c.Step(ctx); err != nil {
			t.Fatal(err)
		}
	}

	// The MS is on the PDCH with an UL TBF (UL TFI 0 on TS 6, its
	// contention resolved): the network assigns the DL TBF on its PACCH,
	// DL TFI 0 on TS 4-7, and ends the UL TBF.
	var usf [8]uint8
	usf[6] = 3
	m.startUL(0, 0, 1<<6, usf, true)
	ctl := func(ts uint8, msg rlcmac.Message) {
		t.Helper()
		b := make([]byte, rlcmac.ControlBlockLen)
		if _, err := rlcmac.EncodeDL(b, &rlcmac.DLCtrlHeader{USF: 7}, msg); err != nil {
			t.Fatal(err)
		}
		air.pdtch(ts, b)
	}
	ctl(6, &rlcmac.PacketDownlinkAssignment{
		ID:             rlcmac.MSID{Kind: rlcmac.IDGlobalTFI, GlobalTFI: rlcmac.GlobalTFI{TFI: 0}},
		TimeslotAlloc:  0x0f, // TN 4-7 (bit 7 is TN 0)
		HasDownlinkTFI: true, DownlinkTFI: 0,
	})
	step()
	ctl(6, &rlcmac.PacketUplinkAckNack{UplinkTFI: 0, AckNack: rlcmac.AckNackDescription{FinalAck: true}})
	step()
	if m.ul.active || !m.dl.active || m.dl.slots != 0xf0 || m.dl.tfi != 0 {
		t.Fatalf("after the assignment: %s", m.Debug())
	}

	// BSN 0..15 on TS 4-7, then 16 on TS 4 and 17 on TS 6, polled
	for bsn := uint8(0); bsn < 16; bsn += 4 {
		for i := uint8(0); i < 4; i++ {
			air.pdtch(4+i, dlData(t, 0, bsn+i, false))
		}
		step()
	}
	air.pdtch(4, dlData(t, 0, 16, false))
	air.pdtch(6, dlData(t, 0, 17, true))
	step()
	for range 6 {
		step() // the RRBP block comes and goes
	}
	acks := air.dlAckNacks(t)
	if len(acks) != 1 || acks[0].AckNack.SSN != 18 {
		t.Fatalf("Ack/Nacks for BSN 0..17: %+v", acks)
	}

	// the stale IMMEDIATE ASSIGNMENT (PCH) for the MS: TFI 0 on TS 7
	ia := rlcmac.ImmediateAssignment{TBF: true, Downlink: true, ChanType: 1, TN: 7, TSC: 7, ARFCN: 871}
	ia.ReqRef.RA = 125
	ia.ReqRef.SetFN(2920 + 21216)
	ia.Rest = rlcmac.IARestOctets{Kind: rlcmac.IARPacketDownlink, TLLI: tlli, HasTFI: true, TFI: 0, TAValid: true}
	mac := make([]byte, rlcmac.MACBlockLen)
	if _, err := rlcmac.EncodeImmediateAssignment(mac, &ia); err != nil {
		t.Fatal(err)
	}
	air.ccch = append(air.ccch, pcuif.Data{SAPI: pcuif.SAPIPCH, Payload: append([]byte("001"), mac...)})
	// and the running TBF goes on: BSN 18..20, BSN 19 polled on TS 6
	air.pdtch(5, dlData(t, 0, 18, false))
	air.pdtch(6, dlData(t, 0, 19, true))
	air.pdtch(7, dlData(t, 0, 20, false))
	step()
	for range 6 {
		step()
	}

	if m.IgnoredDLImmAss != 1 {
		t.Errorf("IgnoredDLImmAss = %d, want 1", m.IgnoredDLImmAss)
	}
	if m.dl.slots != 0xf0 || m.dl.rw.VQ() != 21 || m.dl.rw.VR() != 21 {
		t.Errorf("the running DL TBF was restarted by the IMMEDIATE ASSIGNMENT: %s", m.Debug())
	}
	acks = air.dlAckNacks(t)
	if len(acks) != 1 {
		t.Fatalf("the poll of BSN 19 on TS 6 got %d Ack/Nacks, want 1 (%s)", len(acks), m.Debug())
	}
	// built when the polled BSN 19 arrives (BSN 20 on TS 7 comes after it)
	const got20 = 1<<20 - 1 // BSN 0..19 (the bitmap's LSB is BSN SSN-1)
	if a := acks[0].AckNack; a.SSN != 20 || a.RBB&got20 != got20 || a.FinalAck {
		t.Errorf("Ack/Nack of the poll with BSN 19: SSN %d bitmap %#x final %v, want SSN 20, BSN 0..19 received", a.SSN, a.RBB, a.FinalAck)
	}
}
