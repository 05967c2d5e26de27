package pcu

import (
	"testing"
	"time"

	"github.com/gopcu/gopcu/pcu/pcuif"
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
	ul  map[uint8][]byte // UL block per TS for the current block
}

func newSuiteBTS(t *testing.T, mod func(*pcuif.InfoInd)) *suiteBTS {
	clk := &fakeClock{}
	e, bts := fsmEngine(t, clk, mod)
	return &suiteBTS{t: t, e: e, bts: bts, clk: clk, out: sentData(e), ul: map[uint8][]byte{}}
}

func (s *suiteBTS) feed(m pcuif.Message) {
	s.t.Helper()
	b, err := pcuif.Marshal(m, pcuif.V12)
	if err != nil {
		s.t.Fatal(err)
	}
	s.e.handleMessage(b)
}

// block runs the next radio block: an RTS_REQ on each TS in rts, and
// returns the DL blocks sent for them (by TS).
func (s *suiteBTS) block(rts ...uint8) map[uint8][]byte {
	s.t.Helper()
	s.fn = nextBlockFN(s.fn)
	s.clk.t = time.Duration(s.fn) * FramePeriod // the suite's clock runs in real time
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
	for ts := uint8(0); ts < 8; ts++ {
		if !s.bts.TRX[0].PDCH[ts].Enabled {
			continue
		}
		s.feed(&pcuif.Data{Kind: pcuif.TypeDataInd, SAPI: pcuif.SAPIPDTCH, FN: s.fn, ARFCN: 871, TS: ts,
			BlockNr: uint8(blockNr(s.fn)), RSSI: -80, LqualCb: 10, Payload: s.ul[ts]})
	}
	clear(s.ul)
	return got
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
		if !ul.freed {
			t.Errorf("N3101 = %d: TBF %s not freed", n, ul.state)
		}
	}
}
