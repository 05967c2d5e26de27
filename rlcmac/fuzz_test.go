package rlcmac

import (
	"bytes"
	"encoding/hex"
	"testing"

	"github.com/gopcu/gopcu/internal/testutil"
)

func addGoldenSeeds(f *testing.F, ul bool) {
	for _, g := range goldenCtrls {
		if g.ul == ul {
			b, _ := hex.DecodeString(g.hex)
			f.Add(b)
		}
	}
}

// ctrlBlock is a decoded control block, for testutil.Reencode.
type ctrlBlock[H any] struct {
	h H
	m Message
}

// fuzzControl: decode (DecodeDL, DecodeUL) never panics; decode -> encode
// -> decode -> encode is stable where the decoded block encodes (not e.g.
// with content beyond a 23-octet block).
func fuzzControl[H any](f *testing.F, ul bool, dec func([]byte) (H, Message, error), enc func([]byte, *H, Message) (int, error)) {
	addGoldenSeeds(f, ul)
	encode := func(c ctrlBlock[H]) ([]byte, error) {
		out := make([]byte, ControlBlockLen)
		_, err := enc(out, &c.h, c.m)
		return out, err
	}
	decode := func(b []byte) (ctrlBlock[H], error) {
		h, m, err := dec(b)
		return ctrlBlock[H]{h, m}, err
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		if c, err := decode(b); err == nil {
			_ = testutil.Reencode(t, c, encode, decode)
		}
	})
}

// FuzzControlDL: downlink control blocks (fuzzControl).
func FuzzControlDL(f *testing.F) { fuzzControl(f, false, DecodeDL, EncodeDL) }

// FuzzControlUL is FuzzControlDL for uplink blocks.
func FuzzControlUL(f *testing.F) { fuzzControl(f, true, DecodeUL, EncodeUL) }

// FuzzCCCH covers Immediate Assignment, IA Reject and Paging Request Type 1.
func FuzzCCCH(f *testing.F) {
	for _, s := range []string{"2d063f100ee3677860660000c800300b2b2b2b2b2b2b2b", "2d063f300d236d7f03182300dffffffff81747080b5b2b",
		"2d063f100d236d7f031823004697400b582b2b2b2b2b2b", "4d063a107f0064147f0064147f0064147f006414c02b2b",
		"25062100" + "05f41122334427" + "2b2b2b2b2b2b2b2b2b2b2b2b"} {
		b, _ := hex.DecodeString(s)
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		out := make([]byte, MACBlockLen)
		var ia ImmediateAssignment
		if DecodeImmediateAssignment(b, &ia) == nil && ia.Rest.Kind != IAROther {
			if _, err := EncodeImmediateAssignment(out, &ia); err == nil {
				var ia2 ImmediateAssignment
				if err := DecodeImmediateAssignment(out, &ia2); err != nil || ia2 != ia {
					t.Fatalf("IA unstable: %+v vs %+v (%v)", ia, ia2, err)
				}
			}
		}
		var rej ImmediateAssignmentReject
		if DecodeImmediateAssignmentReject(b, &rej) == nil {
			if _, err := EncodeImmediateAssignmentReject(out, &rej); err == nil {
				var rej2 ImmediateAssignmentReject
				if err := DecodeImmediateAssignmentReject(out, &rej2); err != nil || rej2 != rej {
					t.Fatalf("IAR unstable: %+v vs %+v (%v)", rej, rej2, err)
				}
			}
		}
		var p PagingRequestType1
		_ = DecodePagingRequestType1(b, &p)
	})
}

