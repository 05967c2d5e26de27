package pcu

import (
	"encoding/binary"

	"github.com/gopcu/gopcu/rlcmac"
)

// The RLC windows and frequency parameters of a new TBF (TS 44.060 §9.1.9
// window sizes, §12.8 Frequency Parameters).

// egprsWS is the EGPRS window size for n slots (TS 44.060 §9.1.9; osmo-pcu tbf.cpp egprs_window_size()):
// min(n != 1 ? 128·n : 192, max(64, ⌊(base + n·pdch)/32⌋·32)).
func (e *Engine) egprsWS(n int) int {
	ws := max(64, (e.params.WSBase+n*e.params.WSPDCH)/32*32)
	lim := 192
	if n != 1 {
		lim = 128 * n
	}
	return min(ws, lim, 1024)
}

// setupDLWindow chooses GPRS or EGPRS for a DL TBF and sizes its window
// and retransmission store.
func (e *Engine) setupDLWindow(t *TBF) {
	t.egprs = t.ms.egprs(t.bts)
	ws := rlcmac.GPRSWS
	if t.egprs {
		ws = e.egprsWS(popcount8(t.slots))
		t.cs = t.ms.MCSDL
	}
	t.dl.sw.Reset(t.egprs, ws)
	n := 128
	for n < t.dl.sw.WS() {
		n *= 2
	}
	if len(t.dl.blk) != n {
		t.dl.blk = make([]dlBlock, n)
	}
}

// makeEGPRSUL turns a new UL TBF into an EGPRS one (11-bit EGPRS access):
// the MS's UL MCS from its last TBF's link adaptation (as osmo-pcu keeps it
// in the MS), else `mcs` UL or the INFO_IND, within `mcs max` UL; EGPRS
// window from `window-size`.
func (e *Engine) makeEGPRSUL(t *TBF) {
	t.egprs = true
	mcs := int(t.bts.Info.InitialMCS)
	if e.params.ForceMCSUL > 0 {
		mcs = e.params.ForceMCSUL
	}
	if t.ms.MCSUL.IsEGPRS() {
		mcs = int(t.ms.MCSUL-rlcmac.MCS1) + 1
	}
	t.cs = clampMCS(t.bts, mcs, e.params.MCSMaxUL)
	t.ms.MCSUL = t.cs
	ws := e.egprsWS(popcount8(t.slots))
	t.ul.rw.Reset(true, ws)
	n := 128
	for n < ws {
		n *= 2
	}
	t.ul.ub = make([]ulBlock, n)
}

// freqParams is the Frequency Parameters IE of Packet Uplink/Downlink
// Assignments for PDCH p: the ARFCN, or for a hopping PDCH direct encoding
// 1 with MAIO, HSN and the GPRS Mobile Allocation bitmap (the INFO_IND's
// right-aligned MA moved to the left, TS 44.060 §12.8, §12.10a).
func freqParams(trx *TRX, p *PDCH) rlcmac.FrequencyParameters {
	if !p.Hopping || p.MABitLen == 0 || p.MABitLen > 64 {
		return rlcmac.FrequencyParameters{TSC: p.TSC, Kind: 0, ARFCN: trx.ARFCN}
	}
	f := rlcmac.FrequencyParameters{TSC: p.TSC, Kind: 2, MAIO: p.MAIO, HSN: p.HSN, MALen: p.MABitLen}
	v := binary.BigEndian.Uint64(p.MA[:]) << (64 - uint(p.MABitLen))
	binary.BigEndian.PutUint64(f.MA[:], v)
	return f
}
