package pcu

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"testing"
	"time"

	"github.com/gopcu/gopcu/pcu/pcuif"
	"github.com/gopcu/gopcu/rlcmac"
)

// Sequences of the Osmocom TTCN-3 suite (osmo-ttcn3-hacks pcu/PCU_Tests.ttcn)
// replayed through the engine's PCUIF entry point on virtual time (issue 28).

// suiteBTS plays the suite's BTS (PCUIF_Components.ttcn
// as_BTS_CT_TDMASched): at the start of each radio block an RTS_REQ when
// the test case asks for one and a TIME_IND; at its end an empty DATA.ind
// (or the queued UL block) on every active PDCH.
type suiteBTS struct {
	t   *testing.T
	e   *Engine
	bts *BTS
	clk *fakeClock
	fn  uint32 // start of the current block
	out *[]pcuif.Data
	ulq []suiteUL // queued UL blocks, in order
	imm int       // Immediate Assignments (PCH/AGCH) of earlier blocks
}

// immAss is the number of DATA_REQs the engine sent on PCH or AGCH so far.
func (s *suiteBTS) immAss() int {
	n := s.imm
	for _, d := range *s.out {
		switch d.SAPI {
		case pcuif.SAPIPCH, pcuif.SAPIAGCH, pcuif.SAPIPCH2, pcuif.SAPIAGCH2:
			n++
		}
	}
	return n
}

// suiteUL is an UL block the suite's MS queued: it goes with the first
// DATA.ind on its TS at fn (0: the next one), in queue order.
type suiteUL struct {
	ts uint8
	fn uint32
	b  []byte
}

func newSuiteBTS(t *testing.T, mod func(*pcuif.InfoInd)) *suiteBTS {
	clk := &fakeClock{}
	e, bts := fsmEngine(t, clk, mod)
	return &suiteBTS{t: t, e: e, bts: bts, clk: clk, out: sentData(e)}
}

// pdchTS7 makes TS 7 of TRX 0 the only PDCH.
func pdchTS7(ii *pcuif.InfoInd) { ii.TRX[0].PDCHMask = 0x80 }

func (s *suiteBTS) feed(m pcuif.Message) {
	s.t.Helper()
	b, err := pcuif.Marshal(m, pcuif.V12)
	if err != nil {
		s.t.Fatal(err)
	}
	s.e.handleMessage(b)
}

// block runs the next radio block: an RTS_REQ on each TS in rts, then
// the DATA.inds at its end. It returns the DL blocks sent (by TS).
func (s *suiteBTS) block(rts ...uint8) map[uint8][]byte {
	s.t.Helper()
	got := s.rts(rts...)
	s.end()
	return got
}

// rts starts the next radio block: an RTS_REQ on each TS in rts and a
// TIME_IND. It returns the DL blocks sent (by TS).
func (s *suiteBTS) rts(rts ...uint8) map[uint8][]byte {
	s.t.Helper()
	s.fn = nextBlockFN(s.fn)
	s.clk.t = time.Duration(s.fn) * FramePeriod // the suite's clock runs in real time
	s.imm = s.immAss()
	*s.out = (*s.out)[:0]
	for _, ts := range rts {
		s.feed(&pcuif.RTSReq{SAPI: pcuif.SAPIPDTCH, FN: s.fn, ARFCN: 871, TS: ts, BlockNr: uint8(blockNr(s.fn))})
	}
	got := map[uint8][]byte{}
	for _, d := range *s.out {
		if d.SAPI == pcuif.SAPIPDTCH && d.FN == s.fn {
			got[d.TS] = d.Payload
		}
	}
	s.feed(&pcuif.TimeInd{FN: s.fn})
	return got
}

// end ends the block: a DATA.ind on every active PDCH, with the first
// queued UL block when it is for that TS and this FN (or any FN), else
// empty.
func (s *suiteBTS) end() {
	s.t.Helper()
	for ts := uint8(0); ts < 8; ts++ {
		if !s.bts.TRX[0].PDCH[ts].Enabled {
			continue
		}
		var pl []byte
		if len(s.ulq) > 0 && s.ulq[0].ts == ts && (s.ulq[0].fn == 0 || s.ulq[0].fn == s.fn) {
			pl = s.ulq[0].b
			s.ulq = s.ulq[1:]
		}
		s.feed(&pcuif.Data{Kind: pcuif.TypeDataInd, SAPI: pcuif.SAPIPDTCH, FN: s.fn, ARFCN: 871, TS: ts,
			BlockNr: uint8(blockNr(s.fn)), RSSI: -80, LqualCb: 10, Payload: pl})
	}
}

// queueUL queues an UL block for TS ts at fn (0: the next DATA.ind).
func (s *suiteBTS) queueUL(ts uint8, fn uint32, b []byte) {
	s.ulq = append(s.ulq, suiteUL{ts, fn, b})
}

// ulData is a CS-1 RLC data block of UL TBF tfi with the TLLI (one-phase
// access contention resolution) and CV 15.
func ulData(t *testing.T, tfi uint8, bsn *uint8, tlli uint32) []byte {
	t.Helper()
	unit := make([]byte, rlcmac.CS1.DataLen())
	binary.BigEndian.PutUint32(unit, tlli)
	blk := make([]byte, rlcmac.MaxBlockLen)
	n, err := rlcmac.EncodeGPRSUL(blk, rlcmac.CS1, &rlcmac.GPRSULHeader{CV: 15, TFI: tfi, TI: true, E: true, BSN: *bsn}, unit)
	if err != nil {
		t.Fatal(err)
	}
	*bsn = (*bsn + 1) & 127
	return blk[:n]
}

