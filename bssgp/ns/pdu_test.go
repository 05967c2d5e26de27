package ns

import (
	"bytes"
	"errors"
	"net/netip"
	"reflect"
	"strings"
	"testing"

	"github.com/gopcu/gopcu/internal/testutil"
)

var (
	ep1 = IPElement{Addr: netip.MustParseAddr("127.0.0.1"), Port: 23000, SigWeight: 1, DataWeight: 1}
	ep2 = IPElement{Addr: netip.MustParseAddr("10.0.0.2"), Port: 23001, SigWeight: 2, DataWeight: 0}
	ep6 = IPElement{Addr: netip.MustParseAddr("fd00::1"), Port: 23000, SigWeight: 1, DataWeight: 3}
)

// goldens: the first block is taken byte-for-byte from the Debian
// osmo-pcu 1.1.0 <-> osmo-sgsn 1.9.0 capture (lab/reference/gb-ns-bssgp.pcapng);
// the SNS ones are built from the TS 48.016 §9.3 / §10.3 layouts.
var goldens = []struct {
	name string
	hex  string
	pdu  PDU
}{
	{"capture NS-RESET", "020081010182006504820065", NewReset(CauseOMIntervention, 101, 101)},
	{"capture NS-RESET-ACK", "030182006504820065", NewResetAck(101, 101)},
	{"capture NS-ALIVE", "0a", NewSimple(PDUAlive)},
	{"capture NS-ALIVE-ACK", "0b", NewSimple(PDUAliveAck)},
	{"capture NS-UNBLOCK", "06", NewSimple(PDUUnblock)},
	{"capture NS-UNBLOCK-ACK", "07", NewSimple(PDUUnblockAck)},
	{"capture NS-UNITDATA BVC-RESET", "000000002204820000078108",
		NewUnitdata(0, []byte{0x22, 0x04, 0x82, 0x00, 0x00, 0x07, 0x81, 0x08})},
	{"capture NS-UNITDATA FC-BVC", "00000708261e8101058203e803820320018203e81c82032006820000",
		NewUnitdata(1800, testutil.MustHex("261e8101058203e803820320018203e81c82032006820000"))},
	{"NS-BLOCK", "04008101018200 65", NewBlock(CauseOMIntervention, 101)},
	{"NS-BLOCK-ACK", "0501820065", NewBlockAck(101)},
	{"NS-STATUS proto error", "08 00810b 02820aff", NewStatus(CauseProtocolErrorUnspec, []byte{0x0a, 0xff})},
	{"NS-STATUS BVCI unknown", "08 008105 03820708",
		PDU{Type: PDUStatus, Cause: CauseBVCIUnknown, HasCause: true, BVCI: 1800, HasBVCI: true}},
	{"NS-STATUS NSVC unknown", "08 008104 01820065",
		PDU{Type: PDUStatus, Cause: CauseNSVCUnknown, HasCause: true, NSVCI: 101, HasNSVCI: true}},
	{"NS-STATUS IP test failed", "08 008114 0588 7f000001 59d8 0101",
		PDU{Type: PDUStatus, Cause: CauseIPTestFailed, HasCause: true, IP4: []IPElement{ep1}, HasIP4: true}},
	{"SNS-SIZE", "12 048204d2 0a01 070008 080001",
		PDU{Type: PDUSNSSize, NSEI: 1234, HasNSEI: true, ResetFlag: true, MaxNSVCs: 8, NumIP4EP: 1, HasNumIP4EP: true}},
	{"SNS-SIZE v6", "12 048204d2 0a00 070004 090002",
		PDU{Type: PDUSNSSize, NSEI: 1234, HasNSEI: true, MaxNSVCs: 4, NumIP6EP: 2, HasNumIP6EP: true}},
	{"SNS-SIZE-ACK", "13 048204d2", PDU{Type: PDUSNSSizeAck, NSEI: 1234, HasNSEI: true}},
	{"SNS-SIZE-ACK cause", "13 048204d2 00810e",
		PDU{Type: PDUSNSSizeAck, NSEI: 1234, HasNSEI: true, Cause: CauseInvalidNumIP4Endpoints, HasCause: true}},
	{"SNS-CONFIG end ip4", "0f 01 048204d2 0590 7f000001 59d8 0101 0a000002 59d9 0200",
		PDU{Type: PDUSNSConfig, EndFlag: true, NSEI: 1234, HasNSEI: true, IP4: []IPElement{ep1, ep2}, HasIP4: true}},
	{"SNS-CONFIG ip6", "0f 00 048204d2 0694 fd000000000000000000000000000001 59d8 0103",
		PDU{Type: PDUSNSConfig, NSEI: 1234, HasNSEI: true, IP6: []IPElement{ep6}, HasIP6: true}},
	{"SNS-CONFIG-ACK", "10 048204d2", PDU{Type: PDUSNSConfigAck, NSEI: 1234, HasNSEI: true}},
	{"SNS-ACK", "0c 048204d2 07", PDU{Type: PDUSNSAck, NSEI: 1234, HasNSEI: true, TransactionID: 7}},
	{"SNS-ACK cause+list", "0c 048204d2 07 008112 0588 0a000002 59d9 0200",
		PDU{Type: PDUSNSAck, NSEI: 1234, HasNSEI: true, TransactionID: 7, Cause: CauseUnknownIPEndpoint, HasCause: true,
			IP4: []IPElement{ep2}, HasIP4: true}},
	{"SNS-ADD", "0d 048204d2 03 0588 0a000002 59d9 0200",
		PDU{Type: PDUSNSAdd, NSEI: 1234, HasNSEI: true, TransactionID: 3, IP4: []IPElement{ep2}, HasIP4: true}},
	{"SNS-CHANGEWEIGHT", "0e 048204d2 04 0588 7f000001 59d8 0101",
		PDU{Type: PDUSNSChangeWeight, NSEI: 1234, HasNSEI: true, TransactionID: 4, IP4: []IPElement{ep1}, HasIP4: true}},
	{"SNS-DELETE ip addr", "11 048204d2 05 0b01 0a000002",
		PDU{Type: PDUSNSDelete, NSEI: 1234, HasNSEI: true, TransactionID: 5, IPAddr: ep2.Addr}},
	{"SNS-DELETE ip6 addr", "11 048204d2 06 0b02 fd000000000000000000000000000001",
		PDU{Type: PDUSNSDelete, NSEI: 1234, HasNSEI: true, TransactionID: 6, IPAddr: ep6.Addr}},
	{"SNS-DELETE list", "11 048204d2 08 0588 0a000002 59d9 0200",
		PDU{Type: PDUSNSDelete, NSEI: 1234, HasNSEI: true, TransactionID: 8, IP4: []IPElement{ep2}, HasIP4: true}},
}

