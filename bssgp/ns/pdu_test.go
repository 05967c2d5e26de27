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
	{"capture NS-RESET", "020081010182006504820065", &Reset{Cause: CauseOMIntervention, NSVCI: 101, NSEI: 101}},
	{"capture NS-RESET-ACK", "030182006504820065", &ResetAck{NSVCI: 101, NSEI: 101}},
	{"capture NS-ALIVE", "0a", &Alive{}},
	{"capture NS-ALIVE-ACK", "0b", &AliveAck{}},
	{"capture NS-UNBLOCK", "06", &Unblock{}},
	{"capture NS-UNBLOCK-ACK", "07", &UnblockAck{}},
	{"capture NS-UNITDATA BVC-RESET", "000000002204820000078108",
		&Unitdata{BVCI: 0, SDU: []byte{0x22, 0x04, 0x82, 0x00, 0x00, 0x07, 0x81, 0x08}}},
	{"capture NS-UNITDATA FC-BVC", "00000708261e8101058203e803820320018203e81c82032006820000",
		&Unitdata{BVCI: 1800, SDU: testutil.MustHex("261e8101058203e803820320018203e81c82032006820000")}},
	{"NS-BLOCK", "04008101018200 65", &Block{Cause: CauseOMIntervention, NSVCI: 101}},
	{"NS-BLOCK-ACK", "0501820065", &BlockAck{NSVCI: 101}},
	{"NS-STATUS proto error", "08 00810b 02820aff", &Status{Cause: CauseProtocolErrorUnspec, ErrPDU: []byte{0x0a, 0xff}, HasErrPDU: true}},
	{"NS-STATUS BVCI unknown", "08 008105 03820708",
		&Status{Cause: CauseBVCIUnknown, BVCI: 1800, HasBVCI: true}},
	{"NS-STATUS NSVC unknown", "08 008104 01820065",
		&Status{Cause: CauseNSVCUnknown, NSVCI: 101, HasNSVCI: true}},
	{"NS-STATUS IP test failed", "08 008114 0588 7f000001 59d8 0101",
		&Status{Cause: CauseIPTestFailed, IP4: []IPElement{ep1}, HasIP4: true}},
	{"SNS-SIZE", "12 048204d2 0a01 070008 080001",
		&SNSSize{NSEI: 1234, ResetFlag: true, MaxNSVCs: 8, NumIP4EP: 1, HasNumIP4EP: true}},
	{"SNS-SIZE v6", "12 048204d2 0a00 070004 090002",
		&SNSSize{NSEI: 1234, MaxNSVCs: 4, NumIP6EP: 2, HasNumIP6EP: true}},
	{"SNS-SIZE-ACK", "13 048204d2", &SNSSizeAck{NSEI: 1234}},
	{"SNS-SIZE-ACK cause", "13 048204d2 00810e",
		&SNSSizeAck{NSEI: 1234, Cause: CauseInvalidNumIP4Endpoints, HasCause: true}},
	{"SNS-CONFIG end ip4", "0f 01 048204d2 0590 7f000001 59d8 0101 0a000002 59d9 0200",
		&SNSConfig{EndFlag: true, NSEI: 1234, IP4: []IPElement{ep1, ep2}, HasIP4: true}},
	{"SNS-CONFIG ip6", "0f 00 048204d2 0694 fd000000000000000000000000000001 59d8 0103",
		&SNSConfig{NSEI: 1234, IP6: []IPElement{ep6}, HasIP6: true}},
	{"SNS-CONFIG-ACK", "10 048204d2", &SNSConfigAck{NSEI: 1234}},
	{"SNS-ACK", "0c 048204d2 07", &SNSAck{NSEI: 1234, TransactionID: 7}},
	{"SNS-ACK cause+list", "0c 048204d2 07 008112 0588 0a000002 59d9 0200",
		&SNSAck{NSEI: 1234, TransactionID: 7, Cause: CauseUnknownIPEndpoint, HasCause: true,
			IP4: []IPElement{ep2}, HasIP4: true}},
	{"SNS-ADD", "0d 048204d2 03 0588 0a000002 59d9 0200",
		&SNSAdd{NSEI: 1234, TransactionID: 3, IP4: []IPElement{ep2}, HasIP4: true}},
	{"SNS-CHANGEWEIGHT", "0e 048204d2 04 0588 7f000001 59d8 0101",
		&SNSChangeWeight{NSEI: 1234, TransactionID: 4, IP4: []IPElement{ep1}, HasIP4: true}},
	{"SNS-DELETE ip addr", "11 048204d2 05 0b01 0a000002",
		&SNSDelete{NSEI: 1234, TransactionID: 5, IPAddr: ep2.Addr}},
	{"SNS-DELETE ip6 addr", "11 048204d2 06 0b02 fd000000000000000000000000000001",
		&SNSDelete{NSEI: 1234, TransactionID: 6, IPAddr: ep6.Addr}},
	{"SNS-DELETE list", "11 048204d2 08 0588 0a000002 59d9 0200",
		&SNSDelete{NSEI: 1234, TransactionID: 8, IP4: []IPElement{ep2}, HasIP4: true}},
}

