package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/gopcu/gopcu/internal/emu/sgsnemu"
	"github.com/gopcu/gopcu/internal/logx"
	"github.com/gopcu/gopcu/internal/testutil"
	"github.com/gopcu/gopcu/internal/testutil/peertest"
	"github.com/gopcu/gopcu/pcu"
	"github.com/gopcu/gopcu/pcu/config"
)

// osmoPCULines reads testdata/osmo-pcu-1.1.0-stderr.txt: "FORMAT EVENT"
// to the line osmo-pcu 1.1.0 wrote.
func osmoPCULines(t *testing.T) map[string]string {
	t.Helper()
	m := map[string]string{}
	for _, l := range testutil.DataLines(t, "testdata/osmo-pcu-1.1.0-stderr.txt") {
		f := strings.SplitN(l, " ", 3)
		s, err := strconv.Unquote(f[2])
		if err != nil {
			t.Fatalf("%q: %v", l, err)
		}
		m[f[0]+" "+f[1]] = s
	}
	return m
}

// srcPos is libosmocore's "file.c:123" (`logging print file`).
var srcPos = regexp.MustCompile(`[A-Za-z0-9_]+\.(?:c|cpp|go):[0-9]+`)

// stderrLine finds the line of out (stderr) that contains sub, with its
// colour codes (a coloured line is followed by its reset after the "\n",
// as libosmocore writes it).
func stderrLine(out, sub string) (string, bool) {
	i := strings.Index(out, sub)
	if i < 0 {
		return "", false
	}
	s := strings.LastIndexByte(out[:i], '\n') + 1
	if strings.HasPrefix(out[s:], "\x1b[0;m") { // the previous line's reset
		s += len("\x1b[0;m")
	}
	e := strings.IndexByte(out[i:], '\n')
	if e < 0 {
		return "", false
	}
	e += i + 1
	if strings.HasPrefix(out[e:], "\x1b[0;m") {
		e += len("\x1b[0;m")
	}
	return out[s:e], true
}

// printLevelNode is the `log stderr` node the "print-level" lines of
// osmo-pcu were recorded with.
const printLevelNode = "log stderr\n logging filter all 1\n logging color 0\n logging print category-hex 0\n" +
	" logging print category 1\n logging print level 1\n logging print file basename\n logging level set-all notice\n"

// waitStderr waits until p's stderr has a line containing sub.
func waitStderr(t *testing.T, p *proc, sub string) string {
	t.Helper()
	var l string
	if !testutil.Poll(15*time.Second, func() (ok bool) { l, ok = stderrLine(p.stderr.String(), sub); return ok }) {
		t.Fatalf("no %q on stderr:\n%s", sub, p.stderr.String())
	}
	return l
}

// TestStderrLikeOsmoPCU: gopcu's stderr is osmo-pcu 1.1.0's for the same
// events, byte for byte but the source file and line: with Debian's
// osmo-pcu.cfg (no `log` node: osmo-pcu's start-up target, coloured,
// "<0001> file:line") and with a `log` node printing category and level.
// The events: the BTS socket missing (logged at every retry), the NSE
// coming up, the NSE failing (the SGSN resets the NS-VC).
func TestStderrLikeOsmoPCU(t *testing.T) {
	want := osmoPCULines(t)
	debian, err := os.ReadFile("../../packaging/examples/osmo-pcu.cfg")
	if err != nil {
		t.Fatal(err)
	}
	for _, format := range []string{"default", "print-level"} {
		t.Run(format, func(t *testing.T) {
			dir := t.TempDir()
			cfg := string(debian)
			if format == "print-level" {
				cfg = printLevelNode + cfg
			}
			cfgFile := writeConfig(t, dir, "osmo-pcu.cfg", cfg)
			sock := filepath.Join(dir, "pcu_bts")
			p := startGopcu(t, "-c", cfgFile, "--pcu-sock", sock)
			check := func(event, got string) {
				t.Helper()
				got = srcPos.ReplaceAllString(strings.ReplaceAll(got, sock, "$SOCK"), "FILE:LINE")
				w := srcPos.ReplaceAllString(want[format+" "+event], "FILE:LINE")
				if got != w {
					t.Errorf("%s:\n got %q\nwant %q (osmo-pcu 1.1.0)", event, got, w)
				}
			}
			check("bts-connect", waitStderr(t, p, "Failed to connect to the BTS"))
			// every retry (1 s, then 2 s)
			if !testutil.Poll(10*time.Second, func() bool { return strings.Count(p.stderr.String(), "Failed to connect to the BTS") >= 2 }) {
				t.Fatalf("one connect failure logged in 10 s:\n%s", p.stderr.String())
			}

			sg := peertest.SGSN(t, sgsnemu.Config{}, sgsnemu.Callbacks{})
			peertest.BTS(t, sock, sg.Addr())
			check("nse-available", waitStderr(t, p, "NS-NSE 101 became available"))
			// the SGSN resets the NS-VC (osmo-sgsn's `nsvc 101 reset`):
			// the NSE fails, and comes back
			sg.Do(func(s *sgsnemu.SGSN, now time.Duration) { s.ResetNSVC(now) })
			check("nse-unavailable", waitStderr(t, p, "NS-NSE 101 became unavailable"))
			if !testutil.Poll(15*time.Second, func() bool { return strings.Count(p.stderr.String(), "NS-NSE 101 became available") >= 2 }) {
				t.Fatalf("the NSE did not come back:\n%s", p.stderr.String())
			}
		})
	}
}

