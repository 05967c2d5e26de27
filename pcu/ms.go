package pcu

import (
	"cmp"
	"fmt"
	"slices"
	"time"

	"github.com/gopcu/gopcu/internal/ratectr"
	"github.com/gopcu/gopcu/llc"
	"github.com/gopcu/gopcu/pcu/alloc"
	"github.com/gopcu/gopcu/rlcmac"
)

// TLLIUnset marks an MS whose TLLI is not known yet (one-phase access
// before contention resolution).
const TLLIUnset = 0xffffffff

// MS is one mobile station as the PCU knows it (osmo-pcu GprsMs).
type MS struct {
	bts        *BTS
	id         int
	TLLI       uint32
	IMSI       string
	TA         uint8
	MSClass    int // GPRS multislot class, 0 = unknown
	EGPRSClass int
	Queue      *llc.Queue
	UL, DL     *TBF
	CSDL, CSUL rlcmac.CodingScheme
	MCSDL      rlcmac.CodingScheme // DL MCS when the MS does EGPRS
	MCSUL      rlcmac.CodingScheme // UL MCS of its last EGPRS UL TBF
	Ctr        *ratectr.Group      // osmo-pcu's per-MS "pcu:ms" group
	// TAI is the Timing Advance Index on PDCH taiTRX/taiTS (-1: none).
	TAI           int8
	taiTRX, taiTS uint8
	taChanged     time.Duration // when the TA loop last moved TA
	taSet         bool
	created       time.Duration
	idleSince     time.Duration // when the last TBF went away; -1 while active
	lastEnq       time.Duration // last DL-UNITDATA (idle-ack timer)
	// idleAck: the idle-ack timer runs (`queue idle-ack-delay` after
	// lastEnq): the first DL data block after it asks for a DL Ack/Nack
	// (osmo-pcu gprs_ms.c ms_llc_timer_cb, tbf_dl request_dl_ack)
	idleAck bool
	// suspended: the MS left for a CS call (PCUIF SUSP_REQ); its queued
	// frames wait for new DL data or its next access (no DL TBF before)
	suspended bool
	// dlFailed: its last DL TBF ended without an answer (T3191, N3105);
	// its queued frames wait for new DL data or its next access, and go
	// with it after X2030 (osmo-pcu starts a DL TBF only for new data or
	// an MS that shows up: gprs_ms.c ms_append_llc_dl_data, tbf_ul_fsm.c)
	dlFailed bool
	slots    alloc.Reservation // timeslot reservation (pcu/alloc)

	// L1 measurements of the last uplink block.
	RSSI  int8
	LinkQ int16    // C/I in cB
	BTO   int16    // burst timing offset, quarter bits
	meas  MeasView // what `show ms` reports of both links (msmeas.go)
	watch msWatch  // idle bookkeeping (msidle.go)
}

func (m *MS) String() string { return msString(m.id, m.TLLI) }

func msString(id int, tlli uint32) string {
	if tlli == TLLIUnset {
		return fmt.Sprintf("MS(#%d TLLI=unknown)", id)
	}
	return fmt.Sprintf("MS(TLLI=0x%08x)", tlli)
}

// Active reports whether the MS has a TBF.
func (m *MS) Active() bool { return m.UL != nil || m.DL != nil }

// msStore indexes the MSs of a BTS by TLLI and IMSI.
type msStore struct {
	all    []*MS
	byTLLI map[uint32]*MS
	byIMSI map[string]*MS
	nextID int
}

func newMSStore() *msStore {
	return &msStore{byTLLI: map[uint32]*MS{}, byIMSI: map[string]*MS{}}
}

func (s *msStore) add(m *MS) {
	s.nextID++
	m.id = s.nextID
	s.all = append(s.all, m)
	if m.TLLI != TLLIUnset {
		s.byTLLI[m.TLLI] = m
	}
	if m.IMSI != "" {
		s.byIMSI[m.IMSI] = m
	}
}

func (s *msStore) remove(m *MS) {
	for i, x := range s.all {
		if x == m {
			s.all = append(s.all[:i], s.all[i+1:]...)
			break
		}
	}
	if s.byTLLI[m.TLLI] == m {
		delete(s.byTLLI, m.TLLI)
	}
	if m.IMSI != "" && s.byIMSI[m.IMSI] == m {
		delete(s.byIMSI, m.IMSI)
	}
}

