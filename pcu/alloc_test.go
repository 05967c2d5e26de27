package pcu

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/gopcu/gopcu/pcu/alloc"
	"github.com/gopcu/gopcu/pcu/pcuif"
)

// The expectations in this file are osmo-pcu's observable allocation
// results, as its unit tests record them (tests/alloc/MslotTest.ok and
// AllocTest.ok: slot sets per multislot class and PDCH set, TBF sequences
// per algorithm). Where gopcu deliberately differs the row says so.

// allocEngine is an engine with one active BTS whose TRX have the given
// PDCH masks, allocating with algo, with osmo-pcu's `multislot-class
// default 12` (osmo-pcu's AllocTest results are for that class when the
// MS's is unknown).
func allocEngine(tb testing.TB, algo string, pdch ...uint8) (*Engine, *BTS) {
	tb.Helper()
	ii := &pcuif.InfoInd{Version: pcuif.V12, Flags: pcuif.FlagActive | pcuif.FlagCS(1) | pcuif.FlagCS(2) | pcuif.FlagCS(3) | pcuif.FlagCS(4), InitialCS: 4}
	for i, m := range pdch {
		ii.TRX[i].ARFCN = 871 + uint16(i)
		ii.TRX[i].PDCHMask = m
	}
	e, bts := configEngine(tb, Config{}, ii)
	e.params.AllocAlgo = algo
	e.params.MultislotDefault = 12
	return e, bts
}

type allocStep struct {
	dir   Dir
	slots uint8
	ctrl  uint8
}

// TestAllocBSequences: algorithm B for one MS (AllocTest
// test_alloc_b_for_ms): on PDCHs 5-7 an UL TBF on one slot then a DL TBF;
// a DL TBF on one slot (CCCH), an UL TBF on PACCH, then the DL TBF's
// multislot upgrade; on PDCHs 1-4 an UL then a DL TBF, both on PACCH. The
// control TS is the MS's first common TS. Class 0 is the default class 12.
func TestAllocBSequences(t *testing.T) {
	for _, c := range []struct {
		classes           []int // the classes that allocate so
		ulDL, dlUL, jolly []allocStep
	}{
		{[]int{0, 10, 12, 23, 29}, []allocStep{{DirUL, 0b01000000, 6}, {DirDL, 0b11100000, 6}}, []allocStep{{DirDL, 0b01000000, 6}, {DirUL, 0b11000000, 6}, {DirDL, 0b11100000, 6}}, []allocStep{{DirUL, 0b00001000, 3}, {DirDL, 0b00011110, 3}}},
		{[]int{1}, []allocStep{{DirUL, 0b00100000, 5}, {DirDL, 0b00100000, 5}}, []allocStep{{DirDL, 0b00100000, 5}, {DirUL, 0b00100000, 5}, {DirDL, 0b00100000, 5}}, []allocStep{{DirUL, 0b00000010, 1}, {DirDL, 0b00000010, 1}}},
		{[]int{4}, []allocStep{{DirUL, 0b01000000, 6}, {DirDL, 0b11100000, 6}}, []allocStep{{DirDL, 0b01000000, 6}, {DirUL, 0b01000000, 6}, {DirDL, 0b11100000, 6}}, []allocStep{{DirUL, 0b00000100, 2}, {DirDL, 0b00001110, 2}}},
		{[]int{13}, []allocStep{{DirUL, 0b00100000, 5}, {DirDL, 0b11100000, 5}}, []allocStep{{DirDL, 0b00100000, 5}, {DirUL, 0b11100000, 5}, {DirDL, 0b11100000, 5}}, []allocStep{{DirUL, 0b00001110, 1}, {DirDL, 0b00001110, 1}}},
		{[]int{14, 18}, []allocStep{{DirUL, 0b00100000, 5}, {DirDL, 0b11100000, 5}}, []allocStep{{DirDL, 0b00100000, 5}, {DirUL, 0b11100000, 5}, {DirDL, 0b11100000, 5}}, []allocStep{{DirUL, 0b00011110, 1}, {DirDL, 0b00011110, 1}}},
		{[]int{33, 38, 45}, []allocStep{{DirUL, 0b01000000, 6}, {DirDL, 0b11100000, 6}}, []allocStep{{DirDL, 0b01000000, 6}, {DirUL, 0b11000000, 6}, {DirDL, 0b11100000, 6}}, []allocStep{{DirUL, 0b00011000, 3}, {DirDL, 0b00011110, 3}}},
	} {
		for _, class := range c.classes {
			check := func(name string, i int, tb *TBF, err error, want []allocStep) {
				t.Helper()
				if err != nil || tb == nil {
					t.Fatalf("class %d %s step %d: %v", class, name, i, err)
				}
				if w := want[i]; tb.dir != w.dir || tb.slots != w.slots || tb.ctrlTS != w.ctrl || tb.ms.slots.FirstTS() != int(w.ctrl) {
					t.Errorf("class %d %s step %d: %v slots %08b ctrl %d first %d, want %v %08b ctrl %d", class, name, i,
						tb.dir, tb.slots, tb.ctrlTS, tb.ms.slots.FirstTS(), w.dir, w.slots, w.ctrl)
				}
			}
			// an MS of the class alone on the PDCHs in mask, algorithm B
			msOn := func(mask uint8) (*Engine, *BTS, *MS) {
				e, bts := allocEngine(t, "b", mask)
				ms := e.newMS(bts, 0xc0000001)
				ms.MSClass = class
				return e, bts, ms
			}
			e, bts, ms := msOn(0xe0)
			ul, err := e.allocULSlots(bts, ms, false)
			check("UL, DL", 0, ul, err, c.ulDL)
			dl, err := e.allocDL(bts, ms, false)
			check("UL, DL", 1, dl, err, c.ulDL)

			e, bts, ms = msOn(0xe0)
			dl, err = e.allocDL(bts, ms, true)
			check("DL, UL, upgrade", 0, dl, err, c.dlUL)
			ul, err = e.allocUL(bts, ms) // with a DL TBF: on PACCH
			check("DL, UL, upgrade", 1, ul, err, c.dlUL)
			if mask, ctrl, ok := e.dlUpgrade(dl); ok {
				dl.slots, dl.ctrlTS = mask, ctrl
			}
			check("DL, UL, upgrade", 2, dl, nil, c.dlUL)

			e, bts, ms = msOn(0x1e)
			ul, err = e.allocULSlots(bts, ms, true)
			check("jolly", 0, ul, err, c.jolly)
			dl, err = e.allocDL(bts, ms, false)
			check("jolly", 1, dl, err, c.jolly)
		}
	}
}

