package rlcmac

import (
	"bytes"
	"encoding/hex"
	"testing"
)

func TestCodingSchemeTable(t *testing.T) {
	for _, tc := range []struct {
		cs             CodingScheme
		ul, dl, du, nu int
		ht             HeaderType
	}{
		{CS1, 23, 23, 20, 1, HeaderGPRS}, {CS2, 34, 34, 30, 1, HeaderGPRS},
		{CS3, 40, 40, 36, 1, HeaderGPRS}, {CS4, 54, 54, 50, 1, HeaderGPRS},
		{MCS1, 27, 27, 22, 1, HeaderEGPRS3}, {MCS2, 33, 33, 28, 1, HeaderEGPRS3},
		{MCS3, 42, 42, 37, 1, HeaderEGPRS3}, {MCS4, 49, 49, 44, 1, HeaderEGPRS3},
		{MCS5, 61, 60, 56, 1, HeaderEGPRS2}, {MCS6, 79, 78, 74, 1, HeaderEGPRS2},
		{MCS7, 119, 118, 56, 2, HeaderEGPRS1}, {MCS8, 143, 142, 68, 2, HeaderEGPRS1},
		{MCS9, 155, 154, 74, 2, HeaderEGPRS1},
	} {
		if tc.cs.BlockLen(true) != tc.ul || tc.cs.BlockLen(false) != tc.dl || tc.cs.DataLen() != tc.du ||
			tc.cs.DataUnits() != tc.nu || tc.cs.HeaderType() != tc.ht {
			t.Errorf("%v: table mismatch", tc.cs)
		}
		if CSFromULLen(tc.ul) != tc.cs || CSFromDLLen(tc.dl) != tc.cs {
			t.Errorf("%v: length classification", tc.cs)
		}
		if CSFromCommand(tc.cs.ChannelCodingCommand(), tc.cs.IsEGPRS()) != tc.cs {
			t.Errorf("%v: channel coding command", tc.cs)
		}
	}
	if CSFromULLen(24) != CSUnknown {
		t.Error("24 octets must be unknown")
	}
}

func TestGPRSHeaders(t *testing.T) {
	// 00 10 1 101 | 01 10101 1 | 1100100 1
	headerRoundTrip(t, GPRSDLHeader{RRBP: 2, SP: true, USF: 5, PR: 1, TFI: 21, FBI: true, BSN: 100, E: true}, "2d6bc9")
	headerRoundTrip(t, GPRSULHeader{CV: 15, SI: false, R: true, PI: false, TFI: 3, TI: true, BSN: 127, E: false}, "3d07fe")
	var ul GPRSULHeader
	if err := ul.Unmarshal([]byte{0x40, 0x07, 0xfe}); err == nil {
		t.Fatal("control block accepted as data")
	}
}

// headerRoundTrip checks that the GPRS data block header h marshals to the
// octets want (hex) and that they unmarshal to h.
func headerRoundTrip[H comparable, PH interface {
	*H
	MarshalTo([]byte) (int, error)
	Unmarshal([]byte) error
}](t *testing.T, h H, want string) {
	t.Helper()
	var b [GPRSHeaderLen]byte
	PH(&h).MarshalTo(b[:])
	if hex.EncodeToString(b[:]) != want {
		t.Fatalf("%T: % x, want %s", h, b, want)
	}
	var back H
	if err := PH(&back).Unmarshal(b[:]); err != nil || back != h {
		t.Fatalf("%T round trip %+v %v", h, back, err)
	}
}

func frame(n int, seed byte) []byte {
	f := make([]byte, n)
	for i := range f {
		f[i] = seed + byte(i)
	}
	return f
}

