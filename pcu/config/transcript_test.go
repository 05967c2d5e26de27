package config

import (
	"bytes"
	"flag"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/gopcu/gopcu/internal/testutil"
	"github.com/gopcu/gopcu/internal/testutil/netnstest"
	"github.com/gopcu/gopcu/vty"
)

var update = flag.Bool("update", false, "record testdata/osmo-pcu-1.1.0.transcript from a live osmo-pcu")

// Reference process settings: osmo-pcu 1.1.0 always listens on
// 127.0.0.1:4240, so it runs in a network namespace of its own; the socket
// path is fixed so the transcript (which shows the running config) is
// stable.
const (
	refPort   = 4240
	refSocket = "/tmp/gopcu-vtyref-pcu_bts"
	refBinary = "/usr/bin/osmo-pcu"
)

var refConfig = fmt.Sprintf("pcu\n pcu-socket %s\n", refSocket)

type step struct{ In, Out string }

const refFile = "testdata/osmo-pcu-1.1.0.transcript"

func readTranscript(t testing.TB) []step { return readTranscriptFile(t, refFile) }

// readTranscriptFile reads a transcript: "> " and a quoted command, then
// "< " and its quoted output; other lines are skipped.
func readTranscriptFile(t testing.TB, refFile string) []step {
	t.Helper()
	var out []step
	for _, l := range testutil.DataLines(t, refFile) {
		if len(l) < 2 || (l[0] != '>' && l[0] != '<') {
			continue
		}
		s, err := strconv.Unquote(l[2:])
		if err != nil {
			t.Fatalf("%s: %q: %v", refFile, l, err)
		}
		if l[0] == '>' {
			out = append(out, step{In: s})
		} else {
			out[len(out)-1].Out = s
		}
	}
	return out
}

func loadScript(t testing.TB) []string { return loadScriptFile(t, "testdata/script.txt") }

func loadScriptFile(t testing.TB, path string) []string {
	t.Helper()
	var out []string
	for _, l := range testutil.DataLines(t, path) {
		s, err := strconv.Unquote(l)
		if err != nil {
			t.Fatalf("script line %q: %v", l, err)
		}
		out = append(out, s)
	}
	return out
}

// newRefTree builds gopcu's VTY the way it must look like osmo-pcu 1.1.0
// started with refConfig: the stderr log target osmo-pcu creates at start,
// gopcu's extension commands out of `?` and `list` (osmoPCUSurface;
// TestQueueExtListed checks them there).
func newRefTree(t testing.TB) (*vty.VTY, *Config) {
	t.Helper()
	v, cfg := New("1.1.0")
	osmoPCUSurface(v)
	if err := v.ReadConfig(strings.NewReader(refConfig), "ref.cfg"); err != nil {
		t.Fatal(err)
	}
	return v, cfg
}

// normalize removes what legitimately differs: the `neighbor resolution`
// command osmo-pcu 1.1.0 still has (removed in 1.3.0).
func normalize(s string) string {
	var b strings.Builder
	for _, l := range strings.SplitAfter(s, "\n") {
		if strings.Contains(l, "neighbor") {
			continue
		}
		b.WriteString(l)
	}
	return b.String()
}

func runOurs(t testing.TB, script []string) []step {
	v, _ := newRefTree(t)
	s := v.NewSession(nil)
	steps := []step{{In: "", Out: string(s.Start())}}
	for _, in := range script {
		out := s.Feed([]byte(in))
		if s.Closed() {
			out = []byte("<EOF>")
		}
		steps = append(steps, step{In: in, Out: string(out)})
		if s.Closed() {
			break
		}
	}
	return steps
}

func TestTranscriptAgainstRecordedOsmoPCU(t *testing.T) {
	script := loadScript(t)
	if *update {
		recordLive(t, script)
	}
	ref := readTranscript(t)
	ours := runOurs(t, script)
	compareSteps(t, ref, ours)
}

