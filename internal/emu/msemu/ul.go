package msemu

import "github.com/gopcu/gopcu/rlcmac"

// The uplink TBF: segmenting LLC frames into RLC blocks and sending them on
// the USFs (TS 44.060 §9.3).

// startUL begins an UL TBF and segments the queued frames into blocks.
func (m *MS) startUL(trx, tfi, slots uint8, usf [8]uint8, contentionDone bool) {
	m.startULWS(trx, tfi, slots, usf, contentionDone, 0)
}

// startULWS starts an UL TBF; ws > 0 makes it EGPRS with that window.
func (m *MS) startULWS(trx, tfi, slots uint8, usf [8]uint8, contentionDone bool, ws int) {
	m.ul = ulState{active: true, assigned: true, trx: trx, tfi: tfi, slots: slots, usf: usf, contention: contentionDone, egprs: ws > 0}
	m.ulHeard = m.cell.air.FN()
	if ws > 0 {
		m.ul.sw.Reset(true, ws)
	} else {
		m.ul.sw.Reset(false, rlcmac.GPRSWS)
	}
	m.segmentUL()
}

// segmentUL turns the queued frames into RLC data units (TS 44.060
// §10.4.14). The first blocks carry the TLLI (TI=1) until contention
// resolution; we put it in every block before the first PUAN arrives, which
// the segmentation cannot know, so all blocks get TI when contention is not
// done yet (allowed: §7.1.2.3).
func (m *MS) segmentUL() {
	frames := m.ulQueue
	m.ulQueue = nil
	dl := m.cs.DataLen()
	var cur []byte
	open := false // cur's frame is not closed yet (EGPRS: a unit it filled exactly)
	fi := 0
	for fi < len(frames) || open {
		// The TLLI rides in the first blocks until contention resolution
		// (TS 44.060 §7.1.2.3); eight copies survive any realistic loss.
		ti := !m.ul.contention && len(m.ul.blocks) < 8
		space := dl
		if ti {
			space -= 4
		}
		buf := make([]byte, space)
		var u rlcmac.DLUnit
		u.Reset(buf, m.ul.egprs)
		for {
			if !open {
				if fi == len(frames) {
					break
				}
				cur = frames[fi]
				open = true
				fi++
				m.ULFrames++
				m.ULOctets += len(cur)
			}
			// never "last": frames queued later may still join this TBF
			n, res := u.Append(cur, false)
			cur = cur[n:]
			if res == rlcmac.NeedMoreBlocks {
				break // (EGPRS: a frame that filled the unit exactly is closed in the next)
			}
			open = false
			if res == rlcmac.CompletedBlockFilled {
				break
			}
		}
		if u.Space() > 0 {
			u.Pad()
		}
		unit := make([]byte, 0, dl)
		unit = append(unit, buf[:u.NumLI()]...)
		if ti && m.ul.egprs {
			// EGPRS data units carry the TLLI least significant octet first
			unit = append(unit, byte(m.TLLI), byte(m.TLLI>>8), byte(m.TLLI>>16), byte(m.TLLI>>24))
		} else if ti {
			unit = append(unit, byte(m.TLLI>>24), byte(m.TLLI>>16), byte(m.TLLI>>8), byte(m.TLLI))
		}
		unit = append(unit, buf[u.NumLI():]...)
		m.ul.blocks = append(m.ul.blocks, unit)
		m.ul.hdrs = append(m.ul.hdrs, rlcmac.GPRSULHeader{TFI: m.ul.tfi, TI: ti, E: u.E()})
		m.ul.mcs = append(m.ul.mcs, m.cs)
	}
	for i := range m.ul.hdrs {
		m.ul.hdrs[i].BSN = uint8(i % rlcmac.GPRSSNS) // EGPRS: i % 2048 at transmission
	}
}

// ulTransmit sends one UL data block at fn on ts (our USF was seen).
func (m *MS) ulTransmit(fn uint32, ts uint8) {
	if m.naccTx(fn, ts) {
		return
	}
	u := &m.ul
	if !u.cvStarted && len(m.ulQueue) > 0 {
		m.segmentUL() // TS 44.060 §9.3.1: data may join until the countdown starts
	}
	if u.spbSecond > 0 { // the second half of a split unit follows its first
		idx := u.spbSecond - 1
		u.spbSecond = 0
		m.ulSplit(fn, ts, idx, m.txMCS(idx), 3)
		return
	}
	idx, resend := u.pickBlock(true)
	if idx < 0 {
		return
	}
	m.countResend(idx, resend)
	if u.egprs {
		m.ulTransmitEGPRS(fn, ts, idx)
		return
	}
	out := make([]byte, u.mcs[idx].BlockLen(true))
	h := u.hdrs[idx]
	h.SI = u.sw.Stalled() // stall indicator (TS 44.060 §9.1.3.3)
	h.CV = u.cv(idx)
	u.hdrs[idx].CV = h.CV
	if _, err := rlcmac.EncodeGPRSUL(out, u.mcs[idx], &h, u.blocks[idx]); err != nil {
		panic(err)
	}
	m.cell.queueULOffs(fn, u.trx, ts, out, m.burstOffset())
	m.ULBlocks++
	m.trace("ul", idx) // (GPRS; the EGPRS paths do not trace)
}