const (
	modeUL = iota
	modeDL
	modeULDL
	modeDLUL
	modeDLAfterUL
	modeULAfterDL
)

// allocMany allocates TBFs for new MSs of classes minC..maxC (in turn) in
// the given mode (AllocTest alloc_many_tbfs, all on PACCH) until one
// fails. It returns each MS's slots as AllocTest prints them, TS 0 first:
// C common (UL TBF or first common TS, and DL TBF), U uplink, D downlink.
func allocMany(e *Engine, bts *BTS, minC, maxC, mode int) []string {
	var out []string
	class := minC
	for n := 0; ; n++ {
		ms := e.newMS(bts, 0xc0000000+uint32(n))
		ms.MSClass = class
		alloc := func(dir Dir) (*TBF, error) {
			if dir == DirUL {
				return e.allocULSlots(bts, ms, true)
			}
			return e.allocDL(bts, ms, false)
		}
		d1, d2 := DirUL, DirDL
		if mode == modeDL || mode == modeDLUL || mode == modeULAfterDL {
			d1, d2 = DirDL, DirUL
		}
		first, err := alloc(d1)
		if err != nil {
			return out
		}
		if mode >= modeULDL {
			if _, err := alloc(d2); err != nil {
				e.fireRelease(first, relNone)
				return out
			}
		}
		if mode == modeDLAfterUL || mode == modeULAfterDL {
			e.fireRelease(first, relNone)
		}
		ulS, dlS := uint8(1)<<ms.slots.FirstTS(), uint8(0)
		if ms.UL != nil {
			ulS |= ms.UL.slots
		}
		if ms.DL != nil {
			dlS = ms.DL.slots
		}
		var b strings.Builder
		for ts := range 8 {
			m := uint8(1) << ts
			switch {
			case m&ulS&dlS != 0:
				b.WriteByte('C')
			case m&ulS != 0:
				b.WriteByte('U')
			case m&dlS != 0:
				b.WriteByte('D')
			default:
				b.WriteByte('.')
			}
		}
		out = append(out, b.String())
		if class++; class > maxC {
			class = minC
		}
	}
}

