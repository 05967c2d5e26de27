package bss_test

// Helpers for the tests against real Osmocom programs and tshark: a pcap
// writer, the LLC FCS, network namespaces, an engine-style loop in real time.

import (
	"bytes"
	"context"
	"fmt"
	"net"
	"net/netip"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/gopcu/gopcu/bssgp"
	"github.com/gopcu/gopcu/bssgp/bss"
	"github.com/gopcu/gopcu/bssgp/ns/nse"
	"github.com/gopcu/gopcu/bssgp/ns/nsudp"
	"github.com/gopcu/gopcu/internal/rtloop"
	"github.com/gopcu/gopcu/internal/testutil/netnstest"
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

// netns is the test's network namespace (netnstest: deleted at cleanup)
// and the programs the test started in it, in order.
type netns struct {
	*netnstest.NS
	procs []*netnsProc
}

// netnsProc is a program started in the namespace; stop ends it and waits
// (netns.NS.Start).
type netnsProc struct {
	cmd  *exec.Cmd
	stop func()
}

func newNetns(t *testing.T) *netns {
	t.Helper()
	return &netns{NS: netnstest.New(t)}
}

// start starts a program inside the namespace, its output in dir/logName;
// it is stopped at cleanup.
func (n *netns) start(t *testing.T, dir, logName string, args ...string) *exec.Cmd {
	t.Helper()
	cmd, stop, err := n.NS.NS.Start(dir, logName, args...)
	if err != nil {
		t.Fatal(err)
	}
	n.procs = append(n.procs, &netnsProc{cmd: cmd, stop: stop})
	t.Cleanup(stop)
	return cmd
}

// vty runs commands on an Osmocom VTY inside the namespace and returns the
// transcript.
func (n *netns) vty(port int, cmds ...string) (string, error) {
	var out string
	err := n.Do(func() error {
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
	e.gb.Start(e.now())
	rtloop.Run(ctx, e.gb, e.now, e.in, func(d nsudp.Datagram, now time.Duration) { e.gb.Input(d.Bind, d.From, d.Data, now) }, e.cmd)
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