// TestStderrIsRunningConfig: what gopcu prints on stderr is what `show
// running-config` says its `log stderr` target prints, with Debian's
// osmo-pcu.cfg, an empty config, the shipped gopcu.cfg and the AQM
// example; after `write file` and a restart from the written file the
// lines are the same, byte for byte.
func TestStderrIsRunningConfig(t *testing.T) {
	for _, name := range []string{"packaging/examples/osmo-pcu.cfg", "empty", "packaging/gopcu.cfg", "packaging/examples/gopcu-aqm.cfg"} {
		t.Run(filepath.Base(name), func(t *testing.T) {
			dir := t.TempDir()
			var text []byte
			if name != "empty" {
				var err error
				if text, err = os.ReadFile("../../" + name); err != nil {
					t.Fatal(err)
				}
			}
			cfgFile := writeConfig(t, dir, "gopcu.cfg", string(text))
			sock := filepath.Join(dir, "pcu_bts")
			run := func() (line, rc string) {
				t.Helper()
				p := startGopcu(t, "-c", cfgFile, "--pcu-sock", sock)
				line = waitStderr(t, p, "Failed to connect to the BTS")
				out := testutil.VTYCommands(t, p.vty, "enable", "show running-config", "write file")
				if !strings.Contains(out[2], "Configuration saved to "+cfgFile) {
					t.Fatalf("write file: %q", out[2])
				}
				p.cmd.Process.Signal(os.Interrupt)
				if code := p.wait(t, 5*time.Second); code != exitOK {
					t.Fatalf("exit code %d", code)
				}
				return line, out[1]
			}
			line, rc := run()
			// the line as the running config's stderr target formats the record
			v, _ := config.New(pcu.Version)
			_, body, _ := strings.Cut(rc, "Current configuration:\n")
			if err := v.ReadConfig(strings.NewReader(body), "running-config"); err != nil {
				t.Fatalf("%v\n%s", err, rc)
			}
			vt := v.Logging.Find("stderr", "")
			if vt == nil {
				t.Fatalf("no log stderr in the running config:\n%s", rc)
			}
			pos := srcPos.FindString(line)
			file, ln, _ := strings.Cut(pos, ":")
			n, _ := strconv.Atoi(ln)
			tg := vt.LogxTarget("stderr", nil, v.Logging.CatIndex())
			e := &logx.Entry{Cat: logx.CatL1IF, Level: logx.LevelError, File: file, Line: n,
				Msg: "Failed to connect to the BTS (" + sock + "). Retrying..."}
			if pos == "" && tg.Format.File != logx.FileNone {
				t.Errorf("no source position in %q", line)
			}
			if tg.Format.Timestamp || tg.Format.ExtTimestamp {
				t.Fatalf("%s: a timestamp in the log target: the comparison below cannot work", name)
			}
			if want := string(tg.AppendLine(nil, e)); line != want {
				t.Errorf("stderr line %q,\nrunning-config's target makes %q:\n%s", line, want, rc)
			}
			line2, rc2 := run() // from the written file
			if line2 != line || rc2 != rc {
				t.Errorf("after write file and a restart:\n%q\n%s\nwas\n%q\n%s", line2, rc2, line, rc)
			}
		})
	}
}
