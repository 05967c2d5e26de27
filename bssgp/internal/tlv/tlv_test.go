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