// answerPoll queues the MS's Packet Downlink Ack/Nack of DL TBF tfi, with
// rw's state (final: the final Ack/Nack), for the block RRBP rrbp after
// the current one on TS 7.
func (s *suiteBTS) answerPoll(tfi, rrbp uint8, rw *rlcmac.ReceiveWindow, final bool) {
	s.t.Helper()
	a := rlcmac.PacketDownlinkAckNack{DownlinkTFI: tfi, AckNack: rw.GPRSAckNack(final)}
	ack := make([]byte, rlcmac.MaxBlockLen)
	n, err := rlcmac.EncodeUL(ack, &rlcmac.ULCtrlHeader{}, &a)
	if err != nil {
		s.t.Fatal(err)
	}
	s.queueUL(7, rrbpFN(s.fn, rrbp), ack[:n])
}

// ctrlAck is a Packet Control Ack of tlli.
func ctrlAck(t *testing.T, tlli uint32) []byte {
	t.Helper()
	blk := make([]byte, rlcmac.MaxBlockLen)
	n, err := rlcmac.EncodeUL(blk, &rlcmac.ULCtrlHeader{}, &rlcmac.PacketControlAck{TLLI: tlli, CtrlAck: 3})
	if err != nil {
		t.Fatal(err)
	}
	return blk[:n]
}

// dlCtrl decodes a DL control block (nil for data or no block).
func dlCtrl(t *testing.T, blk []byte) (rlcmac.DLCtrlHeader, rlcmac.Message) {
	t.Helper()
	if len(blk) == 0 || blk[0]>>6 == rlcmac.PTData || rlcmac.CSFromDLLen(len(blk)).IsEGPRS() {
		return rlcmac.DLCtrlHeader{}, nil
	}
	h, m, err := rlcmac.DecodeDL(blk)
	if err != nil {
		t.Fatalf("undecodable control block % x: %v", blk, err)
	}
	return h, m
}

// oneUL makes a one-phase access (RACH) and returns the UL TBF the IMM ASS
// assigned.
func (s *suiteBTS) oneUL() *TBF {
	s.t.Helper()
	before := map[*TBF]bool{}
	for _, x := range s.bts.tbfs {
		before[x] = true
	}
	s.feed(&pcuif.RACHInd{SAPI: pcuif.SAPIRACH, RA: 0x78, FN: s.fn, ARFCN: 871, BurstType: 1})
	for _, x := range s.bts.tbfs {
		if x.dir == DirUL && !before[x] {
			return x
		}
	}
	s.t.Fatal("no UL TBF for the RACH")
	return nil
}

// waitUSF runs radio blocks on the lowest timeslot of UL TBF ul until one
// grants its USF, and returns that timeslot and USF.
func (s *suiteBTS) waitUSF(ul *TBF) (ts, usf uint8) {
	s.t.Helper()
	ts = uint8(lowestSlot(ul.slots))
	usf = ul.ul.usf[ts]
	for i := 0; ; i++ {
		if i > 100 {
			s.t.Fatal("no USF for the UL TBF")
		}
		got := usfOf(s.rts(ts)[ts])
		s.end()
		if got == usf {
			return ts, usf
		}
	}
}

// usfOf is the USF of a DL block (7 for none or no block).
func usfOf(blk []byte) uint8 {
	if len(blk) == 0 {
		return usfUnused
	}
	return blk[0] & 7
}

// TestN3101GrantCount: TC_n3101_max_t3169. An MS that was assigned an UL
// TBF on CCCH never sends. With N3101 = N it is given at most N+1 USFs
// (the last one is already out when the N-th unanswered one is counted:
// osmo-pcu counts at the DATA.ind of the granted block,
// pdch_ulc_expire_fn, and compares at n == max, tbf.cpp n_inc), then
// none for T3169, and the TBF is gone after it.
func TestN3101GrantCount(t *testing.T) {
	for _, n := range []uint8{1, 2, 9, 10, 20} {
		s := newSuiteBTS(t, func(ii *pcuif.InfoInd) {
			ii.TRX[0].PDCHMask = 0x80
			ii.T3142, ii.T3169, ii.T3191, ii.T3193x10ms, ii.T3195, ii.N3101, ii.N3103, ii.N3105 = 20, 1, 5, 160, 5, n, 4, 8
		})
		s.block()
		ul := s.oneUL()
		usf := ul.ul.usf[7]
		grants := 0
		for i := 0; i < 200; i++ {
			if usfOf(s.block(7)[7]) == usf {
				grants++
			}
		}
		if grants != int(n)+1 {
			t.Errorf("N3101 = %d: %d USFs granted, want %d", n, grants, n+1)
		}
		if !ul.released() {
			t.Errorf("N3101 = %d: TBF %s not freed", n, ul.state)
		}
	}
}

