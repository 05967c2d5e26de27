package bss

import (
	"bytes"
	"encoding/hex"
	"fmt"
	"github.com/gopcu/gopcu/bssgp"
	"net/netip"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/gopcu/gopcu/bssgp/ns"
	"github.com/gopcu/gopcu/bssgp/ns/nse"
	"github.com/gopcu/gopcu/internal/ratectr"
	"github.com/gopcu/gopcu/internal/testutil"
	"github.com/gopcu/gopcu/internal/testutil/bssrec"
	"github.com/gopcu/gopcu/stats/counter"
)

var sgsnAddr = netip.MustParseAddrPort("127.0.0.1:23000")

// labCell is the lab's cell (tests/lab), imsi1 an IMSI IE value (901700000000001).
var (
	labCell = bssgp.CellID{RAI: bssgp.RAI{MCC: 901, MNC: 70, LAC: 1, RAC: 0}, CI: 6969}
	imsi1   = []byte{0x99, 0x10, 0x07, 0x00, 0x00, 0x00, 0x00, 0x10}
)

type memTx struct{ out [][]byte }

func (m *memTx) Send(bind int, to netip.AddrPort, b []byte) error {
	m.out = append(m.out, append([]byte(nil), b...))
	return nil
}

func (m *memTx) take() []string {
	var s []string
	for _, b := range m.out {
		s = append(s, hex.EncodeToString(b))
	}
	m.out = nil
	return s
}

// recHandler is the engine of the Gb under test, with the flow control
// values it answers.
type recHandler struct {
	bssrec.Handler
	fc FlowParams
}

func (h *recHandler) FlowControl(now time.Duration) (FlowParams, bool) { return h.fc, true }

func expect(t *testing.T, got []string, want ...string) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("sent %v\nwant %v", got, want)
	}
	for i := range want {
		if w := strings.ReplaceAll(want[i], " ", ""); got[i] != w {
			t.Fatalf("sent[%d] %s\n   want %s", i, got[i], w)
		}
	}
}

// Capture values: NSEI/NSVCI 101, BVCI 1800, RAI 901-70-1-0, CI 6969;
// osmo-pcu's FLOW-CONTROL-BVC: Bmax 1000x100 octets, R 800x100 bit/s.
func labGb(t testing.TB) (*Gb, *memTx, *recHandler) {
	tx, h := &memTx{}, &recHandler{}
	h.fc = FlowParams{BucketOctets: 100000, LeakOctetsPerS: 10000, BmaxMSOctets: 100000, RMSOctetsPerS: 10000}
	g, err := New(Config{
		NS:     nse.Config{NSEI: 101, Endpoints: []nse.Endpoint{{NSVCI: 101, Remote: sgsnAddr}}},
		BVCI:   1800,
		CellID: labCell,
	}, tx, h, nil)
	if err != nil {
		t.Fatal(err)
	}
	return g, tx, h
}

func (g *Gb) inHex(s string, now time.Duration) { g.Input(0, sgsnAddr, testutil.MustHex(s), now) }

// TestBringUpCapture replays the SGSN side of the capture's start-up and
// checks that gopcu sends the same bytes as osmo-pcu 1.1.0.
func TestBringUpCapture(t *testing.T) {
	g, tx, h := labGb(t)
	g.Start(0)
	expect(t, tx.take(), "020081010182006504820065")
	g.inHex("030182006504820065", time.Millisecond)
	expect(t, tx.take(), "06", "0a")
	g.inHex("0a", time.Millisecond)
	expect(t, tx.take(), "0b")
	g.inHex("07", 3*time.Millisecond)
	expect(t, tx.take(), "000000002204820000078108")
	g.inHex("0b", 3*time.Millisecond)
	g.inHex("000000002304820000", 4*time.Millisecond)
	expect(t, tx.take(), "000000002204820708078108088809f1070001001b39")
	g.inHex("000000002304820708", 4*time.Millisecond)
	expect(t, tx.take(), "000000002404820708")
	g.inHex("000000002504820708", 4*time.Millisecond)
	expect(t, tx.take(), "00000708261e8101058203e803820320018203e81c82032006820000")
	if !g.Unblocked() || len(h.States) != 1 || !h.States[0] {
		t.Fatal("BVC not up", h.States)
	}
	g.inHex("00000708271e8101", 4*time.Millisecond)
	if len(h.Others) != 1 || h.Others[0] != bssgp.PDUFlowControlBVCAck {
		t.Fatal(h.Others)
	}
	// FLOW-CONTROL-BVC every flow-control-interval (1 s), tag incremented.
	if d, _ := g.NextDeadline(); d != time.Second+4*time.Millisecond {
		t.Fatalf("next deadline %v", d)
	}
	g.Tick(time.Second + 4*time.Millisecond)
	expect(t, tx.take(), "00000708261e8102058203e803820320018203e81c82032006820000")
}

