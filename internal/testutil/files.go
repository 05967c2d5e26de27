package testutil

import (
	"bytes"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// FreePort returns a loopback TCP port that was free a moment ago (the
// kernel's choice for 127.0.0.1:0), for a server the test starts next.
func FreePort(t testing.TB) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
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
