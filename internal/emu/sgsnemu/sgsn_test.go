package sgsnemu

import (
	"bytes"
	"net/netip"
	"reflect"
	"testing"
	"time"

	"github.com/gopcu/gopcu/bssgp"
	"github.com/gopcu/gopcu/bssgp/bss"
	"github.com/gopcu/gopcu/bssgp/ns"
	"github.com/gopcu/gopcu/bssgp/ns/nse"
	"github.com/gopcu/gopcu/bssgp/ns/nsudp"
	"github.com/gopcu/gopcu/internal/testutil/bssrec"
)

var (
	bssAddr  = netip.MustParseAddrPort("127.0.0.1:23001")
	sgsnAddr = netip.MustParseAddrPort("127.0.0.1:23000")
	cell     = bssgp.CellID{RAI: bssgp.RAI{MCC: 901, MNC: 70, LAC: 1}, CI: 6969}
)

type pkt struct {
	toSGSN bool
	b      []byte
}

// bench is an in-memory Gb: gopcu's bss.Gb <-> the emulator, virtual time.
type bench struct {
	bss  netip.AddrPort
	sgsn netip.AddrPort
	q    []pkt
	now  time.Duration
	gb   *bss.Gb
	sg   *SGSN
	bssH *bssRec
	ul   [][]byte
	bvc  map[uint16]bool
	pdus []bssgp.PDUType
	drop bool // drop everything on the wire (link cut)
}

type txFn func(bind int, to netip.AddrPort, b []byte) error

func (f txFn) Send(bind int, to netip.AddrPort, b []byte) error { return f(bind, to, b) }

// bssRec is the engine of the BSS side, with the flow control values of
// two PDCHs.
type bssRec struct{ bssrec.Handler }

func (h *bssRec) FlowControl(now time.Duration) (bss.FlowParams, bool) {
	return bss.ComputeFlowControl(bss.FlowInput{NumPDCH: 2, PeakRatePerPDCH: 1500, MaxSlotsPerMS: 2}), true
}

func newBench(t *testing.T, dialect nse.Dialect) *bench {
	return newBenchAt(t, dialect, bssAddr, sgsnAddr)
}

func newBenchAt(t *testing.T, dialect nse.Dialect, bssAddr, sgsnAddr netip.AddrPort) *bench {
	b := &bench{bss: bssAddr, sgsn: sgsnAddr, bssH: &bssRec{}, bvc: map[uint16]bool{}}
	var err error
	b.gb, err = bss.New(bss.Config{
		NS: nse.Config{NSEI: 101, Dialect: dialect, Endpoints: []nse.Endpoint{
			{NSVCI: 101, Local: bssAddr, Remote: sgsnAddr}}},
		BVCI: 1800, CellID: cell,
	}, txFn(func(_ int, to netip.AddrPort, p []byte) error {
		b.q = append(b.q, pkt{true, append([]byte(nil), p...)})
		return nil
	}), b.bssH, nil)
	if err != nil {
		t.Fatal(err)
	}
	b.sg = New(Config{Listen: sgsnAddr}, txFn(func(_ int, to netip.AddrPort, p []byte) error {
		b.q = append(b.q, pkt{false, append([]byte(nil), p...)})
		return nil
	}), Callbacks{
		ULUnitdata: func(bvci uint16, ul *bssgp.ULUnitdata, now time.Duration) {
			b.ul = append(b.ul, append([]byte(nil), ul.LLC...))
		},
		PDU:      func(bvci uint16, p bssgp.PDU, now time.Duration) { b.pdus = append(b.pdus, p.Type()) },
		BVCState: func(bvci uint16, up bool, now time.Duration) { b.bvc[bvci] = up },
	})
	return b
}

func (b *bench) pump() {
	for len(b.q) > 0 {
		p := b.q[0]
		b.q = b.q[1:]
		if b.drop {
			continue
		}
		if p.toSGSN {
			b.sg.Input(b.bss, p.b, b.now)
		} else {
			b.gb.Input(0, b.sgsn, p.b, b.now)
		}
	}
}