// pickBlock chooses the next block to send: a NACKed one, else a new one,
// else (when stalled or all sent, if oldest) the oldest unacknowledged.
func (u *ulState) pickBlock(oldest bool) (idx int, resend bool) {
	if b := u.sw.ResendNeeded(); b >= 0 {
		u.sw.MarkSent(b)
		return u.blockIndex(b), true
	}
	if u.next < len(u.blocks) {
		if _, ok := u.sw.SendNew(); ok {
			u.next++
			return u.next - 1, false
		}
	}
	if oldest && u.sw.MarkForResend() > 0 {
		b := u.sw.ResendNeeded()
		u.sw.MarkSent(b)
		return u.blockIndex(b), true
	}
	return -1, false
}

// cv is the countdown value of block idx (TS 44.060 §9.3.1).
func (u *ulState) cv(idx int) uint8 {
	cv := uint8(min(15, len(u.blocks)-idx-1))
	if cv < 15 {
		u.cvStarted = true
	}
	return cv
}

// txMCS is the MCS block idx goes out with now: the one it was segmented
// for, or, when the network commands another, the retransmission MCS of
// TS 44.060 Tables 8.1.1.1/8.1.1.2 (same unit size; MCS-1..3 halves when
// resegmenting below the family). MCS-8 units stay MCS-8 (no padding here).
func (m *MS) txMCS(idx int) rlcmac.CodingScheme {
	init := m.ul.mcs[idx]
	if init == rlcmac.MCS8 {
		return init
	}
	return rlcmac.RetxMCS(init, m.cs, m.ul.reseg)
}

// ulTransmitEGPRS sends an EGPRS UL block: one unit (MCS-1..6) or two
// (MCS-7..9; a unit without partner is sent twice, as the network does),
// or the first half of a unit resegmented into two MCS-1..3 blocks.
func (m *MS) ulTransmitEGPRS(fn uint32, ts uint8, idx int) {
	u := &m.ul
	cs := m.txMCS(idx)
	if cs.DataLen() < len(u.blocks[idx]) {
		m.ulSplit(fn, ts, idx, cs, 2)
		u.spbSecond = idx + 1
		return
	}
	idx2 := idx
	if cs.DataUnits() == 2 {
		if j, jr := u.pickBlock(false); j >= 0 {
			if m.txMCS(j) == cs {
				idx2 = j
				m.countResend(j, jr)
			} else {
				bsn := j % u.sw.SNS()
				u.sw.MarkResend(bsn) // not a partner: it goes alone later
				if !jr {
					// a new block: its first sending then is not a resend
					u.putBack[bsn/64] |= 1 << (bsn % 64)
				}
			}
		}
	}
	h := rlcmac.EGPRSULHeader{TFI: u.tfi, SI: u.sw.Stalled(), BSN1: uint16(idx % rlcmac.EGPRSSNS), BSN2: uint16(idx2 % rlcmac.EGPRSSNS),
		E: [2]bool{u.hdrs[idx].E, u.hdrs[idx2].E}, TI: [2]bool{u.hdrs[idx].TI, u.hdrs[idx2].TI}}
	h.CV = min(u.cv(idx), u.cv(idx2))
	h.CPS, _ = rlcmac.EncodeCPS(cs, 0, 0, false)
	var u2 []byte
	if cs.DataUnits() == 2 {
		u2 = u.blocks[idx2]
	}
	out := make([]byte, cs.BlockLen(true))
	if _, err := rlcmac.EncodeEGPRSUL(out, cs, &h, u.blocks[idx], u2); err != nil {
		panic(err)
	}
	m.cell.queueULOffs(fn, u.trx, ts, out, m.burstOffset())
	m.ULBlocks++
}

// ulSplit sends half spb (2 first, 3 second) of unit idx as an MCS-1..3
// block (TS 44.060 §9.3.2.1, §10.4.8b).
func (m *MS) ulSplit(fn uint32, ts uint8, idx int, cs rlcmac.CodingScheme, spb uint8) {
	u := &m.ul
	hl := cs.DataLen()
	h := rlcmac.EGPRSULHeader{TFI: u.tfi, SI: u.sw.Stalled(), BSN1: uint16(idx % rlcmac.EGPRSSNS), SPB: spb,
		E: [2]bool{u.hdrs[idx].E}, TI: [2]bool{u.hdrs[idx].TI}}
	h.CV = u.cv(idx)
	h.CPS, _ = rlcmac.EncodeCPS(cs, 0, 0, false)
	off := 0
	if spb == 3 {
		off = hl
	}
	out := make([]byte, cs.BlockLen(true))
	if _, err := rlcmac.EncodeEGPRSUL(out, cs, &h, u.blocks[idx][off:off+hl], nil); err != nil {
		panic(err)
	}
	m.ULSplitBlocks++
	m.cell.queueULOffs(fn, u.trx, ts, out, m.burstOffset())
	m.ULBlocks++
}

// blockIndex maps a BSN back to the block index (the TBF sends at most a
// window beyond V(A), so the index near next with that BSN is it).
func (u *ulState) blockIndex(bsn int) int {
	sns := u.sw.SNS()
	for i := u.next - 1; i >= 0 && i >= u.next-sns; i-- {
		if i%sns == bsn {
			return i
		}
	}
	return -1
}

// countResend counts block idx, picked as a resend or not, in ULResent
// unless it is a new block that was put back unsent.
func (m *MS) countResend(idx int, resend bool) {
	if u := &m.ul; resend && !u.takePutBack(idx%u.sw.SNS()) {
		m.ULResent++
	}
}

// takePutBack reports whether bsn was a new block put back unsent (as a
// rejected MCS-7..9 partner), and forgets it.
func (u *ulState) takePutBack(bsn int) bool {
	w, b := bsn/64, uint64(1)<<(bsn%64)
	if u.putBack[w]&b == 0 {
		return false
	}
	u.putBack[w] &^= b
	return true
}
