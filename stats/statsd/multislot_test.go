package statsd

import (
	"strconv"
	"strings"
	"testing"

	"github.com/gopcu/gopcu/internal/emu/btsemu"
	"github.com/gopcu/gopcu/internal/emu/sgsnemu"
	"github.com/gopcu/gopcu/internal/testutil"
	"github.com/gopcu/gopcu/pcu/pcuif"
)

// dlSlotsScript: on a TRX with 8 PDCHs an MS of class 18 starts an upload
// (one-phase access: the PCU does not know its class); once its UL TBF is
// in FLOW the SGSN sends it data, with the MS Radio Access Capability
// (class 18) when withRAC, and the DL TBF goes on PACCH. It returns the
// number of timeslots of that DL TBF, from `show bts pdch` (dlCol: the
// column that counts DL TBFs, osmo-pcu 1.1.0 prints them as UL TBFs).
func dlSlotsScript(s *radioSide, withRAC bool, dlCol int) int {
	s.t.Helper()
	ms := s.cell.AddMS(0xc0001801, "901700000001801", 18)
	frame := make([]byte, 1000)
	frame[0], frame[1] = 0x03, 0xc0
	for range 20 {
		ms.SendLLC(frame)
	}
	s.stepUntil("UL TBF in FLOW", 2000, func() bool { return strings.Contains(s.show("show tbf all"), "state=FLOW") })
	if withRAC {
		s.sg.SetMSRAC(ms.TLLI, sgsnemu.MultislotRAC(18))
	}
	for range 20 {
		if err := s.sg.SendDLUnitdata(1800, ms.TLLI, ms.IMSI, frame); err != nil {
			s.t.Fatal(err)
		}
	}
	s.stepUntil("both TBFs in FLOW", 2000, func() bool { return strings.Count(s.show("show tbf all"), "state=FLOW") == 2 })
	n := 0
	for _, l := range strings.Split(s.show("show bts pdch"), "\n") {
		if m := pdchLine.FindStringSubmatch(strings.TrimRight(l, "\r")); m != nil {
			if v, _ := strconv.Atoi(m[dlCol]); v > 0 {
				n++
			}
		}
	}
	return n
}

func eightPDCHs() *pcuif.InfoInd {
	ii := btsemu.DefaultInfo(pcuif.V10)
	ii.TRX[0].PDCHMask = 0xff
	return ii
}

// TestDLSlotsForClass18AndUnknown (TTCN-3
// TC_dl_multislot_tbf_ms_class_from_sgsn, TC_dl_multislot_tbf_ms_class_unknown):
// a DL TBF for an MS whose class 18 came from the SGSN gets all 8 slots
// from gopcu and 4 from osmo-pcu 1.1.0; with the class unknown gopcu gives
// 1 slot, osmo-pcu 4 (its default class 12). gopcu is deliberately
// different here (docs/features.md).
func TestDLSlotsForClass18AndUnknown(t *testing.T) {
	t.Parallel()
	testutil.NeedBinaries(t, "osmo-pcu")
	testutil.NeedRoot(t, "network namespaces")
	for _, c := range []struct {
		name        string
		rac         bool
		osmo, gopcu int
	}{{"class 18 from the SGSN", true, 4, 8}, {"class unknown", false, 4, 1}} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			var ref, got int
			t.Run("sessions", func(t *testing.T) {
				t.Run("osmo-pcu", func(t *testing.T) {
					t.Parallel()
					ref = dlSlotsScript(osmoPCUSideInfo(t, eightPDCHs()), c.rac, 2)
				})
				t.Run("gopcu", func(t *testing.T) {
					t.Parallel()
					got = dlSlotsScript(gopcuSideWith(t, eightPDCHs(), nil), c.rac, 3)
				})
			})
			t.Logf("DL TBF slots: osmo-pcu %d, gopcu %d", ref, got)
			if ref != c.osmo || got != c.gopcu {
				t.Errorf("DL TBF slots: osmo-pcu %d (want %d), gopcu %d (want %d)", ref, c.osmo, got, c.gopcu)
			}
		})
	}
}
