package bss_test

import (
	"fmt"
	"net/netip"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gopcu/gopcu/bssgp/bss"
	"github.com/gopcu/gopcu/bssgp/ns/nse"
	"github.com/gopcu/gopcu/bssgp/ns/nsudp"
	"github.com/gopcu/gopcu/internal/testutil"
)

// sgsnConfig is the lab's osmo-sgsn.cfg (lab/configs) with the NS bind
// switchable between classic ("accept-ipaccess") and IP-SNS.
func sgsnConfig(dialect nse.Dialect) string { return sgsnConfigAt(dialect, "127.0.0.1") }

func sgsnConfigAt(dialect nse.Dialect, listen string) string {
	accept := "  accept-ipaccess\n"
	extra := ""
	if dialect == nse.DialectIPSNS {
		accept = "  accept-dynamic-ip-sns\n"
		extra = " ip-sns-default bind local\n"
	}
	return `log stderr
 logging filter all 1
 logging color 0
 logging print category 1
 logging print level 1
 logging timestamp 1
 logging level set-all notice
 logging level mm info
 logging level gprs info
 logging level lns info
 logging level lbssgp info
line vty
 no login
 bind 127.0.0.1
sgsn
 gtp local-ip 127.0.0.1
 ggsn 0 remote-ip 127.0.0.2
 ggsn 0 gtp-version 1
 ggsn 0 echo-interval 60
 authentication optional
 auth-policy accept-all
ns
 timer tns-block 3
 timer tns-block-retries 3
 timer tns-reset 3
 timer tns-reset-retries 3
 timer tns-test 30
 timer tns-alive 3
 timer tns-alive-retries 10
 bind udp local
  listen ` + listen + ` 23000
` + accept + extra + `bssgp
`
}

func startSGSN(t *testing.T, n *netns, dir string, dialect nse.Dialect, tag string) {
	startSGSNAt(t, n, dir, sgsnConfig(dialect), tag)
}

func startSGSNAt(t *testing.T, n *netns, dir, config, tag string) {
	t.Helper()
	cfg := filepath.Join(dir, "osmo-sgsn.cfg")
	if err := os.WriteFile(cfg, []byte(config), 0o644); err != nil {
		t.Fatal(err)
	}
	n.start(t, dir, "osmo-sgsn"+tag+".log", "osmo-sgsn", "-c", cfg)
	// Wait for the VTY.
	if testutil.Poll(5*time.Second, func() bool {
		out, err := n.vty(4245, "show ns")
		return err == nil && strings.Contains(out, "OsmoSGSN")
	}) {
		return
	}
	log, _ := os.ReadFile(filepath.Join(dir, "osmo-sgsn"+tag+".log"))
	t.Fatalf("osmo-sgsn did not come up:\n%s", log)
}

func labConfig(dialect nse.Dialect) bss.Config {
	return bss.Config{
		NS: nse.Config{NSEI: 101, Dialect: dialect, Endpoints: []nse.Endpoint{{Bind: 0, NSVCI: 101,
			Local:  netip.MustParseAddrPort("127.0.0.1:23001"),
			Remote: netip.MustParseAddrPort("127.0.0.1:23000")}}},
		BVCI:   1800,
		CellID: labCell,
	}
}

func startGopcu(t *testing.T, n *netns, cfg bss.Config) *engine {
	return startGopcuOn(t, n, cfg, "0.0.0.0:23001")
}

