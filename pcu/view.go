package pcu

import (
	"fmt"
	"math/bits"
	"time"

	"github.com/gopcu/gopcu/bssgp/ns/nse"
	"github.com/gopcu/gopcu/internal/ratectr"
	"github.com/gopcu/gopcu/llc"
	"github.com/gopcu/gopcu/pcu/pcuif"
	"github.com/gopcu/gopcu/rlcmac"
)

// Read-only snapshots of the engine's state for the composition layer
// (pcu/daemon renders osmo-pcu's `show` commands and the stat items from
// them). A view is a copy: it stays valid after the engine moves on. The
// methods that make views run on the engine goroutine only (a VTY handler,
// or inside Call).

// BTSView is one BTS.
type BTSView struct {
	Nr     uint8
	Active bool
	Info   pcuif.InfoInd // last INFO_IND
	// SI13 is the last SI13 seen on BCCH (HaveSI13).
	SI13     rlcmac.SI13
	HaveSI13 bool
	Ctr      *ratectr.Group // osmo-pcu's "bts" counters (safe to read anywhere)
	MSCount  int
	// TBFsUL and TBFsDL count the BTS's TBFs.
	TBFsUL, TBFsDL int
	TRX            [pcuif.NumTRX]TRXView
}

// TRXView is one TRX of a BTSView.
type TRXView struct {
	// Enabled has bit n set when PDCH n is enabled.
	Enabled uint8
	PDCH    [8]PDCHView
}

// PDCHView is one timeslot of a TRXView.
type PDCHView struct {
	Enabled bool
	UL, DL  int // attached TBFs
	// GPRS and EGPRS report whether a GPRS / an EGPRS TBF uses the PDCH.
	GPRS, EGPRS bool
}

// TBFView is one TBF.
type TBFView struct {
	Dir    Dir
	State  TBFState
	TFI    uint8
	TRX    uint8
	Slots  uint8 // timeslot mask
	CtrlTS uint8
	CCCH   bool // assigned on CCCH (else PACCH)
	EGPRS  bool
	// Attached: the TBF owns its TFI, USFs and slots.
	Attached bool
	// USF per timeslot (UL).
	USF     [8]uint8
	Created time.Duration // engine time
	CS      rlcmac.CodingScheme
	// EverAcked: a DL TBF got a Packet Downlink Ack/Nack.
	EverAcked bool
	SentBytes uint64 // LLC octets sent (DL)
	// Window state: UL V(Q), V(R); DL V(A), V(S), blocks to resend.
	WS, VQ, VR, VA, VS int
	Resend             int
	Stalled            bool
	// Counters (nil where the TBF has none).
	Ctr, GPRSCtr, EGPRSCtr *ratectr.Group
	// The MS's identity.
	TLLI uint32
	IMSI string
	TA   uint8
	// The MS's multislot classes.
	MSClass, EGPRSClass int
}

func (v TBFView) String() string {
	return fmt.Sprintf("TBF(%s TFI=%d TRX=%d TS=%08b %s TLLI=0x%08x)", v.Dir, v.TFI, v.TRX, v.Slots, v.State, v.TLLI)
}

// EnabledPDCHs counts the BTS's enabled PDCHs.
func (b *BTSView) EnabledPDCHs() int {
	n := 0
	for _, t := range b.TRX {
		n += bits.OnesCount8(t.Enabled)
	}
	return n
}

// MSView is one MS.
type MSView struct {
	ID                  int // the engine's index of the MS (log lines)
	TLLI                uint32
	IMSI                string
	TA                  uint8
	MSClass, EGPRSClass int
	EGPRS               bool // it does EGPRS in this cell
	CSUL, CSDL          rlcmac.CodingScheme
	MCSUL, MCSDL        rlcmac.CodingScheme
	PACCH               int // its PACCH timeslot as osmo-pcu shows it, -1 none
	QueueFrames         int
	QueueOctets         int
	QueueHeadSojourn    time.Duration // how long the oldest queued frame has waited
	UL, DL              *TBFView      // nil: none
	Ctr                 *ratectr.Group
	RSSI                int8
	TAI                 int8  // Timing Advance Index (-1: none)
	LinkQ               int16 // C/I in cB
	BTO                 int16 // burst timing offset, quarter bits
	Meas                MeasView
	DLThroughputKbps    int
}