func up(t testing.TB) (*Gb, *memTx, *recHandler) {
	g, tx, h := labGb(t)
	g.Start(0)
	for _, s := range []string{"030182006504820065", "07", "0b", "000000002304820000", "000000002304820708", "000000002504820708"} {
		g.inHex(s, 0)
	}
	tx.take()
	if !g.Unblocked() {
		t.Fatal("not up")
	}
	return g, tx, h
}

// Capture t=8.341: SGSN VTY "bssgp bvc nsei 101 bvci 1800 reset".
func TestSGSNResetPTP(t *testing.T) {
	g, tx, h := up(t)
	g.inHex("000000002204820708078108088809f1070001001b39", time.Second)
	expect(t, tx.take(), "000000002304820708088809f1070001001b39", "000000002404820708")
	if g.Unblocked() {
		t.Fatal("still unblocked")
	}
	g.inHex("000000002504820708", time.Second)
	expect(t, tx.take(), "00000708261e8102058203e803820320018203e81c82032006820000")
	if len(h.States) != 3 {
		t.Fatal(h.States)
	}
}

func TestSGSNResetSignalling(t *testing.T) {
	g, tx, _ := up(t)
	g.inHex("000000002204820000078101", time.Second) // cause 0x01 equipment failure
	expect(t, tx.take(), "000000002304820000", "000000002204820708078101088809f1070001001b39")
	g.inHex("000000002304820708", time.Second)
	expect(t, tx.take(), "000000002404820708")
}

// Capture t=14.393: SGSN VTY "nsvc 101 reset": NS comes back and both BVCs
// are reset again.
func TestNSResetRestartsBVC(t *testing.T) {
	g, tx, _ := up(t)
	g.inHex("020081010182006504820065", time.Second)
	expect(t, tx.take(), "030182006504820065", "06", "0a")
	if g.Unblocked() {
		t.Fatal("BVC up while NS blocked")
	}
	g.inHex("07", time.Second)
	expect(t, tx.take(), "000000002204820000078108")
}

func TestResetRetryT2(t *testing.T) {
	g, tx, _ := labGb(t)
	g.Start(0)
	g.inHex("030182006504820065", 0)
	g.inHex("07", 0)
	g.inHex("0b", 0)
	tx.take()
	g.Tick(30*time.Second - 1)
	expect(t, tx.take())
	g.Tick(30 * time.Second)
	expect(t, tx.take(), "0a", "000000002204820000078108")
}

func TestStatusHandling(t *testing.T) {
	g, tx, _ := up(t)
	// STATUS "BVCI blocked" for our BVCI: re-run UNBLOCK.
	g.inHex("00000000 41 078109 04820708", time.Second)
	expect(t, tx.take(), "000000002404820708")
	g.inHex("000000002504820708", time.Second)
	tx.take()
	// STATUS "Unknown BVCI": re-run PTP RESET.
	g.inHex("00000000 41 078105 04820708", time.Second)
	expect(t, tx.take(), "000000002204820708078108088809f1070001001b39")
}

func TestDLUnitdataAndPaging(t *testing.T) {
	g, tx, h := up(t)
	g.inHex("00000708 00 c0000002 000021 16820bb8 0d889910070000000010 0e0003 414243", time.Second)
	if len(h.DL) != 1 || h.DL[0].TLLI != 0xc0000002 || h.DL[0].PDULifetime != 3000 || string(h.LLC[0]) != "ABC" {
		t.Fatalf("%+v", h.DL)
	}
	g.inHex("00000000 06 0d889910070000000010 04820708 18830000 00", time.Second)
	g.inHex("00000708 07 0d889910070000000010 0a820000 04820708", time.Second)
	if len(h.PagesPS) != 1 || h.PagesPS[0] != "901700000000001" || h.PagesCS != 1 {
		t.Fatal(h.PagesPS, h.PagesCS)
	}
	expect(t, tx.take())
}

