//go:build linux

package driver

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"sync/atomic"
	"syscall"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"

	"github.com/gopcu/gopcu/bssgp/ns/nsudp"
	"github.com/gopcu/gopcu/internal/logx"
	"github.com/gopcu/gopcu/internal/mmsg"
	"github.com/gopcu/gopcu/pcu"
	"github.com/gopcu/gopcu/pcu/pcuif"
)

// The driver's loop: one goroutine owns the engine (pcu.Engine, a sans-I/O
// core) and its sockets. The PCU socket (non-blocking, in an epoll set)
// is read in the same wake-up that answers each RTS_REQ: no goroutine and
// no channel between the BTS's RTS_REQ and the DATA_REQ (osmo-pcu
// likewise runs one select loop, osmo_select_main). The NS sockets are in
// the same set; VTY calls, posted on the engine's channel by their
// goroutines, and CTRL replies wake the loop through an eventfd; timers
// (TBF, Gb, the 1 s tick: Engine.NextDeadline; reconnect) are deadlines:
// the earliest bounds the wait (a read deadline on the epoll fd),
// re-computed once per wake-up and moved only when it changes.

// poller is the epoll set and the eventfd other goroutines wake it with.
// The epoll fd itself sits in the Go runtime's netpoller (an epoll fd is
// readable while it has ready events): the loop parks like any goroutine
// waiting for I/O instead of blocking its thread in epoll_wait, so an idle
// process lets the runtime sleep (a goroutine blocked in a system call
// keeps the runtime's sysmon thread polling every few microseconds to
// milliseconds, which cost more CPU than the PCU's own work in real time).
type poller struct {
	epfd, evfd int
	ep         *os.File        // epfd, for the netpoller
	rc         syscall.RawConn // waits on ep
	pending    atomic.Bool     // a wake-up is pending in the eventfd
	evbuf      [8]byte
	deadline   time.Time // the read deadline set on ep
	// what the RawConn.Read callback works on (made once: no closure
	// allocated per wait)
	evs  []unix.EpollEvent
	n    int
	err  error
	poll func(uintptr) bool
}

func newPoller() (*poller, error) {
	epfd, err := unix.EpollCreate1(unix.EPOLL_CLOEXEC)
	if err != nil {
		return nil, fmt.Errorf("epoll_create1: %w", err)
	}
	if err := unix.SetNonblock(epfd, true); err != nil {
		unix.Close(epfd)
		return nil, err
	}
	evfd, err := unix.Eventfd(0, unix.EFD_NONBLOCK|unix.EFD_CLOEXEC)
	if err != nil {
		unix.Close(epfd)
		return nil, fmt.Errorf("eventfd: %w", err)
	}
	p := &poller{epfd: epfd, evfd: evfd, ep: os.NewFile(uintptr(epfd), "epoll")}
	if p.rc, err = p.ep.SyscallConn(); err != nil {
		p.close()
		return nil, err
	}
	p.poll = func(uintptr) bool {
		p.n, p.err = epollNow(p.epfd, p.evs)
		return p.n > 0 || p.err != nil
	}
	if err := p.add(evfd, unix.EPOLLIN); err != nil {
		p.close()
		return nil, err
	}
	return p, nil
}

func (p *poller) close() {
	unix.Close(p.evfd)
	p.ep.Close()
}

// epollNow is epoll_wait with a zero timeout: the ready events, never
// blocking (a raw system call: no scheduler hand-off).
func epollNow(epfd int, evs []unix.EpollEvent) (int, error) {
	n, _, errno := unix.RawSyscall6(unix.SYS_EPOLL_PWAIT, uintptr(epfd), uintptr(unsafe.Pointer(&evs[0])), uintptr(len(evs)), 0, 0, 0)
	if errno == unix.EINTR {
		return 0, nil
	}
	if errno != 0 {
		return 0, errno
	}
	return int(n), nil
}

func (p *poller) add(fd int, events uint32) error {
	return unix.EpollCtl(p.epfd, unix.EPOLL_CTL_ADD, fd, &unix.EpollEvent{Events: events, Fd: int32(fd)})
}

