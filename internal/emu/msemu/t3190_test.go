package msemu

import (
	"context"
	"testing"

	"github.com/gopcu/gopcu/pcu/pcuif"
	"github.com/gopcu/gopcu/rlcmac"
)

// blockFrames is the mean length of a radio block in TDMA frames (52
// frames carry 12 blocks).
const blockFrames = 52.0 / 12

// stepFor steps c for about frames TDMA frames.
func stepFor(t *testing.T, c *Cell, frames int) {
	t.Helper()
	for range int(float64(frames)/blockFrames) + 1 {
		if err := c.Step(context.Background()); err != nil {
			t.Fatal(err)
		}
	}
}

// dlCtl queues a downlink control block on ts, polled (RRBP 0) when poll
// is set.
func (a *scriptAir) dlCtl(t *testing.T, ts uint8, poll bool, msg rlcmac.Message) {
	t.Helper()
	b := make([]byte, rlcmac.ControlBlockLen)
	if _, err := rlcmac.EncodeDL(b, &rlcmac.DLCtrlHeader{USF: 7, SP: poll}, msg); err != nil {
		t.Fatal(err)
	}
	a.pdtch(ts, b)
}

// controlAcks counts the Packet Control Acknowledgements the MS sent so
// far, and RACHs its access bursts (it forgets everything it sent).
func (a *scriptAir) controlAcks(t *testing.T) (acks, rachs int) {
	t.Helper()
	for _, m := range a.sent {
		switch d := m.(type) {
		case *pcuif.RACHInd:
			rachs++
		case *pcuif.Data:
			if _, msg, err := rlcmac.DecodeUL(d.Payload); err == nil {
				if _, ok := msg.(*rlcmac.PacketControlAck); ok {
					acks++
				}
			}
		}
	}
	a.sent = nil
	return acks, rachs
}

// TestLostAssignmentAckT3190 replays the permanent downlink stop of the
// bufferbloat demo under radio block loss (`demo -fast -loss 0.02`, a
// third of the runs never finished). The MS had sent the final Packet
// Downlink Ack/Nack of its DL TBF (DL TFI 0 on TS 4-7) and listened on
// while T3192 ran (TS 44.060 §9.3.2.4). New data came: the network
// assigned the next TBF (DL TFI 1) in a Packet Downlink Assignment on the
// old TBF's PACCH, addressed by the old TBF's Global TFI and polled. The
// MS took it and answered, but its Packet Control Acknowledgement was
// lost. The network repeats the assignment, still addressed to DL TFI 0,
// which the MS no longer has: it does not answer, N3105 of the old TBF
// runs out and X2001 frees the new one (osmo-pcu does the same, tbf.cpp
// poll_timeout). The network then assigns a TBF on PCH, which an MS in
// packet transfer mode does not read. A real MS gets out through T3190
// (§13.1): with no valid RLC data block for its DL TBF for 5 s it
// releases the TBF abnormally and returns to packet idle mode (§8.7.1),
// where it reads the next assignment and accesses for its uplink data.
// The emulated MS ran T3190 only over a real BTS: in virtual time it sat
// on DL TFI 1 for ever, never accessed again for its queued TCP acks
// (an MS in a DL TBF asks in its Ack/Nacks, and no poll came), and the
// demo's download stopped for good.
func TestLostAssignmentAckT3190(t *testing.T) {
	air := newScriptAir()
	c := NewCellAir(air, 1)
	m := c.AddMS(0xc1000000, "901700000000001", 12)
	m.startDL(0, 0, 0xf0, 0)

	// the last block of the TBF, polled: the final Ack/Nack, T3192 runs
	b := make([]byte, rlcmac.ControlBlockLen)
	h := rlcmac.GPRSDLHeader{USF: 7, TFI: 0, BSN: 0, E: true, FBI: true, SP: true}
	if _, err := h.MarshalTo(b); err != nil {
		t.Fatal(err)
	}
	air.pdtch(6, b)
	stepFor(t, c, 26)
	if acks := air.dlAckNacks(t); len(acks) != 1 || !acks[0].AckNack.FinalAck || !m.dl.waitRelease {
		t.Fatalf("final Ack/Nack: %+v, %s", acks, m.Debug())
	}

	// the next TBF on the old TBF's PACCH: taken and answered
	pda := &rlcmac.PacketDownlinkAssignment{
		ID:             rlcmac.MSID{Kind: rlcmac.IDGlobalTFI, GlobalTFI: rlcmac.GlobalTFI{Downlink: true, TFI: 0}},
		TimeslotAlloc:  0x0f, // TN 4-7 (bit 7 is TN 0)
		HasDownlinkTFI: true, DownlinkTFI: 1, ControlAck: true,
	}
	air.dlCtl(t, 6, true, pda)
	stepFor(t, c, 26)
	if acks, _ := air.controlAcks(t); acks != 1 || !m.dl.active || m.dl.tfi != 1 {
		t.Fatalf("the assignment of DL TFI 1: %d Control Acks, %s", acks, m.Debug())
	}
	// ... the Control Ack was lost: the repetitions name DL TFI 0
	for range 8 {
		air.dlCtl(t, 6, true, pda)
		stepFor(t, c, 26)
	}
	if acks, _ := air.controlAcks(t); acks != 0 || m.dl.tfi != 1 {
		t.Fatalf("the repeated assignment for DL TFI 0 answered (%d) by the MS on DL TFI 1: %s", acks, m.Debug())
	}

	// The network gave up DL TFI 1; the application queues a TCP ack.
	// Until T3190 expires the MS stays on its TBF and does not access.
	m.SendLLC(make([]byte, 40))
	stepFor(t, c, t3190Frames-11*26-26)
	if _, rachs := air.controlAcks(t); rachs != 0 || !m.dl.active {
		t.Fatalf("the MS left its DL TBF before T3190 (%d RACH): %s", rachs, m.Debug())
	}
	stepFor(t, c, 2*26)
	if _, rachs := air.controlAcks(t); rachs != 1 || m.dl.active {
		t.Fatalf("T3190 expired: the MS is in packet idle mode and accesses for its UL data, got %d RACH: %s", rachs, m.Debug())
	}

	// the network's DL assignment on PCH reaches it now: DL TFI 0 on TS 7
	ia := rlcmac.ImmediateAssignment{TBF: true, Downlink: true, ChanType: 1, TN: 7, TSC: 7, ARFCN: 871}
	ia.ReqRef.RA = 125
	ia.ReqRef.SetFN(air.fn + 21216)
	ia.Rest = rlcmac.IARestOctets{Kind: rlcmac.IARPacketDownlink, TLLI: m.TLLI, HasTFI: true, TFI: 0, TAValid: true}
	mac := make([]byte, rlcmac.MACBlockLen)
	if _, err := rlcmac.EncodeImmediateAssignment(mac, &ia); err != nil {
		t.Fatal(err)
	}
	air.ccch = append(air.ccch, pcuif.Data{SAPI: pcuif.SAPIPCH, Payload: append([]byte("001"), mac...)})
	stepFor(t, c, 4)
	if !m.dl.active || m.dl.tfi != 0 || m.dl.slots != 1<<7 || m.IgnoredDLImmAss != 0 {
		t.Fatalf("the IMMEDIATE ASSIGNMENT after T3190: %s (ignored %d)", m.Debug(), m.IgnoredDLImmAss)
	}
}