// TestX2001PDARepeats: TC_x2001_pacch_pkt_dl_ass_unanswered_timeout. An
// MS in an UL TBF (one-phase access, 1 PDCH of 8) never answers the
// Packet Downlink Assignment sent on its PACCH when DL data arrives; it
// keeps sending (CV 15) when given its USF and acknowledges every Packet
// Uplink Ack/Nack. The assignment is repeated as soon as the poll of the
// previous one has passed, until X2001 (2 s) ends it: osmo-pcu sends more
// than 10 in X2001 + 0.5 s (the suite wants at least 10), none after.
func TestX2001PDARepeats(t *testing.T) {
	s := newSuiteBTS(t, nil)
	const tlli = 0xc0e00001
	s.block()
	ul := s.oneUL()
	ts, usf := s.waitUSF(ul) // the first USF after X2002
	var bsn uint8
	s.queueUL(ts, 0, ulData(t, ul.tfi, &bsn, tlli))
	for i := 0; ; i++ { // its Packet Uplink Ack/Nack (contention resolution)
		if i > 100 {
			t.Fatal("no Packet Uplink Ack/Nack")
		}
		blk := s.rts(ts)[ts]
		s.end()
		if _, m := dlCtrl(t, blk); m != nil && m.Name() == "Packet Uplink Ack/Nack" {
			break
		}
	}
	s.e.HandleDLUnitdata(0, &DLUnitdata{TLLI: tlli, Lifetime: 10000, LLC: []byte{0x41, 0xc0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10}})
	pdas, first := 0, time.Duration(0)
	var after int
	for i := 0; i < 400; i++ {
		blk := s.rts(ts)[ts]
		h, m := dlCtrl(t, blk)
		now := time.Duration(s.fn) * FramePeriod
		switch {
		case m != nil && m.Name() == "Packet Downlink Assignment":
			if pdas == 0 {
				first = now
			}
			if first != 0 && now-first > s.e.params.X2001+500*time.Millisecond {
				after++
			} else {
				pdas++
			}
		case m != nil && m.Name() == "Packet Uplink Ack/Nack" && h.SP:
			s.queueUL(ts, rrbpFN(s.fn, h.RRBP), ctrlAck(t, tlli))
		}
		if usfOf(blk) == usf {
			s.queueUL(ts, 0, ulData(t, ul.tfi, &bsn, tlli))
		}
		s.end()
	}
	if pdas < 10 || after > 0 {
		t.Fatalf("%d Packet Downlink Assignments in X2001 + 0.5 s, %d after: want at least 10, none after", pdas, after)
	}
	t.Logf("%d Packet Downlink Assignments in X2001 + 0.5 s", pdas)
}

// TestX2001PDARepeatSpacing: a Packet Downlink Assignment on the PACCH of
// an UL TBF, never answered, on an otherwise idle PDCH (the MS does not
// use its USFs; N3101 large). Each repeat goes in the block right after
// the previous one's poll block (osmo-pcu tbf_dl_ass_fsm.c: the poll
// timeout at that block's DATA.ind puts it back to SEND_ASS), RRBP 0 (N+13):
// one every 4 blocks, 25 in X2001 = 2 s (100 blocks of 20 ms); none after.
func TestX2001PDARepeatSpacing(t *testing.T) {
	s := newSuiteBTS(t, func(ii *pcuif.InfoInd) {
		ii.TRX[0].PDCHMask = 0x80
		ii.T3142, ii.T3169, ii.T3191, ii.T3193x10ms, ii.T3195, ii.N3101, ii.N3103, ii.N3105 = 20, 5, 5, 160, 5, 250, 4, 8
	})
	const tlli = 0xc0e00002
	s.block()
	ul := tbfIn(t, s.e, s.bts, DirUL, TBFFlow, tlli) // contention resolved
	ul.ms.UL = ul
	ul.ul.tlliKnown = true
	s.e.fire(ul, evContention) // the TLLI went back in an Ack/Nack (ul.go encodePUAN)
	s.e.HandleDLUnitdata(0, &DLUnitdata{TLLI: tlli, Lifetime: 10000, LLC: []byte{0x41, 0xc0, 1, 2, 3}})
	dl := ul.ms.DL
	if dl == nil || dl.assignOn != ul {
		t.Fatal("no DL TBF assigned on the UL TBF's PACCH")
	}
	start := s.e.now
	var fns []uint32
	var next uint32 // block of the next repeat
	for i := 0; i < 200; i++ {
		h, m := dlCtrl(t, s.rts(7)[7])
		if m != nil && m.Name() == "Packet Downlink Assignment" {
			if len(fns) > 0 && s.fn != next {
				t.Fatalf("repeat %d at FN %d, want FN %d (the block after the poll of the previous one)", len(fns), s.fn, next)
			}
			if !h.SP || h.RRBP != 0 {
				t.Fatalf("assignment without poll or RRBP %d", h.RRBP)
			}
			fns = append(fns, s.fn)
			next = nextBlockFN(rrbpFN(s.fn, h.RRBP))
		}
		s.end()
	}
	if len(fns) != 25 {
		t.Fatalf("%d Packet Downlink Assignments at FN %v, want 25 in X2001 = 2 s", len(fns), fns)
	}
	if last := time.Duration(fns[len(fns)-1]) * FramePeriod; last-start >= s.e.params.X2001 || !dl.released() {
		t.Fatalf("last assignment %v after the DL TBF was created, DL TBF freed %v: want before X2001 ends it", last-start, dl.released())
	}
}

// suiteMS is one of the suite's MSs (GPRS_Components.ttcn GprsMS): it
// learns its TBFs from the engine (the suite reads them from the
// assignments), keeps a DL receive window and counts its UL BSNs.
type suiteMS struct {
	tlli  uint32
	egprs bool
	ul    *TBF
	bsn   int
	dl    rlcmac.ReceiveWindow
}

// prr is the MS's Packet Resource Request (GPRS multislot class 3, EGPRS
// class 3 for an EGPRS MS: ms_racap_gprs_def / ms_racap_egprs_def).
func (m *suiteMS) prr(t *testing.T) []byte {
	t.Helper()
	r := &rlcmac.PacketResourceRequest{ID: rlcmac.ULID{IsTLLI: true, TLLI: m.tlli}, HasRAC: true,
		ChanReq: rlcmac.ChannelRequestDescription{RLCOctetCount: 1000}}
	r.RAC.N = 1
	v := &r.RAC.Values[0]
	v.AccessTech, v.RFPowerCap, v.HasMultislot = 1, 1, true // E-GSM
	v.Multislot.HasGPRS, v.Multislot.GPRSClass = true, 3
	if m.egprs {
		v.Multislot.HasEGPRS, v.Multislot.EGPRSClass = true, 3
	}
	blk := make([]byte, rlcmac.MaxBlockLen)
	n, err := rlcmac.EncodeUL(blk, &rlcmac.ULCtrlHeader{}, r)
	if err != nil {
		t.Fatal(err)
	}
	return blk[:n]
}

