package logx

import (
	"bytes"
	"context"
	"encoding/hex"
	"io"
	"log/slog"
	"net/netip"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gopcu/gopcu/internal/pcapw"
	"github.com/gopcu/gopcu/internal/testutil"
)

type bufSink struct {
	mu sync.Mutex
	b  bytes.Buffer
	n  int
}

func (s *bufSink) Output(_ *Entry, line []byte) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.b.Write(line)
	s.n++
	return nil
}
func (s *bufSink) Close() error { return nil }
func (s *bufSink) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

func plainTarget(name string, sink Sink, levels map[string]slog.Level) *Target {
	return &Target{Name: name, Levels: levels, Default: LevelNotice, FilterAll: true, Sink: sink,
		Format: Format{Category: true, Level: true}}
}

// setup makes a registry writing to a fan-out whose default output goes to
// def; registry levels are all debug so the targets alone filter.
func setup(def *bytes.Buffer) (*Registry, *Fanout) {
	var h slog.Handler = discardHandler{}
	if def != nil {
		h = slog.NewTextHandler(def, HandlerOptions())
	}
	f := NewFanout(h)
	r := New(f)
	r.SetAll(LevelDebug)
	return r, f
}

func TestFileTargetLevels(t *testing.T) {
	path := filepath.Join(t.TempDir(), "gopcu.log")
	fs, err := OpenFile(path)
	if err != nil {
		t.Fatal(err)
	}
	r, f := setup(nil)
	f.Configure(FanoutConfig{Targets: []*Target{plainTarget("file", fs, map[string]slog.Level{CatPCU: LevelInfo, CatTBF: LevelError})}})
	ctx := context.Background()
	pcu, tbf := r.Logger(CatPCU), r.Logger(CatTBF)
	pcu.Debug("pcu debug")
	pcu.Info("pcu info", "bts", 0)
	Notice(pcu, "pcu notice")
	Notice(tbf, "tbf notice")
	tbf.Log(ctx, LevelError, "tbf error", "tfi", 3, "text", "a b")
	r.Logger(CatNS).Log(ctx, LevelNotice, "ns notice")
	r.Logger(CatNS).Log(ctx, LevelInfo, "ns info")
	f.Close()
	got, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	want := "DPCU INFO pcu info bts=0\nDPCU NOTICE pcu notice\nDTBF ERROR tbf error tfi=3 text=\"a b\"\nDNS NOTICE ns notice\n"
	if string(got) != want {
		t.Fatalf("file:\n%s\nwant:\n%s", got, want)
	}
	// appended, reopenable
	fs2, err := OpenFile(path)
	if err != nil {
		t.Fatal(err)
	}
	f.Configure(FanoutConfig{Targets: []*Target{plainTarget("file", fs2, nil)}})
	Notice(pcu, "again")
	if err := os.Rename(path, path+".1"); err != nil { // rotated
		t.Fatal(err)
	}
	Notice(pcu, "rotated")
	if err := f.Reopen(); err != nil {
		t.Fatal(err)
	}
	Notice(pcu, "new file")
	if got := testutil.ReadFile(t, path); got != "DPCU NOTICE new file\n" {
		t.Fatalf("after rotation: %q", got)
	}
	if err := fs2.Reopen(); err != nil {
		t.Fatal(err)
	}
	Notice(pcu, "reopened")
	f.Close()
	if got := testutil.ReadFile(t, path+".1"); !strings.HasSuffix(got, "tbf error tfi=3 text=\"a b\"\nDNS NOTICE ns notice\nDPCU NOTICE again\nDPCU NOTICE rotated\n") {
		t.Fatalf("append: %q", got)
	}
	if got := testutil.ReadFile(t, path); got != "DPCU NOTICE new file\nDPCU NOTICE reopened\n" {
		t.Fatalf("reopened: %q", got)
	}
}

