package sgsnemu

import (
	"net/netip"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gopcu/gopcu/bssgp"
	"github.com/gopcu/gopcu/bssgp/ns"
	"github.com/gopcu/gopcu/internal/emu/btsemu"
	"github.com/gopcu/gopcu/internal/testutil"
	"github.com/gopcu/gopcu/internal/testutil/btstest"
	"github.com/gopcu/gopcu/internal/testutil/enginetest"
	"github.com/gopcu/gopcu/internal/testutil/netnstest"
	"github.com/gopcu/gopcu/pcu"
	"github.com/gopcu/gopcu/pcu/driver"
	"github.com/gopcu/gopcu/pcu/pcuif"
)

// gbOutcome is what an SGSN sees of a BSS in gbConformance.
type gbOutcome struct {
	SizeIP4   int            // endpoints announced in SNS-SIZE
	BSSEPs    []ns.IPElement // SNS-CONFIG from the BSS
	PTPStatus []bssgp.Cause  // STATUS for the PTP PDUs sent before the BVC-UNBLOCK-ACK
	Paged     bool           // the PAGING-PS of that time reached the PCH
	IMSIErr   []bssgp.Cause  // STATUS for the DL-UNITDATA with a 4-digit IMSI
	AddKnown  SNSAck         // SNS-ADD of the SGSN's configured endpoint
	AddNew    SNSAck         // SNS-ADD of a new endpoint
	Delete    SNSAck         // SNS-DELETE of that endpoint
}

// gbConformance runs an IP-SNS SGSN (the emulator on 127.0.0.1:23000 of
// namespace n) against a BSS started by start, whose BTS is bts (INFO_IND
// with only a local port, 23001, for the NS-VC, as OsmoBTS sends it):
// issue 14 items 14-16 and the TTCN-3 testcases TC_sns_po_config_success,
// TC_sns_add_nack, TC_sns_del, TC_bssgp_dl_unitdata_with_invalid_imsi.
func gbConformance(t *testing.T, n *netnstest.NS, bts *btsemu.BTS, start func()) gbOutcome {
	t.Helper()
	var mu sync.Mutex
	var status []bssgp.Cause
	unblock := make(chan struct{}, 1)
	var sg *Server
	if err := n.Do(func() (err error) {
		sg, err = Listen(netip.MustParseAddrPort("127.0.0.1:23000"), Config{HoldUnblockAck: true}, Callbacks{
			PDU: func(bvci uint16, p bssgp.PDU, now time.Duration) {
				if st, ok := p.(*bssgp.Status); ok {
					mu.Lock()
					status = append(status, st.Cause)
					mu.Unlock()
				}
			},
			BVCState: func(bvci uint16, up bool, now time.Duration) {
				if bvci == 1800 && up {
					select {
					case unblock <- struct{}{}:
					default:
					}
				}
			},
		})
		return err
	}); err != nil {
		t.Fatal(err)
	}
	defer sg.Close()
	takeStatus := func() []bssgp.Cause {
		mu.Lock()
		defer mu.Unlock()
		s := status
		status = nil
		return s
	}
	start()
	select {
	case <-unblock: // the BSS sent BVC-UNBLOCK; its ACK is held back
	case <-time.After(20 * time.Second):
		t.Fatal("no BVC-UNBLOCK for BVCI 1800")
	}
	var o gbOutcome
	sg.Do(func(s *SGSN, now time.Duration) { o.SizeIP4, o.BSSEPs = s.SNSSizeIP4, s.SNSBSSEndpoints() })
	takeStatus()
	pch := func() bool {
		for _, d := range bts.CCCH() {
			if d.SAPI == pcuif.SAPIPCH {
				return true
			}
		}
		return false
	}
	send := func(bvci uint16, p bssgp.PDU) {
		t.Helper()
		var err error
		sg.Do(func(s *SGSN, now time.Duration) { err = s.SendPDU(bvci, p) })
		if err != nil {
			t.Fatal(err)
		}
	}
	// PTP PDUs that overtake the BVC-UNBLOCK-ACK.
	imsi, _ := bssgp.EncodeIMSI("901700000000042")
	send(1800, &bssgp.PagingPS{IMSI: imsi, Area: bssgp.PagingArea{BVCI: 1800, HasBVCI: true}, PTMSI: 0xc0001234, HasTMSI: true})
	send(1800, &bssgp.DLUnitdata{TLLI: 0xc0000002, PDULifetime: 1000, Alignment: -1, LLC: []byte{1, 2, 3}})
	o.Paged = testutil.Poll(2*time.Second, pch)
	// a STATUS would have come by now: an absence is waited for in real
	// time, on purpose
	time.Sleep(300 * time.Millisecond)
	o.PTPStatus = takeStatus()
	send(0, &bssgp.BVCUnblockAck{BVCI: 1800})
	// DL-UNITDATA with IMSI '1122'H.
	short, _ := bssgp.EncodeIMSI("1122")
	send(1800, &bssgp.DLUnitdata{TLLI: 0xc0000003, PDULifetime: 1000, Alignment: -1, IMSI: short, LLC: []byte{1, 2, 3}})
	testutil.Poll(2*time.Second, func() bool { o.IMSIErr = takeStatus(); return len(o.IMSIErr) > 0 })
	// SNS procedures of the SGSN.
	sns := func(f func(s *SGSN) (uint8, error)) SNSAck {
		t.Helper()
		var tid uint8
		var err error
		sg.Do(func(s *SGSN, now time.Duration) { tid, err = f(s) })
		if err != nil {
			t.Fatal(err)
		}
		var a *SNSAck
		testutil.Eventually(t, 2*time.Second, func() bool {
			sg.Do(func(s *SGSN, now time.Duration) {
				for i := range s.SNSAcks {
					if s.SNSAcks[i].TransactionID == tid {
						a = &s.SNSAcks[i]
					}
				}
			})
			return a != nil
		}, "no SNS-ACK for transaction %d", tid)
		return *a
	}
	known := ns.IPElement{Addr: netip.MustParseAddr("127.0.0.1"), Port: 23000, SigWeight: 0, DataWeight: 1}
	fresh := ns.IPElement{Addr: netip.MustParseAddr("127.0.0.1"), Port: 23002, SigWeight: 0, DataWeight: 1}
	o.AddKnown = sns(func(s *SGSN) (uint8, error) { return s.SNSAdd(known) })
	o.AddNew = sns(func(s *SGSN) (uint8, error) { return s.SNSAdd(fresh) })
	o.Delete = sns(func(s *SGSN) (uint8, error) { return s.SNSDelete(fresh) })
	return o
}

