package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// pcuProc is a PCU under test: a child process (gopcu or osmo-pcu)
// started with the same osmo-pcu style config file.
type pcuProc struct {
	name    string
	cmd     *exec.Cmd
	pid     int
	metrics string // gopcu: the Prometheus endpoint (runtime figures)
	logPath string
}

// pcuKind says how to start one PCU.
type pcuKind struct {
	name  string
	bin   string
	env   []string
	gopcu bool
}

// runDir is the per-run environment: a temporary directory with the PCU
// socket, the config file and the log; the VTY on its own loopback
// address so that a PCU of another test on 127.0.0.1:4240 does not clash.
type runDir struct {
	dir  string
	sock string
	vty  string
}

var logLevel = "error"

// rrPrio is the SCHED_RR priority the PCUs run at (0: the default policy).
var rrPrio int

func newRunDir(seq int) (*runDir, error) {
	d, err := os.MkdirTemp("", "pcubench")
	if err != nil {
		return nil, err
	}
	// 127.0.0.0/8 is loopback on Linux: a fresh address per run
	vty := fmt.Sprintf("127.0.%d.%d", 100+(os.Getpid()%100), 2+seq%250)
	return &runDir{dir: d, sock: filepath.Join(d, "pcu_bts"), vty: vty}, nil
}

var keepDirs bool

// noMetrics runs gopcu without --metrics-addr (-no-metrics).
var noMetrics bool

func (r *runDir) close() {
	if keepDirs {
		fmt.Fprintln(os.Stderr, "  kept", r.dir)
		return
	}
	os.RemoveAll(r.dir)
}

func (r *runDir) writeConfig(extra string) (string, error) {
	cfg := "log stderr\n logging filter all 1\n logging color 0\n logging level set-all " + logLevel + "\n" +
		"line vty\n bind " + r.vty + "\n" +
		"pcu\n pcu-socket " + r.sock + "\n" + extra
	p := filepath.Join(r.dir, "pcu.cfg")
	return p, os.WriteFile(p, []byte(cfg), 0o644)
}

// start runs the PCU of kind k in r with the config extra lines.
func (k pcuKind) start(r *runDir, extra string) (*pcuProc, error) {
	cfg, err := r.writeConfig(extra)
	if err != nil {
		return nil, err
	}
	p := &pcuProc{name: k.name, logPath: filepath.Join(r.dir, k.name+".log")}
	args := []string{"-c", cfg}
	if k.gopcu && !noMetrics {
		port, err := freeTCPPort()
		if err != nil {
			return nil, err
		}
		p.metrics = fmt.Sprintf("127.0.0.1:%d", port)
		args = append(args, "--metrics-addr", p.metrics)
	}
	log, err := os.Create(p.logPath)
	if err != nil {
		return nil, err
	}
	defer log.Close()
	if rrPrio > 0 {
		// as the PCUs' systemd units run them (osmo-pcu.service,
		// packaging/gopcu.service: CPUSchedulingPolicy=rr): chrt execs
		// the PCU, which keeps the pid, and every thread inherits SCHED_RR
		args = append([]string{"-r", strconv.Itoa(rrPrio), k.bin}, args...)
		p.cmd = exec.Command("chrt", args...)
	} else {
		p.cmd = exec.Command(k.bin, args...)
	}
	p.cmd.Dir = r.dir
	p.cmd.Stdout, p.cmd.Stderr = log, log
	p.cmd.Env = append(os.Environ(), k.env...)
	p.cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	if err := p.cmd.Start(); err != nil {
		return nil, err
	}
	p.pid = p.cmd.Process.Pid
	return p, nil
}

// stop ends the PCU (SIGTERM, then SIGKILL after 5 s).
func (p *pcuProc) stop() {
	if p == nil || p.cmd == nil {
		return
	}
	p.cmd.Process.Signal(syscall.SIGTERM)
	done := make(chan struct{})
	go func() { p.cmd.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		p.cmd.Process.Kill()
		<-done
	}
}

// cpu is the CPU time the process has used so far: the sum of its
// threads' run time from /proc/PID/task/*/schedstat (nanoseconds, unlike
// the 10 ms ticks of /proc/PID/stat).
func (p *pcuProc) cpu() (time.Duration, error) {
	tasks, err := os.ReadDir(fmt.Sprintf("/proc/%d/task", p.pid))
	if err != nil {
		return 0, err
	}
	var sum time.Duration
	for _, t := range tasks {
		b, err := os.ReadFile(fmt.Sprintf("/proc/%d/task/%s/schedstat", p.pid, t.Name()))
		if err != nil {
			continue // the thread ended
		}
		f := strings.Fields(string(b))
		if len(f) == 0 {
			continue
		}
		ns, err := strconv.ParseInt(f[0], 10, 64)
		if err != nil {
			return 0, err
		}
		sum += time.Duration(ns)
	}
	return sum, nil
}

// maxRSS is the peak resident set (VmHWM) in octets.
func (p *pcuProc) maxRSS() (int64, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", p.pid))
	if err != nil {
		return 0, err
	}
	for _, l := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(l, "VmHWM:"); ok {
			kb, err := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")), 10, 64)
			return kb * 1024, err
		}
	}
	return 0, errors.New("no VmHWM")
}

// goRuntime is what the Go runtime of gopcu reports on /metrics.
type goRuntime struct {
	mallocs, gcs float64
	ok           bool
}

func (p *pcuProc) runtimeStats(ctx context.Context) goRuntime {
	if p.metrics == "" {
		return goRuntime{}
	}
	req, _ := http.NewRequestWithContext(ctx, "GET", "http://"+p.metrics+"/metrics", nil)
	req.Header.Set("Accept-Encoding", "identity") // no gzip: a scrape allocates less
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return goRuntime{}
	}
	defer resp.Body.Close()
	var g goRuntime
	sc := bufio.NewScanner(resp.Body)
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) != 2 {
			continue
		}
		v, err := strconv.ParseFloat(f[1], 64)
		if err != nil {
			continue
		}
		switch f[0] {
		case "go_memstats_mallocs_total":
			g.mallocs, g.ok = v, true
		case "go_gc_duration_seconds_count":
			g.gcs = v
		}
	}
	return g
}

// waitMetrics waits until gopcu's /metrics answers.
func (p *pcuProc) waitMetrics(ctx context.Context) {
	if p.metrics == "" {
		return
	}
	for i := 0; i < 200 && ctx.Err() == nil; i++ {
		if p.runtimeStats(ctx).ok {
			return
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func (p *pcuProc) tailLog() string {
	b, _ := os.ReadFile(p.logPath)
	l := strings.Split(string(b), "\n")
	if len(l) > 20 {
		l = l[len(l)-20:]
	}
	return strings.Join(l, "\n")
}

func freeTCPPort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

func freeUDPPort() (int, error) {
	c, err := net.ListenUDP("udp", &net.UDPAddr{IP: net.IPv4(127, 0, 0, 1)})
	if err != nil {
		return 0, err
	}
	defer c.Close()
	return c.LocalAddr().(*net.UDPAddr).Port, nil
}

// ioCalls is the number of read and write system calls the process made
// so far (/proc/PID/io syscr, syscw: read, recvmsg, write, sendmsg, ...).
func (p *pcuProc) ioCalls() (r, w int64) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/io", p.pid))
	if err != nil {
		return 0, 0
	}
	for _, l := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(l, "syscr: "); ok {
			r, _ = strconv.ParseInt(v, 10, 64)
		}
		if v, ok := strings.CutPrefix(l, "syscw: "); ok {
			w, _ = strconv.ParseInt(v, 10, 64)
		}
	}
	return r, w
}
