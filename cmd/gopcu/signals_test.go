package main

import (
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/gopcu/gopcu/internal/emu/sgsnemu"
	"github.com/gopcu/gopcu/internal/testutil"
)

// TestMain lets the tests run the test binary as gopcu itself (a real
// process that signals can be sent to): GOPCU_TEST_MAIN=1 runs main.
func TestMain(m *testing.M) { testutil.RunTestsOr(m, "GOPCU_TEST_MAIN", main) }

// proc is a gopcu process started by startGopcu.
type proc struct {
	cmd    *exec.Cmd
	stderr *testutil.SyncBuffer
	done   chan struct{}
	err    error
	vty    string
}

// startGopcu runs this test binary as gopcu with args plus a free VTY
// port, and waits until its VTY answers.
func startGopcu(t *testing.T, args ...string) *proc {
	t.Helper()
	return startGopcuEnv(t, nil, args...)
}

// startGopcuEnv is startGopcu with extra environment variables.
func startGopcuEnv(t *testing.T, env []string, args ...string) *proc {
	t.Helper()
	port := testutil.FreePort(t)
	p := &proc{stderr: &testutil.SyncBuffer{}, done: make(chan struct{}), vty: fmt.Sprintf("127.0.0.1:%d", port)}
	p.cmd = exec.Command(os.Args[0], append(args, "--vty-port", fmt.Sprint(port))...)
	p.cmd.Env = append(append(os.Environ(), "GOPCU_TEST_MAIN=1"), env...)
	p.cmd.Stdout, p.cmd.Stderr = io.Discard, p.stderr
	if err := p.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { p.err = p.cmd.Wait(); close(p.done) }()
	t.Cleanup(func() {
		select {
		case <-p.done:
		default:
			p.cmd.Process.Kill()
			<-p.done
		}
	})
	if !testutil.Poll(10*time.Second, func() bool {
		c, err := net.Dial("tcp", p.vty)
		if err == nil {
			c.Close()
			return true
		}
		select {
		case <-p.done:
			t.Fatalf("gopcu ended: %v\n%s", p.err, p.stderr.String())
		default:
		}
		return false
	}) {
		t.Fatalf("VTY %s never answered:\n%s", p.vty, p.stderr.String())
	}
	return p
}

// wait waits up to d for the process to end and returns its exit code.
// stop sends SIGTERM and fails the test unless gopcu exits with 0 within
// 5 s.
func (p *proc) stop(t *testing.T) {
	t.Helper()
	p.cmd.Process.Signal(syscall.SIGTERM)
	if rc := p.wait(t, 5*time.Second); rc != exitOK {
		t.Fatalf("exit code %d", rc)
	}
}

func (p *proc) wait(t *testing.T, d time.Duration) int {
	t.Helper()
	select {
	case <-p.done:
	case <-time.After(d):
		t.Fatalf("gopcu still running after %v:\n%s", d, p.stderr.String())
	}
	if ee, ok := p.err.(*exec.ExitError); ok {
		if ws, ok := ee.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
			return 128 + int(ws.Signal())
		}
		return ee.ExitCode()
	}
	if p.err != nil {
		t.Fatal(p.err)
	}
	return 0
}

