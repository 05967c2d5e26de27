package nse

import (
	"fmt"
	"github.com/gopcu/gopcu/bssgp/ns"
	"net/netip"
	"slices"
	"testing"
	"time"

	"github.com/gopcu/gopcu/internal/ratectr"
	"github.com/gopcu/gopcu/stats/counter"
)

// grp is the ratectr group behind a counter.Group the registry made.
func grp(g counter.Group) *ratectr.Group { return g.(*ratectr.Group) }

func groupNames(reg *ratectr.Registry) []string {
	var out []string
	for _, g := range reg.Groups() {
		out = append(out, fmt.Sprintf("%s.%d.%s", g.Name, g.Index, g.IndexName))
	}
	return out
}

func TestVCGroupName(t *testing.T) {
	for _, c := range []struct {
		nsei          uint16
		local, remote string
		want          string
	}{
		// As osmo-pcu 1.1.0 shows it (stats/testdata/osmo-pcu-1.1.0-show-stats.txt).
		{101, "0.0.0.0:23001", "127.0.0.1:23000", "NSE00101-NSVC-UDP-0_0_0_0:23001-127_0_0_1:23000"},
		{7, "[::]:23001", "[fd00::1]:23000", "NSE00007-NSVC-UDP-_::_:23001-_fd00::1_:23000"},
		{65535, "10.0.0.1:0", "192.168.1.2:23000", "NSE65535-NSVC-UDP-10_0_0_1-192_168_1_2:23000"},
	} {
		got := VCGroupName(c.nsei, netip.MustParseAddrPort(c.local), netip.MustParseAddrPort(c.remote))
		if got != c.want {
			t.Errorf("VCGroupName(%d, %s, %s) = %q, want %q", c.nsei, c.local, c.remote, got, c.want)
		}
	}
}

