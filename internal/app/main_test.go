package app

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/netip"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/gopacket"
	"github.com/google/gopacket/layers"

	"github.com/gopcu/gopcu/internal/logx"
	"github.com/gopcu/gopcu/internal/testutil"
	"github.com/gopcu/gopcu/internal/testutil/peertest"
	"github.com/gopcu/gopcu/vty"
)

// testSettings are the settings of `gopcu -c cfg --pcu-sock sock
// --vty-port port` (cfg "": none, the config's defaults).
func testSettings(cfg, sock string, port int) Settings {
	s := DefaultSettings()
	s.ConfigFile, s.ConfigGiven = cfg, cfg != ""
	s.PCUSocket, s.SocketGiven = sock, true
	s.VTYPort, s.VTYPortGiven = port, true
	return s
}

// TestDaemonStatsMetricsPcap runs the daemon against the BTS emulator with
// a statsd reporter from the config file, --metrics-addr and --pcap: the
// statsd listener gets the BTS's stat items, /metrics serves them, and the
// pcap holds the NS datagrams sent towards the (silent) SGSN address.
func TestDaemonStatsMetricsPcap(t *testing.T) {
	dir := t.TempDir()
	statsdSock := testutil.UDP(t)
	sgsn := testutil.UDP(t)
	nsPort := sgsn.LocalAddr().(*net.UDPAddr).Port
	cfgFile := filepath.Join(dir, "gopcu.cfg")
	cfgText := fmt.Sprintf("stats interval 1\nstats reporter statsd\n remote-ip 127.0.0.1\n remote-port %d\n level subscriber\n enable\n",
		statsdSock.LocalAddr().(*net.UDPAddr).Port)
	if err := os.WriteFile(cfgFile, []byte(cfgText), 0o644); err != nil {
		t.Fatal(err)
	}
	sock := filepath.Join(dir, "pcu_bts")
	peertest.BTS(t, sock, netip.AddrPortFrom(netip.MustParseAddr("127.0.0.1"), uint16(nsPort)))

	metrics := fmt.Sprintf("127.0.0.1:%d", testutil.FreePort(t))
	pcapFile := filepath.Join(dir, "gb.pcap")
	s := testSettings(cfgFile, sock, 0)
	s.MetricsAddr, s.PcapFile = metrics, pcapFile
	var logBuf testutil.SyncBuffer
	d := testDaemon(t, s, logx.NewText(&logBuf), io.Discard)
	stop := goRun(d)

	// statsd: the BTS's PDCHs (TS 4-7) arrive as a gauge
	want := "bts.0.pdch.available:4|g"
	buf := make([]byte, 65536)
	got := ""
	statsdSock.SetReadDeadline(time.Now().Add(10 * time.Second))
	for !strings.Contains(got, want) {
		n, err := statsdSock.Read(buf)
		if err != nil {
			t.Fatalf("statsd: %v; got so far:\n%s", err, got)
		}
		got += string(buf[:n]) + "\n"
	}
	// Prometheus
	var body string
	var err error
	if !testutil.Poll(5*time.Second, func() bool {
		var b string
		if b, err = scrape(metrics); err != nil {
			return false
		}
		body = b
		return strings.Contains(body, "gopcu_bts_pdch_available{")
	}) {
		t.Fatalf("no pdch.available on /metrics (err %v):\n%.2000s", err, body)
	}
	// show stats (libosmocore's format, as osmo-pcu)
	sess := d.v.NewSession(vty.ExecutorFunc(d.Exec).Do)
	sess.Start()
	out := string(sess.Feed([]byte("show stats level global\r")))
	sess.Release()
	if !strings.Contains(out, "BTS Statistics (0):\r\n") || !strings.Contains(out, " PDCH available       :        4 \r\n") {
		t.Fatalf("show stats:\n%s", out)
	}
	// the NS-RESET towards the SGSN address
	sgsn.SetReadDeadline(time.Now().Add(10 * time.Second))
	if _, err := sgsn.Read(buf); err != nil {
		t.Fatalf("no NS datagram: %v", err)
	}
	if err := stop(); err != nil && !errors.Is(err, context.Canceled) {
		t.Fatalf("daemon: %v", err)
	}
	r := testutil.OpenPcap(t, pcapFile)
	toSGSN := 0
	for {
		data, _, err := r.ReadPacketData()
		if err != nil {
			break
		}
		p := gopacket.NewPacket(data, r.LinkType(), gopacket.Default)
		if u, ok := p.Layer(layers.LayerTypeUDP).(*layers.UDP); ok && int(u.DstPort) == nsPort {
			toSGSN++
		}
	}
	if toSGSN == 0 {
		fi, _ := os.Stat(pcapFile)
		t.Fatalf("pcap (%d octets, link %v) holds no datagram to the SGSN", fi.Size(), r.LinkType())
	}
}

// TestCommandsAfterStop: once the engine has stopped, VTY commands do not
// run (before, the daemon ran them in the session's goroutine, next to the
// engine's stop path: issue 17 bug 5); a session waiting for one is told
// and closed.
func TestCommandsAfterStop(t *testing.T) {
	d := testDaemon(t, testSettings("", filepath.Join(t.TempDir(), "none"), 0), nil, io.Discard)
	stop := goRun(d)
	sess := d.v.NewSession(daemonExecutor{d}.Do)
	sess.SetStopped(daemonExecutor{d}.Stopped())
	sess.Start()
	if out := string(sess.Feed([]byte("show version\r"))); !strings.Contains(out, "OsmoPCU 0.1.0") {
		t.Fatalf("show version while running:\n%s", out)
	}
	if err := stop(); err != nil {
		t.Fatal(err)
	}
	ran := false
	d.Exec(func() { ran = true })
	if ran {
		t.Fatal("a command ran after the engine stopped")
	}
	out := string(sess.Feed([]byte("show version\r")))
	if !strings.Contains(out, "% Command not executed") || !sess.Closed() {
		t.Fatalf("session after stop (closed %v):\n%s", sess.Closed(), out)
	}
}

// TestNSTimersFromConfigFile: the config file's `ns` node reaches the
// engine's parameters (before, its timers were kept for `show
// running-config` only and the NSE ran with libosmogb's defaults).
func TestNSTimersFromConfigFile(t *testing.T) {
	dir := t.TempDir()
	cfg := filepath.Join(dir, "pcu.cfg")
	if err := os.WriteFile(cfg, []byte("ns\n timer tns-test 12\n timer tns-alive-retries 4\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	d := testDaemon(t, testSettings(cfg, filepath.Join(dir, "none"), 0), nil, io.Discard)
	got := d.Params().NSTimers
	if got.TnsTest != 12*time.Second || got.TnsAliveRetries != 4 || got.TnsAlive != 3*time.Second {
		t.Fatalf("NS timers %+v", got)
	}
}
