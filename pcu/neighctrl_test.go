package pcu

import (
	"bufio"
	"bytes"
	"testing"

	"github.com/gopcu/gopcu/bssgp"
)

// TestCtrlFraming: osmo-pcu 1.1.0's CTRL command in IPA framing (2-octet
// length, protocol 0xEE, extension 0x00 = CTRL) and osmo_cgi_ps_name
// replies.
func TestCtrlFraming(t *testing.T) {
	b := ipaCtrlFrame("GET 88010 neighbor_resolve_cgi_ps_from_lac_ci.1.6969.880.10")
	if !bytes.Equal(b[:4], []byte{0x00, 0x3c, 0xee, 0x00}) {
		t.Fatalf("header % x", b[:4])
	}
	s, err := readIPACtrl(bufio.NewReader(bytes.NewReader(append([]byte{0, 1, 0xfe, 7}, b...)))) // an IPA PONG-like frame first
	if err != nil || s != "GET 88010 neighbor_resolve_cgi_ps_from_lac_ci.1.6969.880.10" {
		t.Fatalf("%q %v", s, err)
	}
	if ctrlID(neighKey{ARFCN: 880, BSIC: 10}) != 88010 {
		t.Fatal("id")
	}
	for in, want := range map[string]bssgp.CellID{
		"901-70-2-3-7000":         {RAI: bssgp.RAI{MCC: 901, MNC: 70, LAC: 2, RAC: 3}, CI: 7000},
		"001-001-1-0-1\n":         {RAI: bssgp.RAI{MCC: 1, MNC: 1, MNC3Digits: true, LAC: 1}, CI: 1},
		"262-042-65535-255-65535": {RAI: bssgp.RAI{MCC: 262, MNC: 42, MNC3Digits: true, LAC: 65535, RAC: 255}, CI: 65535},
	} {
		if got, ok := parseCGIPS(in); !ok || got != want {
			t.Errorf("%q: %+v %v", in, got, ok)
		}
	}
	for _, bad := range []string{"", "No target CGI PS found", "1-2-3-4", "1-2-3-256-5", "1-2-3-4-5-6", "a-b-c-d-e"} {
		if _, ok := parseCGIPS(bad); ok {
			t.Errorf("%q accepted", bad)
		}
	}
}

func FuzzCtrlReply(f *testing.F) {
	f.Add([]byte("\x00\x2bGET_REPLY 88010 neighbor_resolve_cgi_ps_from_lac_ci.1.6969.880.10 901-70-2-3-7000"))
	f.Add(ipaCtrlFrame("ERROR 1203 No target CGI PS found"))
	f.Fuzz(func(t *testing.T, b []byte) {
		r := bufio.NewReader(bytes.NewReader(b))
		for i := 0; i < 4; i++ {
			s, err := readIPACtrl(r)
			if err != nil {
				return
			}
			_, _ = parseCGIPS(s)
		}
	})
}