// twoPhase: the MS's two-phase access (PCU_Tests.ttcn
// f_ms_establish_ul_tbf_2phase_access): a single block RACH, the Packet
// Resource Request in the block allocated, the Packet Uplink Assignment on
// PACCH, its Packet Control Ack.
func (s *suiteBTS) twoPhase(m *suiteMS) {
	s.t.Helper()
	s.feed(&pcuif.RACHInd{SAPI: pcuif.SAPIRACH, RA: 0x70, FN: s.fn, ARFCN: 871, BurstType: 1})
	p, r := sbaOf(s.t, s.bts)
	s.queueUL(p.TS, r.fn, m.prr(s.t))
	for s.fn != r.fn {
		s.block()
	}
	for i := 0; ; i++ {
		if i > 20 {
			s.t.Fatal("no Packet Uplink Assignment")
		}
		h, msg := dlCtrl(s.t, s.rts(p.TS)[p.TS])
		s.end()
		if msg != nil && msg.Name() == "Packet Uplink Assignment" {
			s.queueUL(p.TS, rrbpFN(s.fn, h.RRBP), ctrlAck(s.t, m.tlli))
			break
		}
	}
	ms := s.bts.ms.byTLLI[m.tlli]
	if ms == nil || ms.UL == nil || ms.UL.egprs != m.egprs {
		s.t.Fatalf("MS %08x: no UL TBF (EGPRS %v)", m.tlli, m.egprs)
	}
	m.ul = ms.UL
}

// ulData is an UL data block of the MS's UL TBF (CV 15, no TLLI).
func (m *suiteMS) ulData(t *testing.T) []byte {
	t.Helper()
	cs := m.ul.cs
	blk := make([]byte, rlcmac.MaxBlockLen)
	var n int
	var err error
	if m.egprs {
		unit := make([]byte, cs.DataLen())
		h := rlcmac.EGPRSULHeader{CV: 15, TFI: m.ul.tfi, BSN1: uint16(m.bsn % rlcmac.EGPRSSNS), E: [2]bool{true, true}}
		h.CPS, _ = rlcmac.EncodeCPS(cs, 0, 0, false)
		var u2 []byte
		if cs.DataUnits() == 2 {
			u2 = unit
			h.BSN2 = uint16((m.bsn + 1) % rlcmac.EGPRSSNS)
			m.bsn++
		}
		n, err = rlcmac.EncodeEGPRSUL(blk, cs, &h, unit, u2)
	} else {
		unit := make([]byte, cs.DataLen())
		n, err = rlcmac.EncodeGPRSUL(blk, cs, &rlcmac.GPRSULHeader{CV: 15, TFI: m.ul.tfi, E: true, BSN: uint8(m.bsn % 128)}, unit)
	}
	if err != nil {
		t.Fatal(err)
	}
	m.bsn++
	return blk[:n]
}

// dlBlock takes a DL data block for the MS into its receive window; when
// it polls, the Ack/Nack (never final, as the suite's) is queued for the
// poll's FN and it reports true.
func (s *suiteBTS) dlBlock(m *suiteMS, blk []byte) bool {
	s.t.Helper()
	var poll bool
	var rrbp uint8
	ack := make([]byte, rlcmac.MaxBlockLen)
	var n int
	var err error
	if m.egprs {
		var b rlcmac.EGPRSDLBlock
		if err := b.Parse(blk); err != nil {
			s.t.Fatal(err)
		}
		for i := 0; i < b.NUnits && b.Header.SPB == 0; i++ {
			bsn := int(b.Header.BSN1)
			if i == 1 {
				bsn = int(b.Header.BSN2)
			}
			m.dl.Receive(bsn)
		}
		m.dl.RaiseVQ()
		if poll, rrbp = b.Header.ESP != 0, b.Header.RRBP; poll {
			a := rlcmac.EGPRSPacketDownlinkAckNack{DownlinkTFI: b.Header.TFI, AckNack: m.dl.EGPRSAckNack(false, 120)}
			n, err = rlcmac.EncodeUL(ack, &rlcmac.ULCtrlHeader{}, &a)
		}
	} else {
		var b rlcmac.GPRSDLBlock
		if err := b.Parse(blk); err != nil {
			s.t.Fatal(err)
		}
		m.dl.Receive(int(b.Header.BSN))
		m.dl.RaiseVQ()
		if poll, rrbp = b.Header.SP, b.Header.RRBP; poll {
			a := rlcmac.PacketDownlinkAckNack{DownlinkTFI: b.Header.TFI, AckNack: m.dl.GPRSAckNack(false)}
			n, err = rlcmac.EncodeUL(ack, &rlcmac.ULCtrlHeader{}, &a)
		}
	}
	if err != nil {
		s.t.Fatal(err)
	}
	if poll {
		s.queueUL(7, rrbpFN(s.fn, rrbp), ack[:n])
	}
	return poll
}