func TestULSend(t *testing.T) {
	g, _, _ := labGb(t)
	if err := g.SendULUnitdata(0xc0000001, []byte{1, 2, 3}, 0); err != ErrBVCBlocked {
		t.Fatal(err)
	}
	g, tx, _ := up(t)
	if err := g.SendULUnitdata(0xc0000001, []byte{1, 2, 3}, 0); err != nil {
		t.Fatal(err)
	}
	if err := g.SendLLCDiscarded(0xc0000001, 300, 1<<25, 0); err != nil {
		t.Fatal(err)
	}
	if err := g.SendSuspend(0xc0000001, labCell.RAI, 0); err != nil {
		t.Fatal(err)
	}
	b, l := MSFlowParams(5000, 100*time.Millisecond)
	if _, err := g.SendFlowControlMS(0xc0000001, b, l, 0); err != nil {
		t.Fatal(err)
	}
	expect(t, tx.take(),
		"00000708 01 c0000001 000004 0888 09f1070001001b39 0080 0e0003 010203",
		"00000000 2c 1f84c0000001 0f81ff 04820708 2583ffffff",
		"00000000 0b 1f84c0000001 1b8609f107000100",
		// bucket 500+1543 octets -> 21 units, 5000 octets/s -> 400 units
		"00000708 28 1f84c0000001 1e8101 12820015 03820190")
}

// badPDUs: malformed or unexpected PDUs from the SGSN and the STATUS cause
// they must get (TS 48.018 §8.7, osmo-pcu gprs_bssgp_pcu.c gprs_bssgp_pcu_rcvmsg()). The link stays up.
var badPDUs = []struct {
	name     string
	bvci     uint16
	pdu      string
	cause    bssgp.Cause
	withBVCI bool
}{
	{"DL-UNITDATA no LLC", 1800, "00 c0000002 000000 16820bb8", bssgp.CauseMissingMandatoryIE, false},
	{"DL-UNITDATA no lifetime", 1800, "00 c0000002 000000 0e0001ff", bssgp.CauseMissingMandatoryIE, false},
	{"DL-UNITDATA truncated header", 1800, "00 c00000", bssgp.CauseInvalidMandatoryInfo, false},
	{"DL-UNITDATA lifetime len 3", 1800, "00 c0000002 000000 16830bb800 0e0001ff", bssgp.CauseInvalidMandatoryInfo, false},
	{"DL-UNITDATA IE overruns PDU", 1800, "00 c0000002 000000 16820bb8 0e00ff41", bssgp.CauseInvalidMandatoryInfo, false},
	{"DL-UNITDATA IMSI is TMSI", 1800, "00 c0000002 000000 16820bb8 0d85f4deadbeef 0e0001ff", bssgp.CauseConditionalIEError, false},
	// TTCN-3 TC_bssgp_dl_unitdata_with_invalid_imsi: IMSI '1122'H (4 digits).
	{"DL-UNITDATA IMSI of 4 digits", 1800, "00 c0000002 000000 16820bb8 0d831121f2 0e0001ff", bssgp.CauseConditionalIEError, false},
	{"DL-UNITDATA even IMSI without filler", 1800, "00 c0000002 000000 16820bb8 0d8411213243 0e0001ff", bssgp.CauseConditionalIEError, false},
	{"DL-UNITDATA LLC too long", 1800, "00 c0000002 000000 16820bb8 0e0608" + strings.Repeat("00", 1544), bssgp.CauseConditionalIEError, false},
	{"DL-UNITDATA unknown BVCI", 1801, "00 c0000002 000000 16820bb8 0e0001ff", bssgp.CauseUnknownBVCI, true},
	{"DL-UNITDATA on PTM BVCI", 1, "00 c0000002 000000 16820bb8 0e0001ff", bssgp.CausePDUNotCompatibleFeat, true},
	{"PAGING-PS no IMSI", 0, "06 04820708 18830000 00", bssgp.CauseMissingMandatoryIE, false},
	{"PAGING-PS IMSI garbage", 0, "06 0d83f0ffff 04820708 18830000 00", bssgp.CauseInvalidMandatoryInfo, false},
	{"PAGING-PS IMSI of 4 digits", 0, "06 0d831121f2 04820708 18830000 00", bssgp.CauseInvalidMandatoryInfo, false},
	{"PAGING-PS TMSI len 2", 1800, "06 0d889910070000000010 04820708 18830000 00 2082dead", bssgp.CauseConditionalIEError, false},
	{"PAGING-PS no area", 0, "06 0d889910070000000010 18830000 00", bssgp.CauseMissingConditionalIE, false},
	{"PAGING-CS no DRX", 0, "07 0d889910070000000010 04820708", bssgp.CauseMissingMandatoryIE, false},
	{"BVC-RESET unknown BVCI", 0, "22 04820709 078108", bssgp.CauseUnknownBVCI, true},
	{"BVC-RESET no cause", 0, "22 04820000", bssgp.CauseMissingMandatoryIE, false},
	{"BVC-RESET BVCI len 3", 0, "22 0483000000 078108", bssgp.CauseInvalidMandatoryInfo, false},
	{"BVC-UNBLOCK-ACK other BVCI", 0, "25 04820709", bssgp.CauseUnknownBVCI, true},
	{"BVC-RESET-ACK empty", 0, "23", bssgp.CauseMissingMandatoryIE, false},
	{"SUSPEND-ACK no SRN", 0, "0c 1f84c0000002 1b8609f107000100", bssgp.CauseMissingMandatoryIE, false},
	{"FLUSH-LL no BVCI", 0, "2a 1f84c0000002", bssgp.CauseMissingMandatoryIE, false},
	{"signalling PDU on PTP", 1800, "0c 1f84c0000002 1b8609f107000100 1d8103", bssgp.CauseProtocolErrorUnspec, false},
	{"unknown PDU type", 0, "3f 04820708", bssgp.CauseProtocolErrorUnspec, false},
	{"IE list does not parse", 0, "3f 0000", bssgp.CauseInvalidMandatoryInfo, false},
	{"BVC-BLOCK from SGSN", 0, "20 04820708 078108", bssgp.CauseProtocolErrorUnspec, false},
	{"UL-UNITDATA from SGSN", 1800, "01 c0000001 000004 0888 09f1070001001b39 0e0001aa", bssgp.CauseProtocolErrorUnspec, false},
	{"RA-CAPABILITY no MS RAC", 1800, "02 1f84c0000002", bssgp.CauseMissingMandatoryIE, false},
	{"FLOW-CONTROL-BVC-ACK tag len 0", 1800, "27 1e80", bssgp.CauseInvalidMandatoryInfo, false},
	{"empty BSSGP PDU", 1800, "", bssgp.CauseProtocolErrorUnspec, false},
}

