package rlcmac

import (
	"bytes"
	"encoding/hex"
	"testing"
)

// Vectors: osmo-pcu tests/bitcomp/BitcompTest.cpp (compressed -> uncompressed).
var crbbVectors = []struct {
	crbbLen int
	ones    bool
	crbb    string
	ucmp    string
	ucmpLen int
	ok      bool
}{
	{67, true, "020ca030cb1a0ce36c", "fffffff8000001fffffff8000000fffffffe00003fffffffc0", 194, true},
	{40, true, "5306c5406d", "ffffffffffffc0000000003ffffffffffff80000000000", 182, true},
	{8, true, "02", "fffffff8", 29, true},
	{103, true, "020ce041a00c360d0371b06e24", "fffffff80000fffffff800007ffffffe00000fffffffe000007fffffff800001ffffffff", 288, true},
	{35, false, "de88756580", "374781f0", 28, true},
	{18, true, "dd4100", "ffffffffffffffffffff0000", 90, true},
	{18, true, "1e70c0", "", 0, false},
	{14, true, "001e7c", "", 0, false},
	{24, false, "000000", "", 0, false},
}

func TestDecompressCRBBVectors(t *testing.T) {
	for i, v := range crbbVectors {
		crbb, _ := hex.DecodeString(v.crbb)
		var out [256]byte
		n, err := DecompressCRBB(crbb, v.crbbLen, v.ones, out[:])
		if !v.ok {
			if err == nil {
				t.Errorf("vector %d: invalid input accepted", i)
			}
			continue
		}
		want, _ := hex.DecodeString(v.ucmp)
		if err != nil || n != v.ucmpLen || !bytes.Equal(out[:(n+7)/8], want[:(n+7)/8]) {
			t.Errorf("vector %d: n=%d err=%v got %x want %x", i, n, err, out[:(n+7)/8], want)
		}
	}
}

func TestCompressRBBRoundTrip(t *testing.T) {
	for i, v := range crbbVectors {
		if !v.ok {
			continue
		}
		src, _ := hex.DecodeString(v.ucmp)
		var dst [32]byte
		cb, ub, ones, ok := CompressRBB(src, v.ucmpLen, dst[:], 127)
		if ok != (cb < ub) || ub != v.ucmpLen || ones != v.ones {
			t.Errorf("vector %d: cb=%d ub=%d ones=%v ok=%v", i, cb, ub, ones, ok)
			continue
		}
		var out [256]byte
		n, err := DecompressCRBB(dst[:], cb, ones, out[:])
		if err != nil || n != v.ucmpLen || !bytes.Equal(out[:(n+7)/8], src[:(n+7)/8]) {
			t.Errorf("vector %d: round trip n=%d err=%v", i, n, err)
		}
	}
}

func TestGPRSWindows(t *testing.T) {
	var tx SendWindow
	var rx ReceiveWindow
	tx.Reset(false, 0)
	rx.Reset(false, 0)
	// Send 70 blocks while acking: the window stalls at 64.
	sent := 0
	for {
		if _, ok := tx.SendNew(); !ok {
			break
		}
		sent++
	}
	if sent != 64 || !tx.Stalled() || tx.VS() != 64 {
		t.Fatalf("sent %d VS %d", sent, tx.VS())
	}
	// Receiver gets all but BSN 5 and 10.
	for b := 0; b < 64; b++ {
		if b == 5 || b == 10 {
			continue
		}
		if ok, dup := rx.Receive(b); !ok || dup {
			t.Fatalf("bsn %d rejected", b)
		}
	}
	if n := rx.RaiseVQ(); n != 5 || rx.VQ() != 5 || rx.VR() != 64 {
		t.Fatalf("VQ %d VR %d n %d", rx.VQ(), rx.VR(), n)
	}
	an := rx.GPRSAckNack(false)
	// SSN = V(R) = 64; RBB LSB = BSN 63 ... MSB = BSN 0.
	if an.SSN != 64 || an.RBB != ^uint64(0)&^(1<<(63-5))&^(1<<(63-10)) {
		t.Fatalf("ack/nack %+v %064b", an, an.RBB)
	}
	acked, nacked, moved := tx.ApplyGPRSAckNack(&an)
	if acked != 62 || nacked != 2 || moved != 5 || tx.VA() != 5 {
		t.Fatalf("acked %d nacked %d moved %d VA %d", acked, nacked, moved, tx.VA())
	}
	if tx.ResendNeeded() != 5 {
		t.Fatalf("resend %d", tx.ResendNeeded())
	}
	tx.MarkSent(5)
	if tx.ResendNeeded() != 10 {
		t.Fatal("next resend must be 10")
	}
	if ok, dup := rx.Receive(5); !ok || dup {
		t.Fatal("resent 5")
	}
	if ok, dup := rx.Receive(6); !ok || !dup {
		t.Fatal("6 is a duplicate")
	}
	if rx.Receive(70); rx.VR() != 64 {
		t.Fatal("BSN 70 is outside the window")
	}
	final := GPRSAckNack(&rx, true)
	_, _, moved = tx.ApplyGPRSAckNack(&final)
	if !tx.Empty() || moved != 59 {
		t.Fatalf("final ack: moved %d VA %d VS %d", moved, tx.VA(), tx.VS())
	}
}