func TestGolden(t *testing.T) {
	for _, g := range goldens {
		t.Run(g.name, func(t *testing.T) {
			b := testutil.Hex(t, g.hex)
			var p PDU
			if err := p.Unmarshal(b); err != nil {
				t.Fatalf("parse: %v", err)
			}
			if !reflect.DeepEqual(p, g.pdu) {
				t.Fatalf("parse:\n got %+v\nwant %+v", p, g.pdu)
			}
			if n := g.pdu.MarshalLen(); n != len(b) {
				t.Fatalf("MarshalLen %d want %d", n, len(b))
			}
			out, err := g.pdu.Marshal()
			if err != nil || !bytes.Equal(out, b) {
				t.Fatalf("marshal %x (%v) want %x", out, err, b)
			}
		})
	}
}

func TestLongTLV(t *testing.T) {
	big := bytes.Repeat([]byte{0xab}, 300)
	p := NewStatus(CauseSemanticallyIncorrect, big)
	b, _ := p.Marshal()
	if b[4] != 0x02 || b[5] != 0x01 || b[6] != 0x2c { // 2-octet length 300
		t.Fatalf("long length encoding %x", b[:7])
	}
	q, err := Parse(b)
	if err != nil || !bytes.Equal(q.ErrPDU, big) {
		t.Fatal(err)
	}
}

