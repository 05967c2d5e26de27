package bss_test

// Helpers for the tests against real Osmocom programs and tshark: a pcap
// writer, the LLC FCS, network namespaces, an engine-style loop in real time.

import (
	"bytes"
	"context"
	"fmt"
	"net"
	"net/netip"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/gopcu/gopcu/bssgp"
	"github.com/gopcu/gopcu/bssgp/bss"
	"github.com/gopcu/gopcu/bssgp/ns/nse"
	"github.com/gopcu/gopcu/bssgp/ns/nsudp"
)

// llcFCS computes the LLC frame check sequence (TS 44.064 §5.5a: CRC-24,
// generator 0xBBA1B5, initial all ones, ones complement, sent LSB first).
func llcFCS(b []byte) [3]byte {
	const poly = 0xAD85DD // 0xBBA1B5 bit-reversed (24 bits)
	crc := uint32(0xffffff)
	for _, x := range b {
		crc ^= uint32(x)
		for i := 0; i < 8; i++ {
			if crc&1 != 0 {
				crc = crc>>1 ^ poly
			} else {
				crc >>= 1
			}
		}
	}
	crc = ^crc & 0xffffff
	return [3]byte{byte(crc), byte(crc >> 8), byte(crc >> 16)}
}

// attachRequestLLC is an LLC UI frame (SAPI 1 GMM, unciphered, protected
// mode) carrying a GMM Attach Request (TS 24.008 §9.4.1) for IMSI
// 901700000000001 in RAI 901-70-1-0.
func attachRequestLLC() []byte {
	gmm := []byte{
		0x08, 0x01, // GMM, Attach Request
		0x02, 0xe5, 0xe0, // MS network capability
		0x71,       // attach type 1 (GPRS), CKSN 7
		0x00, 0x00, // DRX parameter
		0x08, 0x99, 0x10, 0x07, 0x00, 0x00, 0x00, 0x00, 0x10, // mobile identity: IMSI
		0x09, 0xf1, 0x07, 0x00, 0x01, 0x00, // old RAI
		0x07, 0x13, 0x37, 0x00, 0x00, 0x00, 0x00, 0x00, // MS radio access capability (GSM E, no options)
	}
	f := append([]byte{0x01, 0xc0, 0x01}, gmm...) // SAPI 1; UI, N(U)=0, E=0, PM=1
	fcs := llcFCS(f)
	return append(f, fcs[:]...)
}

// netns is a network namespace created (and deleted) by the test.
type netns struct {
	name  string
	procs []*exec.Cmd
}

func newNetns(t *testing.T) *netns {
	t.Helper()
	if sysSetns() == 0 {
		t.Skip("needs the setns syscall number, unknown on " + runtime.GOARCH)
	}
	n := &netns{name: fmt.Sprintf("gopcu-bssgp-%d-%d", os.Getpid(), time.Now().UnixNano()%100000)}
	if out, err := exec.Command("ip", "netns", "add", n.name).CombinedOutput(); err != nil {
		t.Skipf("needs network namespaces (ip netns add: %v %s)", err, bytes.TrimSpace(out))
	}
	t.Cleanup(func() { exec.Command("ip", "netns", "delete", n.name).Run() })
	if out, err := exec.Command("ip", "-n", n.name, "link", "set", "lo", "up").CombinedOutput(); err != nil {
		t.Fatalf("lo up: %v %s", err, out)
	}
	return n
}

// sysSetns is setns(2)'s number (not exported by package syscall).
func sysSetns() uintptr {
	switch runtime.GOARCH {
	case "amd64":
		return 308
	case "arm64", "riscv64", "loong64":
		return 268
	case "386":
		return 346
	case "arm":
		return 375
	}
	return 0
}

// do runs fn on an OS thread switched into the namespace; sockets created by
// fn stay in it.
func (n *netns) do(fn func() error) error {
	errc := make(chan error, 1)
	go func() {
		runtime.LockOSThread()
		orig, err := os.Open("/proc/thread-self/ns/net")
		if err != nil {
			errc <- err
			return
		}
		defer orig.Close()
		target, err := os.Open("/var/run/netns/" + n.name)
		if err != nil {
			errc <- err
			return
		}
		defer target.Close()
		if _, _, e := syscall.Syscall(sysSetns(), target.Fd(), syscall.CLONE_NEWNET, 0); e != 0 {
			errc <- e
			return
		}
		ferr := fn()
		if _, _, e := syscall.Syscall(sysSetns(), orig.Fd(), syscall.CLONE_NEWNET, 0); e != 0 {
			errc <- fmt.Errorf("restore netns: %v", e) // thread stays locked and dies with the goroutine
			return
		}
		runtime.UnlockOSThread()
		errc <- ferr
	}()
	return <-errc
}

