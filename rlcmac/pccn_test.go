package rlcmac

import (
	"errors"
	"reflect"
	"testing"
)

// TestPCCNTargets round-trips the GSM, 3G and Rel-8 target structs of a
// Packet Cell Change Notification (TS 44.060 §11.2.3a) and refuses a CSG
// target ("1110", not supported, as osmo-pcu).
func TestPCCNTargets(t *testing.T) {
	for _, m := range []*PacketCellChangeNotification{
		{GlobalTFI: GlobalTFI{TFI: 4}, ARFCN: 880, BSIC: 10, RXLevServing: 30},
		{GlobalTFI: GlobalTFI{Downlink: true, TFI: 2}, Target: PCCNTarget3G, Has3G: true,
			UTRAN: PCCN3GTarget{HasFDD: true, HasFDDBandwidth: true, FDDBandwidth: 2, FDDARFCN: 10700, ScramblingCode: 300,
				HasTDD: true, TDDARFCN: 9000, CellParameter: 99, SyncCase: 1, ReportingQuantity: 40}, RXLevServing: 20},
		{GlobalTFI: GlobalTFI{TFI: 3}, Target: PCCNTargetRel8, HasGSM: true, ARFCN: 871, BSIC: 63,
			HasEUTRAN: true, EUTRAN: PCCNEUTRANTarget{EARFCN: 6300, HasBandwidth: true, Bandwidth: 5, PCID: 101, ReportingQuantity: 33},
			HasEUTRANMeas: true, NEUTRANMeas: 2, EUTRANMeas: [4]PCCNEUTRANMeas{{1, 2, 3}, {4, 5, 6}}, PSI3: true, PSI3CM: 2, RXLevServing: 25},
	} {
		b := mustUL(t, m)
		_, got, err := DecodeUL(b)
		if err != nil {
			t.Fatalf("%+v: %v", m, err)
		}
		if !reflect.DeepEqual(got, m) {
			t.Errorf("round trip\n got %+v\nwant %+v", got, m)
		}
	}
	gsm := &PacketCellChangeNotification{Target: PCCNTargetGSM, ARFCN: 5, BSIC: 6}
	if a, b, ok := gsm.TargetGSM(); !ok || a != 5 || b != 6 {
		t.Error("GSM target not reported")
	}
	if _, _, ok := (&PacketCellChangeNotification{Target: PCCNTargetRel8, HasEUTRAN: true}).TargetGSM(); ok {
		t.Error("E-UTRAN target reported as GSM")
	}
	// CSG: message type, Global TFI "0 00000", then "1110"
	b := make([]byte, ControlBlockLen)
	b[0], b[1], b[2] = 0x40, MTPacketCellChangeNotification<<2, 0b0000_1110
	if _, _, err := DecodeUL(b); !errors.Is(err, ErrUnsupported) {
		t.Errorf("CSG target: %v", err)
	}
}