// TestSuccessiveAllocations: MSs allocated one after the other on PDCHs
// 3-7 until allocation fails (AllocTest test_successive_allocation): each
// MS's slots and how many MSs fit. gopcu's TFIs are unique per TRX also
// under algorithm A (osmo-pcu: per PDCH), so A stops at 32 TBFs of a
// direction where osmo-pcu goes on; the slots up to there are the same.
func TestSuccessiveAllocations(t *testing.T) {
	// A gives each of 32 MSs (TFIs) one slot, the least busy PDCH: TS 3..7
	// in turn, slot letter l
	oneEach := func(l string) string {
		ms := make([]string, 32)
		for i := range ms {
			ms[i] = strings.Repeat(".", 3+i%5) + l + strings.Repeat(".", 4-i%5)
		}
		return strings.Join(ms, " ")
	}
	for _, c := range []struct {
		algos      string // the algorithms that allocate so, blank-separated
		minC, maxC int
		mode       int
		n          int
		slots      string
	}{
		{"a", 1, 1, modeULDL, 32, oneEach("C")}, // osmo-pcu: 35 (per-PDCH TFIs under A)
		{"b", 10, 10, modeULDL, 15, "...DDCD. .....DCC ...DCC.. .....DCC ...DCC.. .....DCC ...DCC.. .....DCC ...DCC.. .....DCC ...DCC.. .....DCC ...DCC.. .....DCC ...CC..."},
		{"b", 12, 12, modeULDL, 15, "...DDCD. .....DCC ...DCC.. .....DCC ...DCC.. .....DCC ...DCC.. .....DCC ...DCC.. .....DCC ...DCC.. .....DCC ...DCC.. .....DCC ...CC..."},
		{"b", 1, 12, modeULDL, 23, "...C.... ....DC.. ......DC ...DCD.. ......CC ...CC... .....CC. ....DDCD ...DCC.. .....DCC ...DCC.. .....DCC ...C.... ......DC ...DC... ....DCD. ...CC... ......CC ...CC... ....DDCD .....DDC ...DDCD. ...DDCD."},
		{"b dynamic", 1, 45, modeULDL, 17, "...C.... ....DC.. ......DC ...DCD.. ......CC ...CC... .....CC. ....DDCD ...DCC.. .....DCC ...DCC.. .....DCC ...CCC.. ...CCCC. ...CCCCC ...CDDDC ...CDDDC"},
		{"a", 1, 1, modeDLUL, 32, oneEach("C")}, // osmo-pcu: 35 (per-PDCH TFIs under A)
		{"b dynamic", 10, 10, modeDLUL, 15, "...DDCD. .....DCC ...DCC.. .....DCC ...DCC.. .....DCC ...DCC.. .....DCC ...DCC.. .....DCC ...DCC.. .....DCC ...DCC.. .....DCC ...CC..."},
		{"a", 1, 1, modeDLAfterUL, 32, oneEach("C")}, // osmo-pcu: 160 (per-PDCH TFIs under A)
		{"b dynamic", 10, 10, modeDLAfterUL, 32, "...DDCD. .....DCD ...DCD.. .....DCD ...DCD.. .....DCD ...DCD.. .....DCD ...DCD.. .....DCD ...DCD.. .....DCD ...DCD.. .....DCD ...DCD.. .....DCD ...DCD.. .....DCD ...DCD.. .....DCD ...DCD.. .....DCD ...CD... .....DCD ...CD... ...CD... .....DCD ...CD... ....DCD. .....DCD ...CD... ...CD..."}, // osmo-pcu dynamic: 101 (per-PDCH TFIs under A)
		{"a", 1, 1, modeULAfterDL, 32, oneEach("U")}, // osmo-pcu: 35 (per-PDCH TFIs under A)
		{"b dynamic", 10, 10, modeULAfterDL, 15, ".....U.. ......UU ....UU.. ......UU ....UU.. ......UU ....UU.. ......UU ....UU.. ......UU ....UU.. ......UU ....UU.. ......UU ...UU..."},
		{"a", 1, 1, modeUL, 32, oneEach("U")}, // osmo-pcu: 35 (per-PDCH TFIs under A)
		{"b", 10, 10, modeUL, 15, ".....U.. ......UU ....UU.. ......UU ....UU.. ......UU ....UU.. ......UU ....UU.. ......UU ....UU.. ......UU ....UU.. ......UU ...UU..."},
		{"dynamic", 10, 10, modeUL, 21, ".....U.. ......UU ....UU.. ......UU ....UU.. ......UU ....UU.. ......UU ....UU.. ......UU ....UU.. ......UU ....UU.. ......UU ...UU... ...U.... ...U.... ...U.... ...U.... ...U.... ...U...."},
		{"a", 1, 1, modeDL, 32, oneEach("C")}, // osmo-pcu: 160 (per-PDCH TFIs under A)
		{"b dynamic", 10, 10, modeDL, 32, "...DDCD. .....DCD ...DCD.. .....DCD ...DCD.. .....DCD ...DCD.. .....DCD ...DCD.. .....DCD ...DCD.. .....DCD ...DCD.. .....DCD ...DCD.. .....DCD ...DCD.. .....DCD ...DCD.. .....DCD ...DCD.. .....DCD ...CD... .....DCD ...CD... ...CD... .....DCD ...CD... ....DCD. .....DCD ...CD... ...CD..."}, // osmo-pcu dynamic: 101 (per-PDCH TFIs under A)
	} {
		for _, algo := range strings.Fields(c.algos) {
			e, bts := allocEngine(t, algo, 0xf8)
			got := allocMany(e, bts, c.minC, c.maxC, c.mode)
			if len(got) != c.n || strings.Join(got, " ") != c.slots {
				t.Errorf("%s class %d..%d mode %d: %d MSs\n got %s\nwant %s", algo, c.minC, c.maxC, c.mode, len(got), strings.Join(got, " "), c.slots)
			}
		}
	}
}

