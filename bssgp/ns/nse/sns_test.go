package nse

import (
	"encoding/hex"
	"github.com/gopcu/gopcu/bssgp/ns"
	"net/netip"
	"slices"
	"testing"
	"time"
)

func mustMarshal(t *testing.T, p ns.PDU) []byte {
	b, err := ns.Marshal(p)
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
	n.Input(0, sgsn, mustMarshal(t, &ns.SNSSizeAck{NSEI: 1234}), time.Millisecond)
	want(t, tx.take(), "0f01048204d205887f00000159d90101")
	n.Input(0, sgsn, mustMarshal(t, &ns.SNSConfigAck{NSEI: 1234}), time.Millisecond)
	want(t, tx.take())
	sg2 := ns.IPElement{Addr: netip.MustParseAddr("127.0.0.1"), Port: 23000, SigWeight: 1, DataWeight: 1}
	n.Input(0, sgsn, mustMarshal(t, &ns.SNSConfig{EndFlag: true, NSEI: 1234,
		IP4: []ns.IPElement{sg2}, HasIP4: true}), 2*time.Millisecond)
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
	n.Input(0, sgsn, mustMarshal(t, &ns.SNSChangeWeight{NSEI: 1234, TransactionID: 1,
		IP4: []ns.IPElement{sg2}, HasIP4: true}), time.Second)
	want(t, tx.take(), "0c048204d201")
	if n.VCs()[0].DataWeight != 5 {
		t.Fatal("weight not applied")
	}
	sg3 := ns.IPElement{Addr: netip.MustParseAddr("127.0.0.2"), Port: 23000, SigWeight: 1, DataWeight: 1}
	n.Input(0, sgsn, mustMarshal(t, &ns.SNSAdd{NSEI: 1234, TransactionID: 2,
		IP4: []ns.IPElement{sg3}, HasIP4: true}), time.Second)
	want(t, tx.take(), "0a", "0c048204d202")
	if len(n.VCs()) != 2 {
		t.Fatal(len(n.VCs()))
	}
	n.Input(0, sgsn, mustMarshal(t, &ns.SNSDelete{NSEI: 1234, TransactionID: 3,
		IPAddr: sg3.Addr}), time.Second)
	want(t, tx.take(), "0c048204d203")
	if len(n.VCs()) != 1 {
		t.Fatal(len(n.VCs()))
	}
	// Unknown endpoint -> SNS-ACK with cause and the offending list.
	n.Input(0, sgsn, mustMarshal(t, &ns.SNSDelete{NSEI: 1234, TransactionID: 4,
		IP4: []ns.IPElement{sg3}, HasIP4: true}), time.Second)
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
	n.Input(0, sgsn, mustMarshal(t, &ns.SNSSizeAck{NSEI: 1234}), 0)
	n.Input(0, sgsn, mustMarshal(t, &ns.SNSConfigAck{NSEI: 1234}), 0)
	n.Input(0, sgsn, mustMarshal(t, &ns.SNSConfig{EndFlag: true, NSEI: 1234,
		IP4: []ns.IPElement{{Addr: sgsn.Addr(), Port: sgsn.Port(), SigWeight: 1, DataWeight: 1}}, HasIP4: true}), 0)
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

// only returns the one PDU of out if it is a T.
func only[T ns.PDU](out []ns.PDU) (T, bool) {
	var zero T
	if len(out) != 1 {
		return zero, false
	}
	p, ok := out[0].(T)
	return p, ok
}

// isAck reports whether p is an SNS-ACK with (or without) a cause.
func isAck(p ns.PDU, withCause bool) bool {
	a, ok := p.(*ns.SNSAck)
	return ok && a.HasCause == withCause
}

// sentPDUs decodes what the NSE sent.
func (r *recTx) pdus(t *testing.T) []ns.PDU {
	t.Helper()
	var out []ns.PDU
	for _, x := range r.out {
		p, err := ns.Parse(x.b)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, p)
	}
	r.out = nil
	return out
}

// snsUp runs SIZE, CONFIG both ways and the first ALIVE of an IP-SNS NSE
// whose SGSN announces sgsnEPs.
func snsUp(t *testing.T, n *NSE, tx *recTx, sgsnEPs ...ns.IPElement) {
	t.Helper()
	n.Input(0, sgsn, mustMarshal(t, &ns.SNSSizeAck{NSEI: n.cfg.NSEI}), 0)
	n.Input(0, sgsn, mustMarshal(t, &ns.SNSConfigAck{NSEI: n.cfg.NSEI}), 0)
	n.Input(0, sgsn, mustMarshal(t, &ns.SNSConfig{EndFlag: true, NSEI: n.cfg.NSEI,
		IP4: sgsnEPs, HasIP4: true}), 0)
	for _, e := range sgsnEPs {
		n.Input(0, e.AddrPort(), []byte{0x0b}, 0)
	}
	if !n.Available() {
		t.Fatal("IP-SNS NSE not up")
	}
	tx.take()
}

