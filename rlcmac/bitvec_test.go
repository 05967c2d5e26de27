package rlcmac

import (
	"bytes"
	"errors"
	"testing"
)

func TestBitVecReadWrite(t *testing.T) {
	var b [4]byte
	v := NewBitVec(b[:])
	for _, f := range []struct {
		x uint64
		n int
	}{{1, 2}, {0x1F, 5}, {0, 1}, {0xABC, 12}, {0x5, 3}, {0x3, 9}} {
		if err := v.Write(f.x, f.n); err != nil {
			t.Fatal(err)
		}
	}
	if v.Pos() != 32 {
		t.Fatalf("pos %d", v.Pos())
	}
	// 01 11111 0 1010 1011 1100 101 000000011
	want := []byte{0x7E, 0xAB, 0xCA, 0x03}
	if !bytes.Equal(b[:], want) {
		t.Fatalf("got % x want % x", b, want)
	}
	r := NewBitVec(b[:])
	if x, _ := r.Peek(8); x != 0x7E {
		t.Fatalf("peek %x", x)
	}
	for _, f := range []struct {
		x uint64
		n int
	}{{1, 2}, {0x1F, 5}, {0, 1}, {0xABC, 12}, {0x5, 3}, {0x3, 9}} {
		x, err := r.Read(f.n)
		if err != nil || x != f.x {
			t.Fatalf("read %d bits: %x %v want %x", f.n, x, err, f.x)
		}
	}
	if _, err := r.Read(1); !errors.Is(err, ErrShort) {
		t.Fatalf("want ErrShort, got %v", err)
	}
	if err := v.Write(1, 1); !errors.Is(err, ErrOverflow) {
		t.Fatalf("want ErrOverflow, got %v", err)
	}
}

// L/H is relative to 0x2B at the absolute bit position (TS 44.018 §10.5.1.3 note).
func TestBitVecLHAndPadding(t *testing.T) {
	var b [3]byte
	v := NewBitVec(b[:])
	// 0x2B = 0010 1011: writing L everywhere yields 0x2B.
	for i := 0; i < 8; i++ {
		_ = v.WriteLH(0)
	}
	// H everywhere yields the complement.
	for i := 0; i < 8; i++ {
		_ = v.WriteLH(1)
	}
	_ = v.Write(1, 1)
	v.PadSpare()
	want := []byte{0x2B, 0xD4, 0x80 | 0x2B&0x7F}
	if !bytes.Equal(b[:], want) {
		t.Fatalf("got % x want % x", b, want)
	}
	r := NewBitVec(b[:])
	for i := 0; i < 16; i++ {
		h, _ := r.ReadLH()
		if want := uint8(i / 8); h != want {
			t.Fatalf("bit %d: LH %d want %d", i, h, want)
		}
	}
}

func TestCoderErrorCarriesOffset(t *testing.T) {
	b := []byte{0x40, 0x94}
	c := NewDecoder(b)
	var x uint32
	c.U32(&x, 16, "first")
	c.U32(&x, 8, "second")
	var be *BitError
	if !errors.As(c.Err(), &be) || be.Off != 16 || be.Field != "second" || !errors.Is(c.Err(), ErrShort) {
		t.Fatalf("unexpected error %v", c.Err())
	}
	if got := c.Err().Error(); got != "rlcmac: not enough bits at bit 16 (second)" {
		t.Fatalf("message %q", got)
	}
}