func TestMalformedGetStatus(t *testing.T) {
	g, tx, h := up(t)
	for _, c := range badPDUs {
		t.Run(c.name, func(t *testing.T) {
			pdu := testutil.MustHex(c.pdu)
			nsu := append([]byte{0, 0, byte(c.bvci >> 8), byte(c.bvci)}, pdu...)
			g.Input(0, sgsnAddr, nsu, time.Second)
			out := tx.out
			tx.out = nil
			if len(out) != 1 {
				t.Fatalf("sent %d PDUs", len(out))
			}
			var n ns.Unitdata
			if err := n.Unmarshal(out[0]); err != nil || n.BVCI != 0 {
				t.Fatalf("not NS-UNITDATA on BVCI 0: %x", out[0])
			}
			var st bssgp.Status
			if err := bssgp.Unmarshal(n.SDU, &st); err != nil {
				t.Fatal(err)
			}
			if st.Cause != c.cause {
				t.Fatalf("cause %v want %v", st.Cause, c.cause)
			}
			if st.HasBVCI != c.withBVCI || (c.withBVCI && st.BVCI != c.bvci && c.cause != bssgp.CauseUnknownBVCI) {
				t.Fatalf("BVCI IE %v %d", st.HasBVCI, st.BVCI)
			}
			if !bytes.Equal(st.PDUInError, pdu) && len(pdu) <= MaxLLCPDU {
				t.Fatalf("PDU in error %x want %x", st.PDUInError, pdu)
			}
		})
	}
	if !g.Unblocked() || !g.NSE().Available() || len(h.States) != 1 {
		t.Fatal("link went down")
	}
	// A STATUS is never answered with a STATUS, even a malformed one.
	g.inHex("00000000 41", 2*time.Second)
	g.inHex("00000000 41 078127", 2*time.Second)
	expect(t, tx.take())
}