func TestTargetsPerCategoryLevels(t *testing.T) {
	var def bytes.Buffer
	r, f := setup(&def)
	a, b := &bufSink{}, &bufSink{}
	f.Configure(FanoutConfig{
		Targets: []*Target{
			plainTarget("a", a, map[string]slog.Level{CatPCU: LevelDebug, CatTBF: LevelError}),
			plainTarget("b", b, map[string]slog.Level{CatPCU: LevelError, CatTBF: LevelDebug}),
		},
		Default:       true,
		DefaultLevels: map[string]slog.Level{CatPCU: LevelNotice, CatTBF: LevelFatal},
	})
	pcu, tbf := r.Logger(CatPCU), r.Logger(CatTBF)
	pcu.Debug("p1")
	Notice(pcu, "p2")
	tbf.Debug("t1")
	tbf.Error("t2")
	if got, want := a.String(), "DPCU DEBUG p1\nDPCU NOTICE p2\nDTBF ERROR t2\n"; got != want {
		t.Errorf("a = %q, want %q", got, want)
	}
	if got, want := b.String(), "DTBF DEBUG t1\nDTBF ERROR t2\n"; got != want {
		t.Errorf("b = %q, want %q", got, want)
	}
	if d := def.String(); strings.Count(d, "\n") != 1 || !strings.Contains(d, "msg=p2") || !strings.Contains(d, "level=NOTICE") {
		t.Errorf("default output = %q", d)
	}
}

func TestTargetFilterAllAndForce(t *testing.T) {
	r, f := setup(nil)
	off, forced := &bufSink{}, &bufSink{}
	tOff := plainTarget("off", off, nil)
	tOff.FilterAll = false
	tForce := plainTarget("forced", forced, map[string]slog.Level{CatPCU: LevelDebug})
	tForce.Force, tForce.ForceAll = true, LevelError
	f.Configure(FanoutConfig{Targets: []*Target{tOff, tForce}})
	Notice(r.Logger(CatPCU), "n")
	r.Logger(CatPCU).Error("e")
	if off.n != 0 {
		t.Errorf("filter all 0 target got %q", off.String())
	}
	if got := forced.String(); got != "DPCU ERROR e\n" {
		t.Errorf("force-all target got %q", got)
	}
}

// TestTargetDisabledCategory: a category disabled on a target is not
// logged there at any level, even under force-all (libosmocore checks
// "enabled" first); MinLevel says LevelOff for it.
func TestTargetDisabledCategory(t *testing.T) {
	r, f := setup(nil)
	a := &bufSink{}
	ta := plainTarget("a", a, map[string]slog.Level{CatCSN1: LevelDebug})
	ta.Disabled = map[string]bool{CatCSN1: true}
	ta.Force, ta.ForceAll = true, LevelDebug
	f.Configure(FanoutConfig{Targets: []*Target{ta}})
	r.Logger(CatCSN1).Error("csn1")
	r.Logger(CatPCU).Debug("pcu")
	if got := a.String(); got != "DPCU DEBUG pcu\n" {
		t.Errorf("got %q", got)
	}
	if ta.MinLevel(CatCSN1) != LevelOff || ta.MinLevel(CatPCU) != LevelDebug {
		t.Errorf("MinLevel csn1 %v pcu %v", ta.MinLevel(CatCSN1), ta.MinLevel(CatPCU))
	}
	ta.FilterAll = false
	if ta.MinLevel(CatPCU) != LevelOff {
		t.Error("MinLevel without filter all")
	}
}