func (p *poller) mod(fd int, events uint32) error {
	return unix.EpollCtl(p.epfd, unix.EPOLL_CTL_MOD, fd, &unix.EpollEvent{Events: events, Fd: int32(fd)})
}

func (p *poller) del(fd int) { unix.EpollCtl(p.epfd, unix.EPOLL_CTL_DEL, fd, nil) }

// wake makes the loop drain its channels; safe from any goroutine. Only
// the first wake-up after the loop took the last one writes the eventfd.
func (p *poller) wake() {
	if p.pending.Swap(true) {
		return
	}
	one := [8]byte{1}
	unix.Write(p.evfd, one[:])
}

// woken takes the eventfd's wake-up; the loop drains its channels after.
// The eventfd is read before pending is cleared: a wake between the two
// finds pending set and writes nothing, and its input is drained next;
// cleared first, a wake's write could be consumed here while pending
// stays set, and every later wake would be lost.
func (p *poller) woken() {
	unix.Read(p.evfd, p.evbuf[:])
	p.pending.Store(false)
}

// wait returns the ready events, parking the goroutine (netpoller) until
// one is ready or the time at passes (zero: no deadline). It always looks
// before it parks: RawConn.Read forgets a readiness the netpoller saw
// before the call. A deadline already passed looks without parking.
func (p *poller) wait(evs []unix.EpollEvent, at time.Time) (int, error) {
	if !at.Equal(p.deadline) { // moved only when the earliest deadline does
		p.deadline = at
		p.ep.SetReadDeadline(at)
	}
	p.evs = evs
	if !at.IsZero() && !time.Now().Before(at) {
		return epollNow(p.epfd, evs)
	}
	err := p.rc.Read(p.poll)
	if errors.Is(err, os.ErrDeadlineExceeded) {
		return 0, nil
	}
	if err != nil {
		return 0, err
	}
	return p.n, p.err
}

// btsSock is a connection to the BTS owned by the loop: a non-blocking
// SOCK_SEQPACKET fd (the messages that did not fit into its send buffer
// yet wait in the loop's tx queue, written when the fd is writable
// again). It is the engine's pcu.BTSWriter while it is connected.
type btsSock struct {
	l      *loop
	fd     int
	out    bool // EPOLLOUT registered
	closed bool
	err    error
	// recvmmsg(2) takes up to rxBatch messages in one system call
	rx   [rxBatch][pcuif.BufSize]byte
	iov  [rxBatch]unix.Iovec
	hdrs [rxBatch]mmsg.Hdr
}

// rxBatch is how many messages one recvmmsg takes at most: a BTS sends a
// block's RTS_REQs (up to 8 per TRX) and TIME_IND together.
const rxBatch = 16

func newBTSSock(l *loop, fd int) *btsSock {
	s := &btsSock{l: l, fd: fd}
	for i := range s.hdrs {
		s.iov[i].Base = &s.rx[i][0]
		s.iov[i].SetLen(pcuif.BufSize)
		s.hdrs[i].Hdr.Iov = &s.iov[i]
		s.hdrs[i].Hdr.SetIovlen(1)
	}
	return s
}

// recv takes the messages waiting on the socket (at most rxBatch) without
// blocking: recvmmsg(2) with MSG_DONTWAIT, one system call whether one
// message waits or sixteen. It is a raw system call: it never blocks.
func (s *btsSock) recv() (int, error) {
	n, errno := mmsg.Recv(s.fd, s.hdrs[:])
	if errno != 0 {
		return 0, errno
	}
	return n, nil
}

// write sends one message without blocking (a raw system call: the socket
// is non-blocking).
func (s *btsSock) write(b []byte) error {
	_, _, errno := unix.RawSyscall(unix.SYS_WRITE, uintptr(s.fd), uintptr(unsafe.Pointer(&b[0])), uintptr(len(b)))
	if errno != 0 {
		return errno
	}
	return nil
}