// MeasView is what an MS reported of both links (TS 45.008 §8.4, §10.3).
type MeasView struct {
	HaveUL  bool
	BER10k  uint16
	HaveDL  bool // a Packet Downlink Ack/Nack arrived (GPRS)
	NackPct int  // % of the blocks the last Ack/Nack reported that were NACKed
	HaveRxQ bool
	RxQual  uint8
	CValue  uint8
	SignVar uint8   // SIGN_VAR in 0.25 dB² steps
	ILevel  [8]int8 // I_LEVEL per timeslot, -1 not reported
}

// BTSNrs lists the BTSs the engine knows, in order. Engine goroutine only.
func (e *Engine) BTSNrs() []uint8 {
	var out []uint8
	for i := 0; i < 256; i++ {
		if e.bts[uint8(i)] != nil {
			out = append(out, uint8(i))
		}
	}
	return out
}

// BTSView returns a snapshot of BTS nr. Engine goroutine only.
func (e *Engine) BTSView(nr uint8) (BTSView, bool) {
	b := e.bts[nr]
	if b == nil {
		return BTSView{}, false
	}
	v := BTSView{Nr: nr, Active: b.Active, Info: b.Info, SI13: b.SI13, HaveSI13: b.HaveSI13, Ctr: b.Ctr,
		MSCount: len(b.ms.all)}
	for _, t := range b.tbfs {
		if t.dir == DirUL {
			v.TBFsUL++
		} else {
			v.TBFsDL++
		}
	}
	for t := range b.TRX {
		trx := &b.TRX[t]
		v.TRX[t].Enabled = trx.enabled
		for s := range trx.PDCH {
			p := &trx.PDCH[s]
			pv := &v.TRX[t].PDCH[s]
			pv.Enabled, pv.UL, pv.DL = p.Enabled, len(p.ul), len(p.dl)
			for _, l := range [2][]*TBF{p.ul, p.dl} {
				for _, tb := range l {
					if tb.egprs {
						pv.EGPRS = true
					} else {
						pv.GPRS = true
					}
				}
			}
		}
	}
	return v, true
}

// TBFViews appends a snapshot of every TBF of BTS nr to dst, in creation
// order. Engine goroutine only.
func (e *Engine) TBFViews(nr uint8, dst []TBFView) []TBFView {
	if b := e.bts[nr]; b != nil {
		for _, t := range b.tbfs {
			dst = append(dst, t.view())
		}
	}
	return dst
}

// MSViews appends a snapshot of every MS of BTS nr to dst. Engine
// goroutine only.
func (e *Engine) MSViews(nr uint8, dst []MSView) []MSView {
	if b := e.bts[nr]; b != nil {
		for _, m := range b.ms.all {
			dst = append(dst, e.msView(m))
		}
	}
	return dst
}

// MSViewByTLLI finds an MS by TLLI on any BTS. Engine goroutine only.
func (e *Engine) MSViewByTLLI(tlli uint32) (MSView, bool) {
	for _, nr := range e.BTSNrs() {
		if m := e.bts[nr].ms.byTLLI[tlli]; m != nil {
			return e.msView(m), true
		}
	}
	return MSView{}, false
}

// MSViewByIMSI finds an MS by IMSI on any BTS. Engine goroutine only.
func (e *Engine) MSViewByIMSI(imsi string) (MSView, bool) {
	for _, nr := range e.BTSNrs() {
		if m := e.bts[nr].ms.byIMSI[imsi]; m != nil {
			return e.msView(m), true
		}
	}
	return MSView{}, false
}

// QueueTotals sums what the LLC queues of BTS nr's MSs hold (a walk over
// its MSs: for the 1 s gauges and state dumps, not for every view).
// Engine goroutine only.
func (e *Engine) QueueTotals(nr uint8) (frames, octets int) {
	if b := e.bts[nr]; b != nil {
		for _, m := range b.ms.all {
			frames += m.Queue.Len()
			octets += m.Queue.Octets()
		}
	}
	return frames, octets
}

// String names the MS as the engine's logs do (MS.String).
func (v *MSView) String() string { return msString(v.ID, v.TLLI) }