// TestMultiplexGPRSEGPRS: TC_multiplex_dl_gprs_egprs. A GPRS and an EGPRS
// MS, each with an UL TBF (two-phase access) and a DL TBF, on one PDCH;
// they download (MCS-5 for the EGPRS MS) and send an UL block when given
// their USF. The GPRS-only MS reads a USF only in a GMSK block (TS 44.060
// §5.2.4a): an EGPRS block carrying its USF is MCS-1..4 (osmo-pcu
// ms_current_cs_dl(EGPRS_GMSK)), the others MCS-5; each MS gets USFs in
// both kinds of block, fairly. A Packet Uplink Ack/Nack goes to an MS only
// for blocks it sent (osmo-pcu acknowledges every 20 blocks, a stall, a
// TLLI or the last block: tbf_ul.cpp maybe_schedule_uplink_acknack), never
// to an MS that sent nothing, and reports only those blocks.
func TestMultiplexGPRSEGPRS(t *testing.T) {
	for _, send := range []bool{true, false} {
		t.Run(fmt.Sprintf("ul-data=%v", send), func(t *testing.T) { multiplexGPRSEGPRS(t, send) })
	}
}

func multiplexGPRSEGPRS(t *testing.T, send bool) {
	s := newSuiteBTS(t, func(ii *pcuif.InfoInd) {
		ii.TRX[0].PDCHMask = 0x80
		for i := 1; i <= 9; i++ {
			ii.Flags |= pcuif.FlagMCS(i)
		}
		ii.T3142, ii.T3169, ii.T3191, ii.T3193x10ms, ii.T3195, ii.N3101, ii.N3103, ii.N3105 = 20, 5, 5, 160, 5, 10, 4, 8
	})
	// f_pcuvty_set_allowed_cs_mcs: cs 1 1, mcs 5 1, mcs max 5 9
	s.e.params.ForceCSDL, s.e.params.ForceCSUL, s.e.params.ForceMCSDL, s.e.params.ForceMCSUL = 1, 1, 5, 1
	s.e.params.MCSMaxDL = 5
	ms := []*suiteMS{{tlli: 0xc0f00001}, {tlli: 0xc0f00002, egprs: true}}
	s.block()
	for _, m := range ms {
		s.twoPhase(m)
		m.dl.Reset(m.egprs, 64)
	}
	// the first DL data: each MS's DL TBF on its UL TBF's PACCH
	for _, m := range ms {
		s.e.HandleDLUnitdata(0, &DLUnitdata{TLLI: m.tlli, Lifetime: 65535, LLC: make([]byte, 10)})
		for i := 0; i < 5; i++ { // f_sleep(0.1): no RTS
			s.block()
		}
		for i := 0; ; i++ {
			if i > 20 {
				t.Fatal("no Packet Downlink Assignment")
			}
			h, msg := dlCtrl(t, s.rts(7)[7])
			s.end()
			if msg != nil && msg.Name() == "Packet Downlink Assignment" {
				s.queueUL(7, rrbpFN(s.fn, h.RRBP), ctrlAck(t, m.tlli))
				break
			}
		}
		for i := 0; ; i++ {
			if i > 20 {
				t.Fatal("no DL data")
			}
			blk := s.rts(7)[7]
			if len(blk) > 0 && (m.egprs && rlcmac.CSFromDLLen(len(blk)).IsEGPRS() || !m.egprs && blk[0]>>6 == rlcmac.PTData) {
				s.dlBlock(m, blk)
				s.end()
				break
			}
			s.end()
		}
	}
	for _, m := range ms {
		s.e.HandleDLUnitdata(0, &DLUnitdata{TLLI: m.tlli, Lifetime: 65535, LLC: make([]byte, 1400)})
	}
	remain := 0
	if send {
		remain = 5
	}
	var usfIn [2][2]int // [kind of DL block: GPRS, EGPRS][MS]
	data := 0
	for i := 0; i < 800; i++ {
		blk := s.rts(7)[7]
		h, msg := dlCtrl(t, blk)
		if msg != nil && msg.Name() == "Packet Downlink Dummy Control Block" {
			s.end()
			break
		}
		if msg != nil {
			a, ok := msg.(*rlcmac.PacketUplinkAckNack)
			if !ok {
				t.Fatalf("block %d: %s among the data", i, msg.Name())
			}
			var m *suiteMS
			for _, x := range ms {
				if x.ul.tfi == a.UplinkTFI {
					m = x
				}
			}
			rcvd := int(a.AckNack.SSN) // GPRS: V(R)
			if m.egprs {
				rcvd = int(a.EGPRSAckNack.SSN) - 1 // BOW: V(Q) + 1
			}
			if m.bsn == 0 || rcvd > m.bsn || m.bsn < 20 || a.AckNack.FinalAck || a.EGPRSAckNack.FinalAck {
				t.Fatalf("block %d: Packet Uplink Ack/Nack to MS %08x reporting %d blocks (final %v), it sent %d",
					i, m.tlli, rcvd, a.AckNack.FinalAck || a.EGPRSAckNack.FinalAck, m.bsn)
			}
			if h.SP {
				s.queueUL(7, rrbpFN(s.fn, h.RRBP), ctrlAck(t, m.tlli))
			}
			s.end()
			continue
		}
		var usfMS = -1
		for k, m := range ms {
			if usfOf(blk) == m.ul.ul.usf[7] {
				usfMS = k
			}
		}
		tgt, kind := ms[0], 0
		if cs := rlcmac.CSFromDLLen(len(blk)); cs.IsEGPRS() {
			tgt, kind = ms[1], 1
			if usfMS == 0 && cs > rlcmac.MCS4 {
				t.Fatalf("block %d: USF of the GPRS-only MS in an %v block", i, cs)
			}
			if usfMS != 0 && cs <= rlcmac.MCS4 {
				t.Fatalf("block %d: %v for the EGPRS MS (MCS-5)", i, cs)
			}
		}
		if usfMS >= 0 {
			usfIn[kind][usfMS]++
		}
		data++
		if s.dlBlock(tgt, blk) {
			if remain != 0 {
				for _, m := range ms {
					s.e.HandleDLUnitdata(0, &DLUnitdata{TLLI: m.tlli, Lifetime: 65535, LLC: make([]byte, 1400)})
				}
				remain--
			}
		} else if remain != 0 && usfMS >= 0 {
			s.queueUL(7, 0, ms[usfMS].ulData(t))
		}
		s.end()
	}
	if data < 50 {
		t.Fatalf("only %d DL data blocks", data)
	}
	if !send {
		return // the UL TBFs ended at N3101: USFs were few
	}
	if usfIn[0][1] == 0 || usfIn[1][0] == 0 {
		t.Fatalf("USFs in GPRS blocks %v, in EGPRS blocks %v: each MS must get USFs in the other kind", usfIn[0], usfIn[1])
	}
	g, eg := usfIn[0][0]+usfIn[1][0], usfIn[0][1]+usfIn[1][1]
	if g*10 < (g+eg)*4 || eg*10 < (g+eg)*4 {
		t.Fatalf("USFs GPRS MS %d, EGPRS MS %d: under 40 %% for one", g, eg)
	}
}

