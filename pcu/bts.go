package pcu

import (
	"github.com/gopcu/gopcu/internal/ratectr"
	"github.com/gopcu/gopcu/pcu/alloc"
	"github.com/gopcu/gopcu/pcu/pcuif"
	"github.com/gopcu/gopcu/rlcmac"
	"time"
)

// PDCH is one timeslot of a TRX used for packet data.
type PDCH struct {
	TRX       uint8
	TS        uint8
	Enabled   bool
	TSC       uint8
	Hopping   bool
	HSN, MAIO uint8
	MABitLen  uint8
	MA        [8]byte
	LastRTSFN uint32

	ul, dl    []*TBF  // TBFs using this PDCH
	usfOwner  [8]*TBF // UL TBF per USF (0..6)
	resv      []resv  // UL block reservations: USF grants and polls
	nextUL    int     // round-robin cursors
	nextDL    int
	usfServed uint8       // USFs granted in the current round (pickUSF)
	usfRand   uint32      // xorshift32 state: where each USF round starts (pickUSF)
	nextCtrl  int         // control message kind to try first (ctlKind)
	blocksOut uint64      // DL data blocks sent (statistics)
	pages     []pageEntry // Packet Paging Requests waiting for PACCH
	taiOwner  [16]*MS     // MSs by Timing Advance Index (PTCCH/D slot)
}

type resvKind uint8

const (
	resvUSF resvKind = iota
	resvPoll
	resvSBA // single block allocation (two-phase access)
)

type pollReason uint8

const (
	pollULAck pollReason = iota // final Packet Uplink Ack/Nack
	pollDLAck                   // Packet Downlink Ack/Nack
	pollDLAss                   // Packet Downlink Assignment
	pollULAss                   // Packet Uplink Assignment
)

// addResv adds an expected uplink block to p, one of b's PDCHs.
func (b *BTS) addResv(p *PDCH, r resv) {
	p.resv = append(p.resv, r)
	b.resvMask[p.TRX] |= 1 << p.TS
}

// resv is an expected uplink block at FN on a PDCH.
type resv struct {
	fn     uint32
	kind   resvKind
	tbf    *TBF
	reason pollReason
	ta     uint8 // SBA: timing advance from the RACH
}

func (p *PDCH) reserved(fn uint32) int {
	for i := range p.resv {
		if p.resv[i].fn == fn {
			return i
		}
	}
	return -1
}

func (p *PDCH) dropReservations(t *TBF) {
	out := p.resv[:0]
	for _, r := range p.resv {
		if r.tbf != t {
			out = append(out, r)
		}
	}
	p.resv = out
}

// TRX is one transceiver of a BTS.
type TRX struct {
	Nr    uint8
	ARFCN uint16
	PDCH  [pcuif.NumTS]PDCH
	ulTFI uint32 // TFIs in use per direction (unique per TRX)
	dlTFI uint32
	dlBy  [32]*TBF // the attached DL TBF of each DL TFI (dlTBFByTFI)
	// dlTFIHeld are DL TFIs of freed TBFs whose IMMEDIATE ASSIGNMENT
	// the BTS may still send (holdTFI); dlHold says for whom, how long.
	dlTFIHeld uint32
	dlHold    [32]tfiHold
	// enabled is the set of enabled PDCHs (bit n: PDCH[n].Enabled), kept
	// in step by setEnabled; the allocator has its own from its view
	// (alloc.TRX.EnabledMask).
	enabled uint8
}

// setEnabled enables or disables PDCH ts of the TRX (its Enabled and the
// TRX's enabled mask).
func (t *TRX) setEnabled(ts int, on bool) {
	t.PDCH[ts].Enabled = on
	if on {
		t.enabled |= 1 << ts
	} else {
		t.enabled &^= 1 << ts
	}
}

