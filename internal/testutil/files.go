package testutil

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"net"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// FreePort returns a loopback port that was free for TCP and UDP a moment
// ago, for a server the test starts next. It is drawn at random below
// Linux's ephemeral range (net.ipv4.ip_local_port_range, 32768-60999 by
// default): a port the kernel chose for 127.0.0.1:0 was often handed out
// again at once to another test's listener on port 0 (a VTY, a client
// socket) before the server bound it, and the server failed with "address
// already in use" (seen in TestGrafanaDashboard under go test -race ./...).
func FreePort(t testing.TB) int {
	t.Helper()
	for i := 0; i < 100; i++ {
		p := freePortLow + rand.IntN(freePortHigh-freePortLow)
		if portFree(p) {
			return p
		}
	}
	t.Fatalf("no free loopback port in %d-%d after 100 tries", freePortLow, freePortHigh)
	return 0
}

// The range FreePort draws from: above the well-known services a test
// machine may run, below the ephemeral range.
const freePortLow, freePortHigh = 20000, 32768

func portFree(p int) bool {
	l, err := net.Listen("tcp", fmt.Sprintf("127.0.0.1:%d", p))
	if err != nil {
		return false
	}
	defer l.Close()
	u, err := net.ListenPacket("udp", fmt.Sprintf("127.0.0.1:%d", p))
	if err != nil {
		return false
	}
	u.Close()
	return true
}

// UDP is a UDP socket on 127.0.0.1 at a port of the kernel's choice
// (a peer's endpoint: an SGSN's NS, a GSMTAP or syslog receiver), closed
// at the test's cleanup.
func UDP(t testing.TB) *net.UDPConn {
	t.Helper()
	c, err := net.ListenUDP("udp4", &net.UDPAddr{IP: net.IPv4(127, 0, 0, 1)})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

// PCUSocket listens on a SEQPACKET unix socket in a temporary directory,
// as OsmoBTS does for its PCU (the socket is closed at the test's
// cleanup); it returns the listener and the socket's path.
func PCUSocket(t testing.TB) (*net.UnixListener, string) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "pcu_bts")
	ln, err := net.ListenUnix("unixpacket", &net.UnixAddr{Name: path, Net: "unixpacket"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	return ln, path
}

// ReadDatagram waits up to 5 s for the next datagram on c and returns
// it; none fails the test.
func ReadDatagram(t testing.TB, c net.Conn) []byte {
	t.Helper()
	_ = c.SetReadDeadline(time.Now().Add(5 * time.Second))
	buf := make([]byte, 65536)
	n, err := c.Read(buf)
	if err != nil {
		t.Fatal(err)
	}
	return buf[:n]
}

// ReadFile returns the file's content; a file that cannot be read fails
// the test.
func ReadFile(t testing.TB, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// PollFile waits up to 10 s until the file contains want and returns its
// content; a failure shows the file and what else is given (a stderr).
func PollFile(t testing.TB, path, want string, more ...fmt.Stringer) string {
	t.Helper()
	var got []byte
	if !Poll(10*time.Second, func() bool {
		got, _ = os.ReadFile(path)
		return bytes.Contains(got, []byte(want))
	}) {
		t.Fatalf("%s never contained %q:\n%s\n%v", path, want, got, more)
	}
	return string(got)
}
