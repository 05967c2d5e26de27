package app

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"fmt"
	"io"
	"log/slog"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/gopcu/gopcu/internal/logx"
	"github.com/gopcu/gopcu/internal/testutil"
	"github.com/gopcu/gopcu/pcu"
	"github.com/gopcu/gopcu/pcu/config"
	"github.com/gopcu/gopcu/vty"
)

// logSetup is the daemon's logging wiring without the daemon: VTY (with
// the config text read), fan-out with a default stderr text output,
// registry.
func logSetup(t *testing.T, cfgText string) (*vty.VTY, *logx.Registry, *logx.Fanout, *testutil.SyncBuffer) {
	t.Helper()
	v, _ := config.New(pcu.Version)
	stderr := &testutil.SyncBuffer{}
	fan := logx.NewFanout(slog.NewTextHandler(stderr, logx.HandlerOptions()))
	logs := logx.New(fan)
	v.Logging.Registry = logs
	if err := v.ReadConfig(strings.NewReader(cfgText), "test.cfg"); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { closeLogTargets(fan) })
	return v, logs, fan, stderr
}

func udpListener(t *testing.T) *net.UDPConn {
	t.Helper()
	pc := testutil.UDP(t)
	old := logGSMTAPPort
	logGSMTAPPort = pc.LocalAddr().(*net.UDPAddr).Port
	t.Cleanup(func() { logGSMTAPPort = old })
	return pc
}

// TestLogTargetsFromConfig: two `log file` targets and a `log gsmtap`
// target from the config file, each with its own category levels; the
// default stderr output keeps the default levels.
func TestLogTargetsFromConfig(t *testing.T) {
	dir := t.TempDir()
	pc := udpListener(t)
	a, b := filepath.Join(dir, "a.log"), filepath.Join(dir, "b.log")
	cfg := fmt.Sprintf(`log file %s
 logging filter all 1
 logging color 0
 logging print category-hex 0
 logging print category 1
 logging print level 1
 logging print file 0
 logging level pcu info
 logging level tbf error
log file %s
 logging filter all 1
 logging print category-hex 0
 logging print category 1
 logging print file 0
 logging level pcu error
 logging level tbf debug
log gsmtap 127.0.0.1
 logging filter all 1
 logging level tbf info
`, a, b)
	v, logs, fan, stderr := logSetup(t, cfg)
	if err := applyLogTargets(v, logs, fan, stderr, logOptions{}); err != nil {
		t.Fatal(err)
	}
	if l, _ := logs.Level(logx.CatTBF); l != logx.LevelDebug {
		t.Errorf("registry tbf level %v, want debug (lowest of the targets)", l)
	}
	pl, tl := logs.Logger(logx.CatPCU), logs.Logger(logx.CatTBF)
	pl.Debug("p-debug")
	pl.Info("p-info", "bts", 0)
	pl.Error("p-error")
	tl.Debug("t-debug")
	tl.Info("t-info", "tfi", 1)
	tl.Error("t-error")

	if got, want := testutil.ReadFile(t, a), "DPCU INFO p-info bts=0\nDPCU ERROR p-error\nDTBF ERROR t-error\n"; got != want {
		t.Errorf("%s:\n%s\nwant:\n%s", a, got, want)
	}
	if got, want := testutil.ReadFile(t, b), "DPCU p-error\nDTBF t-debug\nDTBF t-info tfi=1\nDTBF t-error\n"; got != want {
		t.Errorf("%s:\n%s\nwant:\n%s", b, got, want)
	}
	// stderr: osmo-pcu's start-up target, levels notice for pcu and tbf
	se := stderr.String()
	if strings.Contains(se, "debug") || strings.Contains(se, "info") || strings.Count(se, "\n") != 2 ||
		!strings.Contains(se, " p-error\n") || !strings.Contains(se, " t-error\n") {
		t.Errorf("stderr:\n%s", se)
	}
	// GSMTAP: t-info then t-error (tbf info), p-error (pcu notice)
	want := []struct {
		level  uint8
		subsys string
		msg    string
	}{{logx.OsmoError, "PCU", "p-error\n"}, {logx.OsmoInfo, "TBF", "t-info tfi=1\n"}, {logx.OsmoError, "TBF", "t-error\n"}}
	buf := make([]byte, 8192)
	for i, w := range want {
		_ = pc.SetReadDeadline(time.Now().Add(5 * time.Second))
		n, err := pc.Read(buf)
		if err != nil {
			t.Fatalf("datagram %d: %v", i, err)
		}
		p := buf[:n]
		if n < 16+84 || p[0] != 2 || p[1] != 4 || p[2] != 0x10 {
			t.Fatalf("datagram %d: % x", i, p)
		}
		l := p[16:]
		proc := string(bytes.TrimRight(l[8:24], "\x00"))
		subsys := string(bytes.TrimRight(l[32:48], "\x00"))
		if l[28] != w.level || subsys != w.subsys || string(l[84:]) != w.msg || proc != "OsmoPCU" ||
			binary.BigEndian.Uint32(l[80:]) == 0 || binary.BigEndian.Uint32(l[24:]) != uint32(os.Getpid()) {
			t.Errorf("datagram %d: level %d subsys %q proc %q msg %q, want %+v", i, l[28], subsys, proc, l[84:], w)
		}
	}
}