// TestDynamicCounters: `alloc-algorithm dynamic` uses B until B fails,
// then A; each allocation counts its algorithm, B's failure its cause.
// UL TBFs of class 10 on PDCHs 3-7: 15 by B, then B finds no USF left on
// a slot combination and A puts 6 more on TS 3 (AllocTest: 21 in all).
func TestDynamicCounters(t *testing.T) {
	e, bts := allocEngine(t, "dynamic", 0xf8)
	got := allocMany(e, bts, 10, 10, modeUL)
	a, b, failed := bts.Ctr.Value(CtrTBFAllocAlgoA), bts.Ctr.Value(CtrTBFAllocAlgoB), bts.Ctr.Value(CtrTBFAllocFailed)
	causes := bts.Ctr.Value(CtrTBFAllocFailedNoTFI) + bts.Ctr.Value(CtrTBFAllocFailedNoUSF) + bts.Ctr.Value(CtrTBFAllocFailedNoSlotCombi) +
		bts.Ctr.Value(CtrTBFAllocFailedNoSlotAvail)
	// no DL TBF: a PDCH is idle, so every allocation tries B first
	if len(got) != 21 || a != 6 || b != 15 || failed != 1 || causes != 7 {
		t.Fatalf("%d MSs, algo-a %d, algo-b %d, failed %d, B failure causes %d", len(got), a, b, failed, causes)
	}
}

// TestDynamicSwitch: once B failed, dynamic allocates with A (one slot)
// while every PDCH carries two or more DL TBFs, and with B again as soon
// as one carries at most one.
func TestDynamicSwitch(t *testing.T) {
	e, bts := allocEngine(t, "a", 0xf0)
	var tbfs []*TBF
	for i := range 8 { // two single-slot DL TBFs per PDCH
		ms := e.newMS(bts, 0xc0000100+uint32(i))
		tb, err := e.allocDL(bts, ms, false)
		if err != nil {
			t.Fatal(err)
		}
		tbfs = append(tbfs, tb)
	}
	e.params.AllocAlgo = "dynamic"
	bts.alloc.MultislotOff = true
	ms := e.newMS(bts, 0xc0000200)
	tb, err := e.allocDL(bts, ms, false)
	if err != nil || popcount8(tb.slots) != 1 || bts.Ctr.Value(CtrTBFAllocAlgoA) != 9 {
		t.Fatalf("busy PDCHs: %v slots %08b, algo-a %d", err, tb.slots, bts.Ctr.Value(CtrTBFAllocAlgoA))
	}
	if _, _, ok := e.dlUpgrade(tb); ok {
		t.Fatal("multislot upgrade while dynamic uses A")
	}
	for _, o := range tbfs[:2] { // TS 4 (the first two) now carries none
		e.fireRelease(o, relNone)
	}
	ms = e.newMS(bts, 0xc0000201)
	tb, err = e.allocDL(bts, ms, false)
	if err != nil || popcount8(tb.slots) < 2 || bts.alloc.MultislotOff || bts.Ctr.Value(CtrTBFAllocAlgoB) != 1 {
		t.Fatalf("idle PDCH: %v slots %08b, multislot off %v, algo-b %d", err, tb.slots, bts.alloc.MultislotOff, bts.Ctr.Value(CtrTBFAllocAlgoB))
	}
}

// TestTwoConsecutiveDL: two class 11 MSs on PDCHs 4-7 (AllocTest
// test_2_consecutive_dl_tbfs): the first DL TBF gets 4 slots, the second 3
// (the reservations of the first count against its window).
func TestTwoConsecutiveDL(t *testing.T) {
	e, bts := allocEngine(t, "b", 0xf0)
	var n []int
	for i := range 2 {
		ms := e.newMS(bts, 0xc0000300+uint32(i))
		ms.MSClass, ms.EGPRSClass = 11, 11
		tb, err := e.allocDL(bts, ms, false)
		if err != nil {
			t.Fatal(err)
		}
		n = append(n, popcount8(tb.slots))
	}
	if n[0] != 4 || n[1] != 3 {
		t.Fatalf("slots %v, want [4 3]", n)
	}
}