func TestDecodeErrors(t *testing.T) {
	cases := []struct {
		name  string
		hex   string
		cause Cause
	}{
		{"empty", "", CauseProtocolErrorUnspec},
		{"unknown type", "01", CauseProtocolErrorUnspec},
		{"unitdata short", "000000", CauseProtocolErrorUnspec},
		{"reset no cause", "0201820065048200 65", CauseMissingEssentialIE},
		{"reset no nsei", "020081010182006 5", CauseMissingEssentialIE},
		{"reset bad nsvci len", "020081010181650482 0065", CauseInvalidEssentialIE},
		{"reset truncated", "02008101018200", CauseInvalidEssentialIE},
		{"reset-ack no nsvci", "0304820065", CauseMissingEssentialIE},
		{"block no nsvci", "04008101", CauseMissingEssentialIE},
		{"block-ack empty", "05", CauseMissingEssentialIE},
		{"alive payload", "0a00", CauseProtocolErrorUnspec},
		{"status no cause", "08", CauseMissingEssentialIE},
		{"status bvci unknown w/o bvci", "08008105", CauseMissingEssentialIE},
		{"status proto err w/o pdu", "0800810b", CauseMissingEssentialIE},
		{"cause len 2", "08008201 01", CauseInvalidEssentialIE},
		{"sns-size no counts", "12048204d20a01070008", CauseMissingEssentialIE},
		{"sns-ack short", "0c048204d2", CauseMissingEssentialIE},
		{"sns-ack wrong first ie", "0c018204d207", CauseInvalidEssentialIE},
		{"sns-config ip4 bad len", "0f01048204d20587 7f00000159d801", CauseInvalidEssentialIE},
		{"sns-delete no addr", "11048204d205", CauseMissingEssentialIE},
		{"sns-delete bad addr type", "11048204d2050b030a000002", CauseUnknownIPAddress},
		{"sns-add no list", "0d048204d203", CauseMissingEssentialIE},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := Parse(testutil.Hex(t, c.hex))
			if err == nil {
				t.Fatal("no error")
			}
			got, ok := CauseOf(err)
			if !ok || got != c.cause {
				t.Fatalf("cause %v (%v) want %v", got, err, c.cause)
			}
		})
	}
	_, err := Parse(testutil.Hex(t, "0201820065"))
	if !errors.Is(err, ErrMissingEssentialIE) {
		t.Fatalf("errors.Is: %v", err)
	}
}

func TestMarshalShortBuffer(t *testing.T) {
	p := NewReset(CauseOMIntervention, 1, 1)
	if _, err := p.MarshalTo(make([]byte, 3)); err != ErrShortBuffer {
		t.Fatal(err)
	}
}

func FuzzParse(f *testing.F) {
	for _, g := range goldens {
		f.Add(testutil.MustHex(strings.ReplaceAll(g.hex, " ", "")))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		var p PDU
		if err := p.Unmarshal(b); err != nil {
			if _, ok := CauseOf(err); !ok {
				t.Fatalf("untyped error %v", err)
			}
			return
		}
		e1, err := p.Marshal()
		if err != nil {
			t.Fatal(err)
		}
		var q PDU
		if err := q.Unmarshal(e1); err != nil {
			t.Fatalf("re-parse of %x: %v", e1, err)
		}
		e2, _ := q.Marshal()
		if !bytes.Equal(e1, e2) {
			t.Fatalf("unstable: %x -> %x", e1, e2)
		}
	})
}

func BenchmarkUnitdataParse(b *testing.B) {
	pkt := append([]byte{0, 0, 0x07, 0x08}, make([]byte, 1520)...)
	var p PDU
	b.ReportAllocs()
	for b.Loop() {
		if err := p.Unmarshal(pkt); err != nil {
			b.Fatal(err)
		}
	}
}

func TestSNSLongNSEILength(t *testing.T) {
	p, err := Parse(testutil.Hex(t, "0c 04000204d2 07"))
	if err != nil || p.NSEI != 1234 || p.TransactionID != 7 {
		t.Fatal(p, err)
	}
}

func BenchmarkUnitdataMarshal(b *testing.B) {
	p := NewUnitdata(1800, make([]byte, 1520))
	buf := make([]byte, HeaderLen+1520)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := p.MarshalTo(buf); err != nil {
			b.Fatal(err)
		}
	}
}