// TestLogTargetsVTYChange: a telnet session adds and changes a `log file`
// target; re-applying after each command takes the change over, `no log
// file` closes it and the registry goes back to the default levels.
func TestLogTargetsVTYChange(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "x.log")
	v, logs, fan, stderr := logSetup(t, "")
	if err := applyLogTargets(v, logs, fan, stderr, logOptions{}); err != nil {
		t.Fatal(err)
	}
	s := v.NewSession(nil)
	defer s.Release()
	s.Start()
	run := func(cmd string) {
		t.Helper()
		out := s.Feed([]byte(cmd + "\r"))
		if bytes.Contains(out, []byte("%")) {
			t.Fatalf("%s: %q", cmd, out)
		}
		if err := applyLogTargets(v, logs, fan, stderr, logOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	run("enable")
	run("configure terminal")
	run("log file " + path)
	pl := logs.Logger(logx.CatPCU)
	logx.Notice(pl, "before filter") // filter all 0: nothing
	run("logging filter all 1")
	run("logging print category-hex 0")
	run("logging print file 0")
	logx.Notice(pl, "n1")
	pl.Debug("d1")
	run("logging level pcu debug")
	run("logging print category 1")
	pl.Debug("d2")
	run("logging print level 1")
	run("logging timestamp 1")
	pl.Info("i3")
	run("exit")
	run("no log file " + path)
	pl.Error("e4")
	got := testutil.ReadFile(t, path)
	lines := strings.Split(got, "\n")
	if len(lines) != 4 || lines[0] != "n1" || lines[1] != "DPCU d2" ||
		!strings.HasSuffix(lines[2], " DPCU INFO i3") || len(lines[2]) != len("Mon Nov 30 09:51:17 2026 DPCU INFO i3") {
		t.Errorf("%s:\n%s", path, got)
	}
	if l, _ := logs.Level(logx.CatPCU); l != logx.LevelNotice {
		t.Errorf("registry pcu level after `no log file` = %v", l)
	}
	if se := stderr.String(); strings.Contains(se, "d1") || strings.Contains(se, "d2") || strings.Contains(se, "i3") ||
		!strings.Contains(se, " e4\n") || !strings.Contains(se, " n1\n") {
		t.Errorf("stderr:\n%s", se)
	}
}

// TestLogStderrTarget: `log stderr` replaces the default stderr output
// with libosmocore-formatted lines.
func TestLogStderrTarget(t *testing.T) {
	v, logs, fan, stderr := logSetup(t, "log stderr\n logging filter all 1\n logging color 0\n logging print category-hex 0\n logging print category 1\n logging print file 0\n logging level ns info\n")
	if err := applyLogTargets(v, logs, fan, stderr, logOptions{}); err != nil {
		t.Fatal(err)
	}
	logs.Logger(logx.CatNS).Info("ns-info", "nsei", 101)
	logs.Logger(logx.CatNS).Debug("ns-debug")
	if got, want := stderr.String(), "DNS ns-info nsei=101\n"; got != want {
		t.Errorf("stderr %q, want %q", got, want)
	}
}

// categoryLog is the config of a `log file` target at path that logs
// every message as "<category> <message>", then more of its lines.
func categoryLog(path, more string) string {
	return "log file " + path + "\n logging filter all 1\n logging print category-hex 0\n" +
		" logging print category 1\n logging print file 0\n" + more
}

// configure runs the commands in a VTY session's CONFIG node; output
// with a "%" (an error) fails the test.
func configure(t *testing.T, v *vty.VTY, cmds ...string) {
	t.Helper()
	s := v.NewSession(nil)
	defer s.Release()
	s.Start()
	for _, cmd := range append([]string{"enable", "configure terminal"}, cmds...) {
		if out := s.Exec(cmd); strings.Contains(out, "%") {
			t.Fatalf("%s: %q", cmd, out)
		}
	}
}

// TestLogForceAll: `logging level force-all` on a `log file` target forces
// every category of that target (the registry follows, so the records are
// made), whatever the category levels; released, the category levels
// apply again. The default stderr output is not affected.
func TestLogForceAll(t *testing.T) {
	path := filepath.Join(t.TempDir(), "x.log")
	v, logs, fan, stderr := logSetup(t, categoryLog(path, " logging level pcu error\n logging level force-all debug\n"))
	if err := applyLogTargets(v, logs, fan, stderr, logOptions{}); err != nil {
		t.Fatal(err)
	}
	if l, _ := logs.Level(logx.CatRLCMAC); l != logx.LevelDebug {
		t.Fatalf("registry rlcmac level %v, want debug", l)
	}
	logs.Logger(logx.CatPCU).Debug("pcu-debug")
	logs.Logger(logx.CatRLCMAC).Debug("rlcmac-debug")
	configure(t, v, "log file "+path, "no logging level force-all")
	if err := applyLogTargets(v, logs, fan, stderr, logOptions{}); err != nil {
		t.Fatal(err)
	}
	logs.Logger(logx.CatPCU).Debug("pcu-debug-2")
	logx.Notice(logs.Logger(logx.CatPCU), "pcu-notice")
	logs.Logger(logx.CatPCU).Error("pcu-error")
	logx.Notice(logs.Logger(logx.CatRLCMAC), "rlcmac-notice")
	if got, want := testutil.ReadFile(t, path), "DPCU pcu-debug\nDRLCMAC rlcmac-debug\nDPCU pcu-error\nDRLCMAC rlcmac-notice\n"; got != want {
		t.Errorf("%s:\n%q\nwant\n%q", path, got, want)
	}
	if l, _ := logs.Level(logx.CatRLCMAC); l != logx.LevelNotice {
		t.Errorf("registry rlcmac level after release %v, want notice", l)
	}
	if se := stderr.String(); strings.Contains(se, "debug") {
		t.Errorf("stderr got debug lines:\n%s", se)
	}
}

// TestLogTargetsOpenError: an unopenable file is reported; the other
// targets work.
func TestLogTargetsOpenError(t *testing.T) {
	dir := t.TempDir()
	good := filepath.Join(dir, "good.log")
	v, logs, fan, stderr := logSetup(t, fmt.Sprintf("log file %s/no/such/dir/x.log\nlog file %s\n logging filter all 1\n logging print category-hex 0\n logging print file 0\n", dir, good))
	err := applyLogTargets(v, logs, fan, stderr, logOptions{})
	if err == nil || !strings.Contains(err.Error(), "no/such/dir") {
		t.Fatalf("err = %v", err)
	}
	logs.Logger(logx.CatPCU).Error("works")
	if got := testutil.ReadFile(t, good); got != "works\n" {
		t.Errorf("good.log %q", got)
	}
}

// TestLogFileRunningConfig: a config with `log file` and `log gsmtap`
// sections comes back unchanged in `show running-config`, also after the
// targets were applied and used.
func TestLogFileRunningConfig(t *testing.T) {
	dir := t.TempDir()
	udpListener(t)
	v0, _ := config.New(pcu.Version)
	levels := ""
	for i, c := range v0.Logging.Categories {
		levels += " logging level " + c.Name + " " + []string{"debug", "info", "notice", "error", "fatal"}[i%5] + "\n"
	}
	file := "log file " + filepath.Join(dir, "x") + "\n logging filter all 1\n logging color 0\n logging print category-hex 0\n logging print category 1\n logging print thread-id 0\n logging timestamp 1\n logging print level 1\n logging print file basename last\n" + levels
	tap := "log gsmtap 127.0.0.1\n logging filter all 0\n logging color 0\n logging print category-hex 1\n logging print category 0\n logging print thread-id 0\n logging print extended-timestamp 1\n logging print file 1\n" + levels
	v, logs, fan, stderr := logSetup(t, file+tap)
	before := v.RunningConfig()
	if !strings.Contains(before, file+tap) {
		t.Fatalf("running-config lacks the log sections:\n%s\nwant:\n%s", before, file+tap)
	}
	if err := applyLogTargets(v, logs, fan, stderr, logOptions{}); err != nil {
		t.Fatal(err)
	}
	logs.Logger(logx.CatPCU).Error("x")
	if after := v.RunningConfig(); after != before {
		t.Errorf("running-config changed by applying:\n%s\nwas:\n%s", after, before)
	}
	// minimal `log file /tmp/x` as osmo-pcu writes it back, read again
	v1, _ := config.New(pcu.Version)
	if err := v1.ReadConfig(strings.NewReader("log file /tmp/x\n"), "a.cfg"); err != nil {
		t.Fatal(err)
	}
	rc1 := v1.RunningConfig()
	v2, _ := config.New(pcu.Version)
	if err := v2.ReadConfig(strings.NewReader(rc1), "b.cfg"); err != nil {
		t.Fatal(err)
	}
	if rc2 := v2.RunningConfig(); rc2 != rc1 {
		t.Errorf("round trip:\n%s\nwas:\n%s", rc2, rc1)
	}
	if !strings.Contains(rc1, "log file /tmp/x\n logging filter all 0\n logging color 0\n logging print category-hex 1\n") {
		t.Errorf("running-config:\n%s", rc1)
	}
}

// TestDaemonLogFile: the daemon applies the config file's `log file`
// target before it logs "gopcu starting"; a VTY change that cannot be
// applied is logged once.
func TestDaemonLogFile(t *testing.T) {
	dir := t.TempDir()
	logFile := filepath.Join(dir, "gopcu.log")
	cfgFile := filepath.Join(dir, "gopcu.cfg")
	cfg := "log file " + logFile + "\n logging filter all 1\n logging print category-hex 0\n logging print category 1\n logging print file basename\n logging level pcu info\n"
	if err := os.WriteFile(cfgFile, []byte(cfg), 0o644); err != nil {
		t.Fatal(err)
	}
	d, stderr := fanDaemon(t, testSettings(cfgFile, filepath.Join(dir, "no-bts"), 0))
	stop := goRun(d)
	testutil.PollFile(t, logFile, "gopcu starting", stderr)
	if got := testutil.ReadFile(t, logFile); !strings.HasPrefix(got, "DPCU main.go:") || !strings.Contains(got, " gopcu starting version=") {
		t.Errorf("%s:\n%s", logFile, got)
	}
	if se := stderr.String(); !strings.Contains(se, " gopcu starting version=") {
		t.Errorf("stderr (osmo-pcu's start-up target):\n%s", se)
	}

	// an unopenable file from the VTY: logged once, on the default output
	d.Exec(func() {
		if err := d.v.ReadConfig(strings.NewReader("log file "+dir+"/no/such/x.log\n"), "vty"); err != nil {
			t.Error(err)
		}
	})
	d.Exec(func() { d.reapplyLogTargets() })
	d.Exec(func() { d.reapplyLogTargets() })
	d.Exec(func() { d.reapplyLogTargets() })
	if n := strings.Count(stderr.String(), "no/such/x.log"); n != 1 {
		t.Errorf("error logged %d times:\n%s", n, stderr.String())
	}
	stopped := make(chan struct{})
	go func() { stop(); close(stopped) }()
	select {
	case <-stopped:
	case <-time.After(10 * time.Second):
		t.Fatal("daemon did not stop")
	}
}

// TestLogCategoryHex: `logging print category-hex 1` prints osmo-pcu
// 1.1.0's subsystem numbers (its VTY table: 15 own categories, then
// libosmocore's from lglobal on); gopcu's own categories follow them.
// csn1 is off by default and enabled by its `logging level`.
func TestLogCategoryHex(t *testing.T) {
	path := filepath.Join(t.TempDir(), "hex.log")
	v, logs, fan, stderr := logSetup(t, "log file "+path+"\n logging filter all 1\n logging print file 0\n logging level csn1 notice\n")
	if err := applyLogTargets(v, logs, fan, stderr, logOptions{}); err != nil {
		t.Fatal(err)
	}
	for _, c := range []string{logx.CatCSN1, logx.CatPCU, logx.CatLNS, logx.CatBSSGP, logx.CatStats} {
		logs.Logger(c).Error(c)
	}
	logs.Logger(logx.CatMS).Error("ms")
	want := "<0000> csn1\n<000c> pcu\n<0022> lns\n<0023> lbssgp\n<0018> lstats\n"
	if n := len(v.Logging.Categories); n != 40 {
		t.Fatalf("%d VTY categories", n)
	}
	got := testutil.ReadFile(t, path)
	if !strings.HasPrefix(got, want) || !strings.HasSuffix(got, " ms\n") {
		t.Errorf("got:\n%s\nwant:\n%s<00xx> ms", got, want)
	}
	var ms int
	if _, err := fmt.Sscanf(got[len(want):], "<%x> ms", &ms); err != nil || ms < 40 {
		t.Errorf("ms index %d (%v)", ms, err)
	}
}

// TestDaemonVTYLogTarget: a `log file` target added over telnet works at
// once, with its own levels (Daemon.Exec re-applies the log targets after
// each VTY command).
func TestDaemonVTYLogTarget(t *testing.T) {
	logFile := filepath.Join(t.TempDir(), "x.log")
	_, c, stderr := startLogDaemon(t)
	go func() { _, _ = io.Copy(io.Discard, c) }()
	for _, l := range []string{"enable", "configure terminal", "log file " + logFile, " logging filter all 1",
		" logging print file 0", " logging print category 1", " logging level pcu debug", "end", "logp pcu debug hello-from-vty"} {
		if _, err := c.Write([]byte(l + "\r\n")); err != nil {
			t.Fatal(err)
		}
	}
	testutil.PollFile(t, logFile, "DPCU <000c> hello-from-vty\n", stderr)
	if strings.Contains(stderr.String(), "hello-from-vty") {
		t.Errorf("pcu debug on the default stderr output:\n%s", stderr.String())
	}
}

// startLogDaemon runs a daemon with an empty config, gopcu's default
// stderr output into stderr, and a telnet connection to its VTY.
func startLogDaemon(t *testing.T) (*Daemon, net.Conn, *testutil.SyncBuffer) {
	t.Helper()
	dir := t.TempDir()
	cfgFile := filepath.Join(dir, "empty.cfg")
	if err := os.WriteFile(cfgFile, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	port := testutil.FreePort(t)
	d, stderr := fanDaemon(t, testSettings(cfgFile, filepath.Join(dir, "no-bts"), port))
	stop := goRun(d)
	t.Cleanup(func() { stop() })
	var c net.Conn
	var err error
	if !testutil.Poll(5*time.Second, func() bool {
		c, err = net.Dial("tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(port)))
		return err == nil
	}) {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return d, c, stderr
}

// TestDisabledCategoryOutputs: csn1 starts disabled as in osmo-pcu 1.1.0:
// neither the default stderr output nor a new `log file` target logs it,
// at any level, until that target's `logging level csn1 ...`; the other
// outputs keep it off. --log-level (gopcu's, like set-all) enables all.
func TestDisabledCategoryOutputs(t *testing.T) {
	path := filepath.Join(t.TempDir(), "x.log")
	v, logs, fan, stderr := logSetup(t, categoryLog(path, " logging level force-all debug\n"))
	if err := applyLogTargets(v, logs, fan, stderr, logOptions{}); err != nil {
		t.Fatal(err)
	}
	csn1 := logs.Logger(logx.CatCSN1)
	csn1.Error("off")
	if l, _ := logs.Effective(logx.CatCSN1); l != logx.LevelOff {
		t.Errorf("csn1 emitted from %v", l)
	}
	configure(t, v, "log file "+path, "logging level csn1 fatal")
	if err := applyLogTargets(v, logs, fan, stderr, logOptions{}); err != nil {
		t.Fatal(err)
	}
	csn1.Debug("on") // force-all debug: the category level does not matter
	if got := testutil.ReadFile(t, path); got != "DCSN1 on\n" {
		t.Errorf("%s: %q", path, got)
	}
	if se := stderr.String(); strings.Contains(se, "csn1") {
		t.Errorf("stderr: %s", se)
	}

	v, logs, fan, stderr = logSetup(t, "")
	if err := setLogLevelOption(v, "error"); err != nil { // New for --log-level
		t.Fatal(err)
	}
	lv := logx.LevelError
	if err := applyLogTargets(v, logs, fan, stderr, logOptions{Level: &lv}); err != nil {
		t.Fatal(err)
	}
	logs.Logger(logx.CatCSN1).Error("all-on")
	if se := stderr.String(); !strings.Contains(se, "all-on") {
		t.Errorf("--log-level error: stderr %q", se)
	}
}

// TestDaemonSessionLevels: a telnet session that ran `logging enable`
// with `logging level set-all debug` sees debug records (the registry
// emits what the session wants) while the default stderr output stays at
// notice; when the session ends the registry goes back to notice.
func TestDaemonSessionLevels(t *testing.T) {
	d, c, stderr := startLogDaemon(t)
	r := bufio.NewReader(c)
	var got bytes.Buffer
	readUntil := func(suffix string) {
		t.Helper()
		_ = c.SetReadDeadline(time.Now().Add(5 * time.Second))
		for !strings.HasSuffix(got.String(), suffix) {
			b, err := r.ReadByte()
			if err != nil {
				t.Fatalf("%v; have %q", err, got.String())
			}
			got.WriteByte(b)
		}
	}
	readUntil("OsmoPCU> ")
	for _, l := range []string{"logging enable", "logging filter all 1", "logging color 0", "logging print category-hex 0",
		"logging print file 0", "logging print category 1", "logging print level 1", "logging level set-all debug"} {
		c.Write([]byte(l + "\r"))
		readUntil(l + "\r\nOsmoPCU> ")
	}
	if l, _ := d.logs.Effective(logx.CatTBF); l != logx.LevelDebug {
		t.Errorf("registry emits tbf from %v", l)
	}
	if l, _ := d.logs.Level(logx.CatTBF); l != logx.LevelNotice {
		t.Errorf("registry base level tbf %v", l)
	}
	got.Reset()
	// osmo-pcu 1.1.0: echo, the line, the prompt
	c.Write([]byte("logp pcu debug hello-debug\r"))
	readUntil("OsmoPCU> ")
	if want := "logp pcu debug hello-debug\r\nDPCU DEBUG hello-debug\n\rOsmoPCU> "; got.String() != want {
		t.Errorf("logp: %q, want %q", got.String(), want)
	}
	d.logs.Logger(logx.CatTBF).Debug("tbf-debug", "tfi", 7)
	readUntil("DTBF DEBUG tbf-debug tfi=7\n\r")
	c.Write([]byte("logging level force-all error\r"))
	readUntil("logging level force-all error\r\nOsmoPCU> ")
	if l, _ := d.logs.Effective(logx.CatTBF); l != logx.LevelNotice {
		t.Errorf("after force-all error: registry emits tbf from %v", l)
	}
	if se := stderr.String(); strings.Contains(se, "hello-debug") || strings.Contains(se, "tbf-debug") {
		t.Errorf("debug records on the default stderr output:\n%s", se)
	}
	c.Write([]byte("logging level force-all debug\r"))
	readUntil("logging level force-all debug\r\nOsmoPCU> ")
	c.Close()
	testutil.Eventually(t, 5*time.Second, func() bool { l, _ := d.logs.Effective(logx.CatTBF); return l == logx.LevelNotice },
		"registry still emits tbf debug after the session ended")
}

// TestLogFormatLogfmt: --log-format logfmt (gopcu's extension for log
// collectors) makes the `log stderr` target write key=value lines with
// that target's levels; other targets keep libosmocore's format.
func TestLogFormatLogfmt(t *testing.T) {
	path := filepath.Join(t.TempDir(), "x.log")
	v, logs, fan, stderr := logSetup(t, "log stderr\n logging level pcu error\n logging level tbf info\n"+
		categoryLog(path, ""))
	if err := applyLogTargets(v, logs, fan, stderr, logOptions{Format: LogFormatLogfmt}); err != nil {
		t.Fatal(err)
	}
	logx.Notice(logs.Logger(logx.CatPCU), "pcu-notice")
	logs.Logger(logx.CatPCU).Error("pcu-error", "bts", 0)
	logs.Logger(logx.CatTBF).Info("tbf-info")
	logs.Logger(logx.CatTBF).Debug("tbf-debug")
	lines := strings.Split(strings.TrimSuffix(stderr.String(), "\n"), "\n")
	if len(lines) != 2 || !strings.HasPrefix(lines[0], "time=") || !strings.HasSuffix(lines[0], " level=ERROR msg=pcu-error bts=0 cat=pcu") ||
		!strings.HasSuffix(lines[1], " level=INFO msg=tbf-info cat=tbf") {
		t.Errorf("stderr:\n%s", stderr.String())
	}
	if got, want := testutil.ReadFile(t, path), "DPCU pcu-notice\nDPCU pcu-error bts=0\n"; got != want {
		t.Errorf("%s: %q, want %q", path, got, want)
	}
	if _, err := ParseLogFormat("json"); err == nil {
		t.Error("--log-format json accepted")
	}
}