// advance runs both sides' timers up to time `to`.
func (b *bench) advance(to time.Duration) {
	for {
		b.pump()
		next, ok := b.gb.NextDeadline()
		if d, ok2 := b.sg.NextDeadline(); ok2 && (!ok || d < next) {
			next, ok = d, true
		}
		if !ok || next > to {
			break
		}
		if next > b.now {
			b.now = next
		}
		b.gb.Tick(b.now)
		b.sg.Tick(b.now)
	}
	b.now = to
	b.pump()
}

func TestClassicBringUpAndTraffic(t *testing.T) {
	b := newBench(t, nse.DialectClassic)
	b.gb.Start(0)
	b.advance(10 * time.Millisecond)
	if !b.gb.Unblocked() || !b.bvc[1800] || !b.sg.NSUp() {
		t.Fatalf("not up: gb=%v sgsn=%v", b.gb.Unblocked(), b.bvc)
	}
	if bv := b.sg.BVC(1800); bv == nil || bv.CellID != cell || bv.LastFCBVC.Tag != 1 {
		t.Fatalf("%+v", bv)
	}
	// UL-UNITDATA reaches the callback, DL-UNITDATA reaches gopcu's handler.
	if err := b.gb.SendULUnitdata(0xc0000001, []byte("uplink"), b.now); err != nil {
		t.Fatal(err)
	}
	if err := b.sg.SendDLUnitdata(1800, 0xc0000001, "901700000000001", []byte("downlink"), b.now); err != nil {
		t.Fatal(err)
	}
	if err := b.sg.SendPagingPS(1800, "901700000000002", 0, false); err != nil {
		t.Fatal(err)
	}
	b.pump()
	if len(b.ul) != 1 || string(b.ul[0]) != "uplink" {
		t.Fatal(b.ul)
	}
	if len(b.bssH.DL) != 1 || b.bssH.DL[0].PDULifetime != 1000 || !bytes.Equal(b.bssH.LLC[0], []byte("downlink")) {
		t.Fatal(b.bssH.DL)
	}
	if len(b.bssH.PagesPS) != 1 || b.bssH.PagesPS[0] != "901700000000002" {
		t.Fatal(b.bssH.PagesPS)
	}
	// Flow control every second, acknowledged.
	b.advance(3*time.Second + 10*time.Millisecond)
	if tag := b.sg.BVC(1800).LastFCBVC.Tag; tag != 4 {
		t.Fatalf("FC tag %d", tag)
	}
	// SUSPEND is answered with SUSPEND-ACK.
	b.gb.SendSuspend(0xc0000001, cell.RAI, b.now)
	b.pump()
	if b.pdus[len(b.pdus)-1] != bssgp.PDUSuspend {
		t.Fatal(b.pdus)
	}
}

func TestSGSNInitiatedResets(t *testing.T) {
	b := newBench(t, nse.DialectClassic)
	b.gb.Start(0)
	b.advance(10 * time.Millisecond)
	if err := b.sg.ResetBVC(1800, b.now); err != nil {
		t.Fatal(err)
	}
	b.pump()
	if !b.gb.Unblocked() || !b.bvc[1800] {
		t.Fatal("BVC not back after SGSN BVC-RESET")
	}
	b.sg.ResetNSVC(b.now)
	b.pump()
	if !b.gb.Unblocked() || !b.bvc[1800] || !b.sg.NSUp() {
		t.Fatal("not back after NS-RESET")
	}
	if n := len(b.bssH.States); n != 5 { // up, down, up, down, up
		t.Fatal(b.bssH.States)
	}
}

// Link cut longer than tns-alive x retries: gopcu resets NS, and comes back
// when the link does.
func TestLinkLossRecovery(t *testing.T) {
	b := newBench(t, nse.DialectClassic)
	b.gb.Start(0)
	b.advance(10 * time.Millisecond)
	b.drop = true
	b.advance(2 * time.Minute)
	if b.gb.Unblocked() || b.gb.NSE().Available() {
		t.Fatal("still up after link loss")
	}
	b.drop = false
	b.advance(2*time.Minute + 4*time.Second) // next NS-RESET retry within tns-reset
	if !b.gb.Unblocked() {
		t.Fatal("not recovered")
	}
}