func compareSteps(t *testing.T, ref, ours []step) {
	t.Helper()
	n := min(len(ref), len(ours))
	bad := 0
	for i := 0; i < n; i++ {
		if ref[i].In != ours[i].In {
			t.Fatalf("step %d: script mismatch %q vs %q", i, ref[i].In, ours[i].In)
		}
		if normalize(ref[i].Out) != normalize(ours[i].Out) {
			bad++
			t.Errorf("step %d %q:\nosmo-pcu: %q\ngopcu:    %q", i, ref[i].In, normalize(ref[i].Out), normalize(ours[i].Out))
		}
	}
	if len(ref) != len(ours) {
		t.Errorf("osmo-pcu had %d steps, gopcu %d", len(ref), len(ours))
	}
}

// recordLive runs the script against a real osmo-pcu 1.1.0 on 127.0.0.1
// (a process of our own, stopped by PID) and stores the transcript.
func recordLive(t *testing.T, script []string) {
	recordLiveFile(t, script, "testdata/script.txt", refFile)
}

func recordLiveFile(t *testing.T, script []string, scriptFile, refFile string) {
	ref := liveTranscript(t, script, nil)
	var b bytes.Buffer
	fmt.Fprintf(&b, "# osmo-pcu 1.1.0 (Debian) VTY transcript of %s; > input, < output (Go-quoted)\n", scriptFile)
	for _, st := range ref {
		fmt.Fprintf(&b, "> %s\n< %s\n", strconv.Quote(st.In), strconv.Quote(st.Out))
	}
	if err := os.WriteFile(refFile, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
}

// liveTranscript runs the script against osmo-pcu. With expect (gopcu's
// own outputs) a step is read until at least as many bytes arrived, then
// briefly more; without, until the output has been idle for 200 ms.
func liveTranscript(t *testing.T, script []string, expect []step) []step {
	t.Helper()
	testutil.NeedBinary(t, refBinary)
	testutil.NeedRoot(t, "network namespaces")
	dir := t.TempDir()
	cfgPath := filepath.Join(dir, "osmo-pcu.cfg")
	if err := os.WriteFile(cfgPath, []byte(refConfig), 0o644); err != nil {
		t.Fatal(err)
	}
	ns := netnstest.New(t)
	ns.Start(dir, "osmo-pcu.log", refBinary, "-c", cfgPath)
	var c net.Conn
	var err error
	if !testutil.Poll(5*time.Second, func() bool {
		err = ns.Do(func() error {
			var e error
			c, e = net.Dial("tcp", fmt.Sprintf("127.0.0.1:%d", refPort))
			return e
		})
		return err == nil
	}) {
		t.Skipf("needs osmo-pcu's VTY on port 4240: %v", err)
	}
	defer c.Close()
	read := func(want int) (string, bool) {
		var b bytes.Buffer
		buf := make([]byte, 65536)
		for {
			wait := 200 * time.Millisecond
			switch {
			case want >= 0 && b.Len() >= want:
				wait = 30 * time.Millisecond
			case b.Len() == 0 || want >= 0:
				wait = time.Second
			}
			c.SetReadDeadline(time.Now().Add(wait))
			n, err := c.Read(buf)
			b.Write(buf[:n])
			if err != nil {
				if ne, ok := err.(net.Error); ok && ne.Timeout() {
					return b.String(), false
				}
				return b.String() + "<EOF>", true
			}
		}
	}
	want := func(i int) int {
		if i < len(expect) {
			return len(expect[i].Out)
		}
		return -1
	}
	first, _ := read(want(0))
	steps := []step{{In: "", Out: first}}
	for i, in := range script {
		if _, err := c.Write([]byte(in)); err != nil {
			t.Fatal(err)
		}
		out, eof := read(want(i + 1))
		steps = append(steps, step{In: in, Out: out})
		if eof {
			break
		}
	}
	return steps
}

// TestTranscriptLive compares against a live osmo-pcu when one is installed
// (CI runs as root with it).
func TestTranscriptLive(t *testing.T) {
	if testing.Short() {
		t.Skip("needs a run without -short (long test)")
	}
	script := loadScript(t)
	ours := runOurs(t, script)
	ref := liveTranscript(t, script, ours)
	compareSteps(t, ref, ours)
}