// TestVCCounterGroups: one "ns:nsvc" group per NS-VC, numbered in
// allocation order and named after the NS-VC, registered while the NS-VC
// exists; every NS-VC event counts on its group and the NSE's.
func TestVCCounterGroups(t *testing.T) {
	reg := &ratectr.Registry{}
	tx, h := &recTx{}, &recH{}
	s6 := netip.MustParseAddrPort("[fd00::1]:23000")
	n, err := NewNSE(Config{NSEI: 101, Counters: reg, Endpoints: []Endpoint{
		{Bind: 0, NSVCI: 101, Local: netip.MustParseAddrPort("0.0.0.0:23001"), Remote: sgsn},
		{Bind: 1, NSVCI: 102, Local: netip.MustParseAddrPort("[::]:23002"), Remote: s6},
	}}, tx, h, nil)
	if err != nil {
		t.Fatal(err)
	}
	wantGroups := []string{"ns:nse.101.", "ns:nsvc.0.NSE00101-NSVC-UDP-0_0_0_0:23001-127_0_0_1:23000",
		"ns:nsvc.1.NSE00101-NSVC-UDP-_::_:23002-_fd00::1_:23000"}
	if got := groupNames(reg); !slices.Equal(got, wantGroups) {
		t.Fatalf("groups %q, want %q", got, wantGroups)
	}
	vc0, vc1 := n.VCs()[0], n.VCs()[1]
	counts := func(g *ratectr.Group, idx ...int) []uint64 {
		var v []uint64
		for _, i := range idx {
			v = append(v, g.Value(i))
		}
		return v
	}
	check := func(step string, g *ratectr.Group, want ...uint64) {
		t.Helper()
		got := counts(g, CtrPktsIn, CtrBytesIn, CtrPktsOut, CtrBytesOut, CtrUnblocked, CtrLostReset)
		if !slices.Equal(got, want) {
			t.Fatalf("%s: %s %d %v, want %v (pkts in, bytes in, pkts out, bytes out, unblocked, lost:reset)",
				step, g.Name, g.Index, got, want)
		}
	}
	n.Start(0) // NS-RESET (12 octets) on both
	check("start", grp(vc0.Ctrs), 0, 0, 1, 12, 0, 0)
	check("start", grp(vc1.Ctrs), 0, 0, 1, 12, 0, 0)
	check("start", grp(n.Ctrs), 0, 0, 2, 24, 0, 0)
	// NS-RESET-ACK on NS-VC 0 (9 octets): NS-UNBLOCK and NS-ALIVE go out;
	// NS-UNBLOCK-ACK unblocks it.
	in(n, hResetAck, time.Millisecond)
	in(n, hUnblkAck, time.Millisecond)
	check("unblocked", grp(vc0.Ctrs), 2, 10, 3, 14, 1, 0)
	// A datagram from a peer that is no NS-VC counts nowhere (it gets
	// NS-STATUS, which is not counted either).
	n.Input(0, netip.MustParseAddrPort("127.0.0.9:1"), []byte{0x0a}, time.Millisecond)
	check("stranger", grp(n.Ctrs), 2, 10, 4, 26, 1, 0)
	// Tns-reset expires on NS-VC 1: lost:reset, NS-RESET again.
	n.Tick(3 * time.Second)
	check("lost reset", grp(vc1.Ctrs), 0, 0, 2, 24, 0, 1)
	check("lost reset", grp(n.Ctrs), 2, 10, 5, 38, 1, 1)
	for i := range CounterDescs { // the NSE is the sum of its NS-VCs
		if grp(n.Ctrs).Value(i) != grp(vc0.Ctrs).Value(i)+grp(vc1.Ctrs).Value(i) {
			t.Fatalf("%s: NSE %d, NS-VCs %d + %d", CounterDescs[i].Name, grp(n.Ctrs).Value(i), grp(vc0.Ctrs).Value(i), grp(vc1.Ctrs).Value(i))
		}
	}
	// NS-VC 1 dropped, a new one added: its group is number 2.
	cfg := n.Config()
	cfg.Endpoints = []Endpoint{cfg.Endpoints[0], {Bind: 1, NSVCI: 103, Local: netip.MustParseAddrPort("0.0.0.0:23002"),
		Remote: netip.MustParseAddrPort("127.0.0.1:23003")}}
	if !n.Reconfigure(cfg, 4*time.Second) {
		t.Fatal("not applied")
	}
	wantGroups = []string{"ns:nse.101.", "ns:nsvc.0.NSE00101-NSVC-UDP-0_0_0_0:23001-127_0_0_1:23000",
		"ns:nsvc.2.NSE00101-NSVC-UDP-0_0_0_0:23002-127_0_0_1:23003"}
	if got := groupNames(reg); !slices.Equal(got, wantGroups) {
		t.Fatalf("groups after reconfigure %q, want %q", got, wantGroups)
	}
	n.Stop(5 * time.Second)
	n.Close()
	if got := groupNames(reg); len(got) != 0 {
		t.Fatalf("groups after Close %q", got)
	}
}