// wantGb is what both PCUs do (the values the TTCN-3 testcases expect).
func wantGb(tid0 uint8) gbOutcome {
	fresh := ns.IPElement{Addr: netip.MustParseAddr("127.0.0.1"), Port: 23002, SigWeight: 0, DataWeight: 1}
	return gbOutcome{
		SizeIP4:  1,
		BSSEPs:   []ns.IPElement{{Addr: netip.MustParseAddr("127.0.0.1"), Port: 23001, SigWeight: 1, DataWeight: 1}},
		Paged:    true,
		IMSIErr:  []bssgp.Cause{bssgp.CauseConditionalIEError},
		AddKnown: SNSAck{TransactionID: tid0, Cause: ns.CauseProtocolErrorUnspec, HasCause: true},
		AddNew:   SNSAck{TransactionID: tid0 + 1},
		Delete:   SNSAck{TransactionID: tid0 + 2, IP4: []ns.IPElement{fresh}},
	}
}

func TestGbConformanceGopcu(t *testing.T) {
	t.Parallel() // its own network namespace
	n := netnstest.New(t)
	dir := t.TempDir()
	path := filepath.Join(dir, "pcu_bts")
	bts := btstest.Listen(t, btsemu.Config{Path: path, Version: pcuif.V10})
	got := gbConformance(t, n, bts, func() {
		p := pcu.DefaultParams()
		p.GbDialect = "ip-sns"
		eng := pcu.New(pcu.Config{SocketPath: path, MinBackoff: 20 * time.Millisecond, Gb: true, Params: &p})
		enginetest.Run(t, eng, driver.Options{ListenUDP: n.ListenNS})
	})
	if want := wantGb(1); !reflect.DeepEqual(got, want) {
		t.Errorf("gopcu:\n got %+v\nwant %+v", got, want)
	}
}

// wantOsmoPCU110 is what Debian's osmo-pcu 1.1.0 with libosmogb 1.7.0
// answers: the same except for the SNS-ACKs to SNS-ADD, where that
// libosmogb neither refuses an endpoint it has nor leaves the IP4 list out
// (both came later in ns2_sns_st_configured_add; the TTCN-3 TC_sns_add and
// TC_sns_add_nack expect the newer behaviour, which gopcu has).
func wantOsmoPCU110(tid0 uint8) gbOutcome {
	w := wantGb(tid0)
	known := ns.IPElement{Addr: netip.MustParseAddr("127.0.0.1"), Port: 23000, SigWeight: 0, DataWeight: 1}
	w.AddKnown = SNSAck{TransactionID: tid0, IP4: []ns.IPElement{known}}
	w.AddNew = SNSAck{TransactionID: tid0 + 1, IP4: w.Delete.IP4}
	return w
}

// TestGbConformanceOsmoPCU runs the same script against Debian's osmo-pcu
// 1.1.0: the same answers but for SNS-ADD (wantOsmoPCU110).
func TestGbConformanceOsmoPCU(t *testing.T) {
	t.Parallel()
	bin := testutil.NeedBinary(t, "osmo-pcu")
	n := netnstest.New(t)
	dir := t.TempDir()
	cfg := "log stderr\n logging filter all 1\n logging level set-all notice\nline vty\n bind 127.0.0.1\n" +
		"pcu\n pcu-socket pcu_bts\n gb-dialect ip-sns\n"
	if err := os.WriteFile(filepath.Join(dir, "osmo-pcu.cfg"), []byte(cfg), 0o644); err != nil {
		t.Fatal(err)
	}
	bts := btstest.Listen(t, btsemu.Config{Path: filepath.Join(dir, "pcu_bts"), Version: pcuif.V10})
	t.Cleanup(func() {
		if t.Failed() {
			log, _ := os.ReadFile(filepath.Join(dir, "osmo-pcu.log"))
			t.Logf("osmo-pcu log:\n%s", lastLines(string(log), 400))
		}
	})
	got := gbConformance(t, n, bts, func() { n.Start(dir, "osmo-pcu.log", bin, "-c", "osmo-pcu.cfg") })
	if want := wantOsmoPCU110(1); !reflect.DeepEqual(got, want) {
		t.Errorf("osmo-pcu:\n got %+v\nwant %+v", got, want)
	}
}

func lastLines(s string, n int) string {
	l := strings.Split(s, "\n")
	if len(l) > n {
		l = l[len(l)-n:]
	}
	return strings.Join(l, "\n")
}
