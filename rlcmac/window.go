package rlcmac

// RLC acknowledged-mode windows (TS 44.060 §9.1). GPRS: SNS 128, WS 64;
// EGPRS: SNS 2048, WS 64..1024 (§9.1.9). The send window (network side for
// DL, MS side for UL) keeps V(S), V(A) and the V(B) array; the receive
// window keeps V(R), V(Q) and the V(N) array and produces the Ack/Nack
// bitmaps (§12.3 GPRS, §12.3.1 EGPRS).

// Sequence number spaces and GPRS window size.
const (
	GPRSSNS  = 128
	GPRSWS   = 64
	EGPRSSNS = 2048
)

// BlockState is an element of V(B) (§9.1.3).
type BlockState uint8

// V(B) states.
const (
	BlockInvalid BlockState = iota
	BlockNacked
	BlockUnacked // PENDING_ACK
	BlockResend
	BlockAcked
)

func (s BlockState) String() string {
	return [...]string{"I", "N", "U", "X", "A"}[s&7%5]
}

// SendWindow is the transmitting side of an RLC acknowledged-mode TBF.
type SendWindow struct {
	sns, ws int
	vs, va  int
	// in [V(A), V(S)): blocks not acknowledged, and of those the ones
	// NACKED or RESEND (kept by set: CountUnacked and ResendNeeded do
	// not walk a window of up to 1024 blocks on every radio block)
	unacked, resend int
	// lost counts the blocks an Ack/Nack reported missing that were not
	// NACKED already (TakeLost)
	lost int
	vb   [EGPRSSNS]BlockState
}

// TakeLost returns the number of blocks Ack/Nacks newly reported missing
// (NACKED from another state) since the last call, and starts again:
// osmo-pcu tbf_dl.cpp analyse_errors()'s lost_packets.
func (w *SendWindow) TakeLost() int {
	n := w.lost
	w.lost = 0
	return n
}

// set writes V(B) of b (already mod SNS), keeping the counts of the
// blocks in the window.
func (w *SendWindow) set(b int, s BlockState) {
	if w.InWindow(b) {
		old := w.vb[b]
		w.unacked += notAcked(s) - notAcked(old)
		w.resend += toResend(s) - toResend(old)
	}
	w.vb[b] = s
}

func notAcked(s BlockState) int {
	if s == BlockUnacked || s == BlockNacked || s == BlockResend {
		return 1
	}
	return 0
}

func toResend(s BlockState) int {
	if s == BlockNacked || s == BlockResend {
		return 1
	}
	return 0
}

// Reset initialises the window (egprs selects SNS 2048, else 128; ws is
// clamped: GPRS 64, EGPRS 64..1024).
func (w *SendWindow) Reset(egprs bool, ws int) {
	w.sns, w.ws = GPRSSNS, GPRSWS
	if egprs {
		w.sns, w.ws = EGPRSSNS, clampWS(ws)
	}
	w.vs, w.va = 0, 0
	w.unacked, w.resend = 0, 0
	for i := range w.vb[:w.sns] {
		w.vb[i] = BlockInvalid
	}
}

func clampWS(ws int) int {
	if ws < 64 {
		return 64
	}
	if ws > 1024 {
		return 1024
	}
	return ws
}

// SNS returns the sequence number space.
func (w *SendWindow) SNS() int { return w.sns }

// WS returns the window size.
func (w *SendWindow) WS() int { return w.ws }

// VS returns V(S), the BSN of the next new block.
func (w *SendWindow) VS() int { return w.vs }

// VA returns V(A), the oldest unacknowledged BSN.
func (w *SendWindow) VA() int { return w.va }

func (w *SendWindow) mod(x int) int { return x & (w.sns - 1) }

// Distance returns V(S) - V(A) mod SNS (blocks in flight).
func (w *SendWindow) Distance() int { return w.mod(w.vs - w.va) }

// Stalled reports V(S) = V(A) + WS (§9.1.1: window stall).
func (w *SendWindow) Stalled() bool { return w.Distance() >= w.ws }

// Empty reports that no block is in flight.
func (w *SendWindow) Empty() bool { return w.vs == w.va }

// State returns V(B) of bsn.
func (w *SendWindow) State(bsn int) BlockState { return w.vb[w.mod(bsn)] }

// InWindow reports V(A) <= bsn < V(S).
func (w *SendWindow) InWindow(bsn int) bool { return w.mod(bsn-w.va) < w.Distance() }

// SendNew returns V(S) for a new block, marks it unacked and increments V(S).
// ok is false when the window is stalled.
func (w *SendWindow) SendNew() (bsn int, ok bool) {
	if w.Stalled() {
		return 0, false
	}
	bsn = w.vs
	w.vb[bsn] = BlockInvalid // (outside the window it is; set counts it in)
	w.vs = w.mod(w.vs + 1)
	w.set(bsn, BlockUnacked)
	return bsn, true
}

// MarkSent marks a (re)transmitted block as waiting for acknowledgement.
func (w *SendWindow) MarkSent(bsn int) { w.set(w.mod(bsn), BlockUnacked) }