// TestAllocAUSF: algorithm A puts UL TBFs on the least busy PDCH until the
// USFs (7 per PDCH) run out (AllocTest test_alloc_a: 14 on TS 2-3, 28 on
// TS 1-4); then allocation fails, counting tbf:alloc:failed only.
func TestAllocAUSF(t *testing.T) {
	for _, c := range []struct {
		pdch uint8
		n    int
	}{{0x0c, 14}, {0x1e, 28}} {
		e, bts := allocEngine(t, "a", c.pdch)
		got := allocMany(e, bts, 1, 1, modeUL)
		if len(got) != c.n || bts.Ctr.Value(CtrTBFAllocFailed) != 1 || bts.Ctr.Value(CtrTBFAllocFailedNoUSF) != 0 {
			t.Errorf("PDCHs %08b: %d UL TBFs (want %d), failed %d, no_usf %d", c.pdch, len(got), c.n,
				bts.Ctr.Value(CtrTBFAllocFailed), bts.Ctr.Value(CtrTBFAllocFailedNoUSF))
		}
	}
}

// TestAllocBFailures: B's failure causes. 32 DL TBFs use all TFIs of the
// TRX: the next counts no_tfi; USFs exhausted count no_usf.
func TestAllocBFailures(t *testing.T) {
	e, bts := allocEngine(t, "b", 0xf0)
	got := allocMany(e, bts, 1, 1, modeDL)
	if len(got) != 32 || bts.Ctr.Value(CtrTBFAllocFailedNoTFI) != 1 || bts.Ctr.Value(CtrTBFAllocFailed) != 1 {
		t.Errorf("%d DL TBFs, no_tfi %d, failed %d", len(got), bts.Ctr.Value(CtrTBFAllocFailedNoTFI), bts.Ctr.Value(CtrTBFAllocFailed))
	}
	e, bts = allocEngine(t, "b", 0x80)
	got = allocMany(e, bts, 12, 12, modeUL)
	if len(got) != 7 || bts.Ctr.Value(CtrTBFAllocFailedNoUSF) != 1 || bts.Ctr.Value(CtrTBFAllocFailed) != 1 {
		t.Errorf("%d UL TBFs on one PDCH, no_usf %d, failed %d", len(got), bts.Ctr.Value(CtrTBFAllocFailedNoUSF), bts.Ctr.Value(CtrTBFAllocFailed))
	}
}

// TestAllocTRX: with two TRX, B takes the TRX with the most free TFIs of
// the direction, A the first TRX with free TFIs; an MS's next TBF stays on
// its TRX.
func TestAllocTRX(t *testing.T) {
	e, bts := allocEngine(t, "b", 0xf0, 0xf0)
	var trx []uint8
	for i := range 4 {
		ms := e.newMS(bts, 0xc0000400+uint32(i))
		tb, err := e.allocDL(bts, ms, true)
		if err != nil {
			t.Fatal(err)
		}
		trx = append(trx, tb.trx)
		if i == 1 {
			ul, err := e.allocUL(bts, ms)
			if err != nil || ul.trx != tb.trx || ul.ctrlTS != tb.ctrlTS {
				t.Fatalf("UL TBF of an MS on TRX %d TS %d: %v", tb.trx, tb.ctrlTS, ul)
			}
		}
	}
	if trx[0] != 0 || trx[1] != 1 || trx[2] != 0 || trx[3] != 1 {
		t.Errorf("B: DL TBFs on TRX %v, want 0 1 0 1", trx)
	}
	e, bts = allocEngine(t, "a", 0xf0, 0xf0)
	for i := range 3 {
		tb, err := e.allocDL(bts, e.newMS(bts, 0xc0000500+uint32(i)), true)
		if err != nil || tb.trx != 0 {
			t.Fatalf("A: DL TBF %d on TRX %v (%v)", i, tb, err)
		}
	}
}

// TestReservationLifetime: an MS keeps its reservation (and first common
// TS) while it has a TBF, and the PDCHs count it; its last TBF gone, both
// are released.
func TestReservationLifetime(t *testing.T) {
	e, bts := allocEngine(t, "dynamic", 0xf0)
	ms := e.newMS(bts, 0xc0000600)
	dl, err := e.allocDL(bts, ms, true) // CCCH: one slot, reserved 4
	if err != nil {
		t.Fatal(err)
	}
	trx := &bts.alloc.TRX[0] // the reservation counts
	if !ms.slots.On || popcount8(ms.slots.DL) != 4 || dl.slots != 1<<dl.ctrlTS || trx.Reserved.DL[4] != 1 {
		t.Fatalf("reservation %+v, TBF slots %08b, PDCH 4 reserved %d", ms.slots, dl.slots, trx.Reserved.DL[4])
	}
	ul, err := e.allocUL(bts, ms)
	if err != nil || ul.ctrlTS != dl.ctrlTS {
		t.Fatalf("UL %v: %v", ul, err)
	}
	e.fireRelease(dl, relNone)
	if !ms.slots.On || ms.slots.FirstTS() != int(ul.ctrlTS) {
		t.Fatalf("released with a TBF left: %+v", ms.slots)
	}
	e.fireRelease(ul, relNone)
	if ms.slots.On || ms.slots.FirstTS() >= 0 || trx.Reserved != (alloc.Reserved{}) {
		t.Fatalf("after the last TBF: %+v, PDCH counts %+v", ms.slots, trx.Reserved)
	}
}