// INFO_IND gives only local ports (OsmoBTS always does): the binds are on
// the wildcard address and SNS-SIZE / SNS-CONFIG announce, per bind, the
// source address towards the SGSN endpoint used for the SNS procedures
// (libosmogb ns2_sns_compute_local_ep_from_binds), as the TTCN-3
// TC_sns_po_config_success expects (its IP4 element is the PCU's address
// and port as the SGSN sees them).
func TestSNSWildcardLocalAddress(t *testing.T) {
	remote := [16]byte{192, 0, 2, 1}
	eps := EndpointsFromInfoInd([]InfoIndNSVC{
		{NSVCI: 1, LocalPort: 22000, RemotePort: 23000, AddrType: InfoAddrIPv4, RemoteIP: remote},
		{NSVCI: 2, LocalPort: 22001, RemotePort: 23001, AddrType: InfoAddrIPv4, RemoteIP: remote},
	})
	var asked []netip.AddrPort
	tx, h := &recTx{}, &recH{}
	n, err := NewNSE(Config{NSEI: 1234, Dialect: DialectIPSNS, Endpoints: eps,
		SourceAddr: func(r netip.AddrPort) (netip.Addr, error) {
			asked = append(asked, r)
			return netip.MustParseAddr("198.51.100.7"), nil
		}}, tx, h, nil)
	if err != nil {
		t.Fatal(err)
	}
	n.Start(0)
	out := tx.pdus(t)
	if p, ok := only[*ns.SNSSize](out); !ok || !p.HasNumIP4EP || p.NumIP4EP != 2 || p.HasNumIP6EP {
		t.Fatalf("SNS-SIZE %+v", out)
	}
	// Both binds are resolved towards the initial SGSN endpoint.
	if len(asked) != 2 || asked[0] != netip.MustParseAddrPort("192.0.2.1:23000") || asked[1] != asked[0] {
		t.Fatalf("resolved towards %v", asked)
	}
	n.Input(0, eps[0].Remote, mustMarshal(t, &ns.SNSSizeAck{NSEI: 1234}), 0)
	out = tx.pdus(t)
	wantEl := []ns.IPElement{
		{Addr: netip.MustParseAddr("198.51.100.7"), Port: 22000, SigWeight: 1, DataWeight: 1},
		{Addr: netip.MustParseAddr("198.51.100.7"), Port: 22001, SigWeight: 1, DataWeight: 1},
	}
	if p, ok := only[*ns.SNSConfig](out); !ok || !slices.Equal(p.IP4, wantEl) || !p.EndFlag {
		t.Fatalf("SNS-CONFIG %+v", out)
	}

	// Without SourceAddr the NSE (no I/O of its own) cannot announce a
	// wildcard address: refused at once, not an empty SNS-SIZE.
	eps = EndpointsFromInfoInd([]InfoIndNSVC{
		{NSVCI: 1, LocalPort: 22000, RemotePort: 23000, AddrType: InfoAddrIPv4, RemoteIP: [16]byte{127, 0, 0, 1}},
		{NSVCI: 2, LocalPort: 22000, RemotePort: 23001, AddrType: InfoAddrIPv4, RemoteIP: [16]byte{127, 0, 0, 1}},
	})
	if _, err := NewNSE(Config{NSEI: 1234, Dialect: DialectIPSNS, Endpoints: eps}, tx, h, nil); err == nil {
		t.Fatal("an IP-SNS NSE with a wildcard local address and no SourceAddr")
	}
	// The transport's choice (as nsudp.SourceAddrTowards gives: towards
	// 127.0.0.1 it is 127.0.0.1). Two NS-VCs on one local port are one
	// bind, one element.
	loop := func(netip.AddrPort) (netip.Addr, error) { return netip.MustParseAddr("127.0.0.1"), nil }
	n, err = NewNSE(Config{NSEI: 1234, Dialect: DialectIPSNS, Endpoints: eps, SourceAddr: loop}, tx, h, nil)
	if err != nil {
		t.Fatal(err)
	}
	n.Start(0)
	if p, ok := only[*ns.SNSSize](tx.pdus(t)); !ok || p.NumIP4EP != 1 {
		t.Fatalf("SNS-SIZE %+v", out)
	}
	n.Input(0, sgsn, mustMarshal(t, &ns.SNSSizeAck{NSEI: 1234}), 0)
	want(t, tx.take(), "0f01048204d205887f00000155f00101") // 127.0.0.1:22000, weights 1/1
}