func TestLineFormat(t *testing.T) {
	tm := time.Date(2026, 3, 4, 5, 6, 7, 89_000_000, time.Local)
	e := &Entry{Time: tm, Cat: CatPCU, Level: LevelNotice, Msg: "hello", File: "/src/gopcu/pcu/tbf.go", Line: 42}
	cases := []struct {
		f    Format
		want string
	}{
		{Format{}, "hello\n"},
		{Format{Timestamp: true, Category: true}, "Wed Mar  4 05:06:07 2026 DPCU hello\n"},
		{Format{ExtTimestamp: true, Timestamp: true, Level: true}, "20260304050607089 NOTICE hello\n"},
		{Format{Category: true, CategoryHex: true, Level: true, File: FileBasename}, "DPCU NOTICE <000e> tbf.go:42 hello\n"},
		{Format{File: FilePath, FileLast: true}, "hello (tbf.go:42)\n"},                                     // as osmo-pcu's "osmobts_sock.c:228", not the build path
		{Format{Color: true, Category: true}, "\033[1;35m\033[1;33mDPCU\033[0;m\033[1;35m hello\n\033[0;m"}, // reset after "\n" as osmo-pcu 1.1.0 sends it
	}
	for _, c := range cases {
		tg := &Target{Format: c.f, CatIndex: map[string]int{CatPCU: 14}, Colors: CategoryColors}
		if got := string(tg.AppendLine(nil, e)); got != c.want {
			t.Errorf("%+v: %q, want %q", c.f, got, c.want)
		}
	}
}

func TestFileTargetSource(t *testing.T) {
	r, f := setup(nil)
	s := &bufSink{}
	tg := plainTarget("s", s, nil)
	tg.Format = Format{File: FileBasename}
	f.Configure(FanoutConfig{Targets: []*Target{tg}})
	r.Logger(CatPCU).Error("src")
	Notice(r.Logger(CatPCU), "notice src") // Notice reports its caller
	lines := strings.Split(strings.TrimSuffix(s.String(), "\n"), "\n")
	if len(lines) != 2 || !strings.HasPrefix(lines[0], "targets_test.go:") || !strings.HasSuffix(lines[0], " src") ||
		!strings.HasPrefix(lines[1], "targets_test.go:") || !strings.HasSuffix(lines[1], " notice src") {
		t.Errorf("lines = %q", lines)
	}
}

// TestAppendGSMTAPLogGolden pins the datagram: the GSMTAP v2 header
// (gsmtap.Header, type OSMOCORE_LOG 0x10, other fields zero), then struct
// gsmtap_osmocore_log_hdr (libosmocore gsmtap.h: ts sec/usec, proc_name[16],
// pid, level, 3 octets padding, subsys[16], src_file name[32] and line),
// then the message with its "\n".
func TestAppendGSMTAPLogGolden(t *testing.T) {
	e := &Entry{Time: time.Unix(1764496277, 123456000), Cat: CatRLCMACUL, Level: LevelError,
		Msg: "hi", File: "/x/rlcmac/ul.go", Line: 321}
	got := AppendGSMTAPLog([]byte{0xee}, "OsmoPCU", 4242, e)
	z := func(n int) string { return strings.Repeat("00", n) }
	want, _ := hex.DecodeString("ee" +
		"02041000" + z(12) + // GSMTAP header
		"692c1395" + "0001e240" + // 1764496277 s, 123456 µs
		hex.EncodeToString([]byte("OsmoPCU")) + z(9) +
		"00001092" + "07" + z(3) + // pid 4242, LOGL_ERROR
		hex.EncodeToString([]byte("RLCMACUL")) + z(8) +
		hex.EncodeToString([]byte("ul.go")) + z(27) + "00000141" + // line 321
		hex.EncodeToString([]byte("hi\n")))
	if !bytes.Equal(got, want) {
		t.Fatalf("got  % x\nwant % x", got, want)
	}
}