// TestT3190RestartsOnData: every data block of the MS's DL TBF restarts
// T3190, GPRS and EGPRS; blocks of other TBFs and control blocks do not
// (TS 44.060 §13.1).
func TestT3190RestartsOnData(t *testing.T) {
	for _, egprs := range []bool{false, true} {
		air := newScriptAir()
		c := NewCellAir(air, 1)
		m := c.AddMS(0xc1000000, "901700000000001", 12)
		ws := 0
		if egprs {
			ws = 64
		}
		m.startDL(0, 2, 0xf0, ws)
		block := func(tfi uint8, bsn int) []byte {
			if !egprs {
				return dlData(t, tfi, uint8(bsn), false)
			}
			h := rlcmac.EGPRSDLHeader{USF: 7, TFI: tfi, BSN1: uint16(bsn), E: [2]bool{true}}
			h.CPS, _ = rlcmac.EncodeCPS(rlcmac.MCS1, 0, 0, false)
			b := make([]byte, rlcmac.MCS1.BlockLen(false))
			if _, err := rlcmac.EncodeEGPRSDL(b, rlcmac.MCS1, &h, make([]byte, rlcmac.MCS1.DataLen()), nil); err != nil {
				t.Fatal(err)
			}
			return b
		}
		// a block of the TBF every 3 s for 15 s, others in between
		for bsn := range 5 {
			air.pdtch(5, block(2, bsn))
			air.pdtch(6, block(3, bsn)) // another MS's TBF
			stepFor(t, c, t3190Frames*3/10)
			air.dlCtl(t, 6, false, &rlcmac.PacketDownlinkDummyControlBlock{})
			stepFor(t, c, t3190Frames*3/10)
			if !m.dl.active {
				t.Fatalf("egprs %v: the DL TBF ended while its blocks came (BSN %d): %s", egprs, bsn, m.Debug())
			}
		}
		if m.dl.rw.VQ() != 5 {
			t.Fatalf("egprs %v: V(Q) = %d, want 5", egprs, m.dl.rw.VQ())
		}
		// then only other TBFs' blocks and control blocks
		for bsn := range 4 {
			air.pdtch(6, block(3, 5+bsn))
			air.dlCtl(t, 5, false, &rlcmac.PacketDownlinkDummyControlBlock{})
			stepFor(t, c, t3190Frames*4/10)
		}
		if m.dl.active || m.Aborted != 1 {
			t.Fatalf("egprs %v: no block of the TBF for 8 s: T3190 did not end it (aborted %d): %s", egprs, m.Aborted, m.Debug())
		}
	}
}
