package testutil

import (
	"bytes"
	"fmt"
	"net"
	"os"
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
