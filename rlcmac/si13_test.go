package rlcmac

import (
	"errors"
	"testing"
	"time"

	"github.com/gopcu/gopcu/gsmtap"
)

// si13Block builds an SI13 message with the rest octets laid out as TS
// 44.018 §10.5.2.37b / TS 44.060 §12.24 specify (no PBCCH).
func si13Block(t testing.TB, s SI13, ma bool) []byte {
	t.Helper()
	b := make([]byte, MACBlockLen)
	b[0], b[1], b[2] = 0x01, 0x06, 0x00
	v := NewBitVec(b)
	v.SetPos(24)
	w := func(x uint8, n int) {
		if err := v.Write(uint64(x), n); err != nil {
			t.Fatal(err)
		}
	}
	bit := func(f bool) {
		if f {
			w(1, 1)
		} else {
			w(0, 1)
		}
	}
	if err := v.WriteLH(1); err != nil {
		t.Fatal(err)
	}
	w(s.BCCHChangeMark, 3)
	w(s.SIChangeField, 4)
	bit(ma)
	if ma {
		w(s.SI13ChangeMark, 2)
		w(12, 6)   // HSN
		w(1, 1)    // RFL number list
		w(3, 4)    // RFL_NUMBER
		w(0, 1)    // end of list
		w(0, 1)    // MA bitmap follows
		w(7, 6)    // MA_LENGTH: 8 bits
		w(0xa5, 8) // MA_BITMAP
	}
	w(0, 1) // no PBCCH
	w(s.RAC, 8)
	bit(s.SPGCCCCHSup)
	w(s.PriorityAccessThr, 3)
	w(s.NCO, 2)
	w(s.NMO, 2)
	w(s.T3168Code, 3)
	w(s.T3192Code, 3)
	w(s.DRXTimerMax, 3)
	bit(s.AccessBurstType)
	bit(s.ControlAckType)
	w(s.BSCVMax, 4)
	bit(s.HasPAN)
	if s.HasPAN {
		w(s.PANDec, 3)
		w(s.PANInc, 3)
		w(s.PANMax, 3)
	}
	bit(s.HasExt)
	if s.HasExt {
		if s.EGPRS {
			w(10, 6) // 11 bits: EGPRS, PCH_REQ, BEP(4), PFC, DTM, BSS paging, CCN, NW_EXT_UTBF
			w(1, 1)
			bit(!s.EGPRSPChReq)
			w(s.BEPPeriod, 4)
		} else {
			w(5, 6) // 6 bits: EGPRS 0, PFC, DTM, BSS paging, CCN, NW_EXT_UTBF
			w(0, 1)
		}
		w(0, 5)
	}
	w(s.Alpha, 4)
	w(s.TAvgW, 5)
	w(s.TAvgT, 5)
	bit(s.PCMeasChan)
	w(s.NAvgI, 4)
	v.PadSpare()
	return b
}

var si13Cases = []struct {
	name string
	s    SI13
	ma   bool
	t68  time.Duration
	t92  time.Duration
}{
	{"osmo-bsc GPRS", SI13{BCCHChangeMark: 1, RAC: 0, NMO: 1, T3168Code: 3, T3192Code: 0, DRXTimerMax: 3, BSCVMax: 15,
		HasPAN: true, PANDec: 1, PANInc: 1, PANMax: 5, HasExt: true, Alpha: 0, TAvgW: 16, TAvgT: 16, NAvgI: 15},
		false, 2000 * time.Millisecond, 500 * time.Millisecond},
	{"EGPRS with MA", SI13{SIChangeField: 2, SI13ChangeMark: 1, HasMA: true, RAC: 7, SPGCCCCHSup: true, PriorityAccessThr: 6,
		NCO: 0, NMO: 2, T3168Code: 7, T3192Code: 5, DRXTimerMax: 7, ControlAckType: true, BSCVMax: 10, HasExt: true,
		EGPRS: true, EGPRSPChReq: true, BEPPeriod: 5, Alpha: 10, TAvgW: 15, TAvgT: 5, PCMeasChan: true, NAvgI: 4},
		true, 4000 * time.Millisecond, 120 * time.Millisecond},
	{"no extension", SI13{NMO: 0, T3168Code: 0, T3192Code: 2, BSCVMax: 6, Alpha: 3}, false, 500 * time.Millisecond, 1500 * time.Millisecond},
}

func TestDecodeSI13(t *testing.T) {
	for _, c := range si13Cases {
		t.Run(c.name, func(t *testing.T) {
			want := c.s
			want.HasMA = c.ma
			if !c.ma {
				want.SI13ChangeMark = 0
			}
			got, err := DecodeSI13(si13Block(t, c.s, c.ma))
			if err != nil {
				t.Fatal(err)
			}
			if got != want {
				t.Fatalf("decoded\n%+v\nwant\n%+v", got, want)
			}
			if got.T3168() != c.t68 || got.T3192() != c.t92 {
				t.Fatalf("T3168 %v T3192 %v, want %v %v", got.T3168(), got.T3192(), c.t68, c.t92)
			}
		})
	}
	// not SI13, truncated rest octets, L instead of H
	b := si13Block(t, si13Cases[0].s, false)
	if _, err := DecodeSI13(b[:22]); !errors.Is(err, ErrNotSI13) {
		t.Fatalf("22 octets: %v", err)
	}
	si3 := append([]byte(nil), b...)
	si3[2] = 0x1b
	if _, err := DecodeSI13(si3); !errors.Is(err, ErrNotSI13) {
		t.Fatalf("SI3: %v", err)
	}
	l := append([]byte(nil), b...)
	l[3] ^= 0x80
	if _, err := DecodeSI13(l); err == nil {
		t.Fatal("rest octets starting with L decoded")
	}
}

// si13OracleCases are the SI13 blocks for tshark (BCCH), with the values
// its dissection must show.
func si13OracleCases(t *testing.T) []oracleCase {
	want := [][]string{
		{"System Information Type 13", "T3168: 2000 ms (3)", "T3192: 500 ms (0)", "BS CV Max: 15", "PAN Max: maximum value allowed for counter N3102 is 24 (5)"},
		{"T3168: 4000 ms (7)", "T3192: 120 ms (5)", "MA Bitmap: 10100101", "RAC: 7", "EGPRS: Supported by cell", "BEP Period: 7 (5)"},
		{"T3168: 500 ms (0)", "T3192: 1500 ms (2)", "BS CV Max: 6"},
	}
	var out []oracleCase
	for i, c := range si13Cases {
		out = append(out, oracleCase{"SI13 " + c.name, gsmtap.ChannelBCCH, false, si13Block(t, c.s, c.ma), want[i]})
	}
	return out
}