// maxReadsPerWake bounds the messages taken from the socket in one
// wake-up, so that a flooding BTS cannot starve timers and calls.
const maxReadsPerWake = 256

// dialBTS connects to the BTS socket, non-blocking.
func dialBTS(path string) (int, error) {
	fd, err := unix.Socket(unix.AF_UNIX, unix.SOCK_SEQPACKET|unix.SOCK_NONBLOCK|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		return -1, err
	}
	if err := unix.Connect(fd, &unix.SockaddrUnix{Name: path}); err != nil {
		unix.Close(fd)
		return -1, err
	}
	return fd, nil
}

// loop is the driver's state: the engine it drives, the epoll set, the
// BTS connection, the messages waiting for it and the open NS sockets.
type loop struct {
	e     *pcu.Engine
	cfg   pcu.Config
	o     Options
	p     *poller
	bts   *btsSock // nil: not connected
	tx    txQueue
	ns    []*nsSock
	res   localResolver
	l1log *slog.Logger
	gbLog *slog.Logger
}

func newLoop(e *pcu.Engine, o Options) (*loop, error) {
	if o.ListenUDP == nil {
		o.ListenUDP = nsudp.ListenUDP
	}
	cfg := e.Config()
	l := &loop{e: e, cfg: cfg, o: o, l1log: cfg.Logs.Logger(logx.CatL1IF), gbLog: cfg.Logs.Logger(logx.CatBSSGP)}
	p, err := newPoller()
	if err != nil {
		cfg.Logs.Logger(logx.CatPCU).Error("cannot make the engine's epoll set", "err", err)
		return nil, err
	}
	l.p = p
	return l, nil
}

// run is Run once the epoll set exists: the engine's only loop.
func (l *loop) run(ctx context.Context) error {
	e, p := l.e, l.p
	defer p.close()
	e.Attach(pcu.IO{Wake: p.wake, NS: l, Ctrl: l.newCtrl, SourceAddr: nsudp.SourceAddrTowards})
	defer e.Attach(pcu.IO{})
	p.wake() // for what was posted before the loop ran
	stop := context.AfterFunc(ctx, p.wake)
	defer stop()
	defer l.closeBTS(false)
	// runs first: the engine takes no command while it closes anything
	defer e.Stop()

	clk := l.cfg.Clock
	minB, maxB := l.cfg.MinBackoff, l.cfg.MaxBackoff
	minB = cmp.Or(minB, time.Second)
	maxB = cmp.Or(maxB, 10*time.Second)
	backoff := minB
	var redial time.Duration // when to dial the BTS again (0: now)
	evs := make([]unix.EpollEvent, 8)
	lastWake, at := time.Duration(-1), time.Time{}
	for {
		if ctx.Err() != nil {
			return nil
		}
		now := clk.Now()
		if l.bts == nil && now >= redial {
			if err := l.connectBTS(); err != nil {
				// osmo-pcu 1.1.0 osmobts_sock.c pcu_l1if_open(): the same
				// line, at every retry (1 s doubling to 10 s here, 5 s
				// there); the reason at debug
				l.l1log.Error(fmt.Sprintf("Failed to connect to the BTS (%s). Retrying...", l.cfg.SocketPath))
				l.l1log.Debug("cannot connect to BTS", "path", l.cfg.SocketPath, "err", err, "retry_in", backoff)
				redial = now + backoff
				backoff = min(2*backoff, maxB)
			} else {
				backoff = minB
			}
		}
		e.Tick(now)
		wake := e.NextDeadline()
		if l.bts == nil {
			wake = min(wake, redial)
		}
		if wake != lastWake { // the deadline on the wall clock, moved only when it changes
			lastWake, at = wake, time.Now().Add(wake-clk.Now())
		}
		n, err := p.wait(evs, at)
		if err != nil {
			return fmt.Errorf("epoll_wait: %w", err)
		}
		for _, ev := range evs[:n] {
			switch {
			case int(ev.Fd) == p.evfd:
				p.woken()
				if !e.RunCalls(inputBatch) {
					p.wake() // more queued: after the BTS socket and the timers
				}
			case l.bts != nil && int(ev.Fd) == l.bts.fd:
				if ev.Events&unix.EPOLLOUT != 0 {
					l.flushBTS()
				}
				if ev.Events&(unix.EPOLLIN|unix.EPOLLERR|unix.EPOLLHUP) != 0 {
					l.readBTS()
				}
			default:
				l.readNS(int(ev.Fd))
			}
		}
		if s := l.bts; s != nil && s.err != nil {
			l.closeBTS(true)
			l.l1log.Info("BTS connection lost, reconnecting", "path", l.cfg.SocketPath, "err", s.err, "retry_in", backoff)
			redial = clk.Now() + backoff
			backoff = min(2*backoff, maxB)
		}
	}
}

