package bss_test

import (
	"net/netip"
	"strings"
	"testing"
	"time"

	"github.com/gopcu/gopcu/bssgp"
	"github.com/gopcu/gopcu/bssgp/bss"
	"github.com/gopcu/gopcu/bssgp/ns"
	"github.com/gopcu/gopcu/bssgp/ns/nse"
	"github.com/gopcu/gopcu/bssgp/ns/nsudp"
	"github.com/gopcu/gopcu/internal/testutil"
)

type capTx struct{ pkts [][]byte }

func (c *capTx) Send(bind int, to netip.AddrPort, b []byte) error {
	c.pkts = append(c.pkts, append([]byte(nil), b...))
	return nil
}

type nopHandler struct{}

func (nopHandler) DLUnitdata(p *bssgp.DLUnitdata, now time.Duration) {}
func (nopHandler) PagingPS(p *bssgp.PagingPS, now time.Duration)     {}
func (nopHandler) PagingCS(p *bssgp.PagingCS, now time.Duration)     {}
func (nopHandler) BVCState(up bool, now time.Duration)               {}
func (nopHandler) FlowControl(now time.Duration) (bss.FlowParams, bool) {
	return bss.ComputeFlowControl(bss.FlowInput{NumPDCH: 4, PeakRatePerPDCH: 2500, MaxSlotsPerMS: 4,
		AvgQueueDelay: 120 * time.Millisecond}), true
}
func (nopHandler) Other(bvci uint16, p bssgp.PDU, now time.Duration) {}

func nsu(bvci uint16, p bssgp.PDU) []byte {
	b, err := bssgp.Marshal(p)
	if err != nil {
		panic(err)
	}
	return append([]byte{0, 0, byte(bvci >> 8), byte(bvci)}, b...)
}

