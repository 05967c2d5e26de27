package statsd

import (
	"context"
	"net"
	"net/netip"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/gopcu/gopcu/bssgp/ns"
	"github.com/gopcu/gopcu/internal/ratectr"
	"github.com/gopcu/gopcu/pcu"
	"github.com/gopcu/gopcu/pcu/pcuif"
	"github.com/gopcu/gopcu/tests/btsemu"
	"github.com/gopcu/gopcu/tests/netns"
	"github.com/gopcu/gopcu/tests/sgsnemu"
)

// sgsnIn starts the SGSN emulator on 127.0.0.1:23000 inside n (the SGSN
// address of btsemu.DefaultInfo) and returns it with a channel closed when
// BVC 1800 is unblocked.
func sgsnIn(t *testing.T, n *netns.NS) (*sgsnemu.Server, chan struct{}) {
	up := make(chan struct{})
	var closed bool
	var sg *sgsnemu.Server
	if err := n.Do(func() (err error) {
		sg, err = sgsnemu.Listen(netip.MustParseAddrPort("127.0.0.1:23000"), sgsnemu.Config{}, sgsnemu.Callbacks{
			BVCState: func(bvci uint16, unblocked bool, now time.Duration) {
				if bvci == 1800 && unblocked && !closed {
					closed = true
					close(up)
				}
			},
		})
		return err
	}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { sg.Close() })
	return sg, up
}

// pagingScript: wait for the BVC, 8 blocks, PAGING-PS for an unknown IMSI
// with P-TMSI (TS 48.018 §10.3.1, on the signalling BVC), 8 blocks.
func pagingScript(t *testing.T, bts *btsemu.BTS, sg *sgsnemu.Server, up chan struct{}) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	if err := bts.WaitActive(ctx, 4); err != nil {
		t.Fatal(err)
	}
	select {
	case <-up:
	case <-ctx.Done():
		t.Fatal("BVC 1800 not unblocked")
	}
	steps := func() {
		for range 8 {
			if _, err := bts.Step(ctx, 2*time.Second); err != nil {
				t.Fatal(err)
			}
		}
	}
	steps()
	var err error
	sg.Do(func(s *sgsnemu.SGSN, now time.Duration) {
		err = s.SendPagingPS(1800, "901700000000042", 0xc0001234, true)
	})
	if err != nil {
		t.Fatal(err)
	}
	time.Sleep(100 * time.Millisecond) // the PDU crosses the namespace's loopback
	steps()
}

func osmoPCUPaging(t *testing.T) map[string]int64 {
	bin, err := exec.LookPath("osmo-pcu")
	if err != nil {
		t.Skip("osmo-pcu not installed")
	}
	n := netns.New(t)
	var ln *net.UDPConn
	if err := n.Do(func() (err error) {
		ln, err = net.ListenUDP("udp", &net.UDPAddr{IP: net.IPv4(127, 0, 0, 1), Port: DefaultPort})
		return err
	}); err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	sg, up := sgsnIn(t, n)
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "osmo-pcu.cfg"), []byte(osmoPCUConfig), 0o644); err != nil {
		t.Fatal(err)
	}
	bts, err := btsemu.Listen(btsemu.Config{Path: filepath.Join(dir, "pcu_bts"), Version: pcuif.V10})
	if err != nil {
		t.Fatal(err)
	}
	defer bts.Close()
	pkts := readPackets(ln)
	n.Start(dir, "osmo-pcu.log", bin, "-c", "osmo-pcu.cfg")
	pagingScript(t, bts, sg, up)
	time.Sleep(2200 * time.Millisecond) // two more reports (stats interval 1)
	ln.Close()
	var all []string
	for p := range pkts {
		all = append(all, p)
	}
	return sumCounters(all, "TTCN3.")
}

func gopcuPaging(t *testing.T) map[string]int64 {
	n := netns.New(t)
	sg, up := sgsnIn(t, n)
	dir := t.TempDir()
	path := filepath.Join(dir, "pcu_bts")
	bts, err := btsemu.Listen(btsemu.Config{Path: path, Version: pcuif.V10})
	if err != nil {
		t.Fatal(err)
	}
	defer bts.Close()
	reg := &ratectr.Registry{}
	eng := pcu.New(pcu.Config{SocketPath: path, MinBackoff: 20 * time.Millisecond, Counters: reg, Gb: true,
		ListenUDP: func(binds []netip.AddrPort, deliver func(ns.Datagram)) (*ns.UDP, error) {
			var u *ns.UDP
			err := n.Do(func() (err error) { u, err = ns.ListenUDP(binds, deliver); return })
			return u, err
		}})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { eng.Run(ctx); close(done) }()
	defer func() { cancel(); <-done }()
	r := New(ttcn3, reg, nil)
	c := &capture{}
	r.SetSender(c.send)
	r.Report(time.Now())
	pagingScript(t, bts, sg, up)
	eng.Call(func() {})
	r.Report(time.Now())
	return sumCounters(c.take(), "TTCN3.")
}

// TestPagingCountersMatchOsmoPCU sends the same PS paging from the SGSN
// emulator to osmo-pcu 1.1.0 and to gopcu (each in its own namespace) and
// compares the BTS and SGSN counters both report over statsd.
func TestPagingCountersMatchOsmoPCU(t *testing.T) {
	t.Parallel() // each run has its own network namespace
	if _, err := exec.LookPath("osmo-pcu"); err != nil {
		t.Skip("osmo-pcu not installed")
	}
	ref := osmoPCUPaging(t)
	got := gopcuPaging(t)
	if ref["pcu.sgsn.0.rx_paging_ps"] != 1 || ref["bts.0.pch.requests"] != 1 {
		t.Fatalf("osmo-pcu counted %d PS pagings, %d PCH requests", ref["pcu.sgsn.0.rx_paging_ps"], ref["bts.0.pch.requests"])
	}
	var diffs []string
	for _, k := range sortedKeys(ref, got) {
		if ref[k] == got[k] {
			continue
		}
		d := k + ": osmo-pcu " + itoa(ref[k]) + ", gopcu " + itoa(got[k])
		switch {
		case strings.HasPrefix(k, "bts.0.") || strings.HasPrefix(k, "pcu.sgsn.0."):
			diffs = append(diffs, d)
		case strings.HasPrefix(k, "bssgp.bss_ctx.1800."):
			// libosmogb gprs_bssgp.c counts as "in" every PDU received for
			// the BVC (signalling PDUs with its BVCI IE included) and as
			// "out" only UL-UNITDATA (gprs_bssgp_bss.c); the flow control
			// PDUs run on wall-clock time, so the numbers are not exact.
			t.Logf("difference (bssgp counting rules) %s", d)
		}
	}
	if len(diffs) > 0 {
		t.Errorf("counters differ:\n%s", strings.Join(diffs, "\n"))
	}
}

func itoa(v int64) string { return strconv.FormatInt(v, 10) }