// MarkResend marks bsn for retransmission (the second half of a split
// EGPRS block still has to go).
func (w *SendWindow) MarkResend(bsn int) { w.set(w.mod(bsn), BlockResend) }

// ResendNeeded returns the first NACKED or RESEND BSN in [V(A), V(S)) or -1.
func (w *SendWindow) ResendNeeded() int {
	if w.resend == 0 {
		return -1
	}
	for b := w.va; b != w.vs; b = w.mod(b + 1) {
		if s := w.vb[b]; s == BlockNacked || s == BlockResend {
			return b
		}
	}
	return -1
}

// MarkForResend marks every unacked block for retransmission (stall,
// final-block restart) and returns how many were marked.
func (w *SendWindow) MarkForResend() int {
	n := 0
	for b := w.va; b != w.vs; b = w.mod(b + 1) {
		if w.vb[b] == BlockUnacked {
			w.set(b, BlockResend)
			n++
		}
	}
	return n
}

// CountUnacked returns the blocks in [V(A), V(S)) not yet acknowledged.
func (w *SendWindow) CountUnacked() int { return w.unacked }

// setAck applies one bitmap bit to bsn if it is inside the window.
func (w *SendWindow) setAck(bsn int, ack bool, acked, nacked *int) {
	bsn = w.mod(bsn)
	if !w.InWindow(bsn) {
		return
	}
	if ack {
		if w.vb[bsn] != BlockAcked {
			*acked++
			w.set(bsn, BlockAcked)
		}
		return
	}
	if w.vb[bsn] != BlockNacked {
		w.lost++
	}
	w.set(bsn, BlockNacked)
	*nacked++
}

// raiseVA advances V(A) over acknowledged blocks (§9.1.3.2) and returns the count.
func (w *SendWindow) raiseVA() int {
	n := 0
	for w.va != w.vs && w.vb[w.va] == BlockAcked {
		w.vb[w.va] = BlockInvalid
		w.va = w.mod(w.va + 1)
		n++
	}
	return n
}

// ApplyGPRSAckNack consumes a GPRS Ack/Nack Description (§12.3, §9.1.8.1):
// RBB bit i (LSB = 0) acknowledges BSN SSN-1-i. A final ack acknowledges
// everything. It returns newly acked, nacked counts and how far V(A) moved.
func (w *SendWindow) ApplyGPRSAckNack(a *AckNackDescription) (acked, nacked, moved int) {
	if a.FinalAck {
		for b := w.va; b != w.vs; b = w.mod(b + 1) {
			w.setAck(b, true, &acked, &nacked)
		}
		return acked, nacked, w.raiseVA()
	}
	ssn := int(a.SSN)
	for i := 0; i < 64; i++ {
		bsn := w.mod(ssn - 1 - i)
		if bsn == w.mod(w.va-1) {
			break
		}
		w.setAck(bsn, a.RBB>>uint(i)&1 == 1, &acked, &nacked)
	}
	return acked, nacked, w.raiseVA()
}

// ApplyEGPRSAckNack consumes an EGPRS Ack/Nack Description (§12.3.1,
// §9.1.8.2): with BOW the blocks from V(A) to SSN-2 are acknowledged and
// SSN-1 is nacked; then the decompressed CRBB covers SSN, SSN+1, ... and the
// URBB follows, its last bit being the lowest BSN.
func (w *SendWindow) ApplyEGPRSAckNack(d *EGPRSAckNack) (acked, nacked, moved int, err error) {
	if d.FinalAck {
		for b := w.va; b != w.vs; b = w.mod(b + 1) {
			w.setAck(b, true, &acked, &nacked)
		}
		return acked, nacked, w.raiseVA(), nil
	}
	ssn := int(d.SSN)
	if d.BOW {
		for b := w.va; b != w.mod(ssn-1) && w.InWindow(b); b = w.mod(b + 1) {
			w.setAck(b, true, &acked, &nacked)
		}
		if d.HasCRBB || d.URBBLen > 0 {
			w.setAck(ssn-1, false, &acked, &nacked)
		}
	}
	next := ssn
	if d.HasCRBB {
		var buf [EGPRSSNS / 8]byte
		n, derr := DecompressCRBB(d.CRBB[:], int(d.CRBBLen), d.CRBBColor, buf[:])
		for i := 0; i < n; i++ {
			w.setAck(next+i, buf[i>>3]>>(7-uint(i&7))&1 == 1, &acked, &nacked)
		}
		next += n
		if derr != nil {
			return acked, nacked, w.raiseVA(), derr
		}
	}
	ul := int(d.URBBLen)
	for j := 0; j < ul; j++ {
		w.setAck(next+ul-1-j, d.URBBBit(j), &acked, &nacked)
	}
	return acked, nacked, w.raiseVA(), nil
}

// ReceiveWindow is the receiving side of an RLC acknowledged-mode TBF.
type ReceiveWindow struct {
	sns, ws int
	vr, vq  int
	vn      [EGPRSSNS]bool // V(N): received
}

