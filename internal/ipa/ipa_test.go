package ipa

import (
	"bufio"
	"bytes"
	"testing"
)

// TestCtrlFraming: osmo-pcu 1.1.0's CTRL command in IPA framing (2-octet
// length, protocol 0xEE, extension 0x00 = CTRL), and frames of other IPA
// protocols skipped on receive.
func TestCtrlFraming(t *testing.T) {
	b := CtrlFrame("GET 88010 neighbor_resolve_cgi_ps_from_lac_ci.1.6969.880.10")
	if !bytes.Equal(b[:4], []byte{0x00, 0x3c, 0xee, 0x00}) {
		t.Fatalf("header % x", b[:4])
	}
	s, err := ReadCtrl(bufio.NewReader(bytes.NewReader(append([]byte{0, 1, 0xfe, 7}, b...)))) // an IPA PONG-like frame first
	if err != nil || s != "GET 88010 neighbor_resolve_cgi_ps_from_lac_ci.1.6969.880.10" {
		t.Fatalf("%q %v", s, err)
	}
}

func FuzzCtrlReply(f *testing.F) {
	f.Add([]byte("\x00\x2bGET_REPLY 88010 neighbor_resolve_cgi_ps_from_lac_ci.1.6969.880.10 901-70-2-3-7000"))
	f.Add(CtrlFrame("ERROR 1203 No target CGI PS found"))
	f.Fuzz(func(t *testing.T, b []byte) {
		r := bufio.NewReader(bytes.NewReader(b))
		for i := 0; i < 4; i++ {
			if _, err := ReadCtrl(r); err != nil {
				return
			}
		}
	})
}