// newCtrl is the engine's pcu.IO.Ctrl (ctrl.go).
func (l *loop) newCtrl(addr string, port int) pcu.CtrlClient {
	return newCtrlClient(l.e, addr, port, l.o.Dial, l.cfg.Logs.Logger(logx.CatNACC))
}

// inputBatch bounds the VTY calls and NS datagrams one wake-up handles:
// a flood of NS datagrams must not starve the BTS socket, the timers or
// the stop (the loop checks its context between batches).
const inputBatch = 256

func (l *loop) connectBTS() error {
	fd, err := dialBTS(l.cfg.SocketPath)
	if err != nil {
		return err
	}
	if err := l.p.add(fd, unix.EPOLLIN); err != nil {
		unix.Close(fd)
		return err
	}
	l.bts = newBTSSock(l, fd)
	l.e.BTSConnected(l.bts)
	return nil
}

// closeBTS closes the connection; lost reports it to the engine.
func (l *loop) closeBTS(lost bool) {
	s := l.bts
	if s == nil {
		return
	}
	l.p.del(s.fd)
	unix.Close(s.fd)
	s.closed = true
	l.bts = nil
	l.tx.clear()
	if lost {
		l.e.BTSLost(s.err)
	}
}

// readBTS handles the messages the socket holds (up to maxReadsPerWake),
// each answered at once by the engine's writes. It reports whether it
// took them all (false: more may wait).
func (l *loop) readBTS() bool {
	s := l.bts
	for got := 0; got < maxReadsPerWake && s.err == nil && l.bts == s; {
		n, err := s.recv()
		if err == unix.EAGAIN {
			return true
		}
		if err != nil {
			s.err = err
			return true
		}
		for i := 0; i < n && s.err == nil; i++ {
			k := int(s.hdrs[i].N)
			if k == 0 { // SEQPACKET: zero-length read is the peer's orderly close
				s.err = errors.New("BTS closed the connection")
				return true
			}
			l.e.HandlePCUIF(s.rx[i][:k])
		}
		got += n
		if n < rxBatch {
			return true // the socket is empty: epoll says when more comes
		}
	}
	return s.err != nil || l.bts != s
}

// Write is the engine's BTSWriter: it writes one message to the BTS now,
// or queues it behind messages still waiting for the socket.
func (s *btsSock) Write(b []byte) error {
	if s.closed || s.err != nil {
		return pcu.ErrNotConnected
	}
	l := s.l
	if l.tx.len() == 0 {
		err := s.write(b)
		if err == nil {
			return nil
		}
		if err != unix.EAGAIN {
			s.err = err
			return err
		}
	}
	if err := l.tx.push(b); err != nil {
		return err
	}
	if !s.out && l.p.mod(s.fd, unix.EPOLLIN|unix.EPOLLOUT) == nil {
		s.out = true
	}
	return nil
}

// flushBTS writes queued messages while the socket takes them.
func (l *loop) flushBTS() {
	s, q := l.bts, &l.tx
	for q.len() > 0 {
		err := s.write(q.front())
		if err == unix.EAGAIN {
			return
		}
		if err != nil {
			s.err = err
			return
		}
		q.pop()
	}
	if s.out && l.p.mod(s.fd, unix.EPOLLIN) == nil {
		s.out = false
	}
}
