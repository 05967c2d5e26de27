package tlv

import (
	"bytes"
	"testing"
)

func TestHdr(t *testing.T) {
	for _, c := range []struct {
		f    Form
		n    int
		want []byte
	}{
		{TLV, 0, []byte{7, 0x80}},
		{TLV, 127, []byte{7, 0xff}},
		{TLV, 128, []byte{7, 0x00, 0x80}},
		{TLV, 0x7fff, []byte{7, 0x7f, 0xff}},
		{TL16, 3, []byte{7, 0x00, 0x03}},
		{TV, 2, []byte{7}},
	} {
		b := make([]byte, 3)
		n := PutHdr(b, 7, c.f, c.n)
		if n != HdrLen(c.f, c.n) || !bytes.Equal(b[:n], c.want) {
			t.Errorf("%v %d: % x (%d)", c.f, c.n, b[:n], n)
		}
		if c.f == TV {
			continue
		}
		l, val, why := ReadLen(b[:n], 1)
		if l != c.n || val != n || why != "" {
			t.Errorf("%v %d: read %d %d %q", c.f, c.n, l, val, why)
		}
	}
	if _, _, why := ReadLen([]byte{7}, 1); why != LenMissing {
		t.Error(why)
	}
	if _, _, why := ReadLen([]byte{7, 0x00}, 1); why != LenTruncated {
		t.Error(why)
	}
}

// TestEnc: counting (B nil) and writing walk the same octets.
func TestEnc(t *testing.T) {
	walk := func(e *Enc) {
		e.Hdr(4, TLV, 2)
		e.BE(0x04d2, 2)
		e.Raw(0x07)
		e.Hdr(0x0e, TL16, 1)
		e.BE(0xc0001234, 4)
	}
	count := Enc{N: 1}
	walk(&count)
	b := make([]byte, count.N)
	w := Enc{B: b, N: 1}
	walk(&w)
	if want := []byte{0, 4, 0x82, 0x04, 0xd2, 0x07, 0x0e, 0x00, 0x01, 0xc0, 0x00, 0x12, 0x34}; w.N != count.N || !bytes.Equal(b, want) {
		t.Fatalf("% x (%d, counted %d), want % x", b, w.N, count.N, want)
	}
}
