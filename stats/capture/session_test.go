package capture

import (
	"context"
	"net"
	"net/netip"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gopcu/gopcu/bssgp/ns/nsudp"
	"github.com/gopcu/gopcu/gsmtap"
	"github.com/gopcu/gopcu/gsmtap/gsmtapudp"
	"github.com/gopcu/gopcu/internal/emu/btsemu"
	"github.com/gopcu/gopcu/internal/emu/sgsnemu"
	"github.com/gopcu/gopcu/internal/testutil"
	"github.com/gopcu/gopcu/internal/testutil/btstest"
	"github.com/gopcu/gopcu/internal/testutil/enginetest"
	"github.com/gopcu/gopcu/internal/testutil/netnstest"
	"github.com/gopcu/gopcu/pcu"
	"github.com/gopcu/gopcu/pcu/driver"
	"github.com/gopcu/gopcu/pcu/pcuif"
)

// TestEngineSession captures a real gopcu session: the engine with its Gb
// stack talks NS/BSSGP to the SGSN emulator (inside a network namespace;
// the capture hooks the SGSN's socket, so both directions are recorded with
// their real addresses) and taps every radio block to a GSMTAP listener
// (recorded as received); the SGSN pages an MS. tshark must decode Gb and
// GSMTAP with no malformed packet.
func TestEngineSession(t *testing.T) {
	tshark := testutil.NeedBinary(t, "tshark")
	n := netnstest.New(t)
	dir := t.TempDir()
	f := filepath.Join(dir, "session.pcap")
	c, err := Create(f, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()

	// GSMTAP listener on a loopback address of the host's namespace
	// (the engine's tap socket sends there).
	tapIP := netip.AddrFrom4([4]byte{127, 77, byte(os.Getpid() >> 8), byte(os.Getpid())})
	tapLn, taps := listenTap(t, c, tapIP)
	defer tapLn.Close()

	sg, up, sock := startCapturedSGSN(t, n, c)
	defer sock.Close()
	defer sg.Close()

	path := filepath.Join(dir, "pcu_bts")
	bts := btstest.Listen(t, btsemu.Config{Path: path, Version: pcuif.V12})
	tap, err := gsmtapudp.DialUDP(tapIP.String())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { tap.Close() }) // after the engine has stopped
	params := pcu.DefaultParams()
	params.GSMTAPCategories = 0xffffffff
	eng := pcu.New(pcu.Config{SocketPath: path, MinBackoff: 20 * time.Millisecond, Gb: true, Params: &params,
		GSMTAP: tap})
	enginetest.Run(t, eng, driver.Options{ListenUDP: n.ListenNS})

	sctx, scancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer scancel()
	btstest.WaitUp(sctx, t, bts, 4, up)
	btstest.Steps(sctx, t, bts, 4)
	if err := bts.Send(&pcuif.RACHInd{SAPI: pcuif.SAPIRACH, RA: 0x78, FN: bts.FN(), ARFCN: 871, BurstType: 1}); err != nil {
		t.Fatal(err)
	}
	sg.Do(func(s *sgsnemu.SGSN, _ time.Duration) {
		err = s.SendPagingPS(1800, "901700000000042", 0xc0001234, true)
	})
	if err != nil {
		t.Fatal(err)
	}
	// The engine sends the Paging Request on PCH as soon as the PAGING-PS
	// arrived; its tap shows it has.
	testutil.Eventually(t, 5*time.Second, func() bool { return taps.pch.Load() > 0 }, "no Paging Request tapped on PCH")
	btstest.Steps(sctx, t, bts, 4)
	testutil.Eventually(t, 5*time.Second, func() bool { return taps.agch.Load() > 0 && taps.pdch.Load() > 0 },
		"no Immediate Assignment (AGCH) or PDTCH/PACCH block tapped")
	tapLn.Close()
	if err := c.Close(); err != nil {
		t.Fatal(err)
	}
	if c.Dropped() != 0 {
		t.Fatalf("%d packets dropped", c.Dropped())
	}

	checkSession(t, tshark, f, c)
}

// tapCounts counts the GSMTAP packets received per channel.
type tapCounts struct{ agch, pch, pdch atomic.Int32 }