func (s *msStore) setTLLI(m *MS, tlli uint32) {
	if s.byTLLI[m.TLLI] == m {
		delete(s.byTLLI, m.TLLI)
	}
	m.TLLI = tlli
	if tlli != TLLIUnset {
		s.byTLLI[tlli] = m
	}
}

func (s *msStore) setIMSI(m *MS, imsi string) {
	if imsi == "" || m.IMSI == imsi {
		return
	}
	if m.IMSI != "" && s.byIMSI[m.IMSI] == m {
		delete(s.byIMSI, m.IMSI)
	}
	m.IMSI = imsi
	s.byIMSI[imsi] = m
}

// DefaultMSMax is the default `ms-max`: the MS objects a BTS keeps at
// most (osmo-pcu has no limit). A cell serves a few hundred MSs with a PS
// context; this leaves room for that many times over while bounding what
// DL-UNITDATA for made-up TLLIs can create (docs/reliability.md).
const DefaultMSMax = 10000

// newMS creates and registers an MS. At `ms-max`, the oldest idle MSs
// make room first (reclaimMS).
func (e *Engine) newMS(bts *BTS, tlli uint32) *MS {
	if mx := e.params.MSMax; mx > 0 && len(bts.ms.all) >= mx {
		e.reclaimMS(bts, len(bts.ms.all)-mx+1)
	}
	m := &MS{bts: bts, TLLI: tlli, created: e.now, idleSince: e.now, lastEnq: -1, TAI: -1}
	m.Queue = e.llcShared.NewQueue(m)
	m.CSDL, m.CSUL = e.initialCS(bts)
	m.MCSDL = e.initialMCS(bts)
	e.msIdx++
	m.Ctr = ratectr.NewGroup("pcu:ms", "MS Statistics", e.msIdx-1, MSCounterDescs)
	e.cfg.Counters.Register(m.Ctr)
	bts.ms.add(m)
	bts.msPresent.Set(int64(len(bts.ms.all)))
	e.watchMS(m)
	e.log.Debug("MS created", "ms", m)
	return m
}

// freeMS drops an MS, counting what is left in its queue as dropped.
func (e *Engine) freeMS(m *MS) {
	frames, _ := m.Queue.Close()
	if frames > 0 {
		m.bts.Ctr.Add(CtrLLCFrameDropped, uint64(frames))
	}
	e.releaseTAI(m)
	e.releaseSlots(m)
	e.dropMSCounters(m)
	m.bts.ms.remove(m)
	m.watch.gone = true
	m.bts.msPresent.Set(int64(len(m.bts.ms.all)))
	if o := e.cfg.Observer; o != nil && m.TLLI != TLLIUnset {
		o.MSGone(m.TLLI)
	}
	e.log.Debug("MS freed", "ms", m)
}

// Radio-time periods of msTimers.
const (
	lifetimeSweepPeriod = 100 * time.Millisecond // PDU lifetime sweep over all queues
)

// msTimers runs the MS part of the radio timers (called on every advance
// of radio time): the PDU lifetime sweep of the LLC queues (expired frames
// go even when no TBF takes frames, reported in LLC-DISCARDED), a DL TBF
// for idle MSs with queued data, and the release of idle MSs with empty
// queues after X2030 (at once for an MS whose TLLI is unknown, as
// osmo-pcu's ms_release_timer).
func (e *Engine) msTimers(bts *BTS) {
	if e.now >= e.nextSweep {
		e.nextSweep = e.now + lifetimeSweepPeriod
		e.llcShared.ExpireAll(e.now, func(q *llc.Queue, d llc.Discard) {
			if m, ok := q.Owner.(*MS); ok {
				e.reportDiscard(m, d)
			}
		})
	}
	e.runIdleMS(bts) // msidle.go
}

// lastActive is when the MS was last busy: its last TBF ended, its last
// DL-UNITDATA arrived, or it was created.
func (m *MS) lastActive() time.Duration {
	return max(m.idleSince, m.lastEnq, m.created)
}

