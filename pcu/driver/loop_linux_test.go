//go:build linux

package driver

import (
	"context"
	"net"
	"path/filepath"
	"runtime"
	"sync/atomic"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/gopcu/gopcu/bssgp/ns"
	"github.com/gopcu/gopcu/internal/testutil"
	"github.com/gopcu/gopcu/pcu"
	"github.com/gopcu/gopcu/pcu/internal/gbtest"
	"github.com/gopcu/gopcu/pcu/pcuif"
)

// sockStub is a BTS on a real PCU socket for the engine's loop: it sends
// INFO_IND (TRX 0, PDCHs by mask), waits for the activations and then
// plays RTS_REQ -> DATA_REQ, with fixed buffers (it allocates nothing per
// RTS itself).
type sockStub struct {
	tb     testing.TB
	c      *net.UnixConn
	rts    pcuif.RTSReq
	tx, rx [pcuif.BufSize]byte
	pdchs  []uint8
	fn     uint32
}

// start runs e under a driver until the test ends; it returns the loop.
func start(tb testing.TB, e *pcu.Engine, o Options) *loop {
	tb.Helper()
	l, err := newLoop(e, o)
	if err != nil {
		tb.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { l.run(ctx); close(done) }()
	tb.Cleanup(func() { cancel(); <-done })
	return l
}

func startSockStub(tb testing.TB, mask uint8, cfg pcu.Config) (*sockStub, *pcu.Engine, *loop) {
	tb.Helper()
	ln, path := testutil.PCUSocket(tb)
	cfg.SocketPath, cfg.MinBackoff = path, 10*time.Millisecond
	e := pcu.New(cfg)
	l := start(tb, e, Options{})
	ln.SetDeadline(time.Now().Add(5 * time.Second))
	c, err := ln.AcceptUnix()
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { c.Close() })
	s := &sockStub{tb: tb, c: c}
	ii := &pcuif.InfoInd{Version: pcuif.V10, Flags: pcuif.FlagActive | pcuif.FlagCS(1) | pcuif.FlagCS(2) | pcuif.FlagCS(3) | pcuif.FlagCS(4), InitialCS: 2}
	ii.TRX[0].ARFCN, ii.TRX[0].PDCHMask = 871, mask
	b, err := pcuif.Marshal(ii, pcuif.V10)
	if err != nil {
		tb.Fatal(err)
	}
	if _, err := c.Write(b); err != nil {
		tb.Fatal(err)
	}
	c.SetReadDeadline(time.Now().Add(5 * time.Second))
	for len(s.pdchs) < bitsSet(mask) {
		n, err := c.Read(s.rx[:])
		if err != nil {
			tb.Fatal(err)
		}
		if t, _, _ := pcuif.PeekHeader(s.rx[:n]); t == pcuif.TypeActReq {
			var a pcuif.ActReq
			if pcuif.Unmarshal(s.rx[:n], &a, pcuif.V10) == nil && a.Activate {
				s.pdchs = append(s.pdchs, a.TS)
			}
		}
	}
	c.SetReadDeadline(time.Time{})
	return s, e, l
}

func bitsSet(m uint8) int {
	n := 0
	for ; m != 0; m &= m - 1 {
		n++
	}
	return n
}

// roundTrips sends n RTS_REQs one after the other, each after the
// DATA_REQ of the one before.
func (s *sockStub) roundTrips(n int) {
	for i := 0; i < n; i++ {
		s.sendRTS(i)
		for {
			k, err := s.c.Read(s.rx[:])
			if err != nil {
				s.tb.Fatal(err)
			}
			if t, _, _ := pcuif.PeekHeader(s.rx[:k]); t == pcuif.TypeDataReq {
				break
			}
		}
	}
}

// sendRTS sends the RTS_REQ number i of a run over the PDCHs in turn
// (the next block's FN with the first PDCH) and returns its TS.
func (s *sockStub) sendRTS(i int) uint8 {
	ts := s.pdchs[i%len(s.pdchs)]
	if ts == s.pdchs[0] {
		s.fn = pcuif.NextBlockFN(s.fn)
	}
	s.rts = pcuif.RTSReq{SAPI: pcuif.SAPIPDTCH, FN: s.fn, ARFCN: 871, TS: ts, BlockNr: uint8(pcuif.BlockNr(s.fn))}
	m, err := pcuif.MarshalTo(s.tx[:], &s.rts, pcuif.V10)
	if err != nil {
		s.tb.Fatal(err)
	}
	if _, err := s.c.Write(s.tx[:m]); err != nil {
		s.tb.Fatal(err)
	}
	return ts
}

// BenchmarkRTSRoundTrip: RTS_REQ -> DATA_REQ through the PCU socket and
// the engine loop, idle cell with 4 PDCHs (the stub's own cost included).
func BenchmarkRTSRoundTrip(b *testing.B) {
	s, _, _ := startSockStub(b, 0xf0, pcu.Config{})
	s.roundTrips(100)
	b.ReportAllocs()
	b.ResetTimer()
	s.roundTrips(b.N)
}

// TestRTSRoundTripAllocs: in steady state an idle cell's RTS_REQ ->
// DATA_REQ round trip allocates nothing in the whole process (the engine
// loop, its socket, the stub): fewer than 1 allocation per 100 RTS
// (timers and the 1 s tick may allocate now and then).
func TestRTSRoundTripAllocs(t *testing.T) {
	s, _, _ := startSockStub(t, 0xf0, pcu.Config{})
	s.roundTrips(200)
	const n = 2000
	var m0, m1 runtime.MemStats
	runtime.ReadMemStats(&m0)
	s.roundTrips(n)
	runtime.ReadMemStats(&m1)
	if a := m1.Mallocs - m0.Mallocs; a > n/100 {
		t.Errorf("%d allocations in %d RTS round trips", a, n)
	}
}