// TTCN-3 TC_sns_add_nack, TC_sns_del: an SNS-ADD of an endpoint that is
// already configured gets SNS-ACK with "Protocol error - unspecified" and
// changes nothing; an SNS-DELETE is acknowledged with the deleted IP4
// elements.
func TestSNSAddExistingAndDeleteEcho(t *testing.T) {
	tx, h := &recTx{}, &recH{}
	n, err := NewNSE(Config{NSEI: 1234, Dialect: DialectIPSNS,
		Endpoints: []Endpoint{{Local: netip.MustParseAddrPort("127.0.0.1:22000"), Remote: sgsn}}}, tx, h, nil)
	if err != nil {
		t.Fatal(err)
	}
	n.Start(0)
	sig := ns.IPElement{Addr: sgsn.Addr(), Port: 23000, SigWeight: 1, DataWeight: 0}
	user := ns.IPElement{Addr: sgsn.Addr(), Port: 23001, SigWeight: 0, DataWeight: 1}
	snsUp(t, n, tx, sig, user)
	if len(n.VCs()) != 2 {
		t.Fatal(len(n.VCs()))
	}
	dup := sig
	dup.SigWeight, dup.DataWeight = 0, 1
	n.Input(0, sgsn, mustMarshal(t, &ns.SNSAdd{NSEI: 1234, TransactionID: 23,
		IP4: []ns.IPElement{dup}, HasIP4: true}), time.Second)
	// SNS-ACK, NSEI 1234, TID 23, cause 0x0b, no IP4 list.
	want(t, tx.take(), "0c048204d21700810b")
	// A new endpoint followed by a known one: refused as a whole.
	fresh := ns.IPElement{Addr: sgsn.Addr(), Port: 23002, SigWeight: 0, DataWeight: 1}
	n.Input(0, sgsn, mustMarshal(t, &ns.SNSAdd{NSEI: 1234, TransactionID: 24,
		IP4: []ns.IPElement{fresh, dup}, HasIP4: true}), time.Second)
	want(t, tx.take(), "0c048204d21800810b")
	if len(n.VCs()) != 2 {
		t.Fatalf("%d NS-VCs after refused SNS-ADDs", len(n.VCs()))
	}
	// SNS-DELETE of the user-plane endpoint: SNS-ACK echoes it.
	n.Input(0, sgsn, mustMarshal(t, &ns.SNSDelete{NSEI: 1234, TransactionID: 25,
		IP4: []ns.IPElement{user}, HasIP4: true}), time.Second)
	out := tx.pdus(t)
	if p, ok := only[*ns.SNSAck](out); !ok || p.TransactionID != 25 || p.HasCause ||
		!slices.Equal(p.IP4, []ns.IPElement{user}) {
		t.Fatalf("SNS-ACK %+v", out)
	}
	if len(n.VCs()) != 1 || n.VCs()[0].Remote != sig.AddrPort() {
		t.Fatalf("NS-VCs after delete: %d", len(n.VCs()))
	}
	// The deleted endpoint can be added again.
	n.Input(0, sgsn, mustMarshal(t, &ns.SNSAdd{NSEI: 1234, TransactionID: 26,
		IP4: []ns.IPElement{user}, HasIP4: true}), time.Second)
	if out := tx.pdus(t); len(out) < 1 || !isAck(out[len(out)-1], false) {
		t.Fatalf("%+v", out)
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
	n.Input(0, sgsn, mustMarshal(t, &ns.SNSSizeAck{NSEI: 1234}), time.Millisecond)
	n.Input(0, sgsn, mustMarshal(t, &ns.SNSConfigAck{NSEI: 1234}), time.Millisecond)
	sg := ns.IPElement{Addr: netip.MustParseAddr("127.0.0.1"), Port: 23000, SigWeight: 1, DataWeight: 1}
	for i := 0; i < 3; i++ { // the same endpoint thrice: one entry
		n.Input(0, sgsn, mustMarshal(t, &ns.SNSConfig{EndFlag: i == 2, NSEI: 1234,
			IP4: []ns.IPElement{sg}, HasIP4: true}), 2*time.Millisecond)
	}
	tx.take()
	refused := 0
	for i := 0; i < 100; i++ {
		e := ns.IPElement{Addr: netip.AddrFrom4([4]byte{127, 0, 1, byte(i)}), Port: 23000, SigWeight: 1, DataWeight: 1}
		n.Input(0, sgsn, mustMarshal(t, &ns.SNSAdd{NSEI: 1234, TransactionID: uint8(i),
			IP4: []ns.IPElement{e}, HasIP4: true}), time.Second)
		for _, h := range tx.take() {
			var p ns.SNSAck
			b, _ := hex.DecodeString(h)
			if ns.Unmarshal(b, &p) == nil && p.HasCause && p.Cause == ns.CauseInvalidNumNSVCs {
				refused++
			}
		}
	}
	if len(n.VCs()) != 4 || len(n.sns.remote4) != 4 || refused != 97 {
		t.Fatalf("NS-VCs %d, endpoints %d, refused %d; want 4, 4, 97", len(n.VCs()), len(n.sns.remote4), refused)
	}
}
