//go:build linux

package driver

import (
	"context"
	"net"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gopcu/gopcu/bssgp/ns"
	"github.com/gopcu/gopcu/internal/testutil"
	"github.com/gopcu/gopcu/pcu"
	"github.com/gopcu/gopcu/pcu/internal/gbtest"
	"github.com/gopcu/gopcu/pcu/pcuif"
)

// TestShutdownUnderNSFlood: SIGTERM (context cancel) while NS datagrams
// flood in and the engine is busy: Run returns (issue 17 bug 2: the Gb
// close waited for readers blocked on the full engine channel, and the
// engine's done channel was closed only after it; the loop now reads the
// NS sockets itself, in bounded batches).
func TestShutdownUnderNSFlood(t *testing.T) {
	e := pcu.New(pcu.Config{SocketPath: "/nonexistent", Gb: true})
	l, err := newLoop(e, Options{})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	ran := make(chan error, 1)
	go func() { ran <- l.run(ctx) }()
	s0 := testutil.UDP(t)
	p0 := gbtest.FreeUDPPort(t)
	ii := gbtest.Info()
	gbtest.SetNSVC(ii, 0, 1, p0, s0)
	feedInfo(t, e, ii)
	gbtest.WaitNSReset(t, s0)
	// Block the engine, fill the socket's receive buffer.
	release := make(chan struct{})
	if err := e.Do(func() { <-release }); err != nil {
		t.Fatal(err)
	}
	to := &net.UDPAddr{IP: net.IPv4(127, 0, 0, 1), Port: int(p0)}
	alive := []byte{byte(ns.PDUAlive)}
	for i := 0; i < 4096; i++ {
		s0.WriteToUDP(alive, to)
	}
	// keep the flood going through the shutdown
	stopFlood := make(chan struct{})
	defer close(stopFlood)
	go func() {
		for {
			select {
			case <-stopFlood:
				return
			default:
				s0.WriteToUDP(alive, to)
			}
		}
	}()
	cancel()
	close(release)
	select {
	case <-ran:
	case <-time.After(5 * time.Second):
		t.Fatal("Run did not return within 5 s of the cancel under an NS flood")
	}
}

// TestGbReconfigureCaptured: with --pcap, an updated INFO_IND that adds a
// second NS-VC on a new local port opens its socket, the new NS-VC resets
// from it and the datagrams are captured (issue 17 bug 1: the pcap
// wrapper panicked in ns.(*UDP).LocalAddr; bug 5: datagrams arriving
// while the socket opens reach the capture at once, and -race watches).
func TestGbReconfigureCaptured(t *testing.T) {
	capt := &nullCapture{}
	e := pcu.New(pcu.Config{SocketPath: "/nonexistent", MinBackoff: time.Hour, Gb: true, Capture: capt})
	l := start(t, e, Options{})
	p1 := gbtest.AddRemoveBind(t, func(ii *pcuif.InfoInd) { feedInfo(t, e, ii) }, nil)
	// out of the epoll set, closed
	var open int
	e.Call(func() { open = len(l.ns) })
	if open != 1 {
		t.Fatalf("%d NS sockets open after removing NS-VC 2, want 1", open)
	}
	gbtest.PortFree(t, p1)
	if !testutil.Poll(5*time.Second, func() bool { return capt.n.Load() >= 4 }) {
		t.Fatalf("captured %d datagrams, want the NS-RESETs and the ALIVEs", capt.n.Load())
	}
}

// TestCallOnStopPath: commands handed to Do/Call while the engine stops
// run in the engine goroutine or not at all, and Call returns nil exactly
// for those that ran (issue 17 bug 5).
func TestCallOnStopPath(t *testing.T) {
	for round := 0; round < 20; round++ {
		e := pcu.New(pcu.Config{SocketPath: "/nonexistent"})
		ctx, cancel := context.WithCancel(context.Background())
		var engID atomic.Uint64
		ran := make(chan struct{})
		go func() { engID.Store(goid()); Run(ctx, e, Options{}); close(ran) }()
		var inEngine, outside, okCalls, doOK atomic.Int64
		f := func() {
			if goid() == engID.Load() {
				inEngine.Add(1)
			} else {
				outside.Add(1)
			}
		}
		var wg sync.WaitGroup
		stop := make(chan struct{})
		for g := 0; g < 4; g++ {
			wg.Go(func() {
				for {
					select {
					case <-stop:
						return
					default:
					}
					if e.Call(f) == nil {
						okCalls.Add(1)
					}
				}
			})
		}
		time.Sleep(2 * time.Millisecond) // the callers race the stop: a moment of calls first, on purpose
		cancel()
		<-ran
		close(stop)
		wg.Wait()
		// after the stop nothing runs, and Do says so
		if e.Do(f) == nil {
			doOK.Add(1)
		}
		if outside.Load() != 0 || doOK.Load() != 0 {
			t.Fatalf("round %d: %d commands ran outside the engine goroutine, Do after stop accepted %d", round, outside.Load(), doOK.Load())
		}
		if okCalls.Load() != inEngine.Load() {
			t.Fatalf("round %d: Call returned nil %d times, the engine ran %d commands", round, okCalls.Load(), inEngine.Load())
		}
	}
}