func TestGolden(t *testing.T) {
	for _, g := range goldens {
		t.Run(g.name, func(t *testing.T) {
			b := testutil.Hex(t, g.hex)
			testutil.CheckGolden(t, b, g.pdu, Parse, Marshal)
			if g.pdu.Type() != PDUType(b[0]) {
				t.Fatalf("Type %v want %v", g.pdu.Type(), PDUType(b[0]))
			}
			if n := MarshalLen(g.pdu); n != len(b) {
				t.Fatalf("MarshalLen %d want %d", n, len(b))
			}
			// Unmarshal into a reused struct of the type sets every field.
			q := NewPDU(g.pdu.Type())
			if err := Unmarshal(b, q); err != nil || !reflect.DeepEqual(q, g.pdu) {
				t.Fatalf("Unmarshal: %+v (%v)", q, err)
			}
		})
	}
}

// TestUnmarshalReused: decoding into a struct that held another PDU of
// the type leaves nothing of it, and reuses the IP list's capacity.
func TestUnmarshalReused(t *testing.T) {
	p := &SNSAck{NSEI: 1, TransactionID: 9, Cause: CauseIPTestFailed, HasCause: true, IPAddr: ep1.Addr,
		IP4: make([]IPElement, 1, 4), HasIP4: true, IP6: []IPElement{ep6}, HasIP6: true}
	buf := &p.IP4[:1][0]
	if err := Unmarshal(testutil.Hex(t, "0c 048204d2 07 0588 0a000002 59d9 0200"), p); err != nil {
		t.Fatal(err)
	}
	want := &SNSAck{NSEI: 1234, TransactionID: 7, IP4: []IPElement{ep2}, HasIP4: true, IP6: []IPElement{}}
	if !reflect.DeepEqual(p, want) {
		t.Fatalf("got %+v\nwant %+v", p, want)
	}
	if &p.IP4[0] != buf {
		t.Fatal("IP4 capacity not reused")
	}
	var u Unitdata
	if err := Unmarshal(testutil.Hex(t, "0a"), &u); err == nil {
		t.Fatal("NS-ALIVE decoded as NS-UNITDATA")
	} else if c, _ := CauseOf(err); c != CauseProtocolErrorUnspec {
		t.Fatalf("cause %v", err)
	}
}

// TestRepeatedIE: a repeated IE counts once, the last one; repeated lists
// of IP elements add up (as the decoder did when it stored IEs in wire
// order).
func TestRepeatedIE(t *testing.T) {
	p, err := Parse(testutil.Hex(t, "02 008101 008102 0182 0065 04820065 04820066"))
	if err != nil {
		t.Fatal(err)
	}
	if r := p.(*Reset); r.Cause != CauseEquipmentFailure || r.NSEI != 102 {
		t.Fatalf("%+v", r)
	}
	p, err = Parse(testutil.Hex(t, "0d 048204d2 03 0588 7f000001 59d8 0101 0588 0a000002 59d9 0200"))
	if err != nil {
		t.Fatal(err)
	}
	if a := p.(*SNSAdd); !reflect.DeepEqual(a.IP4, []IPElement{ep1, ep2}) {
		t.Fatalf("%+v", a)
	}
}

func TestLongTLV(t *testing.T) {
	big := bytes.Repeat([]byte{0xab}, 300)
	b, _ := Marshal(&Status{Cause: CauseSemanticallyIncorrect, ErrPDU: big, HasErrPDU: true})
	if b[4] != 0x02 || b[5] != 0x01 || b[6] != 0x2c { // 2-octet length 300
		t.Fatalf("long length encoding %x", b[:7])
	}
	q, err := Parse(b)
	if err != nil || !bytes.Equal(q.(*Status).ErrPDU, big) {
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
	if _, err := MarshalTo(&Reset{Cause: CauseOMIntervention, NSVCI: 1, NSEI: 1}, make([]byte, 3)); err != ErrShortBuffer {
		t.Fatal(err)
	}
	if _, err := (&Unitdata{SDU: []byte{1}}).MarshalTo(make([]byte, 4)); err != ErrShortBuffer {
		t.Fatal(err)
	}
}

func FuzzParse(f *testing.F) {
	for _, g := range goldens {
		f.Add(testutil.MustHex(strings.ReplaceAll(g.hex, " ", "")))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		testutil.CheckParse(t, b, Parse, Marshal, func(err error) bool { _, ok := CauseOf(err); return ok })
	})
}

func BenchmarkUnitdataParse(b *testing.B) {
	pkt := append([]byte{0, 0, 0x07, 0x08}, make([]byte, 1520)...)
	var p Unitdata
	b.ReportAllocs()
	for b.Loop() {
		if err := p.Unmarshal(pkt); err != nil {
			b.Fatal(err)
		}
	}
}

func TestSNSLongNSEILength(t *testing.T) {
	p, err := Parse(testutil.Hex(t, "0c 04000204d2 07"))
	if a, ok := p.(*SNSAck); err != nil || !ok || a.NSEI != 1234 || a.TransactionID != 7 {
		t.Fatal(p, err)
	}
}

func BenchmarkUnitdataMarshal(b *testing.B) {
	p := &Unitdata{BVCI: 1800, SDU: make([]byte, 1520)}
	buf := make([]byte, HeaderLen+1520)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := p.MarshalTo(buf); err != nil {
			b.Fatal(err)
		}
	}
}