// dlOnPCH: DL-UNITDATA with an IMSI; the Immediate Assignment goes on PCH,
// the BTS confirms it and X2002 passes (no RTS meanwhile, as the suite's
// f_sleep(X2002)): the DL TBF is returned in FLOW.
func (s *suiteBTS) dlOnPCH(tlli uint32, imsi string, llcData []byte) *TBF {
	s.t.Helper()
	before := s.immAss()
	s.e.HandleDLUnitdata(0, &DLUnitdata{TLLI: tlli, IMSI: imsi, Lifetime: 65535, LLC: llcData})
	m := s.bts.ms.byTLLI[tlli]
	if s.immAss() != before+1 || m == nil || m.DL == nil || !m.DL.ccch {
		s.t.Fatalf("no Immediate Assignment on PCH for the new data (%d sent before, %d now)", before, s.immAss())
	}
	dl := m.DL
	s.e.dlImmAssConfirmed(s.bts, tlli)
	for i := 0; dl.state != TBFFlow; i++ {
		if i > 50 {
			s.t.Fatalf("DL TBF %s after X2002", dl.state)
		}
		s.block()
	}
	return dl
}

// dlData parses a GPRS DL data block of TBF t (ok false: no such block).
func dlData(t *testing.T, blk []byte, tfi uint8) (b rlcmac.GPRSDLBlock, ok bool) {
	t.Helper()
	if len(blk) == 0 || blk[0]>>6 != rlcmac.PTData {
		return b, false
	}
	if err := b.Parse(blk); err != nil {
		t.Fatal(err)
	}
	return b, b.Header.TFI == tfi
}

// firstDataIs receives the first data block of DL TBF dl and checks that
// it is BSN 0 and starts with the frame want.
func (s *suiteBTS) firstDataIs(dl *TBF, want []byte) {
	s.t.Helper()
	for i := 0; ; i++ {
		if i > 20 {
			s.t.Fatal("no DL data block")
		}
		blk := s.rts(7)[7]
		s.end()
		b, ok := dlData(s.t, blk, dl.tfi)
		if !ok {
			continue
		}
		c := b.Unit.Chunks[0]
		if b.Header.BSN != 0 || b.Unit.N == 0 || !bytes.Equal(b.Data[c.Off:c.Off+c.Len], want[:min(len(want), c.Len)]) {
			s.t.Fatalf("first block of the new TBF: BSN %d, % x: want BSN 0 with % x", b.Header.BSN, b.Data, want)
		}
		return
	}
}

func pattern(n int, seed byte) []byte {
	b := make([]byte, n)
	for i := range b {
		b[i] = seed + byte(i)
	}
	return b
}

// discardSuite is the cell of the suite's tests of discarded frames: TS 7
// the only PDCH, the suite's timers and counters (T3142 20 s, T3169 5 s,
// T3193 1.6 s, N3101 10, N3103 4) with T3191 and T3195 (s) and N3105 as
// given, and an SGSN that records LLC-DISCARDED.
func discardSuite(t *testing.T, t3191, t3195, n3105 uint8) (*suiteBTS, *discardGb) {
	s := newSuiteBTS(t, func(ii *pcuif.InfoInd) {
		pdchTS7(ii)
		ii.T3142, ii.T3169, ii.T3191, ii.T3193x10ms, ii.T3195, ii.N3101, ii.N3103, ii.N3105 = 20, 5, t3191, 160, t3195, 10, 4, n3105
	})
	gb := &discardGb{frames: map[uint32]int{}}
	s.e.SetGb(gb)
	return s, gb
}