// PTP PDUs that arrive while our BVC-UNBLOCK is pending (the SGSN's
// BVC-UNBLOCK-ACK overtaken, or sent after its BVC-RESET-ACK) are taken
// as osmo-pcu takes them: no STATUS "BVC blocked", delivered.
func TestPTPAcceptedWhileUnblockPending(t *testing.T) {
	g, tx, h := labGb(t)
	g.Start(0)
	for _, s := range []string{"030182006504820065", "07", "0b", "000000002304820000"} {
		g.inHex(s, 0)
	}
	tx.take()
	// The PTP BVC-RESET is acknowledged: gopcu sends BVC-UNBLOCK.
	g.inHex("000000002304820708", 0)
	if out := tx.take(); len(out) != 1 || out[0] != "000000002404820708" {
		t.Fatalf("no BVC-UNBLOCK: %v", out)
	}
	if g.Unblocked() {
		t.Fatal("unblocked without BVC-UNBLOCK-ACK")
	}
	g.inHex("00000708 00 c0000002 000000 16820bb8 0e0001ff", 0)
	g.inHex("00000708 06 0d889910070000000010 04820708 18830000 00", 0)
	if out := tx.take(); len(out) != 0 {
		t.Fatalf("answered %v", out)
	}
	if len(h.DL) != 1 || h.DL[0].TLLI != 0xc0000002 || len(h.PagesPS) != 1 || h.PagesPS[0] != "901700000000001" {
		t.Fatalf("not delivered: %d DL-UNITDATA, pagings %v", len(h.DL), h.PagesPS)
	}
	// The late BVC-UNBLOCK-ACK still brings the BVC up.
	g.inHex("000000002504820708", 0)
	if !g.Unblocked() {
		t.Fatal("not unblocked")
	}
}

func TestFlowControlCompute(t *testing.T) {
	// 4 PDCH at CS-2 (30 octets x 50 = 1500 octets/s), 4 DL slots, lifetime unset.
	p := ComputeFlowControl(FlowInput{NumPDCH: 4, PeakRatePerPDCH: 1500, MaxSlotsPerMS: 4})
	if p.LeakOctetsPerS != 6000 || p.RMSOctetsPerS != 6000 || p.BucketOctets != 60000 || p.BmaxMSOctets != 60000 {
		t.Fatalf("%+v", p)
	}
	// bucket-time 150 cs; forced MS leak; measured blend at 50 % usage.
	p = ComputeFlowControl(FlowInput{NumPDCH: 2, PeakRatePerPDCH: 2500, MaxSlotsPerMS: 1, BucketTime: 150,
		ForceMSLeak: 1000, MeasuredRate: 3000, UsagePermille: 500, AvgQueueDelay: 1234 * time.Millisecond})
	if p.LeakOctetsPerS != 4000 || p.RMSOctetsPerS != 1000 || p.BucketOctets != 6000 || p.BmaxMSOctets != 1500 {
		t.Fatalf("%+v", p)
	}
	fc := p.PDU(7)
	// 6000 octets -> 60 units; 4000 octets/s -> 320 units of 100 bit/s; delay 123 cs.
	if fc.BucketSize != 60 || fc.LeakRate != 320 || fc.BmaxMS != 15 || fc.RMS != 80 || fc.Measurement != 123 {
		t.Fatalf("%+v", fc)
	}
	// Infinite bucket time and caps.
	p = ComputeFlowControl(FlowInput{NumPDCH: 8, PeakRatePerPDCH: 200000, BucketTime: 0xffff})
	if p.BucketOctets != MaxBucketOctets || p.LeakOctetsPerS != MaxLeakOctetsPerS {
		t.Fatalf("%+v", p)
	}
	if fc := p.PDU(1); fc.BucketSize != 0xffff || fc.LeakRate != 0xffff {
		t.Fatalf("%+v", fc)
	}
	// Nothing known: osmo's fallbacks (BVC 2000, MS = 2000/2 + 500).
	p = ComputeFlowControl(FlowInput{})
	if p.BucketOctets != 2000 || p.BmaxMSOctets != 1500 {
		t.Fatalf("%+v", p)
	}
}

func TestReconfigure(t *testing.T) {
	g, tx, h := up(t)
	cfg := g.Config()
	cfg.CellID.CI = 7000
	if err := g.Reconfigure(cfg, time.Second); err != nil {
		t.Fatal(err)
	}
	expect(t, tx.take(), "000000002204820708078108088809f1070001001b58")
	g.inHex("000000002304820708", time.Second)
	g.inHex("000000002504820708", time.Second)
	tx.take()
	if !g.Unblocked() {
		t.Fatal("not up again")
	}
	// NSEI change: NS rebuilt from scratch.
	cfg.NS.NSEI = 102
	if err := g.Reconfigure(cfg, 2*time.Second); err != nil {
		t.Fatal(err)
	}
	expect(t, tx.take(), "020081010182006504820066")
	if g.Unblocked() || h.States[len(h.States)-1] {
		t.Fatal("BVC still up")
	}
}

// bvcCounts are the values of a bssgp:bss_ctx group in CounterDescs order.
type bvcCounts [7]uint64

