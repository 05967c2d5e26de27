package pcu

import (
	"net/netip"
	"time"
)

// The engine is a sans-I/O core: it opens no socket, starts no goroutine
// and reads no clock of its own. Its inputs are methods a driver calls
// in the engine goroutine, its outputs go through the sinks the driver
// attaches (pcu/driver is the Linux one: one epoll loop over the PCU
// socket, the NS sockets and an eventfd; docs/architecture.md).
//
//	inputs                              outputs
//	HandlePCUIF(b)                      BTSWriter.Write(b) (BTSConnected)
//	BTSConnected(w), BTSLost(err)
//	HandleNS(sock, from, b)             NSSocket.Send(to, b) (IO.NS opens them)
//	HandleCtrl(c, msg),                 CtrlClient.Get(id, variable) (IO.Ctrl)
//	CtrlFailed(c, id), CtrlLost(c)
//	Tick(now), NextDeadline()
//	RunCalls(max) (Do, Call)            IO.Wake (a call was posted)

// IO is what a driver attaches to the engine (Attach): how to wake it
// from other goroutines, and the factories of the NS sockets and the CTRL
// client. A nil field: that output is not available (an NS bind then
// cannot open, a CTRL resolution fails).
type IO struct {
	// Wake makes the driver call RunCalls soon; any goroutine calls it
	// (Do posts a call). It must not block.
	Wake func()
	// NS opens the socket of one NS bind (Gb, from the INFO_IND).
	NS NSOpener
	// Ctrl makes the client of the BSC's CTRL interface at addr:port
	// (`neighbor resolution`), called when a resolution needs one.
	Ctrl func(addr string, port int) CtrlClient
	// SourceAddr is the local address the transport uses towards remote
	// (nsudp.SourceAddrTowards: the kernel's choice); the IP-SNS
	// endpoint list announces it for a wildcard bind (nse.Config).
	SourceAddr func(remote netip.AddrPort) (netip.Addr, error)
}

// NSOpener opens the UDP socket of one NS bind. The driver reads it and
// hands each datagram to HandleNS with the NSSocket it returned.
type NSOpener interface {
	OpenNS(addr netip.AddrPort) (NSSocket, error)
}

// NSSocket is one open NS bind. Send is called in the engine goroutine
// with a datagram valid during the call only; it must not block.
type NSSocket interface {
	Send(to netip.AddrPort, b []byte) error
	// LocalAddr is the bound address (a wildcard bind: the wildcard).
	LocalAddr() netip.AddrPort
	Close() error
}

// CtrlClient is a connection to the BSC's neighbour resolution CTRL
// service (neighctrl.go has the protocol). Get queues "GET id variable"
// without blocking (an error: not queued); the driver reports the
// outcome in the engine goroutine: HandleCtrl with each message the BSC
// sends, CtrlFailed(id) when the command could not be sent, CtrlLost when
// the connection ended. Close ends the client.
type CtrlClient interface {
	Get(id uint32, variable string) error
	Close()
}

// Attach installs the driver's sinks; call it before the driver's loop
// runs (or from inside the engine goroutine). Attach(IO{}) detaches.
func (e *Engine) Attach(io IO) {
	if io.Wake != nil {
		e.wake.Store(&io.Wake)
	} else {
		e.wake.Store(nil)
	}
	e.ns = io.NS
	e.newCtrl = io.Ctrl
	e.sourceAddr = io.SourceAddr
}

// poke wakes the driver after something was posted on e.calls (no-op
// while no driver is attached: it runs the calls when it starts).
func (e *Engine) poke() {
	if f := e.wake.Load(); f != nil {
		(*f)()
	}
}

// RunCalls runs up to max queued calls (Do, Call); it reports whether none
// is left. Engine goroutine only.
func (e *Engine) RunCalls(max int) bool {
	for range max {
		select {
		case f := <-e.calls:
			f()
		default:
			return true
		}
	}
	return len(e.calls) == 0
}

// Tick runs what is due at monotonic time now (Config.Clock): the 1 s
// tick, the TBF timers and the Gb's timers. Engine goroutine only.
func (e *Engine) Tick(now time.Duration) {
	if e.nextTick == 0 {
		e.nextTick = now + time.Second
	}
	if now >= e.nextTick {
		e.tick(now)
		e.nextTick += time.Second
		if e.nextTick <= now {
			e.nextTick = now + time.Second
		}
	}
	if e.nextDeadline != 0 && e.fnValid && now-e.wallBase >= e.nextDeadline {
		e.timersDue()
		if e.nextDeadline != 0 && e.nextDeadline <= e.now {
			// due on engine time that did not move (radio ahead of
			// the clock): fire now rather than wake up again at once
			for _, b := range e.btsList {
				e.runTimers(b)
			}
		}
	}
	// the Gb's timers: ticked when due, the deadline read once per Tick
	wake := e.nextTick
	if e.gbl != nil {
		if d, ok := e.gbDeadline(); ok {
			if d <= now {
				e.gbl.gb.Tick(now)
				d, ok = e.gbDeadline()
			}
			if ok {
				wake = min(wake, d)
			}
		}
	}
	if e.nextDeadline != 0 && e.fnValid {
		wake = min(wake, e.wallBase+e.nextDeadline)
	}
	e.wakeAt = wake
}

// NextDeadline is when Tick must run next, on the monotonic clock, as the
// last Tick computed it (inputs in between may move the TBF and Gb
// deadlines: a driver calls Tick after each batch of inputs). Engine
// goroutine only.
func (e *Engine) NextDeadline() time.Duration { return e.wakeAt }

// Stop ends the engine: it stops taking calls (Do and Call fail with
// ErrStopped from then on; a call taken before has run completely), then
// closes the Gb (its NS sockets) and the CTRL client. The driver calls it
// in the engine goroutine when its loop ends, then closes the BTS
// connection. Safe to call more than once.
func (e *Engine) Stop() {
	e.stopOnce.Do(func() { close(e.done) })
	e.gbClose()
	if n := e.nacc; n != nil && n.ctrl != nil {
		n.ctrl.c.Close()
		n.ctrl = nil
	}
}

// Config is the configuration the engine was made with (the driver takes
// its socket path, backoff, logs and capture from it).
func (e *Engine) Config() Config { return e.cfg }