// TestGSMTAPLogTshark has Wireshark decode a GSMTAP log datagram.
func TestGSMTAPLogTshark(t *testing.T) {
	tshark := testutil.NeedBinary(t, "tshark")
	e := &Entry{Time: time.Unix(1764496277, 123456000), Cat: CatRLCMACUL, Level: LevelError,
		Msg: "marker-3f9a UL block dropped bsn=17", File: "/x/rlcmac/ul.go", Line: 321}
	payload := AppendGSMTAPLog(nil, "OsmoPCU", 4242, e)
	path := filepath.Join(t.TempDir(), "log.pcap")
	fh, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	w, err := pcapw.NewWriter(fh, 0)
	if err != nil {
		t.Fatal(err)
	}
	lo := netip.AddrFrom4([4]byte{127, 0, 0, 1})
	if err := w.WriteUDP(e.Time, netip.AddrPortFrom(lo, 40000), netip.AddrPortFrom(lo, GSMTAPPort), payload); err != nil {
		t.Fatal(err)
	}
	if err := fh.Close(); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command(tshark, "-r", path, "-V").CombinedOutput()
	if err != nil {
		t.Fatalf("tshark: %v\n%s", err, out)
	}
	s := string(out)
	for _, want := range []string{"marker-3f9a UL block dropped bsn=17", "OsmoPCU", "RLCMACUL", "ul.go"} {
		if !strings.Contains(s, want) {
			t.Errorf("tshark output lacks %q:\n%s", want, s)
		}
	}
	for _, bad := range []string{"Malformed", "Expert Info", "[Error"} {
		if strings.Contains(s, bad) {
			t.Errorf("tshark output has %q:\n%s", bad, s)
		}
	}
	if t.Failed() || testing.Verbose() {
		t.Logf("tshark -V:\n%s", s)
	}
}

func TestFanoutAttrsGroups(t *testing.T) {
	r, f := setup(nil)
	s := &bufSink{}
	f.Configure(FanoutConfig{Targets: []*Target{plainTarget("s", s, nil)}})
	l := r.Logger(CatPCU).With("bts", 1).WithGroup("tbf")
	l.Error("x", "tfi", 2, slog.Group("g", "a", "b c"))
	if got, want := s.String(), "DPCU ERROR x bts=1 tbf.tfi=2 tbf.g.a=\"b c\"\n"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
}

// TestFanoutConcurrent logs from several goroutines while the targets are
// swapped (run with -race).
func TestFanoutConcurrent(t *testing.T) {
	r, f := setup(nil)
	a := &bufSink{}
	var wg sync.WaitGroup
	stop := make(chan struct{})
	for i := 0; i < 4; i++ {
		wg.Go(func() {
			l := r.Logger(CatTBF).With("g", i)
			for {
				select {
				case <-stop:
					return
				default:
				}
				l.Error("x", "n", 1)
			}
		})
	}
	count := func() int { a.mu.Lock(); defer a.mu.Unlock(); return a.n }
	deadline := time.Now().Add(10 * time.Second)
	for i := 0; i < 200 || count() < 100; i++ {
		f.Configure(FanoutConfig{Targets: []*Target{plainTarget("a", a, nil)}, Default: i%2 == 0})
		if time.Now().After(deadline) {
			t.Fatal("nothing logged")
		}
		runtime.Gosched()
	}
	close(stop)
	wg.Wait()
}

// BenchmarkFanoutDefaultOnly is the cost of the fan-out when only the
// default output is on (gopcu without `log ...` targets).
func BenchmarkFanoutDefaultOnly(b *testing.B) {
	f := NewFanout(slog.NewTextHandler(io.Discard, HandlerOptions()))
	l := New(f).Logger(CatPCU).With("bts", 0)
	b.ReportAllocs()
	for b.Loop() {
		l.Error("x", "tfi", 1)
	}
}

// BenchmarkFanoutFileTarget: one target writing formatted lines.
func BenchmarkFanoutFileTarget(b *testing.B) {
	f := NewFanout(discardHandler{})
	f.Configure(FanoutConfig{Targets: []*Target{plainTarget("w", &WriterSink{W: io.Discard}, nil)}})
	l := New(f).Logger(CatPCU).With("bts", 0)
	b.ReportAllocs()
	for b.Loop() {
		l.Error("x", "tfi", 1)
	}
}

// BenchmarkTextNoFanout is BenchmarkFanoutDefaultOnly without the fan-out.
func BenchmarkTextNoFanout(b *testing.B) {
	l := New(slog.NewTextHandler(io.Discard, HandlerOptions())).Logger(CatPCU).With("bts", 0)
	b.ReportAllocs()
	for b.Loop() {
		l.Error("x", "tfi", 1)
	}
}