func countsOf(cg counter.Group) bvcCounts {
	var c bvcCounts
	g, ok := cg.(*ratectr.Group) // what the test's registry makes
	if !ok {
		return c
	}
	for i := range c {
		c[i] = g.Value(i)
	}
	return c
}

// TestCounters scripts SGSN PDUs and checks the bssgp:bss_ctx counters move
// exactly as osmo-pcu's with libosmogb's rules (see CounterDescs).
func TestCounters(t *testing.T) {
	reg := &ratectr.Registry{}
	tx, h := &memTx{}, &recHandler{}
	g, err := New(Config{
		NS:       nse.Config{NSEI: 101, Endpoints: []nse.Endpoint{{NSVCI: 101, Local: netip.MustParseAddrPort("0.0.0.0:23001"), Remote: sgsnAddr}}},
		BVCI:     1800,
		CellID:   labCell,
		Counters: reg,
	}, tx, h, nil)
	if err != nil {
		t.Fatal(err)
	}
	names := func() []string {
		var n []string
		for _, grp := range reg.Groups() {
			n = append(n, fmt.Sprintf("%s.%d.%s", grp.Name, grp.Index, grp.IndexName))
		}
		return n
	}
	if got, want := names(), []string{"bssgp:bss_ctx.1800.", "ns:nse.101.", "ns:nsvc.0.NSE00101-NSVC-UDP-0_0_0_0:23001-127_0_0_1:23000"}; !slices.Equal(got, want) {
		t.Fatalf("groups %q, want %q", got, want)
	}
	check := func(step string, want bvcCounts, wantSig bvcCounts) {
		t.Helper()
		if got := countsOf(g.Ctrs); got != want {
			t.Fatalf("%s: bss_ctx.1800 %v, want %v (in, out, bytes in, bytes out, blocked, discarded, status)", step, got, want)
		}
		if got := countsOf(g.SigCtrs); got != wantSig {
			t.Fatalf("%s: bss_ctx.0 %v, want %v", step, got, wantSig)
		}
	}
	g.Start(0)
	for _, s := range []string{"030182006504820065", "07", "0b", "000000002304820000", "000000002304820708", "000000002504820708"} {
		g.inHex(s, 0)
	}
	// RESET-ACKs and UNBLOCK-ACK come on BVCI 0, which has no context yet;
	// RESET, UNBLOCK and FLOW-CONTROL-BVC going out are not counted.
	check("bring-up", bvcCounts{}, bvcCounts{})
	if tx.take(); !g.Unblocked() {
		t.Fatal("not up")
	}
	// DL-UNITDATA on the PTP BVC: 28 octets of BSSGP.
	g.inHex("00000708 00 c0000002 000021 16820bb8 0d889910070000000010 0e0003 414243", time.Second)
	check("DL-UNITDATA", bvcCounts{1, 0, 28, 0, 0, 0, 0}, bvcCounts{})
	// PAGING-PS on BVCI 0 (no context) and on the PTP BVC (counted).
	g.inHex("00000000 06 0d889910070000000010 04820708 18830000 00", time.Second)
	g.inHex("00000708 07 0d889910070000000010 0a820000 04820708", time.Second)
	check("paging", bvcCounts{2, 0, 28 + 19, 0, 0, 0, 0}, bvcCounts{})
	// STATUS on BVCI 0 naming our BVC: counted there, with "status";
	// without BVCI IE: BVCI 0, no context.
	g.inHex("00000000 41 07810a 04820708", time.Second)
	g.inHex("00000000 41 07810a", time.Second)
	check("STATUS", bvcCounts{3, 0, 47 + 8, 0, 0, 0, 1}, bvcCounts{})
	// STATUS on the PTP BVC, without Cause IE: still counted.
	g.inHex("00000708 41", time.Second)
	check("STATUS on PTP", bvcCounts{4, 0, 56, 0, 0, 0, 2}, bvcCounts{})
	tx.take()
	// UL-UNITDATA is the one PDU counted out (26 octets); LLC-DISCARDED,
	// SUSPEND and FLOW-CONTROL-MS are not, nor is "discarded".
	if err := g.SendULUnitdata(0xc0000001, []byte{1, 2, 3}, time.Second); err != nil {
		t.Fatal(err)
	}
	g.SendLLCDiscarded(0xc0000001, 1, 10, time.Second)
	g.SendSuspend(0xc0000001, labCell.RAI, time.Second)
	g.SendFlowControlMS(0xc0000001, 1000, 1000, time.Second)
	check("sent", bvcCounts{4, 1, 56, 26, 0, 0, 2}, bvcCounts{})
	tx.take()
	// An IE list that does not parse: STATUS 0x21, counted nowhere. A
	// parsing PDU with a missing IE counts. Unknown BVCI: nowhere.
	g.inHex("00000708 00 c0000002 000000 16820bb8 0e00ff41", time.Second)
	g.inHex("00000708 00 c0000002 000000 16820bb8", time.Second)
	g.inHex("00000709 00 c0000002 000000 16820bb8 0e0001ff", time.Second)
	if out := tx.take(); len(out) != 3 || !strings.HasPrefix(out[0], "0000000041078121") {
		t.Fatal(out)
	}
	check("bad PDUs", bvcCounts{5, 1, 56 + 12, 26, 0, 0, 2}, bvcCounts{})
	// SGSN resets the PTP BVC: BVC-RESET on BVCI 0 counts on 1800 (its
	// BVCI IE); the BVC goes blocked but "blocked" does not move. A
	// DL-UNITDATA while blocked still counts (and gets STATUS).
	g.inHex("00000000 22 04820708 078108 088809f1070001001b39", 2*time.Second)
	g.inHex("00000708 00 c0000002 000000 16820bb8 0e0001ff", 2*time.Second)
	check("PTP reset", bvcCounts{7, 1, 68 + 18 + 16, 26, 0, 0, 2}, bvcCounts{})
	if g.Unblocked() {
		t.Fatal("still unblocked")
	}
	g.inHex("000000002504820708", 2*time.Second) // no context for BVCI 0 yet
	tx.take()
	// A BVC-RESET for another BVCI: STATUS, nowhere.
	g.inHex("00000000 22 04820709 078108", 2*time.Second)
	check("foreign reset", bvcCounts{7, 1, 102, 26, 0, 0, 2}, bvcCounts{})
	// SGSN resets the signalling BVC: libosmogb creates its context (group
	// bss_ctx.0) while handling that RESET, so it is not counted yet; from
	// then on PDUs on BVCI 0 count there, the PTP RESET-ACK included.
	g.inHex("00000000 22 04820000 078101", 3*time.Second)
	if g.SigCtrs == nil {
		t.Fatal("no bss_ctx.0 group")
	}
	check("signalling reset", bvcCounts{7, 1, 102, 26, 0, 0, 2}, bvcCounts{})
	g.inHex("000000002304820708", 3*time.Second)
	g.inHex("000000002504820708", 3*time.Second)
	g.inHex("00000000 22 04820000 078101", 3*time.Second) // counted on 0 now
	g.inHex("00000000 41 07810a", 3*time.Second)          // STATUS without BVCI: on 0
	check("BVCI 0", bvcCounts{7, 1, 102, 26, 0, 0, 2}, bvcCounts{4, 0, 5 + 5 + 8 + 4, 0, 0, 0, 1})
	if got := names(); !slices.Equal(got[:2], []string{"bssgp:bss_ctx.0.", "bssgp:bss_ctx.1800."}) {
		t.Fatalf("groups %q", got)
	}
	// Close: every group leaves the registry.
	g.Close(4 * time.Second)
	if got := names(); len(got) != 0 {
		t.Fatalf("groups after Close %q", got)
	}
}