func TestIPSNSBringUp(t *testing.T) {
	for _, v6 := range []bool{false, true} {
		b := newBench(t, nse.DialectIPSNS)
		if v6 {
			b = newBenchAt(t, nse.DialectIPSNS, netip.MustParseAddrPort("[fd00::2]:23001"),
				netip.MustParseAddrPort("[fd00::1]:23000"))
		}
		testIPSNS(t, b)
	}
}

func TestClassicIPv6(t *testing.T) {
	b := newBenchAt(t, nse.DialectClassic, netip.MustParseAddrPort("[fd00::2]:23001"),
		netip.MustParseAddrPort("[fd00::1]:23000"))
	b.gb.Start(0)
	b.advance(10 * time.Millisecond)
	if !b.gb.Unblocked() || !b.bvc[1800] {
		t.Fatal("not up over IPv6")
	}
}

func testIPSNS(t *testing.T, b *bench) {
	t.Helper()
	b.gb.Start(0)
	b.advance(10 * time.Millisecond)
	if !b.gb.Unblocked() || !b.bvc[1800] {
		t.Fatalf("IP-SNS not up: %v %v", b.gb.Unblocked(), b.bvc)
	}
	if err := b.sg.SendDLUnitdata(1800, 0xc0000001, "", []byte{1}, b.now); err != nil {
		t.Fatal(err)
	}
	b.pump()
	if len(b.bssH.DL) != 1 {
		t.Fatal("no DL over IP-SNS")
	}
}