// startGopcuOn runs the Gb with its NS socket on bind inside n.
func startGopcuOn(t *testing.T, n *netns, cfg bss.Config, bind string) *engine {
	t.Helper()
	var udp *nsudp.UDP
	e, err := newEngine(cfg, func(deliver func(nsudp.Datagram)) (nse.Transport, error) {
		err := n.Do(func() error {
			var err error
			udp, err = nsudp.ListenUDP([]netip.AddrPort{netip.MustParseAddrPort(bind)}, deliver)
			return err
		})
		return udp, err
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { e.close(); udp.Close() })
	return e
}

func dumpLogs(t *testing.T, dir string) {
	if !t.Failed() {
		return
	}
	ents, _ := os.ReadDir(dir)
	for _, e := range ents {
		if strings.HasSuffix(e.Name(), ".log") {
			b, _ := os.ReadFile(filepath.Join(dir, e.Name()))
			if len(b) > 6000 {
				b = b[len(b)-6000:]
			}
			t.Logf("---- %s ----\n%s", e.Name(), b)
		}
	}
}

// interopNetns is the network namespace of one interop test (they run in
// parallel) and its directory for osmo-sgsn's files, logs dumped at the end.
func interopNetns(t *testing.T) (*netns, string) {
	testutil.NeedRoot(t, "network namespaces")
	testutil.NeedBinaries(t, "osmo-sgsn", "ip")
	if testing.Short() {
		t.Skip("needs a run without -short (interop with osmo-sgsn)")
	}
	t.Parallel() // every test has its own network namespace
	n := newNetns(t)
	dir := t.TempDir()
	t.Cleanup(func() { dumpLogs(t, dir) })
	return n, dir
}

func interopSetup(t *testing.T, dialect nse.Dialect) (*netns, string, *engine) {
	n, dir := interopNetns(t)
	startSGSN(t, n, dir, dialect, "")
	e := startGopcu(t, n, labConfig(dialect))
	return n, dir, e
}

func checkVTY(t *testing.T, n *netns) {
	t.Helper()
	out := sgsnVTY(t, n, []string{"show ns", "show bssgp"},
		"NSEI 00101", "ALIVE", "UNBLOCKED", "BVCI  1800", "RA-ID: 901-70-1-0", "CID: 6969")
	if testing.Verbose() {
		t.Logf("osmo-sgsn VTY:\n%s", out)
	}
}

// sgsnVTY runs cmds on osmo-sgsn's VTY until the output contains every
// one of wants (the SGSN processes our PDUs asynchronously) and returns
// the last output; after 5 s it reports the missing strings.
func sgsnVTY(t *testing.T, n *netns, cmds []string, wants ...string) string {
	t.Helper()
	var out string
	var err error
	testutil.Poll(5*time.Second, func() bool {
		out, err = n.vty(4245, cmds...)
		if err != nil {
			return false
		}
		for _, w := range wants {
			if !strings.Contains(out, w) {
				return false
			}
		}
		return true
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, w := range wants {
		if !strings.Contains(out, w) {
			t.Errorf("osmo-sgsn VTY lacks %q:\n%s", w, out)
		}
	}
	return out
}

// TestInteropClassic: NS (classic) and BVC come up against the real Debian
// osmo-sgsn within 5 s; a GMM Attach Request in UL-UNITDATA is answered with
// a DL-UNITDATA for the same TLLI; osmo-sgsn restarted -> recovery within
// 2 x tns-reset.
func TestInteropClassic(t *testing.T) {
	n, dir, e := interopSetup(t, nse.DialectClassic)
	e.waitEvent(t, "bvc-up=true", 5*time.Second)
	checkVTY(t, n)

	// GMM Attach Request from a random TLLI -> DL-UNITDATA (Identity Request
	// or Attach Accept) for that TLLI, with a PDU lifetime.
	const tlli = 0x7a000001
	var err error
	e.call(func(now time.Duration) { err = e.gb.SendULUnitdata(tlli, attachRequestLLC(), now) })
	if err != nil {
		t.Fatal(err)
	}
	select {
	case dl := <-e.dl:
		if dl.TLLI != tlli || len(dl.LLC) < 6 {
			t.Fatalf("DL-UNITDATA %+v", dl)
		}
		t.Logf("DL-UNITDATA TLLI %08x lifetime %d cs, %d LLC octets", dl.TLLI, dl.PDULifetime, len(dl.LLC))
	case <-time.After(5 * time.Second):
		t.Fatal("no DL-UNITDATA after Attach Request")
	}

	// Restart osmo-sgsn: gopcu notices (NS-STATUS / missing ALIVE-ACK) and
	// brings NS and BVC back within 2 x tns-reset (6 s) of the SGSN being up.
	restartSGSN(t, n, dir)
	restarted := time.Now()
	e.waitEvent(t, "bvc-up=true", 6*time.Second+time.Second)
	t.Logf("recovered %v after osmo-sgsn restart", time.Since(restarted).Round(time.Millisecond))
	checkVTY(t, n)
}

// restartSGSN kills the osmo-sgsn the test started (by PID) and starts a new one.
func restartSGSN(t *testing.T, n *netns, dir string) {
	restartSGSNDialect(t, n, dir, nse.DialectClassic)
}

func restartSGSNDialect(t *testing.T, n *netns, dir string, dialect nse.Dialect) {
	t.Helper()
	if len(n.procs) == 0 {
		t.Fatal("no osmo-sgsn to restart")
	}
	p := n.procs[len(n.procs)-1]
	p.cmd.Process.Kill()
	p.stop() // waits for the exit
	startSGSN(t, n, dir, dialect, fmt.Sprintf("-%d", len(n.procs)))
}

func TestInteropIPSNS(t *testing.T) {
	n, dir, e := interopSetup(t, nse.DialectIPSNS)
	e.waitEvent(t, "bvc-up=true", 5*time.Second)
	out := sgsnVTY(t, n, []string{"show ns", "show bssgp"}, "NSEI 00101", "UNBLOCKED", "BVCI  1800")
	t.Logf("osmo-sgsn VTY:\n%s", out)

	// osmo-sgsn restart: the new SGSN does not know us; IP-SNS starts over.
	restartSGSNDialect(t, n, dir, nse.DialectIPSNS)
	restarted := time.Now()
	e.waitEvent(t, "bvc-up=true", 7*time.Second)
	t.Logf("IP-SNS recovered %v after osmo-sgsn restart", time.Since(restarted).Round(time.Millisecond))
}

// TestInteropSGSNCommands replays the capture's SGSN-side events through
// osmo-sgsn's VTY: BVC reset, NS-VC block/unblock, NS-VC reset; gopcu must
// come back to UNBLOCKED after each.
func TestInteropSGSNCommands(t *testing.T) {
	n, _, e := interopSetup(t, nse.DialectClassic)
	e.waitEvent(t, "bvc-up=true", 5*time.Second)
	for _, c := range []struct{ cmd, first string }{
		{"bssgp bvc nsei 101 bvci 1800 reset", "bvc-up=false"},
		{"nsvc 101 block", "bvc-up=false"},
		{"nsvc 101 unblock", "bvc-up=true"},
		{"nsvc 101 reset", "bvc-up=false"},
	} {
		out, err := n.vty(4245, c.cmd)
		if err != nil {
			t.Fatal(err)
		}
		if strings.Contains(out, "% ") {
			t.Fatalf("%s: %s", c.cmd, out)
		}
		e.waitEvent(t, c.first, 5*time.Second)
		if c.first == "bvc-up=false" && c.cmd != "nsvc 101 block" {
			e.waitEvent(t, "bvc-up=true", 5*time.Second)
		}
	}
	checkVTY(t, n)
}

// TestInteropClassicIPv6: NS over UDP/IPv6 (::1) against osmo-sgsn.
func TestInteropClassicIPv6(t *testing.T) {
	n, dir := interopNetns(t)
	startSGSNAt(t, n, dir, sgsnConfigAt(nse.DialectClassic, "::1"), "")
	cfg := labConfig(nse.DialectClassic)
	cfg.NS.Endpoints[0].Local = netip.MustParseAddrPort("[::1]:23001")
	cfg.NS.Endpoints[0].Remote = netip.MustParseAddrPort("[::1]:23000")
	e := startGopcuOn(t, n, cfg, "[::]:23001")
	e.waitEvent(t, "bvc-up=true", 5*time.Second)
	sgsnVTY(t, n, []string{"show ns", "show bssgp"}, "NSEI 00101", "UNBLOCKED", "[::1]:23001", "BVCI  1800")
}

// TestInteropTwoNSVCs: two classic NS-VCs (two local ports) in one NSE;
// blocking one from osmo-sgsn's VTY keeps the NSE and the BVC up on the other.
func TestInteropTwoNSVCs(t *testing.T) {
	n, dir := interopNetns(t)
	startSGSN(t, n, dir, nse.DialectClassic, "")
	cfg := labConfig(nse.DialectClassic)
	cfg.NS.Endpoints = append(cfg.NS.Endpoints, nse.Endpoint{Bind: 1, NSVCI: 102,
		Local: netip.MustParseAddrPort("127.0.0.1:23002"), Remote: netip.MustParseAddrPort("127.0.0.1:23000")})
	var udp *nsudp.UDP
	e, err := newEngine(cfg, func(deliver func(nsudp.Datagram)) (nse.Transport, error) {
		err := n.Do(func() error {
			var err error
			udp, err = nsudp.ListenUDP([]netip.AddrPort{netip.MustParseAddrPort("0.0.0.0:23001"),
				netip.MustParseAddrPort("0.0.0.0:23002")}, deliver)
			return err
		})
		return udp, err
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { e.close(); udp.Close() })
	e.waitEvent(t, "bvc-up=true", 5*time.Second)
	sgsnVTY(t, n, []string{"show ns"}, "NSVCI 00101: UNBLOCKED", "NSVCI 00102: UNBLOCKED")
	if t.Failed() {
		t.FailNow()
	}
	if _, err := n.vty(4245, "nsvc 101 block"); err != nil {
		t.Fatal(err)
	}
	// Our side has processed the NS-BLOCK once NS-VC 101 is blocked here.
	testutil.Eventually(t, 5*time.Second, func() bool {
		blocked := false
		e.call(func(now time.Duration) {
			if vc := e.gb.NSE().VCByNSVCI(101); vc != nil {
				st, _ := vc.State()
				blocked = st != nse.VCUnblocked
			}
		})
		return blocked
	}, "NS-VC 101 not blocked after osmo-sgsn's nsvc 101 block")
	up := false
	e.call(func(now time.Duration) { up = e.gb.Unblocked() && e.gb.NSE().Available() })
	if !up {
		t.Fatal("BVC went down although NS-VC 102 is still unblocked")
	}
	// Traffic still flows: an Attach Request is answered.
	e.call(func(now time.Duration) { err = e.gb.SendULUnitdata(0x7a000002, attachRequestLLC(), now) })
	if err != nil {
		t.Fatal(err)
	}
	select {
	case dl := <-e.dl:
		if dl.TLLI != 0x7a000002 {
			t.Fatalf("DL for %08x", dl.TLLI)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("no DL-UNITDATA over the remaining NS-VC")
	}
}