// TestAllocateNoGarbage: choosing the slots allocates nothing.
func TestAllocateNoGarbage(t *testing.T) {
	e, bts := allocEngine(t, "dynamic", 0xff)
	ms := e.newMS(bts, 0xc0000700)
	n := testing.AllocsPerRun(100, func() {
		var r alloc.Result
		if !e.allocate(bts, ms, DirDL, false, &r) {
			t.Fatal("allocation failed")
		}
	})
	if n != 0 {
		t.Fatalf("%v allocations per run", n)
	}
}

// TestAllocClassFromSGSNAndUnknown: TTCN-3 TC_dl_multislot_tbf_ms_class_from_sgsn
// and TC_dl_multislot_tbf_ms_class_unknown on one TRX with 8 PDCHs. After a
// one-phase access (one UL slot, class unknown) a DL TBF on PACCH gets the
// slots of the class the SGSN's MS Radio Access Capability gave (class 18:
// 8), and 1 slot when the class stays unknown (TS 45.002 Table B.1: every
// class has 1 Rx and 1 Tx slot); osmo-pcu 1.1.0 gives 4 in both cases
// (its default class 12, which `multislot-class default 12` restores).
func TestAllocClassFromSGSNAndUnknown(t *testing.T) {
	for _, c := range []struct {
		name           string
		pdch           uint8
		class, egprs   int
		defaultClass   int
		wantUL, wantDL int
	}{
		{"class 18 from the SGSN", 0xff, 18, 0, 0, 1, 8},
		{"unknown class", 0xff, 0, 0, 0, 1, 1},
		{"EGPRS class 18 only", 0xff, 0, 18, 0, 1, 8},
		{"unknown, multislot-class default 12", 0xf0, 0, 0, 12, 1, 4},
	} {
		t.Run(c.name, func(t *testing.T) {
			e, bts := allocEngine(t, "dynamic", c.pdch)
			e.params.MultislotDefault = c.defaultClass
			ms := e.newMS(bts, 0xc0000700)
			ul, err := e.allocUL(bts, ms) // one-phase access: CCCH, one slot
			if err != nil || popcount8(ul.slots) != c.wantUL {
				t.Fatalf("UL TBF %v: %v", ul, err)
			}
			ms.MSClass, ms.EGPRSClass = c.class, c.egprs // DL-UNITDATA's MS RAC
			dl, err := e.allocDL(bts, ms, false)         // assigned on PACCH
			if err != nil {
				t.Fatal(err)
			}
			if n := popcount8(dl.slots); n != c.wantDL || dl.slots&ul.slots != ul.slots || dl.ctrlTS != ul.ctrlTS {
				t.Fatalf("DL TBF on %08b (%d slots, control TS %d), want %d slots with the UL TBF's %08b (control TS %d)",
					dl.slots, n, dl.ctrlTS, c.wantDL, ul.slots, ul.ctrlTS)
			}
		})
	}
}

// TestAllAllocatedCounter: pdch:all_allocated counts the seconds during
// which no enabled PDCH can take a TBF (osmo-pcu bts_all_pdch_allocated,
// libosmocore osmo_time_cc with 1 s granules rounded at half), sampled
// every second.
func TestAllAllocatedCounter(t *testing.T) {
	e, bts := allocEngine(t, "b", 0x80) // one PDCH, TS 7
	sec := func(s float64) time.Duration { return time.Duration(s * float64(time.Second)) }
	e.sampleAllAllocated(sec(0))
	var uls []*TBF
	for i := range 7 { // USFs 0..6: the PDCH is full
		tb, err := e.allocUL(bts, e.newMS(bts, 0xc0000800+uint32(i)))
		if err != nil {
			t.Fatal(i, err)
		}
		uls = append(uls, tb)
	}
	if _, err := e.allocUL(bts, e.newMS(bts, 0xc00008ff)); err == nil {
		t.Fatal("an eighth UL TBF on one PDCH")
	}
	e.sampleAllAllocated(sec(1)) // full from now on
	if v := bts.Ctr.Value(CtrPDCHAllAllocated); v != 0 {
		t.Fatalf("%d before any time passed", v)
	}
	e.sampleAllAllocated(sec(2))
	e.sampleAllAllocated(sec(3))
	if v := bts.Ctr.Value(CtrPDCHAllAllocated); v != 2 {
		t.Fatalf("after 2 s all allocated: %d", v)
	}
	e.fireRelease(uls[0], relNone) // a USF is free again
	e.sampleAllAllocated(sec(3.6)) // 0.6 s more counted: rounds up
	e.sampleAllAllocated(sec(10))
	if v := bts.Ctr.Value(CtrPDCHAllAllocated); v != 3 {
		t.Fatalf("after 2.6 s all allocated: %d", v)
	}
}

