// Package testutil holds the helpers gopcu's tests share: hex vectors,
// golden files and polling with a deadline instead of fixed sleeps.
//
// It is imported only by _test.go files and test-support packages.
package testutil

import (
	"bytes"
	"encoding/hex"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/gopcu/gopcu/internal/syncbuf"
)

// MustHex decodes a hex string; spaces and newlines are ignored. It panics
// on bad input, so it suits package-level test vectors.
func MustHex(s string) []byte {
	b, err := hex.DecodeString(stripSpace(s))
	if err != nil {
		panic(fmt.Sprintf("testutil.MustHex(%q): %v", s, err))
	}
	return b
}

// Hex decodes a hex string like MustHex and fails the test on bad input.
func Hex(t testing.TB, s string) []byte {
	t.Helper()
	b, err := hex.DecodeString(stripSpace(s))
	if err != nil {
		t.Fatalf("bad hex %q: %v", s, err)
	}
	return b
}

func stripSpace(s string) string {
	return strings.Map(func(r rune) rune {
		switch r {
		case ' ', '\t', '\n', '\r':
			return -1
		}
		return r
	}, s)
}

// DataLines reads a test data file: its lines with the surrounding white
// space trimmed, less the empty ones and the comments (starting with
// "#"). A file that cannot be read fails the test.
func DataLines(t testing.TB, path string) []string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, l := range strings.Split(string(b), "\n") {
		if l = strings.TrimSpace(l); l != "" && !strings.HasPrefix(l, "#") {
			out = append(out, l)
		}
	}
	return out
}

// HexLines reads a test data file of hex strings, one a line (DataLines:
// blank lines and "#" comments are skipped), and decodes each (Hex).
func HexLines(t testing.TB, path string) [][]byte {
	t.Helper()
	var out [][]byte
	for _, l := range DataLines(t, path) {
		out = append(out, Hex(t, l))
	}
	return out
}

// GrepLines returns the lines of s that contain w, joined by "\n" (the
// part of a long tool output, tshark's, worth a failure message).
func GrepLines(s, w string) string {
	var l []string
	for _, x := range strings.Split(s, "\n") {
		if strings.Contains(x, w) {
			l = append(l, x)
		}
	}
	return strings.Join(l, "\n")
}

// UpdateGolden reports whether golden files are to be rewritten: the
// environment variable GOPCU_UPDATE_GOLDEN is set to a non-empty value.
func UpdateGolden() bool { return os.Getenv("GOPCU_UPDATE_GOLDEN") != "" }

// Golden compares got with the file at path (relative to the test's
// package directory). With update (or UpdateGolden()) it first writes got
// to the file. A mismatch reports the first differing line.
func Golden(t testing.TB, path string, got []byte, update bool) {
	t.Helper()
	if update || UpdateGolden() {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("golden file: %v (rewrite with GOPCU_UPDATE_GOLDEN=1)", err)
	}
	if bytes.Equal(got, want) {
		return
	}
	gl, wl := strings.Split(string(got), "\n"), strings.Split(string(want), "\n")
	for i := 0; i < len(gl) || i < len(wl); i++ {
		var g, w string
		if i < len(gl) {
			g = gl[i]
		}
		if i < len(wl) {
			w = wl[i]
		}
		if g != w || i >= len(gl) || i >= len(wl) {
			t.Fatalf("%s differs at line %d:\n got %q\nwant %q", path, i+1, g, w)
		}
	}
}

// PollInterval is Eventually's first pause between two evaluations of its
// condition; the pause doubles up to MaxPollInterval, so a condition that
// is expensive to evaluate (a VTY round trip) is not hammered.
const (
	PollInterval    = 5 * time.Millisecond
	MaxPollInterval = 100 * time.Millisecond
)

// Eventually polls cond (see PollInterval) until it returns true and
// fails the test with msg (a format for args) when that has not happened
// within deadline. It replaces fixed "settle" sleeps: a condition that
// holds at once costs nothing, a slow machine gets the whole deadline.
func Eventually(t testing.TB, deadline time.Duration, cond func() bool, msg string, args ...any) {
	t.Helper()
	if !Poll(deadline, cond) {
		t.Fatalf("not within %v: "+msg, append([]any{deadline}, args...)...)
	}
}

// Poll polls cond (see PollInterval) until it returns true (then true) or
// deadline has passed (then false, after a last evaluation). For callers
// that handle the timeout themselves.
func Poll(deadline time.Duration, cond func() bool) bool {
	end := time.Now().Add(deadline)
	pause := PollInterval
	for {
		if cond() {
			return true
		}
		if !time.Now().Before(end) {
			return cond()
		}
		time.Sleep(min(pause, time.Until(end)+time.Millisecond))
		pause = min(2*pause, MaxPollInterval)
	}
}