// segment runs the DLUnit loop of osmo-pcu's encoding.cpp rlc_data_to_dl_append_gprs/_egprs() over frames and returns the units.
func segment(t *testing.T, cs CodingScheme, frames [][]byte) ([][]byte, []bool) {
	t.Helper()
	var units [][]byte
	var es []bool
	var u DLUnit
	fi, rest := 0, frames[0]
	for fi < len(frames) {
		buf := make([]byte, cs.DataLen())
		u.Reset(buf, cs.IsEGPRS())
		for {
			final := fi == len(frames)-1
			n, r := u.Append(rest, final)
			rest = rest[n:]
			if r == NeedMoreBlocks {
				break
			}
			fi++
			if fi == len(frames) {
				break
			}
			rest = frames[fi]
			if r == CompletedBlockFilled {
				break
			}
		}
		units = append(units, buf)
		es = append(es, u.E())
	}
	return units, es
}

// reassemble parses units as uplink data units and concatenates completed frames.
func reassemble(t *testing.T, egprs bool, units [][]byte, es []bool) [][]byte {
	t.Helper()
	var out [][]byte
	var cur []byte
	for i, unit := range units {
		var p ULUnit
		last := i == len(units)-1
		if err := ParseULUnit(unit, egprs, es[i], false, false, last, &p); err != nil {
			t.Fatalf("unit %d: %v (% x)", i, err, unit)
		}
		for _, c := range p.Chunks[:p.N] {
			cur = append(cur, unit[c.Off:c.Off+c.Len]...)
			if c.Complete {
				out = append(out, cur)
				cur = nil
			}
		}
	}
	return out
}

func TestSegmentationGPRSEdgeCases(t *testing.T) {
	cs := CS1 // 20 octets
	for _, tc := range []struct {
		name  string
		sizes []int
		units []string
	}{
		// Final frame fills the unit exactly: no LI (E=1).
		{"final-fills-exactly", []int{20}, []string{"E:" + hex.EncodeToString(frame(20, 1))}},
		// Not final and exactly filling: LI=0, frame extends into the next block.
		{"fills-exactly-not-final", []int{20, 3}, nil},
		// Spans blocks.
		{"spans", []int{45}, nil},
		// Two frames in one block plus padding.
		{"two-frames", []int{5, 6}, []string{"0x" + "16" + "19" + hex.EncodeToString(frame(5, 1)) + hex.EncodeToString(frame(6, 2)) + "2b2b2b2b2b2b2b"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var frames [][]byte
			for i, n := range tc.sizes {
				frames = append(frames, frame(n, byte(i+1)))
			}
			units, es := segment(t, cs, frames)
			for i, want := range tc.units {
				got := hex.EncodeToString(units[i])
				if want[:2] == "E:" {
					if !es[i] || got != want[2:] {
						t.Fatalf("unit %d: E=%v %s want %s", i, es[i], got, want[2:])
					}
				} else if es[i] || got != want[2:] {
					t.Fatalf("unit %d: E=%v %s want %s", i, es[i], got, want[2:])
				}
			}
			got := reassemble(t, false, units, es)
			if len(got) != len(frames) {
				t.Fatalf("reassembled %d frames want %d", len(got), len(frames))
			}
			for i := range frames {
				if !bytes.Equal(got[i], frames[i]) {
					t.Fatalf("frame %d: % x want % x", i, got[i], frames[i])
				}
			}
		})
	}
	// LI=0 case bytes: unit 0 = LI(0,M=0,E=1) + 19 octets of frame 1.
	units, _ := segment(t, cs, [][]byte{frame(20, 1), frame(3, 2)})
	if units[0][0] != 0x01 || !bytes.Equal(units[0][1:], frame(19, 1)) {
		t.Fatalf("LI=0 unit % x", units[0])
	}
	// Next unit: LI=1 (M=1) closing frame 1, then frame 2 with LI=3, then padding.
	if units[1][0] != GPRSLI(1, true, false) || units[1][1] != GPRSLI(3, false, true) {
		t.Fatalf("second unit % x", units[1])
	}
}