// TestT3191DiscardsUnacked: TC_zero_x2031_t3191. A DL TBF (X2031 = 0, so
// the last block has FBI) whose final block the MS never acknowledges ends
// at T3191 (1 s). Its unacknowledged frame is discarded, as osmo-pcu frees
// it with the TBF once the MS has acknowledged something (tbf_dl.cpp keeps
// only the frames sent before the first DL Ack/Nack), reported in
// LLC-DISCARDED and counted: the next DL TBF starts with the frame the
// SGSN sends next, and no Immediate Assignment comes before it.
func TestT3191DiscardsUnacked(t *testing.T) {
	s, gb := discardSuite(t, 1, 5, 8)
	s.e.params.X2031 = 0
	const tlli, imsi = 0xc1100001, "001010000001101"
	data1, data2 := pattern(1400, 1), pattern(10, 0xd0)
	s.block()
	dl := s.dlOnPCH(tlli, imsi, data1)
	var rw rlcmac.ReceiveWindow
	rw.Reset(false, rlcmac.GPRSWS)
	for i := 0; ; i++ {
		if i > 400 {
			t.Fatal("no final block")
		}
		blk := s.rts(7)[7]
		b, ok := dlData(t, blk, dl.tfi)
		if ok && b.Header.FBI {
			s.end() // its poll is not answered
			break
		}
		if ok {
			rw.Receive(int(b.Header.BSN))
			rw.RaiseVQ()
			if b.Header.SP {
				s.answerPoll(dl.tfi, b.Header.RRBP, &rw, false)
			}
		}
		s.end()
	}
	if !dl.dl.everAcked {
		t.Fatal("the MS acknowledged nothing")
	}
	dropped := s.bts.Ctr.Value(CtrLLCFrameDropped)
	imm := s.immAss()
	for end := s.e.now + 1200*time.Millisecond; s.e.now < end; {
		s.block() // the suite sleeps T3191: no RTS
	}
	if !dl.released() {
		t.Fatalf("DL TBF %s after T3191", dl.state)
	}
	if gb.frames[tlli] != 1 || s.bts.Ctr.Value(CtrLLCFrameDropped) != dropped+1 {
		t.Fatalf("LLC-DISCARDED %d frames, llc:dropped +%d: want the unacknowledged frame reported and counted",
			gb.frames[tlli], s.bts.Ctr.Value(CtrLLCFrameDropped)-dropped)
	}
	if s.immAss() != imm {
		t.Fatal("an Immediate Assignment without new data")
	}
	s.firstDataIs(s.dlOnPCH(tlli, imsi, data2), data2)
}

// TestN3105DiscardsAndStaysSilent: TC_n3105_max_t3195. The MS acknowledges
// the first poll of its DL TBF and no other: at N3105 (2) the TBF stops,
// T3195 (1 s) frees it. Its frame is discarded and reported; data arriving
// meanwhile (X2030 = 0) goes with the MS, reported too; the PCU stays
// silent (no data, no Immediate Assignment) until the SGSN sends again,
// and that new frame is the next TBF's first (osmo-pcu: the TBF's frames
// go with it; a DL TBF starts only for new data, gprs_ms.c
// ms_append_llc_dl_data).
func TestN3105DiscardsAndStaysSilent(t *testing.T) {
	s, gb := discardSuite(t, 5, 1, 2)
	s.e.params.X2030 = 0
	const tlli, imsi = 0xc1100002, "001010000001102"
	data1, data2 := pattern(1000, 2), pattern(10, 0xe0)
	s.block()
	dl := s.dlOnPCH(tlli, imsi, data1)
	polls := 0
	for i := 0; dl.state != TBFReleasing; i++ {
		if i > 400 {
			t.Fatalf("DL TBF %s, %d polls", dl.state, polls)
		}
		blk := s.rts(7)[7]
		if b, ok := dlData(t, blk, dl.tfi); ok && b.Header.SP {
			if polls == 0 { // the first poll is answered: the MS is there
				var rw rlcmac.ReceiveWindow
				rw.Reset(false, rlcmac.GPRSWS)
				rw.Receive(int(b.Header.BSN))
				s.answerPoll(dl.tfi, b.Header.RRBP, &rw, false)
			}
			polls++
		}
		s.end()
	}
	if polls != 3 {
		t.Fatalf("%d polls before N3105, want 3 (1 answered)", polls)
	}
	s.e.HandleDLUnitdata(0, &DLUnitdata{TLLI: tlli, Lifetime: 65535, LLC: data1}) // "nothing should be sent to MS"
	imm := s.immAss()
	for end := s.e.now + 2*time.Second; s.e.now < end; {
		blk := s.rts(7)[7]
		if _, m := dlCtrl(t, blk); len(blk) > 0 && (m == nil || m.Name() != "Packet Downlink Dummy Control Block") {
			t.Fatalf("block % x after N3105", blk)
		}
		s.end()
	}
	if !dl.released() || s.immAss() != imm {
		t.Fatalf("after T3195: DL TBF freed %v, %d Immediate Assignments", dl.released(), s.immAss()-imm)
	}
	if gb.frames[tlli] != 2 {
		t.Fatalf("LLC-DISCARDED %d frames: want the TBF's and the one queued meanwhile", gb.frames[tlli])
	}
	s.firstDataIs(s.dlOnPCH(tlli, imsi, data2), data2)
}