// TestSNSCounterGroups: IP-SNS signalling before any NS-VC exists counts
// on the NSE only; NS-VCs named after the resolved local address come and
// go with SNS-CONFIG, SNS-ADD and SNS-DELETE.
func TestSNSCounterGroups(t *testing.T) {
	reg := &ratectr.Registry{}
	tx, h := &recTx{}, &recH{}
	n, err := NewNSE(Config{NSEI: 1234, Dialect: DialectIPSNS, Counters: reg,
		Endpoints: []Endpoint{{Bind: 0, Local: netip.MustParseAddrPort("127.0.0.1:23001"), Remote: sgsn}}}, tx, h, nil)
	if err != nil {
		t.Fatal(err)
	}
	n.Start(0)
	n.Input(0, sgsn, mustMarshal(t, &ns.SNSSizeAck{NSEI: 1234}), time.Millisecond)
	n.Input(0, sgsn, mustMarshal(t, &ns.SNSConfigAck{NSEI: 1234}), time.Millisecond)
	if got := groupNames(reg); !slices.Equal(got, []string{"ns:nse.1234."}) {
		t.Fatalf("groups %q", got)
	}
	if in, out := grp(n.Ctrs).Value(CtrPktsIn), grp(n.Ctrs).Value(CtrPktsOut); in != 2 || out != 2 {
		t.Fatalf("NSE packets in %d out %d, want 2 2", in, out)
	}
	sg := ns.IPElement{Addr: sgsn.Addr(), Port: sgsn.Port(), SigWeight: 1, DataWeight: 1}
	n.Input(0, sgsn, mustMarshal(t, &ns.SNSConfig{EndFlag: true, NSEI: 1234,
		IP4: []ns.IPElement{sg}, HasIP4: true}), 2*time.Millisecond)
	// SNS-CONFIG and its SNS-CONFIG-ACK came and went before the NS-VC
	// existed: on the NSE only; the NS-ALIVE on the new NS-VC counts on both.
	vc := n.VCs()[0]
	if grp(vc.Ctrs).IndexName != "NSE01234-NSVC-UDP-127_0_0_1:23001-127_0_0_1:23000" || grp(vc.Ctrs).Index != 0 {
		t.Fatalf("NS-VC group %d %q", grp(vc.Ctrs).Index, grp(vc.Ctrs).IndexName)
	}
	if in, out := grp(vc.Ctrs).Value(CtrPktsIn), grp(vc.Ctrs).Value(CtrPktsOut); in != 0 || out != 1 {
		t.Fatalf("NS-VC packets in %d out %d, want 0 1", in, out)
	}
	if in, out := grp(n.Ctrs).Value(CtrPktsIn), grp(n.Ctrs).Value(CtrPktsOut); in != 3 || out != 4 {
		t.Fatalf("NSE packets in %d out %d, want 3 4", in, out)
	}
	sg3 := ns.IPElement{Addr: netip.MustParseAddr("127.0.0.2"), Port: 23000, SigWeight: 1, DataWeight: 1}
	n.Input(0, sgsn, mustMarshal(t, &ns.SNSAdd{NSEI: 1234, TransactionID: 2,
		IP4: []ns.IPElement{sg3}, HasIP4: true}), time.Second)
	if got := groupNames(reg); len(got) != 3 || got[2] != "ns:nsvc.1.NSE01234-NSVC-UDP-127_0_0_1:23001-127_0_0_2:23000" {
		t.Fatalf("groups after SNS-ADD %q", got)
	}
	n.Input(0, sgsn, mustMarshal(t, &ns.SNSDelete{NSEI: 1234, TransactionID: 3,
		IPAddr: sg3.Addr}), time.Second)
	if got := groupNames(reg); len(got) != 2 || got[1] != "ns:nsvc.0.NSE01234-NSVC-UDP-127_0_0_1:23001-127_0_0_1:23000" {
		t.Fatalf("groups after SNS-DELETE %q", got)
	}
}

// TestAliveDelay: the "alive.delay" stat item is the time from the first
// NS-ALIVE of a test round to its NS-ALIVE-ACK, 0 after a reset.
func TestAliveDelay(t *testing.T) {
	n, tx, _ := classicNSE(t)
	n.Start(0)
	in(n, hResetAck, time.Millisecond) // NS-UNBLOCK, NS-ALIVE
	in(n, hUnblkAck, time.Millisecond)
	vc := n.VCs()[0]
	if vc.AliveDelay() != 0 {
		t.Fatal(vc.AliveDelay())
	}
	in(n, hAliveAck, 5*time.Millisecond)
	if d := vc.AliveDelay(); d != 4*time.Millisecond {
		t.Fatalf("alive.delay %v, want 4ms", d)
	}
	// Tns-test (30 s) later the next round; one retransmission after
	// Tns-alive (3 s): the delay runs from the first NS-ALIVE.
	n.Tick(5*time.Millisecond + 30*time.Second)
	n.Tick(5*time.Millisecond + 33*time.Second)
	tx.take()
	in(n, hAliveAck, 5*time.Millisecond+33*time.Second+100*time.Millisecond)
	if d := vc.AliveDelay(); d != 3100*time.Millisecond {
		t.Fatalf("alive.delay %v, want 3.1s", d)
	}
	vc.startReset(41 * time.Second) // e.g. after NS-STATUS "NS-VC unknown"
	if d := vc.AliveDelay(); d != 0 {
		t.Fatalf("alive.delay after reset %v", d)
	}
	if b := n.Binds(); !slices.Equal(b, []int{0}) {
		t.Fatalf("binds %v", b)
	}
}