func TestSegmentationRoundTripAllSchemes(t *testing.T) {
	sizes := [][]int{{1}, {1500}, {19, 20, 21}, {50, 50, 50}, {73, 74, 75, 1}, {3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3}}
	for cs := CS1; cs <= MCS9; cs++ {
		for _, sz := range sizes {
			var frames [][]byte
			for i, n := range sz {
				frames = append(frames, frame(n, byte(i*7)))
			}
			units, es := segment(t, cs, frames)
			got := reassemble(t, cs.IsEGPRS(), units, es)
			if len(got) != len(frames) {
				t.Fatalf("%v %v: %d frames back", cs, sz, len(got))
			}
			for i := range frames {
				if !bytes.Equal(got[i], frames[i]) {
					t.Fatalf("%v %v frame %d differs", cs, sz, i)
				}
			}
		}
	}
}

func TestEGPRSExactFillEmptyChunk(t *testing.T) {
	units, es := segment(t, MCS1, [][]byte{frame(22, 1), frame(5, 2)})
	if !es[0] || !bytes.Equal(units[0], frame(22, 1)) {
		t.Fatalf("unit 0 % x", units[0])
	}
	// Second unit starts with the empty chunk LI=0, then LI=5, then LI=127 padding.
	if es[1] || units[1][0] != EGPRSLI(0, false) || units[1][1] != EGPRSLI(5, false) || units[1][2] != EGPRSLI(127, true) {
		t.Fatalf("unit 1 % x", units[1])
	}
}

func TestParseGPRSULBlockWithTLLI(t *testing.T) {
	b := make([]byte, 23)
	h := GPRSULHeader{CV: 0, TFI: 7, TI: true, BSN: 0, E: false}
	h.MarshalTo(b)
	b[3] = GPRSLI(10, false, true)
	copy(b[4:8], []byte{0xC0, 0x01, 0x02, 0x03})
	copy(b[8:18], frame(10, 9))
	var blk GPRSULBlock
	if err := blk.Parse(b); err != nil {
		t.Fatal(err)
	}
	if !blk.Unit.HasTLLI || blk.Unit.TLLI != 0xC0010203 || blk.Unit.N != 1 ||
		blk.Unit.Chunks[0] != (Chunk{Off: 5, Len: 10, Complete: true}) {
		t.Fatalf("%+v", blk.Unit)
	}
	// PI set -> PFI not supported.
	b[1] |= 0x40
	if err := blk.Parse(b); err == nil {
		t.Fatal("PFI accepted")
	}
}

type sliceSource struct {
	frames [][]byte
	i, off int
}

func (s *sliceSource) Frame() ([]byte, bool) {
	if s.i >= len(s.frames) {
		return nil, false
	}
	return s.frames[s.i][s.off:], true
}
func (s *sliceSource) Last() bool { return s.i == len(s.frames)-1 }
func (s *sliceSource) Sent(n int, done bool) {
	s.off += n
	if done {
		s.i, s.off = s.i+1, 0
	}
}

func TestFillUnitAndTLLI(t *testing.T) {
	for _, cs := range []CodingScheme{CS1, CS4, MCS1, MCS6, MCS9} {
		frames := [][]byte{frame(30, 1), frame(cs.DataLen(), 2), frame(3, 3)}
		src := &sliceSource{frames: frames}
		var units [][]byte
		var es []bool
		var u DLUnit
		first := true
		for {
			buf := make([]byte, cs.DataLen())
			u.Reset(buf, cs.IsEGPRS())
			if first {
				if !u.PutTLLI(0xC0FFEE01) {
					t.Fatal("PutTLLI")
				}
			}
			final := FillUnit(&u, src)
			units, es = append(units, buf), append(es, u.E())
			if final {
				break
			}
			if len(units) > 10 {
				t.Fatalf("%v: no final block", cs)
			}
			first = false
		}
		// Reassemble with the TLLI flag on the first unit.
		var got [][]byte
		var cur []byte
		for i, unit := range units {
			var p ULUnit
			if err := ParseULUnit(unit, cs.IsEGPRS(), es[i], i == 0, false, i == len(units)-1, &p); err != nil {
				t.Fatalf("%v unit %d: %v", cs, i, err)
			}
			if i == 0 && (!p.HasTLLI || p.TLLI != 0xC0FFEE01) {
				t.Fatalf("%v TLLI %x", cs, p.TLLI)
			}
			for _, c := range p.Chunks[:p.N] {
				cur = append(cur, unit[c.Off:c.Off+c.Len]...)
				if c.Complete {
					got, cur = append(got, cur), nil
				}
			}
		}
		if len(got) != 3 || !bytes.Equal(got[0], frames[0]) || !bytes.Equal(got[1], frames[1]) || !bytes.Equal(got[2], frames[2]) {
			t.Fatalf("%v: reassembled %d frames", cs, len(got))
		}
	}
}