// Reset initialises the window.
func (w *ReceiveWindow) Reset(egprs bool, ws int) {
	w.sns, w.ws = GPRSSNS, GPRSWS
	if egprs {
		w.sns, w.ws = EGPRSSNS, clampWS(ws)
	}
	w.vr, w.vq = 0, 0
	for i := range w.vn[:w.sns] {
		w.vn[i] = false
	}
}

// SNS returns the sequence number space.
func (w *ReceiveWindow) SNS() int { return w.sns }

// WS returns the window size.
func (w *ReceiveWindow) WS() int { return w.ws }

// VR returns V(R): one more than the highest BSN received.
func (w *ReceiveWindow) VR() int { return w.vr }

// VQ returns V(Q): the lowest BSN not yet received.
func (w *ReceiveWindow) VQ() int { return w.vq }

func (w *ReceiveWindow) mod(x int) int { return x & (w.sns - 1) }

// InWindow reports V(Q) <= bsn < V(Q)+WS (§9.1.5).
func (w *ReceiveWindow) InWindow(bsn int) bool { return w.mod(bsn-w.vq) < w.ws }

// IsReceived reports V(N)[bsn].
func (w *ReceiveWindow) IsReceived(bsn int) bool { return w.vn[w.mod(bsn)] }

// Receive records bsn. It returns false for a block outside the window
// (to be discarded) and dup for one already received.
func (w *ReceiveWindow) Receive(bsn int) (ok, dup bool) {
	bsn = w.mod(bsn)
	if !w.InWindow(bsn) {
		return false, false
	}
	if w.vn[bsn] {
		return true, true
	}
	w.vn[bsn] = true
	// Raise V(R) (§9.1.5): elements leaving the window become invalid.
	if off := w.mod(bsn + 1 - w.vr); off < w.sns/2 {
		for ; off > 0; off-- {
			w.vn[w.mod(w.vr-w.ws)] = false
			if off > 1 {
				w.vn[w.vr] = false
			}
			w.vr = w.mod(w.vr + 1)
		}
		w.vn[bsn] = true
	}
	return true, false
}

// RaiseVQ advances V(Q) over contiguously received blocks and returns how
// many blocks became deliverable (in order, starting at the old V(Q)).
func (w *ReceiveWindow) RaiseVQ() int {
	n := 0
	for w.vq != w.vr && w.vn[w.vq] {
		w.vq = w.mod(w.vq + 1)
		n++
	}
	return n
}

// Complete reports that every block below V(R) has been received.
func (w *ReceiveWindow) Complete() bool { return w.vq == w.vr }

// GPRSAckNack fills a GPRS Ack/Nack Description (§12.3): SSN = V(R), RBB bit
// i (LSB = 0) = V(N)[SSN-1-i].
func (w *ReceiveWindow) GPRSAckNack(final bool) AckNackDescription {
	a := AckNackDescription{FinalAck: final, SSN: uint8(w.vr)}
	for i := 0; i < 64; i++ {
		if w.vn[w.mod(w.vr-1-i)] {
			a.RBB |= 1 << uint(i)
		}
	}
	return a
}

// EGPRSAckNack fills an EGPRS Ack/Nack Description (§12.3.1) with the
// length field, BOW = 1 and SSN = V(Q)+1, using at most maxBits bits for
// the bitmaps (CRBB when it is smaller than the URBB it replaces).
func (w *ReceiveWindow) EGPRSAckNack(final bool, maxBits int) EGPRSAckNack {
	d := EGPRSAckNack{HasLength: true, FinalAck: final, BOW: true, EOW: true, SSN: uint16(w.mod(w.vq + 1))}
	n := w.mod(w.vr - w.vq)
	if n > 0 {
		n-- // V(Q) itself is NACK and not transmitted
	}
	if n > w.ws {
		n = w.ws
	}
	if maxBits > MaxURBBBits {
		maxBits = MaxURBBBits
	}
	if maxBits < 0 {
		maxBits = 0
	}
	start := int(d.SSN)
	if n > maxBits {
		// Try compression of the bitmap from SSN onwards.
		var rbb [EGPRSSNS / 8]byte
		for i := 0; i < n; i++ {
			if w.vn[w.mod(start+i)] {
				rbb[i>>3] |= 1 << (7 - uint(i&7))
			}
		}
		budget := maxBits - 8
		if budget > 127 {
			budget = 127
		}
		if budget > 0 {
			cb, ub, ones, ok := CompressRBB(rbb[:], n, d.CRBB[:], budget)
			if ok {
				d.HasCRBB, d.CRBBLen, d.CRBBColor = true, uint8(cb), ones
				start += ub
				n -= ub
				maxBits -= 8 + cb
			}
		}
	}
	if n > maxBits {
		d.EOW = false
		n = maxBits
	}
	d.URBBLen = uint16(n)
	for j := 0; j < n; j++ {
		d.SetURBBBit(j, w.vn[w.mod(start+n-1-j)])
	}
	return d
}