// TestAllocFailureCauses: algorithm B's two slot failures. no_slot_avail:
// the PDCH of the MS's control TS was switched off (a later INFO_IND)
// and a CCCH DL TBF needs a common slot of its reservation. no_slot_combi:
// a multislot MS whose UL TBF sits on a PDCH with another training
// sequence than the PDCHs usable together (TS 45.002 §6.4.2) gets no
// reservation for its DL TBF.
func TestAllocFailureCauses(t *testing.T) {
	e, bts := allocEngine(t, "b", 0xf0)
	ms := e.newMS(bts, 0xc0000a00)
	ms.MSClass = 12
	ul, err := e.allocUL(bts, ms)
	if err != nil {
		t.Fatal(err)
	}
	bts.TRX[0].setEnabled(int(ul.ctrlTS), false)
	if _, err := e.allocDL(bts, ms, true); err == nil || bts.Ctr.Value(CtrTBFAllocFailedNoSlotAvail) != 1 {
		t.Fatalf("control TS off: %v, no_slot_avail %d", err, bts.Ctr.Value(CtrTBFAllocFailedNoSlotAvail))
	}

	e, bts = allocEngine(t, "b", 0xf0)
	bts.TRX[0].PDCH[4].TSC = 3 // TS 4 alone is usable for multislot
	ms = e.newMS(bts, 0xc0000a01)
	bts.alloc.Reserve(&ms.slots, 0, 1<<6, 0) // its UL TBF's slot (TLLI learnt: adoptSlots)
	ms.MSClass = 12
	if _, err := e.allocDL(bts, ms, false); err == nil || bts.Ctr.Value(CtrTBFAllocFailedNoSlotCombi) != 1 {
		t.Fatalf("UL slot on another TSC: %v, no_slot_combi %d", err, bts.Ctr.Value(CtrTBFAllocFailedNoSlotCombi))
	}
}

// TestMultiTRXOnePhaseSpread: TTCN-3 TC_multitrx_multims_alloc (3 TRX
// with 2 PDCHs each, 8 one-phase accesses): UL TBF i goes to TRX i mod 3,
// the TRX with the most free UL TFIs (osmo-pcu bts_tfi_find_free).
// TC_ta_ptcch_ul_multi_tbf expects the opposite for 8 TRX with 1 PDCH
// each (7 UL TBFs with TFI, USF and TAI 0..6, all on TRX 0 TS 7); no TRX
// choice meets both, and osmo-pcu (which passes TC_multitrx_multims_alloc)
// fails that one too: gopcu keeps the spread.
func TestMultiTRXOnePhaseSpread(t *testing.T) {
	e, bts := allocEngine(t, "dynamic", 0xc0, 0x30, 0x03)
	for i := range 8 {
		tb, err := e.allocUL(bts, e.newMS(bts, 0xc0000b00+uint32(i)))
		if err != nil || int(tb.trx) != i%3 {
			t.Fatalf("UL TBF %d on TRX %v (%v), want %d", i, tb, err, i%3)
		}
	}
	e, bts = allocEngine(t, "dynamic", 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80)
	for i := range 7 {
		tb, err := e.allocUL(bts, e.newMS(bts, 0xc0000c00+uint32(i)))
		if err != nil || int(tb.trx) != i || tb.tfi != 0 {
			t.Fatalf("UL TBF %d: %v (%v), want TRX %d TFI 0", i, tb, err, i)
		}
	}
}

// TestOneTRXIncrementalTFIUSFTAI: the PTCCH half of TTCN-3
// TC_ta_ptcch_ul_multi_tbf on one TRX with one PDCH: seven one-phase UL
// TBFs get TFI, USF and Timing Advance Index 0..6 in order (TS 44.060
// §7.1.2.3 continuous timing advance; TS 45.010 §5.6.2 TAI per PTCCH).
// (On eight single-PDCH TRX gopcu spreads the TBFs instead, see
// TestMultiTRXOnePhaseSpread.)
func TestOneTRXIncrementalTFIUSFTAI(t *testing.T) {
	e, bts := allocEngine(t, "dynamic", 0x80)
	for i := range 7 {
		ms := e.newMS(bts, 0xc0000d00+uint32(i))
		tb, err := e.allocUL(bts, ms)
		if err != nil {
			t.Fatalf("UL TBF %d: %v", i, err)
		}
		if tb.trx != 0 || tb.tfi != uint8(i) || tb.USF(7) != uint8(i) || ms.TAI != int8(i) {
			t.Fatalf("UL TBF %d: TRX %d TFI %d USF %d TAI %d, want TRX 0 and %d each", i, tb.trx, tb.tfi, tb.USF(7), ms.TAI, i)
		}
	}
}

