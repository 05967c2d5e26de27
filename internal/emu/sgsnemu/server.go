package sgsnemu

import (
	"context"
	"net/netip"
	"time"

	"github.com/gopcu/gopcu/bssgp/ns/nse"
	"github.com/gopcu/gopcu/bssgp/ns/nsudp"
	"github.com/gopcu/gopcu/internal/rtloop"
)

// Server runs an SGSN emulator in its own goroutine, on a UDP socket
// (Listen) or on any transport (Start + Deliver, for in-process links).
// Callbacks run on that goroutine; use Do to act on the emulator.
type Server struct {
	sgsn *SGSN
	udp  *nsudp.UDP // nil for Start
	in   chan nsudp.Datagram
	cmd  chan func(time.Duration)
	t0   time.Time
	stop context.CancelFunc
	done chan struct{}
}

// Listen starts an emulator on addr (e.g. 127.0.0.1:23000; port 0 picks one).
func Listen(addr netip.AddrPort, cfg Config, cb Callbacks) (*Server, error) {
	s := &Server{in: make(chan nsudp.Datagram, 256), cmd: make(chan func(time.Duration)),
		t0: time.Now(), done: make(chan struct{})}
	udp, err := nsudp.ListenUDP([]netip.AddrPort{addr}, func(d nsudp.Datagram) { s.in <- d })
	if err != nil {
		return nil, err
	}
	s.udp = udp
	if !cfg.Listen.IsValid() {
		cfg.Listen = udp.LocalAddr(0)
	}
	s.sgsn = New(cfg, udp, cb)
	s.begin()
	return s, nil
}

// Start runs an emulator that sends through tx; feed it with Deliver.
func Start(cfg Config, tx nse.Transport, cb Callbacks) *Server {
	s := &Server{in: make(chan nsudp.Datagram, 256), cmd: make(chan func(time.Duration)),
		t0: time.Now(), done: make(chan struct{})}
	s.sgsn = New(cfg, tx, cb)
	s.begin()
	return s
}

func (s *Server) begin() {
	ctx, cancel := context.WithCancel(context.Background())
	s.stop = cancel
	go s.run(ctx)
}

// Deliver hands a datagram from the BSS at `from` to the emulator (b is
// copied). Safe from any goroutine.
func (s *Server) Deliver(from netip.AddrPort, b []byte) {
	d := nsudp.Datagram{From: from, Data: append([]byte(nil), b...)}
	select {
	case s.in <- d:
	case <-s.done:
	}
}

// Addr is the bound UDP address (Listen) or the configured one (Start).
func (s *Server) Addr() netip.AddrPort {
	if s.udp == nil {
		return s.sgsn.cfg.Listen
	}
	return s.udp.LocalAddr(0)
}

func (s *Server) now() time.Duration { return time.Since(s.t0) }

func (s *Server) run(ctx context.Context) {
	defer close(s.done)
	rtloop.Run(ctx, s.sgsn, s.now, s.in, func(d nsudp.Datagram, now time.Duration) { s.sgsn.Input(d.From, d.Data, now) }, s.cmd)
}

// Do runs f on the emulator goroutine and waits for it.
func (s *Server) Do(f func(sg *SGSN, now time.Duration)) {
	done := make(chan struct{})
	select {
	case s.cmd <- func(now time.Duration) { f(s.sgsn, now); close(done) }:
		<-done
	case <-s.done:
	}
}

// SendDLUnitdata is SGSN.SendDLUnitdata from any goroutine.
func (s *Server) SendDLUnitdata(bvci uint16, tlli uint32, imsi string, llc []byte) error {
	var err error
	s.Do(func(sg *SGSN, now time.Duration) { err = sg.SendDLUnitdata(bvci, tlli, imsi, llc, now) })
	return err
}

// SetMSRAC is SGSN.SetMSRAC from any goroutine.
func (s *Server) SetMSRAC(tlli uint32, rac []byte) {
	s.Do(func(sg *SGSN, now time.Duration) { sg.SetMSRAC(tlli, rac) })
}

// Close stops the goroutine and closes the socket.
func (s *Server) Close() error {
	s.stop()
	<-s.done
	if s.udp == nil {
		return nil
	}
	return s.udp.Close()
}
