package rlcmac

import (
	"math/rand"
	"testing"
)

// TestSendWindowCounts: CountUnacked and ResendNeeded, kept as counts,
// agree with a walk over [V(A), V(S)) after every operation of a long
// random run (sends, resends, marks, GPRS and EGPRS Ack/Nacks, finals).
func TestSendWindowCounts(t *testing.T) {
	for _, egprs := range []bool{false, true} {
		rng := rand.New(rand.NewSource(16))
		var w SendWindow
		w.Reset(egprs, 192)
		walk := func() (unacked, first int) {
			first = -1
			for b := w.va; b != w.vs; b = w.mod(b + 1) {
				if w.vb[b] != BlockAcked {
					unacked++
				}
				if s := w.vb[b]; first < 0 && (s == BlockNacked || s == BlockResend) {
					first = b
				}
			}
			return unacked, first
		}
		maxDist, resends := 0, 0
		for op := 0; op < 200000; op++ {
			switch r := rng.Intn(200); {
			case r < 150:
				w.SendNew()
			case r < 165:
				if b := w.ResendNeeded(); b >= 0 {
					w.MarkSent(b)
				}
			case r < 172:
				if w.Distance() > 0 {
					w.MarkResend(w.va + rng.Intn(w.Distance()))
				}
			case r < 174:
				w.MarkForResend()
			case r < 175:
				if egprs {
					w.ApplyEGPRSAckNack(&EGPRSAckNack{FinalAck: true})
				} else {
					w.ApplyGPRSAckNack(&AckNackDescription{FinalAck: true})
				}
			default:
				if egprs {
					d := EGPRSAckNack{SSN: uint16(w.mod(w.va + rng.Intn(min(w.Distance(), 24)+1) + 1)), BOW: rng.Intn(4) == 0}
					d.URBBLen = uint16(rng.Intn(64))
					for i := 0; i < int(d.URBBLen); i++ {
						if rng.Intn(4) > 0 {
							d.URBB[i/8] |= 0x80 >> (i % 8)
						}
					}
					w.ApplyEGPRSAckNack(&d)
				} else {
					a := AckNackDescription{SSN: uint8(w.mod(w.va + rng.Intn(w.Distance()+1))), RBB: rng.Uint64() | rng.Uint64()}
					w.ApplyGPRSAckNack(&a)
				}
			}
			u, f := walk()
			maxDist = max(maxDist, w.Distance())
			if f >= 0 {
				resends++
			}
			if got := w.CountUnacked(); got != u {
				t.Fatalf("egprs=%v op %d: CountUnacked %d, walk %d", egprs, op, got, u)
			}
			if got := w.ResendNeeded(); got != f {
				t.Fatalf("egprs=%v op %d: ResendNeeded %d, walk %d", egprs, op, got, f)
			}
		}
		// the run must have filled the window and had blocks to resend
		if maxDist != w.WS() || resends < 1000 {
			t.Errorf("egprs=%v: largest window %d of %d, %d states with a resend", egprs, maxDist, w.WS(), resends)
		}
	}
}