func TestCountdownValue(t *testing.T) {
	// TS 44.060 §9.3.1: CV = ceil((TBC - BSN' - 1) / NTS), 15 above BS_CV_MAX.
	for _, tc := range []struct{ rem, nts, max, cv int }{
		{1, 1, 15, 0}, {2, 1, 15, 1}, {16, 1, 15, 15}, {15, 1, 15, 14}, {5, 2, 15, 2}, {9, 4, 15, 2}, {6, 1, 4, 15},
	} {
		if got := CountdownValue(tc.rem, tc.nts, tc.max); int(got) != tc.cv {
			t.Errorf("%+v: %d", tc, got)
		}
	}
}

// The MS side parses what the network encodes (all coding schemes).
func TestDLBlocksParse(t *testing.T) {
	for cs := CS1; cs <= MCS9; cs++ {
		src := &sliceSource{frames: [][]byte{frame(7, 1), frame(9, 2)}}
		var units [2][]byte
		var e [2]bool
		var fbi [2]bool
		for i := 0; i < cs.DataUnits(); i++ {
			units[i] = make([]byte, cs.DataLen())
			var u DLUnit
			u.Reset(units[i], cs.IsEGPRS())
			if i == 0 {
				u.Append(frame(7, 1), false)
				fbi[i] = FillUnit(&u, &sliceSource{frames: [][]byte{frame(9, 2)}})
			} else {
				fbi[i] = FillUnit(&u, src)
			}
			e[i] = u.E()
		}
		b := make([]byte, cs.BlockLen(false))
		var chunks [][]byte
		if cs.IsGPRS() {
			h := GPRSDLHeader{TFI: 3, BSN: 9, E: e[0], FBI: fbi[0]}
			copy(b[GPRSHeaderLen:], units[0])
			EncodeGPRSDL(b, cs, &h, nil)
			var blk GPRSDLBlock
			if err := blk.Parse(b); err != nil {
				t.Fatalf("%v: %v", cs, err)
			}
			for _, c := range blk.Unit.Chunks[:blk.Unit.N] {
				chunks = append(chunks, blk.Data[c.Off:c.Off+c.Len])
			}
		} else {
			cps, _ := EncodeCPS(cs, PS1, PS1, false)
			h := EGPRSDLHeader{TFI: 3, BSN1: 9, BSN2: 10, CPS: cps, E: e, FBI: fbi}
			if _, err := EncodeEGPRSDL(b, cs, &h, units[0], units[1]); err != nil {
				t.Fatal(err)
			}
			var blk EGPRSDLBlock
			if err := blk.Parse(b); err != nil {
				t.Fatalf("%v: %v", cs, err)
			}
			if blk.Header.BSN1 != 9 || (cs.DataUnits() == 2 && blk.Header.BSN2 != 10) || blk.Header.FBI != fbi {
				t.Fatalf("%v: %+v", cs, blk.Header)
			}
			for i := 0; i < blk.NUnits; i++ {
				for _, c := range blk.Unit[i].Chunks[:blk.Unit[i].N] {
					chunks = append(chunks, blk.Data[i][c.Off:c.Off+c.Len])
				}
			}
		}
		if len(chunks) < 2 || !bytes.Equal(chunks[0], frame(7, 1)) || !bytes.Equal(chunks[1], frame(9, 2)) {
			t.Fatalf("%v: chunks %x", cs, chunks)
		}
	}
}