// debPackages maps the programs tests need to the Debian packages that
// install them, for skip messages (a program not listed is its package).
var debPackages = map[string]string{
	"go":               "golang-go",
	"ip":               "iproute2",
	"osmo-bts-virtual": "osmo-bts",
	"ping":             "iputils-ping",
	"sysctl":           "procps",
}

// DebPackage returns the Debian package that installs program bin.
func DebPackage(bin string) string {
	if p, ok := debPackages[bin]; ok {
		return p
	}
	return bin
}

// NeedBinaries skips the test, in one line naming what is missing
// ("needs osmo-sgsn (apt-get install osmo-sgsn)"), unless every program
// in bins is on PATH.
func NeedBinaries(t testing.TB, bins ...string) {
	t.Helper()
	for _, b := range bins {
		NeedBinary(t, b)
	}
}

// NeedBinary is NeedBinaries for one program; it returns the program's
// path on PATH. bin may be a path (a particular installation, e.g. the
// Debian package's /usr/bin/osmo-pcu): then that file must be executable.
func NeedBinary(t testing.TB, bin string) string {
	t.Helper()
	p, err := exec.LookPath(bin)
	if err != nil {
		t.Skipf("needs %s (apt-get install %s)", bin, DebPackage(filepath.Base(bin)))
	}
	return p
}

// HaveBinaries reports whether every program in bins is on PATH: for a
// TestMain that prepares only what can run, or an optional peer.
func HaveBinaries(bins ...string) bool {
	for _, b := range bins {
		if _, err := exec.LookPath(b); err != nil {
			return false
		}
	}
	return true
}

// IsRoot reports whether the test process runs as root (effective UID 0).
func IsRoot() bool { return os.Geteuid() == 0 }

// NeedRoot skips the test unless it runs as root: "needs root (why)".
func NeedRoot(t testing.TB, why string) {
	t.Helper()
	if !IsRoot() {
		t.Skipf("needs root (%s)", why)
	}
}

// Reencode is the round trip a codec's fuzzer checks on a value v it
// decoded from its input: v encodes, and that encoding decodes and
// encodes again to the same octets. It returns the first encoding's
// error (the caller decides whether a decoded value that does not encode
// is a bug); a later failure fails the test.
func Reencode[V any](t testing.TB, v V, encode func(V) ([]byte, error), decode func([]byte) (V, error)) error {
	t.Helper()
	e1, err := encode(v)
	if err != nil {
		return err
	}
	v2, err := decode(e1)
	if err != nil {
		t.Fatalf("re-decode of %x: %v", e1, err)
	}
	if e2, err := encode(v2); err != nil || !bytes.Equal(e1, e2) {
		t.Fatalf("unstable: %x -> %x (%v)", e1, e2, err)
	}
	return nil
}

// CheckParse is what a PDU parser's fuzzer checks on its input b: an
// input parse rejects carries a typed error (typed: a cause for the
// STATUS that answers it); a PDU it accepts encodes and passes Reencode.
func CheckParse[V any](t testing.TB, b []byte, parse func([]byte) (V, error), marshal func(V) ([]byte, error), typed func(error) bool) {
	t.Helper()
	p, err := parse(b)
	if err != nil {
		if !typed(err) {
			t.Fatalf("untyped error %v", err)
		}
		return
	}
	if err := Reencode(t, p, marshal, parse); err != nil {
		t.Fatalf("parsed %#v does not encode: %v", p, err)
	}
}

// CheckGolden checks a codec against a golden vector: b parses to want
// (reflect.DeepEqual) and want marshals to b.
func CheckGolden[V any](t testing.TB, b []byte, want V, parse func([]byte) (V, error), marshal func(V) ([]byte, error)) {
	t.Helper()
	got, err := parse(b)
	if err != nil {
		t.Fatalf("parse: %v", err)
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("parse:\n got %+v\nwant %+v", got, want)
	}
	if out, err := marshal(want); err != nil || !bytes.Equal(out, b) {
		t.Fatalf("marshal\n got %x (%v)\nwant %x", out, err, b)
	}
}

// SyncBuffer is a bytes.Buffer that goroutines may write to while the
// test reads it (a process's stderr, a log handler's output).
type SyncBuffer = syncbuf.Buffer

// RunTestsOr is a TestMain for a package whose tests start the test
// binary again as a program (a process to send signals to, a peer): with
// the environment variable env set to "1" the binary is that program and
// runs program instead of the tests. It does not return.
func RunTestsOr(m *testing.M, env string, program func()) {
	if os.Getenv(env) == "1" {
		program()
		os.Exit(0)
	}
	os.Exit(m.Run())
}
