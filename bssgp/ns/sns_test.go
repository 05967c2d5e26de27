package ns

import (
	"encoding/hex"
	"net/netip"
	"testing"
	"time"
)

func mustMarshal(t *testing.T, p PDU) []byte {
	b, err := p.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestSNSBringUpAndProcedures(t *testing.T) {
	tx, h := &recTx{}, &recH{}
	local := netip.MustParseAddrPort("127.0.0.1:23001")
	n, err := NewNSE(Config{NSEI: 1234, Dialect: DialectIPSNS,
		Endpoints: []Endpoint{{Bind: 0, Local: local, Remote: sgsn}}}, tx, h, nil)
	if err != nil {
		t.Fatal(err)
	}
	n.Start(0)
	// SNS-SIZE: NSEI, reset flag, max 8 NS-VCs, 1 IPv4 endpoint.
	want(t, tx.take(), "12048204d20a0107000808"+"0001")
	n.Input(0, sgsn, mustMarshal(t, PDU{Type: PDUSNSSizeAck, NSEI: 1234, HasNSEI: true}), time.Millisecond)
	want(t, tx.take(), "0f01048204d205887f00000159d90101")
	n.Input(0, sgsn, mustMarshal(t, PDU{Type: PDUSNSConfigAck, NSEI: 1234, HasNSEI: true}), time.Millisecond)
	want(t, tx.take())
	sg2 := IPElement{Addr: netip.MustParseAddr("127.0.0.1"), Port: 23000, SigWeight: 1, DataWeight: 1}
	n.Input(0, sgsn, mustMarshal(t, PDU{Type: PDUSNSConfig, EndFlag: true, NSEI: 1234, HasNSEI: true,
		IP4: []IPElement{sg2}, HasIP4: true}), 2*time.Millisecond)
	want(t, tx.take(), "10048204d2", "0a")
	if n.Available() {
		t.Fatal("available before ALIVE-ACK")
	}
	n.Input(0, sgsn, []byte{0x0b}, 3*time.Millisecond)
	if !n.Available() {
		t.Fatal("not available")
	}
	// SNS-CHANGEWEIGHT, SNS-ADD, SNS-DELETE answered with SNS-ACK.
	sg2.DataWeight = 5
	n.Input(0, sgsn, mustMarshal(t, PDU{Type: PDUSNSChangeWeight, NSEI: 1234, HasNSEI: true, TransactionID: 1,
		IP4: []IPElement{sg2}, HasIP4: true}), time.Second)
	want(t, tx.take(), "0c048204d201")
	if n.VCs()[0].DataWeight != 5 {
		t.Fatal("weight not applied")
	}
	sg3 := IPElement{Addr: netip.MustParseAddr("127.0.0.2"), Port: 23000, SigWeight: 1, DataWeight: 1}
	n.Input(0, sgsn, mustMarshal(t, PDU{Type: PDUSNSAdd, NSEI: 1234, HasNSEI: true, TransactionID: 2,
		IP4: []IPElement{sg3}, HasIP4: true}), time.Second)
	want(t, tx.take(), "0a", "0c048204d202")
	if len(n.VCs()) != 2 {
		t.Fatal(len(n.VCs()))
	}
	n.Input(0, sgsn, mustMarshal(t, PDU{Type: PDUSNSDelete, NSEI: 1234, HasNSEI: true, TransactionID: 3,
		IPAddr: sg3.Addr}), time.Second)
	want(t, tx.take(), "0c048204d203")
	if len(n.VCs()) != 1 {
		t.Fatal(len(n.VCs()))
	}
	// Unknown endpoint -> SNS-ACK with cause and the offending list.
	n.Input(0, sgsn, mustMarshal(t, PDU{Type: PDUSNSDelete, NSEI: 1234, HasNSEI: true, TransactionID: 4,
		IP4: []IPElement{sg3}, HasIP4: true}), time.Second)
	want(t, tx.take(), "0c048204d20400811205887f00000259d80101")
	if !n.Available() {
		t.Fatal("lost availability")
	}
}

func TestSNSSizeRetries(t *testing.T) {
	tx, h := &recTx{}, &recH{}
	n, _ := NewNSE(Config{NSEI: 1, Dialect: DialectIPSNS, Endpoints: []Endpoint{
		{Bind: 0, Local: netip.MustParseAddrPort("127.0.0.1:1"), Remote: sgsn}}}, tx, h, nil)
	n.Start(0)
	tx.take()
	for i := 1; i <= 6; i++ {
		n.Tick(time.Duration(i) * 3 * time.Second)
		if len(tx.take()) != 1 {
			t.Fatalf("no SNS-SIZE retry %d", i)
		}
	}
}

// When the last IP-SNS NS-VC fails its ALIVE procedure, SNS starts over with
// SNS-SIZE (TS 48.016 §7.4b; libosmogb behaviour).
func TestSNSRestartWhenAllVCsDead(t *testing.T) {
	tx, h := &recTx{}, &recH{}
	n, _ := NewNSE(Config{NSEI: 1234, Dialect: DialectIPSNS, Endpoints: []Endpoint{
		{Bind: 0, Local: netip.MustParseAddrPort("127.0.0.1:23001"), Remote: sgsn}}}, tx, h, nil)
	n.Start(0)
	n.Input(0, sgsn, mustMarshal(t, PDU{Type: PDUSNSSizeAck, NSEI: 1234, HasNSEI: true}), 0)
	n.Input(0, sgsn, mustMarshal(t, PDU{Type: PDUSNSConfigAck, NSEI: 1234, HasNSEI: true}), 0)
	n.Input(0, sgsn, mustMarshal(t, PDU{Type: PDUSNSConfig, EndFlag: true, NSEI: 1234, HasNSEI: true,
		IP4: []IPElement{{Addr: sgsn.Addr(), Port: sgsn.Port(), SigWeight: 1, DataWeight: 1}}, HasIP4: true}), 0)
	n.Input(0, sgsn, []byte{0x0b}, 0)
	if !n.Available() {
		t.Fatal("not up")
	}
	tx.take()
	n.Tick(30 * time.Second) // tns-test: ALIVE
	for i := 1; i < 10; i++ {
		n.Tick(30*time.Second + time.Duration(i)*3*time.Second)
	}
	want(t, tx.take(), "0a", "0a", "0a", "0a", "0a", "0a", "0a", "0a", "0a", "0a")
	n.Tick(60 * time.Second)
	out := tx.take()
	if n.Available() || len(out) != 2 || out[1] != "12048204d20a0107000808"+"0001" {
		t.Fatalf("no SNS restart: %v avail=%v", out, n.Available())
	}
	if h.avail[len(h.avail)-1] {
		t.Fatal("handler not told")
	}
}

// TestSNSBoundedEndpoints: an SGSN repeating SNS-ADD with ever new
// endpoints gets an SNS-ACK with cause "Invalid number of NS-VCs" once
// MaxNSVCs endpoints are known; NS-VCs and the endpoint lists stay within
// MaxNSVCs, and a repeated endpoint is not counted twice.
func TestSNSBoundedEndpoints(t *testing.T) {
	tx, h := &recTx{}, &recH{}
	local := netip.MustParseAddrPort("127.0.0.1:23001")
	n, err := NewNSE(Config{NSEI: 1234, Dialect: DialectIPSNS, MaxNSVCs: 4,
		Endpoints: []Endpoint{{Bind: 0, Local: local, Remote: sgsn}}}, tx, h, nil)
	if err != nil {
		t.Fatal(err)
	}
	n.Start(0)
	n.Input(0, sgsn, mustMarshal(t, PDU{Type: PDUSNSSizeAck, NSEI: 1234, HasNSEI: true}), time.Millisecond)
	n.Input(0, sgsn, mustMarshal(t, PDU{Type: PDUSNSConfigAck, NSEI: 1234, HasNSEI: true}), time.Millisecond)
	sg := IPElement{Addr: netip.MustParseAddr("127.0.0.1"), Port: 23000, SigWeight: 1, DataWeight: 1}
	for i := 0; i < 3; i++ { // the same endpoint thrice: one entry
		n.Input(0, sgsn, mustMarshal(t, PDU{Type: PDUSNSConfig, EndFlag: i == 2, NSEI: 1234, HasNSEI: true,
			IP4: []IPElement{sg}, HasIP4: true}), 2*time.Millisecond)
	}
	tx.take()
	refused := 0
	for i := 0; i < 100; i++ {
		e := IPElement{Addr: netip.AddrFrom4([4]byte{127, 0, 1, byte(i)}), Port: 23000, SigWeight: 1, DataWeight: 1}
		n.Input(0, sgsn, mustMarshal(t, PDU{Type: PDUSNSAdd, NSEI: 1234, HasNSEI: true, TransactionID: uint8(i),
			IP4: []IPElement{e}, HasIP4: true}), time.Second)
		for _, h := range tx.take() {
			var p PDU
			b, _ := hex.DecodeString(h)
			if p.Unmarshal(b) == nil && p.Type == PDUSNSAck && p.HasCause && p.Cause == CauseInvalidNumNSVCs {
				refused++
			}
		}
	}
	if len(n.VCs()) != 4 || len(n.sns.remote4) != 4 || refused != 97 {
		t.Fatalf("NS-VCs %d, endpoints %d, refused %d; want 4, 4, 97", len(n.VCs()), len(n.sns.remote4), refused)
	}
}
