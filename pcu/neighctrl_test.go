package pcu

import (
	"testing"

	"github.com/gopcu/gopcu/bssgp"
	"github.com/gopcu/gopcu/pcu/nacc"
)

// TestCtrlReplies: osmo-pcu 1.1.0's CTRL ids and osmo_cgi_ps_name
// replies (the IPA framing is the driver's: pcu/driver TestCtrlFraming).
func TestCtrlReplies(t *testing.T) {
	if ctrlID(nacc.Key{ARFCN: 880, BSIC: 10}) != 88010 {
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