// command starts name inside the namespace; the process is killed (by PID)
// at cleanup.
func (n *netns) start(t *testing.T, dir, logName string, args ...string) *exec.Cmd {
	t.Helper()
	cmd := exec.Command("ip", append([]string{"netns", "exec", n.name}, args...)...)
	lf, err := os.Create(filepath.Join(dir, logName))
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stdout, cmd.Stderr, cmd.Dir = lf, lf, dir
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	n.procs = append(n.procs, cmd)
	t.Cleanup(func() {
		if cmd.ProcessState == nil && cmd.Process.Signal(syscall.Signal(0)) == nil {
			cmd.Process.Signal(syscall.SIGTERM)
			done := make(chan struct{})
			go func() { cmd.Wait(); close(done) }()
			select {
			case <-done:
			case <-time.After(3 * time.Second):
				cmd.Process.Kill()
				<-done
			}
		}
		lf.Close()
	})
	return cmd
}

// vty runs commands on an Osmocom VTY inside the namespace and returns the
// transcript.
func (n *netns) vty(port int, cmds ...string) (string, error) {
	var out string
	err := n.do(func() error {
		c, err := net.DialTimeout("tcp", fmt.Sprintf("127.0.0.1:%d", port), 2*time.Second)
		if err != nil {
			return err
		}
		defer c.Close()
		c.Write([]byte("enable\r\n" + strings.Join(cmds, "\r\n") + "\r\n"))
		var buf bytes.Buffer
		tmp := make([]byte, 4096)
		for {
			c.SetReadDeadline(time.Now().Add(700 * time.Millisecond))
			k, err := c.Read(tmp)
			buf.Write(tmp[:k])
			if err != nil {
				break
			}
		}
		out = buf.String()
		return nil
	})
	return out, err
}

// engine is a minimal engine loop: one goroutine owns the Gb and gets
// datagrams, commands and timer expiries.
type engine struct {
	gb   *bss.Gb
	t0   time.Time
	in   chan nsudp.Datagram
	cmd  chan func(now time.Duration)
	ev   chan string
	dl   chan bssgp.DLUnitdata
	stop context.CancelFunc
	done chan struct{}
}

type evHandler struct{ e *engine }

func (h evHandler) DLUnitdata(p *bssgp.DLUnitdata, now time.Duration) {
	c := *p
	c.LLC = append([]byte(nil), p.LLC...)
	select {
	case h.e.dl <- c:
	default:
	}
}
func (h evHandler) PagingPS(p *bssgp.PagingPS, now time.Duration) { h.e.event("paging-ps") }
func (h evHandler) PagingCS(p *bssgp.PagingCS, now time.Duration) { h.e.event("paging-cs") }
func (h evHandler) BVCState(up bool, now time.Duration)           { h.e.event(fmt.Sprintf("bvc-up=%v", up)) }
func (h evHandler) FlowControl(now time.Duration) (bss.FlowParams, bool) {
	return bss.ComputeFlowControl(bss.FlowInput{NumPDCH: 4, PeakRatePerPDCH: 2500, MaxSlotsPerMS: 4}), true
}
func (h evHandler) Other(bvci uint16, p bssgp.PDU, now time.Duration) {}

func (e *engine) event(s string) {
	select {
	case e.ev <- s:
	default:
	}
}

func newEngine(cfg bss.Config, mk func(deliver func(nsudp.Datagram)) (nse.Transport, error)) (*engine, error) {
	e := &engine{t0: time.Now(), in: make(chan nsudp.Datagram, 256), cmd: make(chan func(time.Duration)),
		ev: make(chan string, 64), dl: make(chan bssgp.DLUnitdata, 16), done: make(chan struct{})}
	tx, err := mk(func(d nsudp.Datagram) { e.in <- d })
	if err != nil {
		return nil, err
	}
	e.gb, err = bss.New(cfg, tx, evHandler{e}, nil)
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithCancel(context.Background())
	e.stop = cancel
	go e.run(ctx)
	return e, nil
}

func (e *engine) now() time.Duration { return time.Since(e.t0) }

func (e *engine) run(ctx context.Context) {
	defer close(e.done)
	timer := time.NewTimer(time.Hour)
	e.gb.Start(e.now())
	for {
		now := e.now()
		e.gb.Tick(now)
		wait := time.Hour
		if d, ok := e.gb.NextDeadline(); ok {
			wait = max(d-now, 0)
		}
		timer.Reset(wait)
		select {
		case d := <-e.in:
			e.gb.Input(d.Bind, d.From, d.Data, e.now())
		case f := <-e.cmd:
			f(e.now())
		case <-timer.C:
		case <-ctx.Done():
			return
		}
	}
}

// call runs f on the engine goroutine and waits.
func (e *engine) call(f func(now time.Duration)) {
	done := make(chan struct{})
	e.cmd <- func(now time.Duration) { f(now); close(done) }
	<-done
}

func (e *engine) close() {
	e.stop()
	<-e.done
}

func (e *engine) waitEvent(t *testing.T, want string, within time.Duration) {
	t.Helper()
	deadline := time.After(within)
	for {
		select {
		case s := <-e.ev:
			if s == want {
				return
			}
		case <-deadline:
			t.Fatalf("no %q within %v", want, within)
		}
	}
}

var labCell = bssgp.CellID{RAI: bssgp.RAI{MCC: 901, MNC: 70, LAC: 1, RAC: 0}, CI: 6969}

func sgsnAddr() netip.AddrPort { return netip.MustParseAddrPort("127.0.0.1:23000") }
