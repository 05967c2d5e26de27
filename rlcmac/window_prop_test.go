package rlcmac

import (
	"testing"

	"pgregory.net/rapid"
)

// Property: whatever the loss pattern and bitmap budget, an EGPRS Ack/Nack
// produced by the receive window, carried through the Packet Uplink Ack/Nack
// codec and applied to the send window never marks a block acked that the
// receiver has not received, and acks every received block it covers.
func TestEGPRSAckNackProperty(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		ws := 64 + 32*rapid.IntRange(0, 30).Draw(t, "wsCode")
		start := rapid.IntRange(0, EGPRSSNS-1).Draw(t, "start")
		n := rapid.IntRange(1, ws).Draw(t, "n")
		lossPct := rapid.IntRange(0, 100).Draw(t, "loss")
		var tx SendWindow
		var rx ReceiveWindow
		tx.Reset(true, ws)
		rx.Reset(true, ws)
		// Move both windows to start.
		tx.vs, tx.va, rx.vr, rx.vq = start, start, start, start
		for i := 0; i < n; i++ {
			tx.SendNew()
		}
		got := make([]bool, n)
		for i := 0; i < n; i++ {
			if rapid.IntRange(0, 99).Draw(t, "p") >= lossPct {
				got[i] = true
				rx.Receive(start + i)
			}
		}
		rx.RaiseVQ()
		m := PacketUplinkAckNack{UplinkTFI: 1, ChannelCoding: 2, HasContentionTLLI: rapid.Bool().Draw(t, "tlli"), ContentionTLLI: 1}
		if err := m.FillEGPRSAckNack(&rx, false); err != nil {
			t.Fatal(err)
		}
		var d PacketUplinkAckNack
		viaControlBlock(t, &m, &d, false)
		if _, _, _, err := tx.ApplyEGPRSAckNack(&d.EGPRSAckNack); err != nil {
			t.Fatal(err)
		}
		for i := 0; i < n; i++ {
			bsn := (start + i) % EGPRSSNS
			st := tx.State(bsn)
			if tx.InWindow(bsn) && st == BlockAcked && !got[i] {
				t.Fatalf("bsn %d acked but lost", bsn)
			}
			if !got[i] && st != BlockNacked && st != BlockUnacked {
				t.Fatalf("bsn %d lost, state %v", bsn, st)
			}
			if got[i] && tx.InWindow(bsn) && st == BlockNacked {
				t.Fatalf("bsn %d received but nacked", bsn)
			}
		}
		// Blocks below the receiver's V(Q) are acknowledged (BOW) and V(A) reaches V(Q).
		if tx.VA() != rx.VQ() {
			t.Fatalf("V(A) %d, V(Q) %d", tx.VA(), rx.VQ())
		}
	})
}

// Same for GPRS (64-bit RBB, SSN = V(R)).
func TestGPRSAckNackProperty(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		start := rapid.IntRange(0, GPRSSNS-1).Draw(t, "start")
		n := rapid.IntRange(1, GPRSWS).Draw(t, "n")
		var tx SendWindow
		var rx ReceiveWindow
		tx.Reset(false, 0)
		rx.Reset(false, 0)
		tx.vs, tx.va, rx.vr, rx.vq = start, start, start, start
		got := make([]bool, n)
		for i := 0; i < n; i++ {
			tx.SendNew()
			if rapid.Bool().Draw(t, "rx") {
				got[i] = true
				rx.Receive(start + i)
			}
		}
		rx.RaiseVQ()
		m := PacketDownlinkAckNack{DownlinkTFI: 2, AckNack: rx.GPRSAckNack(false)}
		var d PacketDownlinkAckNack
		viaControlBlock(t, &m, &d, true)
		tx.ApplyGPRSAckNack(&d.AckNack)
		for i := 0; i < n; i++ {
			bsn := (start + i) % GPRSSNS
			if !tx.InWindow(bsn) {
				if !got[i] {
					t.Fatalf("bsn %d left the window without being received", bsn)
				}
				continue
			}
			if st := tx.State(bsn); got[i] != (st == BlockAcked) {
				t.Fatalf("bsn %d received=%v state %v", bsn, got[i], st)
			}
		}
	})
}

// viaControlBlock encodes m in a control block of its direction (uplink:
// with a ULCtrlHeader, else a DLCtrlHeader) and decodes the block into d.
func viaControlBlock(t *rapid.T, m, d Message, uplink bool) {
	t.Helper()
	var blk [ControlBlockLen]byte
	var err error
	if uplink {
		_, err = EncodeUL(blk[:], &ULCtrlHeader{}, m)
		if err == nil {
			err = DecodeULInto(blk[:], &ULCtrlHeader{}, d)
		}
	} else {
		_, err = EncodeDL(blk[:], &DLCtrlHeader{}, m)
		if err == nil {
			err = DecodeDLInto(blk[:], &DLCtrlHeader{}, d)
		}
	}
	if err != nil {
		t.Fatal(err)
	}
}

// Property: BitVec reads/writes agree with a bit-by-bit reference model at
// every offset and width (fast 64-bit path and byte loop alike).
func TestBitVecProperty(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		size := rapid.IntRange(1, 40).Draw(t, "size")
		buf := make([]byte, size)
		ref := make([]uint8, size*8)
		v := NewBitVec(buf)
		for v.Remaining() > 0 {
			n := rapid.IntRange(1, min(64, v.Remaining())).Draw(t, "n")
			x := rapid.Uint64().Draw(t, "x")
			p := v.Pos()
			if err := v.Write(x, n); err != nil {
				t.Fatal(err)
			}
			for i := 0; i < n; i++ {
				ref[p+i] = uint8(x >> uint(n-1-i) & 1)
			}
		}
		for i, b := range ref {
			if buf[i/8]>>(7-uint(i%8))&1 != b {
				t.Fatalf("bit %d", i)
			}
		}
		r := NewBitVec(buf)
		for r.Remaining() > 0 {
			n := rapid.IntRange(1, min(64, r.Remaining())).Draw(t, "rn")
			p := r.Pos()
			x, err := r.Read(n)
			if err != nil {
				t.Fatal(err)
			}
			var want uint64
			for i := 0; i < n; i++ {
				want = want<<1 | uint64(ref[p+i])
			}
			if x != want {
				t.Fatalf("read %d bits at %d: %x want %x", n, p, x, want)
			}
		}
	})
}