// TestIdleAckDelay: TC_multiplex_dl_gprs_egprs's rhythm. The SGSN sends a
// frame and pauses: `queue idle-ack-delay` (100 ms) after that
// DL-UNITDATA the next DL data block polls for a DL Ack/Nack, though the
// periodic poll (every 20 blocks) is not due (osmo-pcu gprs_ms.c
// ms_llc_timer_cb). With `no queue idle-ack-delay` the poll waits for the
// 20th block.
func TestIdleAckDelay(t *testing.T) {
	for _, delay := range []uint16{10, 0} {
		t.Run(fmt.Sprintf("delay=%d", delay), func(t *testing.T) {
			s := newSuiteBTS(t, pdchTS7)
			s.e.params.LLC.IdleAckDelay = delay
			const tlli, imsi = 0xc1100002, "001010000001102"
			s.block()
			dl := s.dlOnPCH(tlli, imsi, pattern(1400, 1))
			var rw rlcmac.ReceiveWindow
			rw.Reset(false, rlcmac.GPRSWS)
			var polls []int // data block index of each poll
			enqAt, enqBlock := time.Duration(-1), -1
			firstAfter := -1 // the first data block at or after enqAt + 100 ms
			for i := 0; len(polls) < 3 && i < 200; {
				blk := s.rts(7)[7]
				b, ok := dlData(t, blk, dl.tfi)
				if !ok {
					s.end()
					continue
				}
				if enqAt >= 0 && firstAfter < 0 && s.e.now >= enqAt+100*time.Millisecond {
					firstAfter = i
				}
				rw.Receive(int(b.Header.BSN))
				rw.RaiseVQ()
				if b.Header.SP {
					polls = append(polls, i)
					s.answerPoll(dl.tfi, b.Header.RRBP, &rw, false)
				}
				s.end()
				// the poll after the first one is answered: the SGSN sends
				// one more frame, then nothing
				if enqAt < 0 && len(polls) == 1 && !dl.dl.pollOut {
					enqAt, enqBlock = s.e.now, i
					s.e.HandleDLUnitdata(0, &DLUnitdata{TLLI: tlli, IMSI: imsi, Lifetime: 65535, LLC: pattern(1400, 2)})
				}
				i++
			}
			if len(polls) < 2 || enqBlock < 0 || firstAfter < 0 {
				t.Fatalf("polls at data blocks %v, frame enqueued after block %d, first block 100 ms later %d", polls, enqBlock, firstAfter)
			}
			if polls[0] != 20 {
				// osmo-pcu tbf_dl.cpp: m_tx_counter >= POLL_ACK_AFTER_FRAMES
				// (20) is checked before the block is counted: the 21st
				// block (TestIdleAckDelayMatchesOsmoPCU)
				t.Fatalf("first poll in data block %d, want 20", polls[0])
			}
			want := firstAfter
			if delay == 0 {
				want = polls[0] + 20 // sincePoll counts every block of the TBF
			}
			if polls[1] != want {
				t.Fatalf("polls at data blocks %v (frame enqueued after block %d, block %d is 100 ms later): want the second at %d",
					polls, enqBlock, firstAfter, want)
			}
		})
	}
}

// TestT3191BoundsT3195AfterN3105: the final block of a DL TBF is polled
// again and again and never answered (the radio runs on, unlike
// TC_zero_x2031_t3191); N3105 (2) runs out before T3191 (1 s) does. The
// TBF stops sending at N3105 and is freed when the T3191 of its last
// polled final block ends, not T3195 (5 s) later (osmo-pcu tbf.cpp: T3191
// frees the TBF in RELEASING too; TestFinalBlockN3105MatchesOsmoPCU).
func TestT3191BoundsT3195AfterN3105(t *testing.T) {
	s := newSuiteBTS(t, func(ii *pcuif.InfoInd) {
		ii.TRX[0].PDCHMask = 0x80
		ii.T3142, ii.T3169, ii.T3191, ii.T3193x10ms, ii.T3195, ii.N3101, ii.N3103, ii.N3105 = 20, 5, 1, 160, 5, 10, 4, 2
	})
	s.e.params.X2031 = 0
	const tlli, imsi = 0xc1100003, "001010000001103"
	s.block()
	dl := s.dlOnPCH(tlli, imsi, pattern(100, 1))
	var lastFinal time.Duration
	released := false
	for end := s.e.now + 8*time.Second; s.e.now < end && !released; {
		blk := s.rts(7)[7]
		if b, ok := dlData(t, blk, dl.tfi); ok && b.Header.FBI && b.Header.SP {
			lastFinal = s.e.now
		}
		s.end()
		released = dl.released()
	}
	if lastFinal == 0 || !released {
		t.Fatalf("final block polled at %v, TBF %s", lastFinal, dl.state)
	}
	if d := s.e.now - lastFinal; d > time.Second+100*time.Millisecond {
		t.Fatalf("TBF freed %v after its last polled final block, want at T3191 (1 s)", d)
	}
}

// TestUSFRounds: three MSs with an UL TBF each on one PDCH, sending an UL
// block whenever given their USF. USFs go in rounds (pickUSF): over 24
// grants each MS gets 8 ± 1 (one per round), and the order is not a
// fixed rotation (a fixed rotation would lock to a DL rotation
// of the same period; TC_multiplex_dl_gprs_egprs).
func TestUSFRounds(t *testing.T) {
	s := newSuiteBTS(t, pdchTS7)
	ms := []*suiteMS{{tlli: 0xc0f00001}, {tlli: 0xc0f00002}, {tlli: 0xc0f00003}}
	s.block()
	for _, m := range ms {
		s.twoPhase(m)
	}
	var got []int
	for i := 0; len(got) < 3*8 && i < 200; i++ {
		blk := s.rts(7)[7]
		for k, m := range ms {
			if usfOf(blk) == m.ul.ul.usf[7] {
				got = append(got, k)
				s.queueUL(7, 0, m.ulData(t))
			}
		}
		s.end()
	}
	if len(got) < 3*8 {
		t.Fatalf("only %d USF grants: %v", len(got), got)
	}
	var n [3]int
	fixed := true
	for i, k := range got {
		n[k]++
		if i >= 3 && k != got[i-3] {
			fixed = false
		}
	}
	for k := range n {
		if n[k] < 7 || n[k] > 9 {
			t.Fatalf("MS %d got %d of %d USFs (%v): not one per round", k, n[k], len(got), got)
		}
	}
	if fixed {
		t.Fatalf("USFs %v: a fixed rotation", got)
	}
}