// bssSentPDUs drives a Gb through bring-up, SGSN-side resets and every send
// function, and returns every datagram gopcu put on the wire.
func bssSentPDUs(t *testing.T) [][]byte {
	tx := &capTx{}
	g, err := bss.New(bss.Config{NS: nse.Config{NSEI: 101, Endpoints: []nse.Endpoint{{NSVCI: 101, Remote: sgsnAddr()}}},
		BVCI: 1800, CellID: labCell}, tx, nopHandler{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	in := func(b []byte) { g.Input(0, sgsnAddr(), b, time.Second) }
	g.Start(0)
	in([]byte{0x03, 0x01, 0x82, 0x00, 0x65, 0x04, 0x82, 0x00, 0x65})
	in([]byte{0x0a})
	in([]byte{0x07})
	in(nsu(0, &bssgp.BVCResetAck{BVCI: 0}))
	in(nsu(0, &bssgp.BVCResetAck{BVCI: 1800}))
	in(nsu(0, &bssgp.BVCUnblockAck{BVCI: 1800}))
	in(nsu(0, &bssgp.BVCReset{BVCI: 1800, Cause: bssgp.CauseOMIntervention, CellID: labCell, HasCellID: true}))
	in(nsu(0, &bssgp.BVCUnblockAck{BVCI: 1800}))
	in(nsu(1800, &bssgp.DLUnitdata{TLLI: 1, PDULifetime: 100, Alignment: -1})) // fine, no answer
	in([]byte{0x00, 0x00, 0x07, 0x08, 0x00, 0x01})                             // malformed -> STATUS
	in([]byte{0x00, 0x00, 0x07, 0x09, 0x22})                                   // unknown BVCI -> STATUS
	in([]byte{0x02, 0x00, 0x81, 0x01})                                         // bad NS-RESET -> NS-STATUS
	g.SendULUnitdata(0x7a000001, attachRequestLLC(), time.Second)
	g.SendLLCDiscarded(0x7a000001, 3, 4500, time.Second)
	g.SendSuspend(0x7a000001, labCell.RAI, time.Second)
	g.SendResume(0x7a000001, labCell.RAI, 1, time.Second)
	b, l := bss.MSFlowParams(5000, 100*time.Millisecond)
	g.SendFlowControlMS(0x7a000001, b, l, time.Second)
	g.SendRadioStatus(0x7a000001, 1, time.Second)
	g.SendFlushLLAck(&bssgp.FlushLLAck{TLLI: 0x7a000001, FlushAction: 0, NumOctets: 10}, time.Second)
	g.Tick(2 * time.Second)                                                            // FLOW-CONTROL-BVC
	g.Tick(40 * time.Second)                                                           // NS-ALIVE
	in([]byte{0x02, 0x00, 0x81, 0x01, 0x01, 0x82, 0x00, 0x65, 0x04, 0x82, 0x00, 0x65}) // NS-RESET from SGSN
	in([]byte{0x04, 0x00, 0x81, 0x01, 0x01, 0x82, 0x00, 0x65})                         // NS-BLOCK
	in([]byte{0x06})                                                                   // NS-UNBLOCK
	return tx.pkts
}

// snsSentPDUs drives an IP-SNS NSE whose bind is INFO_IND's wildcard
// address through SIZE and CONFIG, an SNS-ADD of a known endpoint and an
// SNS-DELETE, and returns what it sent.
func snsSentPDUs(t *testing.T) [][]byte {
	tx := &capTx{}
	eps := nse.EndpointsFromInfoInd([]nse.InfoIndNSVC{{NSVCI: 101, LocalPort: 23001, RemotePort: 23000,
		AddrType: nse.InfoAddrIPv4, RemoteIP: [16]byte{127, 0, 0, 1}}})
	n, err := nse.NewNSE(nse.Config{NSEI: 101, Dialect: nse.DialectIPSNS, Endpoints: eps, SourceAddr: nsudp.SourceAddrTowards}, tx, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	in := func(p ns.PDU) {
		b, err := ns.Marshal(p)
		if err != nil {
			t.Fatal(err)
		}
		n.Input(0, sgsnAddr(), b, time.Second)
	}
	sg := []ns.IPElement{{Addr: sgsnAddr().Addr(), Port: 23000, SigWeight: 1, DataWeight: 1}}
	extra := []ns.IPElement{{Addr: sgsnAddr().Addr(), Port: 23002, SigWeight: 0, DataWeight: 1}}
	n.Start(0)
	in(&ns.SNSSizeAck{NSEI: 101})
	in(&ns.SNSConfigAck{NSEI: 101})
	in(&ns.SNSConfig{EndFlag: true, NSEI: 101, IP4: sg, HasIP4: true})
	in(&ns.SNSAdd{NSEI: 101, TransactionID: 1, IP4: sg, HasIP4: true})
	in(&ns.SNSAdd{NSEI: 101, TransactionID: 2, IP4: extra, HasIP4: true})
	in(&ns.SNSDelete{NSEI: 101, TransactionID: 3, IP4: extra, HasIP4: true})
	if len(tx.pkts) < 7 {
		t.Fatalf("IP-SNS NSE sent %d PDUs", len(tx.pkts))
	}
	return tx.pkts
}

// TestTsharkDecodes checks with an independent decoder (Wireshark's
// gprs-ns / bssgp / gprs-llc dissectors) that nothing gopcu sends is
// malformed or raises an error-level expert item.
func TestTsharkDecodes(t *testing.T) {
	testutil.NeedBinaries(t, "tshark")
	pkts := append(bssSentPDUs(t), snsSentPDUs(t)...)
	// SNS PDUs of the BSS side, and every other NS PDU type.
	local := netip.MustParseAddrPort("127.0.0.1:23001")
	ip4 := []ns.IPElement{{Addr: local.Addr(), Port: 23001, SigWeight: 1, DataWeight: 1}}
	for _, p := range []ns.PDU{
		&ns.SNSSize{NSEI: 101, ResetFlag: true, MaxNSVCs: 8, NumIP4EP: 1, HasNumIP4EP: true},
		&ns.SNSConfig{EndFlag: true, NSEI: 101, IP4: ip4, HasIP4: true},
		&ns.SNSConfigAck{NSEI: 101},
		&ns.SNSAck{NSEI: 101, TransactionID: 3},
		&ns.Block{Cause: ns.CauseOMIntervention, NSVCI: 101}, &ns.BlockAck{NSVCI: 101}, &ns.UnblockAck{},
	} {
		b, err := ns.Marshal(p)
		if err != nil {
			t.Fatal(err)
		}
		pkts = append(pkts, b)
	}
	s := testutil.TsharkNS(t, pkts)
	for _, bad := range []string{"Malformed", "Expert Info (Error", "[Expert Info (Warning/Malformed"} {
		if strings.Contains(s, bad) {
			t.Errorf("tshark reports %q:\n%s", bad, s)
		}
	}
	if !strings.Contains(s, "FCS: ") || strings.Contains(s, "FCS: 0x") && strings.Contains(s, "incorrect") {
		t.Errorf("LLC FCS not verified:\n%s", testutil.GrepLines(s, "FCS"))
	}
	for _, w := range []string{"UL-UNITDATA", "BVC-RESET", "FLOW-CONTROL-BVC", "FLOW-CONTROL-MS", "LLC-DISCARDED",
		"SUSPEND", "RESUME", "RADIO-STATUS", "FLUSH_LL_ACK", "STATUS", "NS_STATUS", "NS_RESET", "NS_ALIVE", "SNS_SIZE", "SNS_CONFIG", "SNS_ACK",
		"Attach Request"} {
		if !strings.Contains(s, w) {
			t.Errorf("tshark output lacks %q", w)
		}
	}
	if testing.Verbose() {
		t.Log(testutil.GrepLines(s, "PDU Type"))
		t.Log(testutil.GrepLines(s, "FCS"))
	}
}