// The emulator over real UDP on loopback, with gopcu's Gb in a real-time loop.
func TestServerUDP(t *testing.T) {
	got := make(chan []byte, 4)
	srv, err := Listen(netip.MustParseAddrPort("127.0.0.1:0"), Config{}, Callbacks{
		ULUnitdata: func(bvci uint16, ul *bssgp.ULUnitdata, now time.Duration) {
			got <- append([]byte(nil), ul.LLC...)
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	in := make(chan nsudp.Datagram, 16)
	udp, err := nsudp.ListenUDP([]netip.AddrPort{netip.MustParseAddrPort("127.0.0.1:0")}, func(d nsudp.Datagram) { in <- d })
	if err != nil {
		t.Fatal(err)
	}
	defer udp.Close()
	h := &bssRec{}
	gb, _ := bss.New(bss.Config{NS: nse.Config{NSEI: 7, Endpoints: []nse.Endpoint{{NSVCI: 7, Remote: srv.Addr()}}},
		BVCI: 2, CellID: cell}, udp, h, nil)
	t0 := time.Now()
	gb.Start(0)
	deadline := time.After(5 * time.Second)
	sent := false
	for {
		select {
		case d := <-in:
			gb.Input(d.Bind, d.From, d.Data, time.Since(t0))
		case llc := <-got:
			if string(llc) != "hello" {
				t.Fatal(string(llc))
			}
			if err := srv.SendDLUnitdata(2, 0xc0000002, "", []byte("world")); err != nil {
				t.Fatal(err)
			}
		case <-time.After(20 * time.Millisecond):
			gb.Tick(time.Since(t0))
		case <-deadline:
			t.Fatal("timeout")
		}
		if gb.Unblocked() && !sent {
			sent = true
			if err := gb.SendULUnitdata(0xc0000002, []byte("hello"), time.Since(t0)); err != nil {
				t.Fatal(err)
			}
		}
		if len(h.LLC) == 1 {
			if string(h.LLC[0]) != "world" {
				t.Fatal(string(h.LLC[0]))
			}
			return
		}
	}
}

func TestEcho(t *testing.T) {
	b := newBench(t, nse.DialectClassic)
	b.sg.cfg.Echo = true
	b.gb.Start(0)
	b.advance(10 * time.Millisecond)
	b.gb.SendULUnitdata(0xc0000005, []byte("ping"), b.now)
	b.pump()
	if len(b.bssH.DL) != 1 || b.bssH.DL[0].TLLI != 0xc0000005 || string(b.bssH.LLC[0]) != "ping" {
		t.Fatal(b.bssH.DL)
	}
}

func TestSNSRuntimeProcedures(t *testing.T) {
	b := newBench(t, nse.DialectIPSNS)
	b.gb.Start(0)
	b.advance(10 * time.Millisecond)
	if !b.gb.Unblocked() {
		t.Fatal("not up")
	}
	me := ns.IPElement{Addr: sgsnAddr.Addr(), Port: sgsnAddr.Port(), SigWeight: 2, DataWeight: 7}
	tid, err := b.sg.SNSChangeWeight(me)
	if err != nil {
		t.Fatal(err)
	}
	b.pump()
	if len(b.sg.SNSAcks) != 1 || !reflect.DeepEqual(b.sg.SNSAcks[0], SNSAck{TransactionID: tid}) {
		t.Fatal(b.sg.SNSAcks)
	}
	if vc := b.gb.NSE().VCs()[0]; vc.DataWeight != 7 || vc.SigWeight != 2 {
		t.Fatalf("weights %d/%d", vc.SigWeight, vc.DataWeight)
	}
	other := ns.IPElement{Addr: netip.MustParseAddr("127.0.0.9"), Port: 23000, SigWeight: 1, DataWeight: 1}
	tid, _ = b.sg.SNSDelete(other)
	b.pump()
	if a := b.sg.SNSAcks[1]; a.TransactionID != tid || !a.HasCause || a.Cause != ns.CauseUnknownIPEndpoint {
		t.Fatal(a)
	}
	tid, _ = b.sg.SNSAdd(other)
	b.pump()
	if a := b.sg.SNSAcks[2]; a.TransactionID != tid || a.HasCause || len(a.IP4) != 0 || len(b.gb.NSE().VCs()) != 2 {
		t.Fatal(a, len(b.gb.NSE().VCs()))
	}
	tid, _ = b.sg.SNSDelete(other)
	b.pump()
	// The deletion is acknowledged with the deleted element (libosmogb).
	if a := b.sg.SNSAcks[3]; a.TransactionID != tid || a.HasCause || len(a.IP4) != 1 || a.IP4[0] != other ||
		len(b.gb.NSE().VCs()) != 1 || !b.gb.Unblocked() {
		t.Fatal(a, len(b.gb.NSE().VCs()), b.gb.Unblocked())
	}
}

// An in-process link: gopcu's Gb in a real-time loop, the emulator in its
// own goroutine, datagrams over channels (no sockets).
func TestServerInProcess(t *testing.T) {
	toBSS := make(chan []byte, 64)
	srv := Start(Config{Listen: sgsnAddr}, nse.TransportFunc(func(_ int, to netip.AddrPort, b []byte) error {
		toBSS <- append([]byte(nil), b...)
		return nil
	}), Callbacks{})
	defer srv.Close()
	h := &bssRec{}
	gb, _ := bss.New(bss.Config{NS: nse.Config{NSEI: 9, Endpoints: []nse.Endpoint{{NSVCI: 9, Remote: sgsnAddr}}},
		BVCI: 3, CellID: cell}, nse.TransportFunc(func(_ int, to netip.AddrPort, b []byte) error {
		srv.Deliver(bssAddr, b)
		return nil
	}), h, nil)
	t0 := time.Now()
	gb.Start(0)
	deadline := time.After(5 * time.Second)
	for !gb.Unblocked() {
		select {
		case b := <-toBSS:
			gb.Input(0, sgsnAddr, b, time.Since(t0))
		case <-deadline:
			t.Fatal("not up")
		}
	}
	var bvc *BVC
	srv.Do(func(sg *SGSN, now time.Duration) {
		if b := sg.BVC(3); b != nil {
			c := *b
			bvc = &c
		}
	})
	if bvc == nil || bvc.CellID != cell {
		t.Fatalf("%+v", bvc)
	}
}