// TestCountersReconfigure: a new BVCI is a new bss_ctx group; a new NSEI a
// new NSE whose NS-VC groups continue the numbering.
func TestCountersReconfigure(t *testing.T) {
	reg := &ratectr.Registry{}
	g, err := New(Config{
		NS:       nse.Config{NSEI: 101, Endpoints: []nse.Endpoint{{NSVCI: 101, Local: netip.MustParseAddrPort("0.0.0.0:23001"), Remote: sgsnAddr}}},
		BVCI:     1800,
		CellID:   labCell,
		Counters: reg,
	}, &memTx{}, &recHandler{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	g.Start(0)
	cfg := g.Config()
	cfg.Counters = nil // kept from before
	cfg.BVCI = 1900
	cfg.NS.NSEI = 102
	if err := g.Reconfigure(cfg, time.Second); err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, grp := range reg.Groups() {
		got = append(got, fmt.Sprintf("%s.%d.%s", grp.Name, grp.Index, grp.IndexName))
	}
	want := []string{"bssgp:bss_ctx.1900.", "ns:nse.102.", "ns:nsvc.1.NSE00102-NSVC-UDP-0_0_0_0:23001-127_0_0_1:23000"}
	if !slices.Equal(got, want) {
		t.Fatalf("groups %q, want %q", got, want)
	}
}

type discardTx struct{}

func (discardTx) Send(int, netip.AddrPort, []byte) error { return nil }

// BenchmarkGbSendULUnitdata1500: the whole send path (UL-UNITDATA encode,
// NS header, load sharing) up to the transport.
func BenchmarkGbSendULUnitdata1500(b *testing.B) {
	g, _, _ := up(b)
	g2, _ := New(g.cfg, discardTx{}, &recHandler{}, nil)
	g2.Start(0)
	for _, s := range []string{"030182006504820065", "07", "0b", "000000002304820000", "000000002304820708", "000000002504820708"} {
		g2.inHex(s, 0)
	}
	llc := make([]byte, 1500)
	b.ReportAllocs()
	for b.Loop() {
		if err := g2.SendULUnitdata(0xc0000001, llc, 0); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkGbReceiveDLUnitdata1500: NS-UNITDATA parse + DL-UNITDATA decode
// + handler call for a 1500-octet LLC PDU.
func BenchmarkGbReceiveDLUnitdata1500(b *testing.B) {
	g, _, _ := up(b)
	h := &countHandler{}
	g.h = h
	dl := bssgp.DLUnitdata{TLLI: 0xc0000002, PDULifetime: 500, IMSI: imsi1, Alignment: -1, LLC: make([]byte, 1500)}
	sdu, _ := bssgp.Marshal(&dl)
	pkt := append([]byte{0, 0, 0x07, 0x08}, sdu...)
	b.ReportAllocs()
	for b.Loop() {
		g.Input(0, sgsnAddr, pkt, 0)
	}
	if h.n == 0 {
		b.Fatal("nothing delivered")
	}
}

type countHandler struct {
	recHandler
	n int
}

func (h *countHandler) DLUnitdata(p *bssgp.DLUnitdata, now time.Duration) { h.n++ }

// The two PDUs the engine sends for every MS (pcu/gbadapter.go).
func TestSendULUnitdataLLCDiscarded(t *testing.T) {
	g, tx, _ := up(t)
	_ = g.SendULUnitdata(0xc0000001, []byte{1, 2, 3}, time.Second)
	_ = g.SendLLCDiscarded(0xc0000001, 2, 1500, time.Second)
	expect(t, tx.take(),
		"00000708 01 c0000001 000004 0888 09f1070001001b39 0080 0e0003 010203",
		"00000000 2c 1f84c0000001 0f8102 04820708 25830005dc")
	// sent for every MS that loses frames (CoDel, lifetime): no allocation
	g2, _ := New(g.cfg, discardTx{}, &recHandler{}, nil)
	g2.Start(0)
	for _, s := range []string{"030182006504820065", "07", "0b", "000000002304820000", "000000002304820708", "000000002504820708"} {
		g2.inHex(s, 0)
	}
	if a := testing.AllocsPerRun(100, func() { _ = g2.SendLLCDiscarded(0xc0000001, 2, 1500, time.Second) }); a != 0 {
		t.Errorf("LLC-DISCARDED: %.1f allocations", a)
	}
}

// The "show ns" and "show bssgp" lines of Debian osmo-sgsn 1.9.0 and
// osmo-pcu 1.1.0 (libosmogb 1.7.0) in the lab (tests/lab).
func TestWriteVTY(t *testing.T) {
	g, _, _ := up(t)
	var b strings.Builder
	g.WriteVTY(&b)
	want := "NSEI   101, BVCI  1800, RA-ID: 901-70-1-0, CID: 6969, STATE: UNBLOCKED\r\n" +
		"NSEI   101, BVCI     0, RA-ID: 000-00-0-0, CID: 0, STATE: UNBLOCKED\r\n"
	if b.String() != want {
		t.Fatalf("%q", b.String())
	}
	b.Reset()
	cfg := g.Config()
	cfg.NS.Endpoints[0].Local = netip.MustParseAddrPort("0.0.0.0:23001")
	g.ns.Reconfigure(cfg.NS, 0)
	g.NSE().WriteVTY(&b, 8*time.Second)
	want = "NSEI 00101: UDP, ALIVE since 0d 0h 0m 8s\r\n  1 NS-VC:\r\n" +
		"   NSVCI 00101: UNBLOCKED DYNAMIC udp)[0.0.0.0]:23001<101>[127.0.0.1]:23000 ALIVE since 0d 0h 0m 8s\r\n"
	if b.String() != want {
		t.Fatalf("%q", b.String())
	}
}