// BTS is the engine's model of one BTS, built from INFO_IND.
type BTS struct {
	Nr     uint8
	Active bool
	Info   pcuif.InfoInd // last INFO_IND
	TRX    [pcuif.NumTRX]TRX
	Ctr    *ratectr.Group // osmo-pcu's "bts" group
	CurFN  uint32         // last FN seen (RTS, TIME_IND, DATA_IND)

	CSMask  uint8  // bit n-1 = CS-n allowed (CS-1 always)
	MCSMask uint16 // bit n-1 = MCS-n allowed
	SI      [4][]byte
	// SI13 is the last SI13 decoded from BCCH (HaveSI13): T3168 and T3192
	// of its GPRS Cell Options (TS 44.018 §10.5.2.37b; osmo-pcu pcu_l1_if.cpp pcu_rx_data_ind_bcch()).
	SI13     rlcmac.SI13
	HaveSI13 bool

	fc fcMeasure // since the last FLOW-CONTROL-BVC

	ms      *msStore
	idle    msIdle // idle MSs (msidle.go)
	tbfs    []*TBF
	listSeq uint64 // TBFs ever listed in tbfs (TBF.listSeq)
	ctl     []*TBF // TBFs with a control message to send, in tbfs order (TBF.noteCtl)
	// resvMask has bit TS of TRX set for every PDCH that may hold
	// reservations (addResv sets it, expireReservations clears it when
	// the PDCH has none left)
	resvMask  [pcuif.NumTRX]uint8
	msPresent ratectr.StatItem

	// alloc is the allocator's view of the BTS and its state (pcu/alloc;
	// pcu/alloc.go allocCell)
	alloc alloc.Cell

	pch pchPages // PS pagings on PCH waiting for the MS (T3113, paging.go)

	fsm *fsmSink // the engine's, for the TBFs' control procedures (fsm.go)
}

func newBTS(nr uint8, reg *ratectr.Registry) *BTS {
	b := &BTS{Nr: nr, Ctr: ratectr.NewGroup("bts", "BTS Statistics", uint32(nr), BTSCounterDescs), ms: newMSStore()}
	b.msPresent.Name, b.msPresent.Description = "ms.present", "MS Present"
	for t := range b.TRX {
		b.TRX[t].Nr = uint8(t)
		for s := range b.TRX[t].PDCH {
			b.TRX[t].PDCH[s].TS = uint8(s)
			b.TRX[t].PDCH[s].TRX = uint8(t)
		}
	}
	reg.Register(b.Ctr)
	return b
}

// EnabledPDCHs counts the enabled PDCHs.
func (b *BTS) EnabledPDCHs() int {
	n := 0
	for t := range b.TRX {
		for s := range b.TRX[t].PDCH {
			if b.TRX[t].PDCH[s].Enabled {
				n++
			}
		}
	}
	return n
}

// genIdleBlocks reports whether idle PDCHs on TRX trx must carry a dummy
// block rather than nothing (osmo-pcu pcu_l1_if.cpp decide_gen_idle_blocks()): only on TRX 0, and only
// for BTS models that need it (v12 bts_model; v10/v11 BTSs fill idle
// blocks themselves).
func (b *BTS) genIdleBlocks(v pcuif.Version, trx uint8) bool {
	if trx != 0 || v < pcuif.V12 {
		return false
	}
	switch b.Info.BTSModel {
	case pcuif.BTSModelUnspec, pcuif.BTSModelLC15, pcuif.BTSModelOC2G, pcuif.BTSModelOCTPHY, pcuif.BTSModelSysmo, pcuif.BTSModelRBS:
		return true
	}
	return false
}

// fcMeasure is what the cell did since the last FLOW-CONTROL-BVC
// (osmo-pcu gprs_bssgp_pcu.c gprs_bssgp_update_frames_sent() and friends): PDTCH blocks it could send (every RTS), DL data
// blocks the MSs acknowledged and their LLC octets, and the sojourn of the
// LLC frames it dequeued.
type fcMeasure struct {
	rtsBlocks  uint64
	recvBlocks uint64
	recvBytes  uint64
	delaySum   time.Duration
	delayN     int
}