// writeConfig writes text into the config file dir/name and returns its
// path.
func writeConfig(t *testing.T, dir, name, text string) string {
	t.Helper()
	cfg := filepath.Join(dir, name)
	if err := os.WriteFile(cfg, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return cfg
}

// logConfig is a config file with a `log file` target at NOTICE.
func logConfig(t *testing.T, dir, logFile string) string {
	t.Helper()
	return writeConfig(t, dir, "gopcu.cfg", fmt.Sprintf("log file %s\n logging filter all 1\n logging print file 0\n logging level set-all notice\n", logFile))
}

// startGopcuGb starts gopcu with an empty config file, serving the BTS
// emulator with NS towards the SGSN emulator (startPeers), and waits until
// its BVC is unblocked.
func startGopcuGb(t *testing.T) *proc {
	t.Helper()
	dir := t.TempDir()
	_, sock := startPeers(t, dir, sgsnemu.Config{}, sgsnemu.Callbacks{})
	p := startGopcu(t, "-c", writeConfig(t, dir, "empty.cfg", ""), "--pcu-sock", sock)
	if !testutil.Poll(10*time.Second, func() bool { return strings.Contains(p.stderr.String(), "BVCI=1800 unblocked") }) {
		t.Fatalf("no BVC unblocked:\n%s", p.stderr.String())
	}
	return p
}

// TestSignalTerminate: SIGTERM and SIGINT end gopcu cleanly (counters in
// the log, exit code 0) within 5 s, while it serves the BTS emulator and
// the SGSN emulator. Every group with a non-zero counter is in the log,
// the Gb's too (bssgp:bss_ctx, ns:nse, ns:nsvc), although the Gb and its
// groups go when the engine stops.
func TestSignalTerminate(t *testing.T) {
	for _, sig := range []syscall.Signal{syscall.SIGTERM, syscall.SIGINT} {
		t.Run(sigName(sig), func(t *testing.T) {
			p := startGopcuGb(t)
			nonZero := map[string]bool{} // the groups `show rate-counters skip-zero` lists a counter of
			group := ""
			for _, l := range strings.Split(testutil.VTYCommands(t, p.vty, "show rate-counters skip-zero")[0], "\n") {
				switch {
				case l == "":
				case l[0] != ' ':
					group = l
				default:
					nonZero[group] = true
				}
			}
			start := time.Now()
			p.cmd.Process.Signal(sig)
			if rc := p.wait(t, 5*time.Second); rc != exitOK {
				t.Fatalf("exit code %d, want 0:\n%s", rc, p.stderr.String())
			}
			t.Logf("%s: exit after %v", sigName(sig), time.Since(start))
			se := p.stderr.String()
			for _, want := range []string{"signal received, shutting down", "signal=" + sigName(sig), "counter at exit",
				"name=rx:info_ind value=1", "counter at exit group=bssgp:bss_ctx index=1800 name=packets:in value=",
				"counter at exit group=ns:nse index=101 ", "counter at exit group=ns:nsvc index=0 index_name=NSE00101-NSVC-"} {
				if !strings.Contains(se, want) {
					t.Errorf("stderr lacks %q:\n%s", want, se)
				}
			}
			groups := map[string]bool{}
			for _, m := range regexp.MustCompile(`counter at exit group=(\S+) index=`).FindAllStringSubmatch(se, -1) {
				groups[m[1]] = true
			}
			if len(groups) < len(nonZero) || len(nonZero) < 3 {
				t.Errorf("%d groups with counters at exit %v; show rate-counters skip-zero had %d: %v", len(groups), groups, len(nonZero), nonZero)
			}
		})
	}
}

// TestSignalHangupReopensLogs: after logrotate's rename, SIGHUP makes the
// `log file` target write to a new file of the configured name.
func TestSignalHangupReopensLogs(t *testing.T) {
	dir := t.TempDir()
	logFile := filepath.Join(dir, "gopcu.log")
	p := startGopcu(t, "-c", logConfig(t, dir, logFile), "--pcu-sock", filepath.Join(dir, "no_bts"))
	testutil.PollFile(t, logFile, "VTY listening")
	if err := os.Rename(logFile, logFile+".1"); err != nil {
		t.Fatal(err)
	}
	p.cmd.Process.Signal(syscall.SIGHUP)
	got := testutil.PollFile(t, logFile, "SIGHUP: log files reopened")
	if strings.Contains(got, "VTY listening") {
		t.Fatalf("new file has the old lines:\n%s", got)
	}
	if old, _ := os.ReadFile(logFile + ".1"); strings.Contains(string(old), "reopened") {
		t.Fatalf("rotated file got the new lines:\n%s", old)
	}
	p.stop(t)
}

// TestSignalUser1DumpsState: SIGUSR1 (and SIGUSR2, as osmo-pcu) write the
// state dump to the log: process memory and, per BTS, the engine's
// PDCHs, MSs, TBFs and LLC queue totals.
func TestSignalUser1DumpsState(t *testing.T) {
	dir := t.TempDir()
	logFile := filepath.Join(dir, "gopcu.log")
	sock := startBTS(t, dir)
	p := startGopcu(t, "-c", logConfig(t, dir, logFile), "--pcu-sock", sock)
	testutil.PollFile(t, logFile, "Gb started")
	p.cmd.Process.Signal(syscall.SIGUSR1)
	got := testutil.PollFile(t, logFile, "state dump bts=0")
	for _, want := range []string{"state dump signal=SIGUSR1 heap_alloc=", " goroutines=", " bts=1\n",
		"state dump bts=0 active=true pdch=4 ms=0 tbf_ul=0 tbf_dl=0 llc_frames=0 llc_octets=0\n"} {
		if !strings.Contains(got, want) {
			t.Errorf("log lacks %q:\n%s", want, got)
		}
	}
	p.cmd.Process.Signal(syscall.SIGUSR2)
	testutil.PollFile(t, logFile, "state dump signal=SIGUSR2")
	p.stop(t)
}

// TestExitCodes: osmo-pcu's exit codes where it has them.
func TestExitCodes(t *testing.T) {
	dir := t.TempDir()
	bad := writeConfig(t, dir, "bad.cfg", "pcu\n no-such-command\n")
	busy, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer busy.Close()
	for _, c := range []struct {
		args []string
		want int
	}{
		{[]string{"-V"}, exitOK},
		{[]string{"-h"}, exitOK},
		{[]string{"--vty-ref-xml"}, exitOK},
		{[]string{"--no-such-flag"}, exitFailure},
		{[]string{"-c", bad}, exitFailure},
		{[]string{"-c", filepath.Join(dir, "missing.cfg")}, exitFailure},
		{[]string{"-c", filepath.Join(dir, "missing.cfg"), "-m", "1"}, exitFailure},
		{[]string{"--pcu-sock", filepath.Join(dir, "s"), "--vty-port", fmt.Sprint(busy.Addr().(*net.TCPAddr).Port)}, exitFailure},
		{[]string{"--vty-ref-mode", "x", "--vty-ref-xml"}, exitUsage},
	} {
		if rc := run(c.args, io.Discard, io.Discard); rc != c.want {
			t.Errorf("gopcu %s: exit code %d, want %d", strings.Join(c.args, " "), rc, c.want)
		}
	}
}

// TestSystemdNotify: with $NOTIFY_SOCKET set (systemd Type=notify), gopcu
// sends READY=1 once its VTY listens and STOPPING=1 on SIGTERM.
func TestSystemdNotify(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "notify")
	sock, err := net.ListenUnixgram("unixgram", &net.UnixAddr{Name: path, Net: "unixgram"})
	if err != nil {
		t.Fatal(err)
	}
	defer sock.Close()
	p := startGopcuEnv(t, []string{"NOTIFY_SOCKET=" + path}, "-c", logConfig(t, dir, filepath.Join(dir, "log")), "--pcu-sock", filepath.Join(dir, "no_bts"))
	read := func() string {
		sock.SetReadDeadline(time.Now().Add(10 * time.Second))
		buf := make([]byte, 1024)
		n, err := sock.Read(buf)
		if err != nil {
			t.Fatalf("notify socket: %v", err)
		}
		return string(buf[:n])
	}
	if got := read(); got != "READY=1\nSTATUS=VTY on "+p.vty {
		t.Fatalf("first notification %q", got)
	}
	p.cmd.Process.Signal(syscall.SIGTERM)
	if got := read(); got != "STOPPING=1" {
		t.Fatalf("second notification %q", got)
	}
	if rc := p.wait(t, 5*time.Second); rc != exitOK {
		t.Fatalf("exit code %d", rc)
	}
}