func GPRSAckNack(rx *ReceiveWindow, final bool) AckNackDescription { return rx.GPRSAckNack(final) }

func TestEGPRSWindowsURBBAndCRBB(t *testing.T) {
	for _, maxBits := range []int{300, 60} {
		var tx SendWindow
		var rx ReceiveWindow
		tx.Reset(true, 384)
		rx.Reset(true, 384)
		for i := 0; i < 300; i++ {
			tx.SendNew()
		}
		// Lose BSN 0 (V(Q) stays 0), 100..109 and 250.
		for b := 1; b < 300; b++ {
			if (b >= 100 && b < 110) || b == 250 {
				continue
			}
			rx.Receive(b)
		}
		rx.RaiseVQ()
		d := rx.EGPRSAckNack(false, maxBits)
		if d.SSN != 1 || !d.BOW {
			t.Fatalf("SSN %d", d.SSN)
		}
		if maxBits == 60 && !d.HasCRBB {
			t.Fatalf("expected a compressed bitmap with %d bits budget", maxBits)
		}
		// Through the codec.
		m := &EGPRSPacketDownlinkAckNack{DownlinkTFI: 3, AckNack: d}
		var blk [23]byte
		if maxBits == 60 {
			if _, err := EncodeUL(blk[:], &ULCtrlHeader{}, m); err != nil {
				t.Fatal(err)
			}
			var m2 EGPRSPacketDownlinkAckNack
			var h ULCtrlHeader
			if err := DecodeULInto(blk[:], &h, &m2); err != nil {
				t.Fatal(err)
			}
			d = m2.AckNack
		}
		acked, nacked, _, err := tx.ApplyEGPRSAckNack(&d)
		if err != nil {
			t.Fatal(err)
		}
		if tx.VA() != 0 || tx.State(0) != BlockNacked {
			t.Fatalf("VA %d state %v", tx.VA(), tx.State(0))
		}
		for b := 100; b < 110; b++ {
			if tx.State(b) != BlockNacked {
				t.Fatalf("bsn %d %v (budget %d)", b, tx.State(b), maxBits)
			}
		}
		if maxBits == 300 && (tx.State(250) != BlockNacked || tx.State(299) != BlockAcked || acked != 288 || nacked != 12) {
			t.Fatalf("acked %d nacked %d", acked, nacked)
		}
	}
}

// lossyWindow is an EGPRS receive window of size ws that got the blocks
// 0..n-1 but every period-th from phase on (phase, phase+period, ...),
// with V(Q) raised over what it got.
func lossyWindow(ws, n, period, phase int) *ReceiveWindow {
	rx := new(ReceiveWindow)
	rx.Reset(true, ws)
	for bsn := 0; bsn < n; bsn++ {
		if bsn%period != phase {
			rx.Receive(bsn)
		}
	}
	rx.RaiseVQ()
	return rx
}
