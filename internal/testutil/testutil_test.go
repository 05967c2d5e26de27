package testutil

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

func TestHex(t *testing.T) {
	if got := MustHex("01 ab\nFF"); string(got) != "\x01\xab\xff" {
		t.Fatalf("%x", got)
	}
	if got := Hex(t, "0a0b"); len(got) != 2 || got[1] != 0x0b {
		t.Fatalf("%x", got)
	}
	defer func() {
		if recover() == nil {
			t.Fatal("MustHex of bad input must panic")
		}
	}()
	MustHex("0g")
}

// fakeT records a Fatalf instead of stopping the test.
type fakeT struct {
	testing.TB
	failed string
}

func (f *fakeT) Helper() {}
func (f *fakeT) Fatalf(format string, args ...any) {
	f.failed = format
	_ = args
}

func TestEventually(t *testing.T) {
	var n atomic.Int32
	start := time.Now()
	Eventually(t, time.Second, func() bool { return n.Add(1) >= 3 }, "never")
	if n.Load() != 3 || time.Since(start) > 500*time.Millisecond {
		t.Fatalf("polled %d times in %v", n.Load(), time.Since(start))
	}
	f := &fakeT{TB: t}
	start = time.Now()
	Eventually(f, 30*time.Millisecond, func() bool { return false }, "cond %d", 7)
	if !strings.Contains(f.failed, "cond %d") || time.Since(start) < 30*time.Millisecond {
		t.Fatalf("timeout not reported: %q after %v", f.failed, time.Since(start))
	}
	if Poll(0, func() bool { return false }) || !Poll(0, func() bool { return true }) {
		t.Fatal("Poll with no time left evaluates once")
	}
}

func TestGolden(t *testing.T) {
	p := filepath.Join(t.TempDir(), "x.golden")
	Golden(t, p, []byte("a\nb\n"), true)
	Golden(t, p, []byte("a\nb\n"), false)
	f := &fakeT{TB: t}
	Golden(f, p, []byte("a\nc\n"), false)
	if !strings.Contains(f.failed, "differs at line") {
		t.Fatalf("mismatch not reported: %q", f.failed)
	}
	if b, _ := os.ReadFile(p); string(b) != "a\nb\n" {
		t.Fatalf("file changed: %q", b)
	}
}

func TestDebPackage(t *testing.T) {
	if DebPackage("ip") != "iproute2" || DebPackage("osmo-sgsn") != "osmo-sgsn" {
		t.Fatal(DebPackage("ip"), DebPackage("osmo-sgsn"))
	}
	NeedBinaries(t, "sh") // present everywhere: must not skip
	if p := NeedBinary(t, "sh"); !strings.HasSuffix(p, "/sh") || !HaveBinaries("sh") {
		t.Fatalf("sh: %q", p)
	}
}

// skipT records a skip message instead of ending the test.
type skipT struct {
	testing.TB
	skipped string
}

func (s *skipT) Helper() {}
func (s *skipT) Skipf(format string, args ...any) {
	if s.skipped == "" {
		s.skipped = fmt.Sprintf(format, args...)
	}
}

// TestNeedBinaryMissing: a missing program skips in the one-line format
// scripts/test.sh lists ("needs X (apt-get install P)").
func TestNeedBinaryMissing(t *testing.T) {
	s := &skipT{TB: t}
	NeedBinaries(s, "sh", "osmo-bts-virtual-not-there", "ip-not-there")
	if want := "needs osmo-bts-virtual-not-there (apt-get install osmo-bts-virtual-not-there)"; s.skipped != want {
		t.Fatalf("skip %q, want %q", s.skipped, want)
	}
	if HaveBinaries("sh", "ip-not-there") {
		t.Fatal("HaveBinaries true with a missing program")
	}
	if DebPackage("osmo-bts-virtual") != "osmo-bts" || DebPackage("go") != "golang-go" {
		t.Fatal(DebPackage("osmo-bts-virtual"), DebPackage("go"))
	}
}

func TestFuzzCorpus(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(dir+"/a", []byte("go test fuzz v1\n[]byte(\"\\x02\\x00\\x81\")\n"), 0o644)
	os.WriteFile(dir+"/b", []byte("go test fuzz v1\n[]byte(\"\")\n"), 0o644)
	got := FuzzCorpus(t, dir)
	if len(got) != 2 || string(got[0]) != "\x02\x00\x81" || len(got[1]) != 0 {
		t.Fatalf("%q", got)
	}
	bad := &fakeT{}
	os.WriteFile(dir+"/c", []byte("go test fuzz v1\nint(3)\n"), 0o644)
	FuzzCorpus(bad, dir)
	if bad.failed == "" {
		t.Fatal("a non-[]byte corpus file was accepted")
	}
}

// TestReencode: a stable codec passes, the first encoding's error comes
// back, an unstable one fails the test.
func TestReencode(t *testing.T) {
	id := func(b []byte) ([]byte, error) { return b, nil }
	if err := Reencode(t, []byte{1, 2}, id, id); err != nil {
		t.Fatal(err)
	}
	bad := errors.New("no")
	if err := Reencode(t, []byte{1}, func([]byte) ([]byte, error) { return nil, bad }, id); err != bad {
		t.Fatal(err)
	}
	f := &fakeT{TB: t}
	grow := func(b []byte) ([]byte, error) { return append(b, 0), nil }
	Reencode(f, []byte{1}, grow, id)
	if !strings.HasPrefix(f.failed, "unstable") {
		t.Fatalf("unstable codec: %q", f.failed)
	}
}

func TestDataLines(t *testing.T) {
	p := filepath.Join(t.TempDir(), "d.txt")
	os.WriteFile(p, []byte("# comment\n\n a b \r\n  # indented comment\nc\n"), 0o644)
	if got := DataLines(t, p); strings.Join(got, "|") != "a b|c" {
		t.Fatalf("%q", got)
	}
}

func TestHexLines(t *testing.T) {
	p := filepath.Join(t.TempDir(), "h.hex")
	os.WriteFile(p, []byte("# frames\n01 02\n\nff\n"), 0o644)
	got := HexLines(t, p)
	if len(got) != 2 || !bytes.Equal(got[0], []byte{1, 2}) || !bytes.Equal(got[1], []byte{0xff}) {
		t.Fatalf("%x", got)
	}
}