// reclaimMS frees at least n MSs of bts to make room under `ms-max`:
// the idle ones (no TBF) with empty queues first, then idle ones with
// queued frames (dropped, counted and reported in LLC-DISCARDED), each
// group oldest activity first. MSs with a TBF are never reclaimed (the
// TFIs bound them). It takes a 1/64 of the limit at once, so that a flood
// of new TLLIs costs one scan per batch, not per MS.
func (e *Engine) reclaimMS(bts *BTS, n int) {
	n = max(n, e.params.MSMax/64)
	cand := e.msScratch[:0]
	for _, m := range bts.ms.all {
		if !m.Active() {
			cand = append(cand, m)
		}
	}
	slices.SortFunc(cand, func(a, b *MS) int {
		if qa, qb := a.Queue.Len() > 0, b.Queue.Len() > 0; qa != qb {
			if qa {
				return 1
			}
			return -1
		}
		return cmp.Compare(a.lastActive(), b.lastActive())
	})
	for _, m := range cand[:min(n, len(cand))] {
		if f, o := m.Queue.Clear(); f > 0 {
			e.reportDiscard(m, llc.Discard{Frames: f, Octets: o})
		}
		e.l1ctr.Inc(L1MSReclaimed)
		e.freeMS(m)
	}
	e.opMSMax(bts, min(n, len(cand))) // oplog.go
	clear(cand)
	e.msScratch = cand[:0]
}

// mergeMS moves everything of old into m (same subscriber seen twice:
// e.g. a RACH-created MS whose TLLI turns out to be known).
func (e *Engine) mergeMS(m, old *MS) {
	if m == old {
		return
	}
	m.Queue.Merge(old.Queue)
	e.moveTAI(old, m)
	e.mergeSlots(m, old)
	e.dropMSCounters(old)
	if m.IMSI == "" && old.IMSI != "" {
		imsi := old.IMSI
		old.bts.ms.remove(old)
		m.bts.ms.setIMSI(m, imsi)
	} else {
		old.bts.ms.remove(old)
	}
	if m.MSClass == 0 {
		m.MSClass = old.MSClass
	}
	if m.EGPRSClass == 0 {
		m.EGPRSClass = old.EGPRSClass
	}
	if old.DL != nil && m.DL == nil {
		m.DL = old.DL
		m.DL.ms = m
	} else if old.DL != nil {
		e.fireRelease(old.DL, relMerged)
	}
	if old.UL != nil && m.UL == nil {
		m.UL = old.UL
		m.UL.ms = m
	} else if old.UL != nil {
		e.fireRelease(old.UL, relMerged)
	}
	old.Queue.Close()
	old.watch.gone = true
	e.watchMS(m)
	m.bts.msPresent.Set(int64(len(m.bts.ms.all)))
}

func (e *Engine) initialCS(bts *BTS) (dl, ul rlcmac.CodingScheme) {
	p := &e.params
	clamp := func(force, initial, max int) rlcmac.CodingScheme {
		cs := initial
		if force > 0 {
			cs = force
		}
		if cs < 1 {
			cs = 1
		}
		if max > 0 && cs > max {
			cs = max
		}
		for cs > 1 && bts.CSMask&(1<<(cs-1)) == 0 {
			cs--
		}
		return rlcmac.CS1 + rlcmac.CodingScheme(cs-1)
	}
	return clamp(p.ForceCSDL, int(bts.Info.InitialCS), p.CSMaxDL), clamp(p.ForceCSUL, int(bts.Info.InitialCS), p.CSMaxUL)
}

// msByTLLI finds an MS of a BTS by TLLI.
func (e *Engine) msByTLLI(btsNr uint8, tlli uint32) *MS {
	b := e.bts[btsNr]
	if b == nil {
		return nil
	}
	return b.ms.byTLLI[tlli]
}

// egprs reports whether DL TBFs of the MS use EGPRS: the MS announced an
// EGPRS multislot class and the BTS allows MCSs.
func (m *MS) egprs(bts *BTS) bool { return m.EGPRSClass > 0 && bts.MCSMask != 0 }

// initialMCS is the DL MCS of a new EGPRS TBF: `mcs` if forced, else the
// INFO_IND's initial MCS, within `mcs max` and the BTS's MCS mask.
func (e *Engine) initialMCS(bts *BTS) rlcmac.CodingScheme {
	mcs := int(bts.Info.InitialMCS)
	if e.params.ForceMCSDL > 0 {
		mcs = e.params.ForceMCSDL
	}
	return clampMCS(bts, mcs, e.params.MCSMaxDL)
}

// clampMCS is MCS-mcs within 1..mx (`mcs max`; 0 = 9) and the MCSs the BTS
// allows (the next lower allowed one).
func clampMCS(bts *BTS, mcs, mx int) rlcmac.CodingScheme {
	if mx <= 0 || mx > 9 {
		mx = 9
	}
	mcs = min(max(mcs, 1), mx)
	for mcs > 1 && bts.MCSMask&(1<<(mcs-1)) == 0 {
		mcs--
	}
	return rlcmac.MCS1 + rlcmac.CodingScheme(mcs-1)
}