// FuzzDataBlocks: GPRS/EGPRS data block parsing never panics; EGPRS headers
// survive encode -> parse.
func FuzzDataBlocks(f *testing.F) {
	f.Add([]byte{0x00, 0x0e, 0x00, 0x29, 0xc0, 0x01, 0x02, 0x03}, uint8(0))
	f.Add(bytes.Repeat([]byte{0x55}, 155), uint8(8))
	f.Add(bytes.Repeat([]byte{0x01}, 27), uint8(4))
	f.Fuzz(func(t *testing.T, b []byte, sel uint8) {
		var g GPRSULBlock
		_ = g.Parse(b)
		var e EGPRSULBlock
		_ = e.Parse(b)
		var d EGPRSDLBlock
		_ = d.Parse(b)
		var u ULUnit
		_ = ParseULUnit(b, sel&1 == 1, sel&2 != 0, sel&4 != 0, false, sel&8 != 0, &u)
		// Header round trip for the MCS chosen by sel.
		cs := MCS1 + CodingScheme(sel%9)
		if len(b) < 8 {
			return
		}
		cps, _ := EncodeCPS(cs, int(b[0]%3), int(b[1]%3), false)
		if cs == MCS1 || cs == MCS2 || cs == MCS5 {
			cps, _ = EncodeCPS(cs, int(b[0]%2), 0, false)
		}
		h := EGPRSULHeader{R: b[2]&1 == 1, SI: b[2]&2 != 0, CV: b[3] & 15, TFI: b[4] & 31,
			BSN1: uint16(b[5])<<3 | uint16(b[6]&7), CPS: cps, RSB: b[7]&1 == 1, E: [2]bool{true, true}}
		if cs.HeaderType() == HeaderEGPRS1 {
			h.BSN2 = (h.BSN1 + uint16(b[6])) & 2047
		}
		if cs.HeaderType() == HeaderEGPRS3 {
			h.SPB = b[7] >> 6
		}
		u1 := bytes.Repeat([]byte{b[0]}, cs.DataLen())
		u2 := bytes.Repeat([]byte{b[1]}, cs.DataLen())
		blk := make([]byte, cs.BlockLen(true))
		if _, err := EncodeEGPRSUL(blk, cs, &h, u1, u2); err != nil {
			t.Fatal(err)
		}
		var p EGPRSULBlock
		if err := p.Parse(blk); err != nil {
			t.Fatalf("%v: %v", cs, err)
		}
		if p.Header.BSN1 != h.BSN1 || p.Header.BSN2 != h.BSN2 || p.Header.CV != h.CV || p.Header.TFI != h.TFI ||
			p.Header.CPS != h.CPS || p.Header.SPB != h.SPB || !bytes.Equal(p.Data[0][:cs.DataLen()], u1) ||
			(cs.DataUnits() == 2 && !bytes.Equal(p.Data[1][:cs.DataLen()], u2)) {
			t.Fatalf("%v: %+v vs %+v", cs, p.Header, h)
		}
	})
}

// FuzzCRBB: decompression never panics; compression round-trips.
func FuzzCRBB(f *testing.F) {
	for _, v := range crbbVectors {
		b, _ := hex.DecodeString(v.crbb)
		f.Add(b, uint8(v.crbbLen), v.ones)
	}
	f.Fuzz(func(t *testing.T, b []byte, n uint8, ones bool) {
		var out [256]byte
		_, _ = DecompressCRBB(b, int(n&127), ones, out[:])
		// Compress b as a bitmap.
		if len(b) == 0 || len(b) > 128 {
			return
		}
		var c [16]byte
		cb, ub, start, _ := CompressRBB(b, len(b)*8, c[:], 127)
		if cb == 0 {
			return
		}
		nn, err := DecompressCRBB(c[:], cb, start, out[:])
		if err != nil || nn != ub {
			t.Fatalf("round trip: %d/%d %v", nn, ub, err)
		}
		for i := 0; i < ub; i++ {
			if (out[i/8]>>(7-uint(i%8)))&1 != (b[i/8]>>(7-uint(i%8)))&1 {
				t.Fatalf("bit %d differs", i)
			}
		}
	})
}

// FuzzSI13: any 23 octets decode or fail cleanly, never panic; valid SI13
// blocks are the seeds.
func FuzzSI13(f *testing.F) {
	for _, c := range si13Cases {
		f.Add(si13Block(f, c.s, c.ma))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		if s, err := DecodeSI13(b); err == nil {
			_ = s.T3168() + s.T3192()
		}
	})
}