// TestLoopWakeups: closures posted from several goroutines at once all
// run (no wake-up of the loop's eventfd is lost).
func TestLoopWakeups(t *testing.T) {
	e := pcu.New(pcu.Config{SocketPath: filepath.Join(t.TempDir(), "none"), MinBackoff: time.Hour})
	start(t, e, Options{})
	const G, N = 4, 20000
	var ran atomic.Int64
	for g := 0; g < G; g++ {
		go func() {
			for i := 0; i < N; i++ {
				if e.Do(func() { ran.Add(1) }) != nil {
					return
				}
			}
		}()
	}
	if !testutil.Poll(20*time.Second, func() bool { return ran.Load() >= G*N }) {
		t.Fatalf("%d of %d closures ran: a wake-up was lost", ran.Load(), G*N)
	}
}

// TestNSSocketPolled: an NS socket the engine opens (the INFO_IND came
// over the PCU socket) has no reader goroutine: it is in the loop's epoll
// set and the loop reads it. The NS-RESET goes out, an
// NS-ALIVE from the SGSN is answered with NS-ALIVE-ACK, a flood of
// datagrams is taken in bounded batches while the loop keeps answering.
func TestNSSocketPolled(t *testing.T) {
	ln, path := testutil.PCUSocket(t)
	e := pcu.New(pcu.Config{SocketPath: path, MinBackoff: 10 * time.Millisecond, Gb: true})
	l := start(t, e, Options{})
	ln.SetDeadline(time.Now().Add(5 * time.Second))
	c, err := ln.AcceptUnix()
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	s0 := testutil.UDP(t)
	p0 := gbtest.FreeUDPPort(t)
	ii := gbtest.Info()
	gbtest.SetNSVC(ii, 0, 1, p0, s0)
	b, err := pcuif.Marshal(ii, pcuif.V12)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.Write(b); err != nil {
		t.Fatal(err)
	}
	pcuAddr := gbtest.WaitNSReset(t, s0)
	var polled bool
	if err := e.Call(func() {
		polled = len(l.ns) == 1 && l.ns[0].polled && l.ns[0].fd >= 0
	}); err != nil {
		t.Fatal(err)
	}
	if !polled {
		t.Fatal("the NS socket is not in the loop's epoll set")
	}
	to := net.UDPAddrFromAddrPort(pcuAddr)
	for i := 0; i < 2000; i++ { // more than a wake-up's batch
		s0.WriteToUDP([]byte{byte(ns.PDUAlive)}, to)
	}
	buf := make([]byte, 2048)
	s0.SetReadDeadline(time.Now().Add(5 * time.Second))
	for acks := 0; acks < 1; {
		n, _, err := s0.ReadFromUDPAddrPort(buf)
		if err != nil {
			t.Fatalf("no NS-ALIVE-ACK from the polled socket: %v", err)
		}
		if n > 0 && ns.PDUType(buf[0]) == ns.PDUAliveAck {
			acks++
		}
	}
	// the loop still serves calls after the flood
	if err := e.Call(func() {}); err != nil {
		t.Fatal(err)
	}
}

// TestBurstAnswersInOrder: the DATA_REQs that answer a burst of RTS_REQs
// go out in the order of the RTS_REQs, also when the socket's send buffer
// fills in the middle of the burst: the rest waits in the queue (txq,
// EPOLLOUT) and follows when the BTS reads, and nothing is dropped.
func TestBurstAnswersInOrder(t *testing.T) {
	s, e, l := startSockStub(t, 0xff, pcu.Config{})
	s.roundTrips(16)
	// a send buffer of a few messages: the burst's answers cannot all fit
	e.Call(func() {
		if err := unix.SetsockoptInt(l.bts.fd, unix.SOL_SOCKET, unix.SO_SNDBUF, 4096); err != nil {
			t.Error(err)
		}
	})
	type key struct {
		fn uint32
		ts uint8
	}
	var want []key
	for round := 0; round < 3; round++ {
		want = want[:0]
		for i := 0; i < 8*24; i++ { // 24 blocks of 8 PDCHs, unread
			ts := s.sendRTS(i)
			want = append(want, key{s.fn, ts})
		}
		s.c.SetReadDeadline(time.Now().Add(5 * time.Second))
		for i := 0; i < len(want); {
			n, err := s.c.Read(s.rx[:])
			if err != nil {
				t.Fatalf("round %d: %d of %d DATA_REQs: %v", round, i, len(want), err)
			}
			if typ, _, _ := pcuif.PeekHeader(s.rx[:n]); typ != pcuif.TypeDataReq {
				continue
			}
			var d pcuif.Data
			if err := pcuif.Unmarshal(s.rx[:n], &d, pcuif.V10); err != nil {
				t.Fatal(err)
			}
			if got := (key{d.FN, d.TS}); got != want[i] {
				t.Fatalf("round %d: DATA_REQ %d for FN %d TS %d, want FN %d TS %d", round, i, d.FN, d.TS, want[i].fn, want[i].ts)
			}
			i++
		}
	}
	var queued, dropped uint64
	var peak int
	e.Call(func() { queued, dropped, peak = uint64(l.tx.len()), e.L1Counters().Value(pcu.L1TxDropped), l.tx.peak })
	if queued != 0 || dropped != 0 {
		t.Fatalf("%d answers still queued, %d dropped", queued, dropped)
	}
	if peak == 0 {
		t.Fatal("the send buffer never filled: the queue was not exercised")
	}
	t.Logf("up to %d answers waited for the socket", peak)
}