// QueueStats is the LLC queue state of each MS of BTS nr (gopcu's `show
// llc-queue`), with the MS it belongs to. Engine goroutine only.
func (e *Engine) QueueStats(nr uint8, f func(ms MSView, st llc.QueueStats)) {
	if b := e.bts[nr]; b != nil {
		for _, m := range b.ms.all {
			f(e.msView(m), m.Queue.Stats(e.now))
		}
	}
}

// NSE is the NS entity while Gb runs (nil otherwise), for the NS VTY
// commands and stat items. Engine goroutine only.
func (e *Engine) NSE() *nse.NSE {
	if e.gbl == nil {
		return nil
	}
	return e.gbl.gb.NSE()
}

// GbNow is the time base of the Gb stack (NSE methods take it).
func (e *Engine) GbNow() time.Duration { return e.gbNow() }

func (t *TBF) view() TBFView {
	m := t.ms
	v := TBFView{Dir: t.dir, State: t.state, TFI: t.tfi, TRX: t.trx, Slots: t.slots, CtrlTS: t.ctrlTS, CCCH: t.ccch,
		EGPRS: t.egprs, Attached: t.attached, Created: t.created, CS: t.cs,
		Ctr: t.ctr, GPRSCtr: t.gprsCtr, EGPRSCtr: t.egprsCtr}
	if m != nil {
		v.TLLI, v.IMSI, v.TA, v.MSClass, v.EGPRSClass = m.TLLI, m.IMSI, m.TA, m.MSClass, m.EGPRSClass
	}
	if t.dir == DirUL {
		v.USF = t.ul.usf
		v.WS, v.VQ, v.VR = t.ul.rw.WS(), t.ul.rw.VQ(), t.ul.rw.VR()
	} else {
		v.EverAcked, v.SentBytes = t.dl.everAcked, t.dl.sentBytes
		v.WS, v.VA, v.VS, v.Resend, v.Stalled = t.dl.sw.WS(), t.dl.sw.VA(), t.dl.sw.VS(), t.dl.sw.ResendNeeded(), t.dl.sw.Stalled()
	}
	return v
}

func (e *Engine) msView(m *MS) MSView {
	v := MSView{ID: m.id, TLLI: m.TLLI, IMSI: m.IMSI, TA: m.TA, MSClass: m.MSClass, EGPRSClass: m.EGPRSClass,
		EGPRS: m.egprs(m.bts), CSUL: m.CSUL, CSDL: m.CSDL, MCSUL: m.MCSUL, MCSDL: m.MCSDL, PACCH: pacchSlot(m),
		QueueFrames: m.Queue.Len(), QueueOctets: m.Queue.Octets(), QueueHeadSojourn: m.Queue.HeadSojourn(e.now), Ctr: m.Ctr, RSSI: m.RSSI, LinkQ: m.LinkQ,
		BTO: m.BTO, TAI: m.TAI}
	v.Meas = m.meas
	if m.UL != nil {
		ul := m.UL.view()
		v.UL = &ul
	}
	if m.DL != nil {
		dl := m.DL.view()
		v.DL = &dl
		if age := e.now - m.DL.created; age > 0 {
			v.DLThroughputKbps = int(float64(m.DL.dl.sentBytes) * 8 / age.Seconds() / 1000)
		}
	}
	return v
}

// pacchSlot is the PACCH of an MS as osmo-pcu 1.1.0 shows it: the lowest
// timeslot its TBFs have in common (TS 44.060 §8.1.1.2.2; a TBF assigned
// on PACCH counts once assigned), -1 for none.
func pacchSlot(m *MS) int {
	var mask uint8 = 0xff
	have := false
	for _, t := range []*TBF{m.UL, m.DL} {
		if t != nil && (t.ccch || t.state != TBFAssign) {
			mask &= t.slots
			have = true
		}
	}
	if !have || mask == 0 {
		return -1
	}
	return lowestSlot(mask)
}

// lowestSlot is the first timeslot of a mask (0 for none).
func lowestSlot(slots uint8) int {
	if slots == 0 {
		return 0
	}
	return bits.TrailingZeros8(slots)
}

// TBFDebug describes each TBF of BTS nr with its internal state (traces).
// Engine goroutine only.
func (e *Engine) TBFDebug(nr uint8) []string {
	var out []string
	if b := e.bts[nr]; b != nil {
		for _, t := range b.tbfs {
			out = append(out, t.String()+" "+t.Debug())
		}
	}
	return out
}