// listenTap receives GSMTAP on tapIP:4729, records every datagram in c
// and counts them by channel.
func listenTap(t *testing.T, c *Capture, tapIP netip.Addr) (*net.UDPConn, *tapCounts) {
	tapLn, err := net.ListenUDP("udp", net.UDPAddrFromAddrPort(netip.AddrPortFrom(tapIP, 4729)))
	if err != nil {
		t.Skipf("needs UDP port 4729 on %v: %v", tapIP, err)
	}
	taps := &tapCounts{}
	go func() {
		b := make([]byte, 4096)
		for {
			n, from, err := tapLn.ReadFromUDPAddrPort(b)
			if err != nil {
				return
			}
			c.UDP(time.Now(), from, netip.AddrPortFrom(tapIP, 4729), b[:n])
			var h gsmtap.Header
			if _, err := h.Unmarshal(b[:n]); err == nil {
				switch h.SubType &^ gsmtap.ChannelACCH {
				case gsmtap.ChannelAGCH:
					taps.agch.Add(1)
				case gsmtap.ChannelPCH:
					taps.pch.Add(1)
				case gsmtap.ChannelPACCH, gsmtap.ChannelPDTCH:
					taps.pdch.Add(1)
				}
			}
		}
	}()
	return tapLn, taps
}

// startCapturedSGSN starts the SGSN emulator in namespace n on a socket
// whose datagrams c records both ways; up closes once BVC 1800 is
// unblocked.
func startCapturedSGSN(t *testing.T, n *netnstest.NS, c *Capture) (*sgsnemu.Server, chan struct{}, *nsudp.UDP) {
	sgsnAt := netip.MustParseAddrPort("127.0.0.1:23000")
	var sg *sgsnemu.Server
	sgReady := make(chan struct{}) // sg is set
	up := make(chan struct{})
	var sock *nsudp.UDP
	if err := n.Do(func() (err error) {
		sock, err = nsudp.ListenUDP([]netip.AddrPort{sgsnAt}, func(d nsudp.Datagram) {
			c.UDP(time.Now(), d.From, sgsnAt, d.Data)
			<-sgReady
			sg.Deliver(d.From, d.Data)
		})
		return err
	}); err != nil {
		t.Fatal(err)
	}
	var closed bool
	sg = sgsnemu.Start(sgsnemu.Config{Listen: sgsnAt},
		c.Transport(sock, func(int) netip.AddrPort { return sgsnAt }, time.Now),
		sgsnemu.Callbacks{BVCState: func(bvci uint16, unblocked bool, _ time.Duration) {
			if bvci == 1800 && unblocked && !closed {
				closed = true
				close(up)
			}
		}})
	close(sgReady)
	return sg, up, sock
}

// checkSession has tshark decode the capture: the session's PDUs are
// there, and nothing is malformed or has a bad checksum.
func checkSession(t *testing.T, tshark, f string, c *Capture) {
	lines, _ := tsharkRead(t, tshark, f, "Malformed", "Checksum Status: Bad", "Expert Info (Error")
	protos := map[string]int{}
	var infos []string
	for _, l := range lines {
		p, info, _ := strings.Cut(l, "\t")
		protos[p]++
		infos = append(infos, info)
	}
	t.Logf("%d packets: %v", c.Written(), protos)
	all := strings.Join(infos, "\n")
	for _, want := range []string{"NS_RESET", "BVC-RESET", "PAGING-PS", "Immediate Assignment", "Paging Request"} {
		if !strings.Contains(all, want) {
			t.Errorf("no %q in the session:\n%s", want, all)
		}
	}
	if protos["raw:ip:udp:gprs-ns:bssgp"] == 0 || protos["raw:ip:udp:gsmtap:gsm_rlcmac"] == 0 {
		t.Errorf("missing Gb or RLC/MAC packets: %v", protos)
	}
}

// tsharkRead has tshark (the binary at path tshark) decode the capture f,
// Gb on UDP port 23000 and the IP and UDP checksums verified. It returns
// a line per packet (its protocols, a tab, its Info column) and the
// verbose dissection, in which none of bad may appear.
func tsharkRead(t *testing.T, tshark, f string, bad ...string) (lines []string, verbose string) {
	t.Helper()
	args := []string{"-n", "-r", f, "-d", "udp.port==23000,gprs-ns", "-o", "udp.check_checksum:TRUE", "-o", "ip.check_checksum:TRUE"}
	out, err := exec.Command(tshark, append(args, "-T", "fields", "-e", "frame.protocols", "-e", "_ws.col.Info")...).Output()
	if err != nil {
		t.Fatalf("tshark: %v\n%s", err, out)
	}
	v, err := exec.Command(tshark, append(args, "-V")...).Output()
	if err != nil {
		t.Fatalf("tshark -V: %v", err)
	}
	for _, b := range bad {
		if i := strings.Index(string(v), b); i >= 0 {
			t.Fatalf("tshark reports %q: ...%s", b, string(v)[max(0, i-1500):min(len(v), i+200)])
		}
	}
	return strings.Split(strings.TrimSpace(string(out)), "\n"), string(v)
}