// TestUnknownClassULSpread: MSs whose multislot class is unknown (one-phase
// access, no capability from the SGSN yet) get their one uplink slot where
// class 12 would receive on the most slots, but not all on one PDCH: a TS
// with k downlink slots fewer (TS 1 and 7 of 8: 1, TS 0: 2) takes an MS
// once it carries more than k TBFs fewer. Sixteen MSs on 8 PDCHs use TS
// 1-7, the 20th TS 0 (each PDCH with an uplink TBF gives its USFs to data;
// before, TS 2 carried 6 TBFs and TS 0, 1, 7 none). Four PDCHs (TS 4-7, the lab's cell): a second MS
// joins the first on TS 6, where class 12 receives on all four, rather
// than take TS 5 (three).
func TestUnknownClassULSpread(t *testing.T) {
	e, bts := allocEngine(t, "dynamic", 0xff)
	e.params.MultislotDefault = 0 // no `multislot-class default`: unknown
	var per [8]int
	var got []int
	for i := range 16 {
		tb, err := e.allocUL(bts, e.newMS(bts, 0xc0000e00+uint32(i)))
		if err != nil || popcount8(tb.slots) != 1 {
			t.Fatalf("UL TBF %d: %v (%v)", i, tb, err)
		}
		ts := lowestSlot(tb.slots)
		per[ts]++
		got = append(got, ts)
	}
	// loads (TBFs + missing DL slots): TS 2-6 cost their load, TS 1 and 7
	// their load + 1; ties go to more DL slots, then the lower TS
	want := []int{2, 3, 4, 5, 6, 2, 3, 4, 5, 6, 1, 7, 2, 3, 4, 5}
	if !slices.Equal(got, want) {
		t.Fatalf("uplink TSs %v, want %v (per TS %v)", got, want, per)
	}
	// TS 6; then TS 1 and 7 (1 TBF + 1 slot fewer = 2) before TS 0
	// (0 TBFs + 2 slots fewer = 2) on the tie by slots; then TS 0 (2
	// against 3 everywhere else)
	got = append(got, ulTSs(t, e, bts, 0xc0000e00+16, 4)...)
	if want := []int{6, 1, 7, 0}; !slices.Equal(got[16:], want) {
		t.Fatalf("MSs 17-20 on TS %v, want %v", got[16:], want)
	}
	e, bts = allocEngine(t, "dynamic", 0xf0)
	e.params.MultislotDefault = 0
	lab := ulTSs(t, e, bts, 0xc0000f00, 4)
	if want := []int{6, 6, 5, 7}; !slices.Equal(lab, want) {
		t.Fatalf("TS 4-7: uplink TSs %v, want %v", lab, want)
	}
}

// ulTSs gives n new MSs (TLLIs tlli, tlli+1, ...) an uplink TBF each
// and returns the TS each got (its lowest slot).
func ulTSs(t *testing.T, e *Engine, bts *BTS, tlli uint32, n int) []int {
	t.Helper()
	var ts []int
	for i := range n {
		tb, err := e.allocUL(bts, e.newMS(bts, tlli+uint32(i)))
		if err != nil {
			t.Fatal(err)
		}
		ts = append(ts, lowestSlot(tb.slots))
	}
	return ts
}

// TestUnknownClassPlacementEdges: an MS of unknown class on PDCHs TS 2-5
// only (class 12 receives on 4 slots around TS 4, on 3 around TS 3 and 5,
// on 2 around TS 2) gets its uplink slot on TS 3-5, TS 4 taking one TBF
// more (pcu/alloc TestPlaceUnknown has the downlink and USF edges).
func TestUnknownClassPlacementEdges(t *testing.T) {
	e, bts := allocEngine(t, "dynamic", 0x3c)
	e.params.MultislotDefault = 0
	got := ulTSs(t, e, bts, 0xc0001000, 6)
	if want := []int{4, 4, 3, 5, 4, 3}; !slices.Equal(got, want) {
		t.Fatalf("TS 2-5: uplink TSs %v, want %v", got, want)
	}
}

// BenchmarkAllocDL: one DL TBF allocated (algorithm B, class 12, on 8
// PDCHs of which 16 other MSs hold reservations) and released again.
func BenchmarkAllocDL(b *testing.B) {
	e, bts := allocEngine(b, "dynamic", 0xff)
	for i := range 16 {
		ms := e.newMS(bts, 0xc0002000+uint32(i))
		ms.MSClass = 1 + i%12
		if _, err := e.allocDL(bts, ms, false); err != nil {
			b.Fatal(err)
		}
	}
	ms := e.newMS(bts, 0xc0003000)
	ms.MSClass = 12
	b.ReportAllocs()
	for b.Loop() {
		t, err := e.allocDL(bts, ms, false)
		if err != nil {
			b.Fatal(err)
		}
		e.fireRelease(t, relNone)
	}
}
