// Package pcu is the gopcu engine, a sans-I/O core: one goroutine owns
// all radio and Gb state (BTS -> TRX -> PDCH, MS and TBFs) and is driven
// by its input methods (HandlePCUIF, HandleNS, HandleCtrl, Tick, RunCalls;
// io.go), its outputs going to the sinks a driver attaches (BTSWriter,
// NSSocket, CtrlClient). pcu/driver is the driver: the epoll loop over the
// PCU socket and the NS sockets, and the CTRL client. Other goroutines
// (VTY sessions) post into the engine with Do/Call.
package pcu

import (
	"errors"
	"log/slog"
	"net/netip"
	"sync"
	"sync/atomic"
	"time"

	"github.com/gopcu/gopcu/internal/logx"
	"github.com/gopcu/gopcu/internal/ratectr"
	"github.com/gopcu/gopcu/llc"
	"github.com/gopcu/gopcu/pcu/pcuif"
	"github.com/gopcu/gopcu/rlcmac"
)

// DefaultSocketPath is osmo-pcu's PCU_SOCK_DEFAULT.
const DefaultSocketPath = "/tmp/pcu_bts"

// Version is gopcu's version, announced in TXT_IND.
const Version = "0.1.0"

// Clock gives monotonic time (queue sojourn, lifetimes, Gb timers). Radio
// timing does not use it: it follows the BTS frame number.
type Clock interface {
	Now() time.Duration
}

type realClock struct{ t0 time.Time }

func (c realClock) Now() time.Duration { return time.Since(c.t0) }

// NewRealClock is the process's monotonic clock.
func NewRealClock() Clock { return realClock{time.Now()} }

// Config is what the engine needs at start. SocketPath, MinBackoff and
// MaxBackoff are its driver's (pcu/driver connects the PCU socket); the
// engine names the path in its log lines.
type Config struct {
	SocketPath string        // BTS socket, default /tmp/pcu_bts
	PinVersion pcuif.Version // 0 = speak the BTS's version (from its INFO_IND)
	PCUVersion string        // text of TXT_IND, default Version
	MinBackoff time.Duration // reconnect backoff start (default 1 s), doubles to MaxBackoff
	MaxBackoff time.Duration // default 10 s
	Logs       *logx.Registry
	Counters   *ratectr.Registry
	Clock      Clock
	Params     *Params // nil: DefaultParams
	Gb         bool    // run the Gb stack (NS/BSSGP over UDP) from INFO_IND; the driver opens the NS sockets (IO.NS)
	// Observer, when set, gets the sojourn time of every LLC frame.
	Observer Observer
	// GSMTAP, when set, gets a GSMTAP copy of the radio blocks of the
	// categories Params.GSMTAPCategories enables.
	GSMTAP GSMTAPSink
	// Capture, when set, records every Gb datagram sent and received (the
	// driver, which owns the NS sockets) and every GSMTAP datagram the tap
	// sends (stats/capture.Capture).
	Capture PacketCapture
}

// PacketCapture records datagrams for a pcap file. Methods must not block.
// GSMTAPDatagram stamps the datagram with the capture's own wall clock
// (the core reads none).
type PacketCapture interface {
	UDP(ts time.Time, src, dst netip.AddrPort, payload []byte) bool
	GSMTAPDatagram(b []byte) bool
}

// Engine is the PCU core.
type Engine struct {
	cfg      Config
	log      *slog.Logger // pcu
	l1log    *slog.Logger // l1if
	calls    chan func()
	done     chan struct{}
	stopOnce sync.Once

	gen      uint64        // current BTS connection, 0 if none
	ver      pcuif.Version // version spoken on the current connection
	lastVer  pcuif.Version // last version learned from a BTS
	bts      [256]*BTS     // by BTS number (PCUIF bts_nr)
	btsList  []*BTS        // the same, in the order they came (INFO_IND)
	l1ctr    *ratectr.Group
	ptcchBuf [23]byte // PTCCH/D block being sent
	msIdx    uint32   // next "pcu:ms" index
	tbfIdx   uint32   // next "pcu:tbf" / "tbf:*" index

	// reused decode targets and encode sources (no allocation per block)
	rxRTS  pcuif.RTSReq
	txAct  pcuif.ActReq
	rxData pcuif.Data
	// UL data blocks and units decoded into these (ul.go): each holds a
	// chunk table of ~1 kB that a fresh variable would clear every block
	rxGPRS   rlcmac.GPRSULBlock
	rxEGPRS  rlcmac.EGPRSULBlock
	rxUnit   rlcmac.ULUnit
	rxTime   pcuif.TimeInd
	rxRACH   pcuif.RACHInd
	rxInterf pcuif.InterfInd
	txPUAN   rlcmac.PacketUplinkAckNack
	rxPCA    rlcmac.PacketControlAck
	rxPDAN   rlcmac.PacketDownlinkAckNack
	rxEPDAN  rlcmac.EGPRSPacketDownlinkAckNack
	txData   pcuif.Data
	txBlock  [pcuif.DataMaxLen]byte
	dummyBuf [80]byte

	hooks []func(Event)

	// the driver's sinks (io.go): its wake-up, the NS socket opener, the
	// CTRL client factory; the BTS connection's writer (BTSConnected,
	// nil: none), the connection counter and the buffer send encodes into
	wake    atomic.Pointer[func()]
	ns      NSOpener
	newCtrl func(addr string, port int) CtrlClient
	// sourceAddr is the driver's local-address lookup for IP-SNS (IO.SourceAddr)
	sourceAddr func(remote netip.AddrPort) (netip.Addr, error)
	btsw       BTSWriter
	connGen    uint64
	txBuf      [pcuif.BufSize]byte
	nextTick   time.Duration // the next 1 s tick (Tick)
	wakeAt     time.Duration // NextDeadline

	// engine time (clockNow): the later of radio time, which follows the
	// BTS frame number, and the monotonic clock, both from the first FN
	now      time.Duration
	radio    time.Duration
	wallBase time.Duration // Clock.Now() at engine time 0
	lastFN   uint32
	fnValid  bool
	// nextDeadline is the earliest running TBF timer (0: none)
	nextDeadline time.Duration
	// sent, in tests, sees every message to the BTS before it is encoded
	sent   func(pcuif.Message)
	fnOdd  uint32 // clockFN: the last implausible FN
	fnOddN int    // ... and how many in a row agreed with each other

	params    Params
	llcShared *llc.Shared
	gb        gbPort // nil: no Gb (frames towards the SGSN are dropped, counted)
	gbl       *gbLink
	sgsnCtr   *ratectr.Group
	tbfLog    *slog.Logger
	llcLog    *slog.Logger
	gbLog     *slog.Logger
	oplog     opLog    // the operator's log lines (oplog.go)
	fsm       *fsmSink // rejected state machine events (fsm.go)
	tap       gsmtapTap
	expired   []resv // scratch of expireReservations
	usfGMSK   bool   // the block being scheduled carries a GPRS-only MS's USF: GMSK only (schedule)
	msScratch []*MS  // scratch of reclaimMS
	nextSweep time.Duration
	fcTicks   int

	nacc *naccEngine // NACC and RIM state (nacc_engine.go)
}

// New makes an engine; a driver runs it (pcu/driver.Run).
func New(cfg Config) *Engine {
	if cfg.SocketPath == "" {
		cfg.SocketPath = DefaultSocketPath
	}
	if cfg.PCUVersion == "" {
		cfg.PCUVersion = Version
	}
	if cfg.Logs == nil {
		cfg.Logs = logx.Discard()
	}
	if cfg.Counters == nil {
		cfg.Counters = &ratectr.Registry{}
	}
	if cfg.Clock == nil {
		cfg.Clock = NewRealClock()
	}
	e := &Engine{
		cfg:   cfg,
		tap:   gsmtapTap{sink: cfg.GSMTAP},
		log:   cfg.Logs.Logger(logx.CatPCU),
		l1log: cfg.Logs.Logger(logx.CatL1IF),
		calls: make(chan func(), 64),
		done:  make(chan struct{}),
		l1ctr: ratectr.NewGroup("pcu:l1if", "PCU socket", 0, L1CounterDescs),
	}
	e.params = DefaultParams()
	if cfg.Params != nil {
		e.params = *cfg.Params
	}
	sh, err := llc.NewShared(e.params.LLC)
	if err != nil {
		// an invalid LLC configuration falls back to the defaults
		e.log.Error("invalid LLC queue configuration, using defaults", "err", err)
		sh, _ = llc.NewShared(llc.DefaultConfig())
	}
	e.llcShared = sh
	e.tbfLog = cfg.Logs.Logger(logx.CatTBF)
	e.fsm = newFSMSink(e.l1ctr, &e.now, e.tbfLog)
	e.llcLog = cfg.Logs.Logger(logx.CatLLC)
	e.gbLog = cfg.Logs.Logger(logx.CatBSSGP)
	e.sgsnCtr = ratectr.NewGroup("pcu:sgsn", "SGSN Statistics", 0, SGSNCounterDescs)
	cfg.Counters.Register(e.sgsnCtr)
	cfg.Counters.Register(e.l1ctr)
	return e
}

// tick is the engine's 1 s tick.
func (e *Engine) tick(now time.Duration) {
	e.sampleAllAllocated(now)
	e.opTick(now) // oplog.go
	e.cfg.Counters.Tick()
	e.fcTicks++
	if iv := int(e.params.FlowControlInterval / time.Second); e.params.FlowControlMS && iv > 0 && e.fcTicks%iv == 0 {
		e.flowControlMS()
	}
}

// ErrStopped is returned by Do and Call when the engine is not running.
var ErrStopped = errors.New("pcu: engine stopped")

// Do runs f inside the engine goroutine, asynchronously. f runs only
// there: once the engine stops, functions still queued are dropped, never
// run elsewhere. An error means f will not run; nil means it runs unless
// the engine stops first (Call tells which).
func (e *Engine) Do(f func()) error {
	select {
	case <-e.done:
		return ErrStopped
	default:
	}
	select {
	case e.calls <- f:
		e.poke()
		return nil
	case <-e.done:
		return ErrStopped
	}
}

// Call runs f inside the engine goroutine and waits for it. It returns nil
// exactly when f ran (completely), ErrStopped when it did not and never
// will.
func (e *Engine) Call(f func()) error {
	fin := make(chan struct{})
	if err := e.Do(func() { f(); close(fin) }); err != nil {
		return err
	}
	select {
	case <-fin:
		return nil
	case <-e.done:
		// f runs only in the engine goroutine, which closes done after
		// its last command: if f ran, fin is closed by now.
		select {
		case <-fin:
			return nil
		default:
			return ErrStopped
		}
	}
}

// Done is closed when the engine has stopped taking commands.
func (e *Engine) Done() <-chan struct{} { return e.done }

// fnJumpMax is the largest FN step clockFN takes as the BTS clock moving
// on (2 s of frames): RTS_REQs come a block or two ahead of air time,
// TIME_IND a little behind.
const fnJumpMax = int(2 * time.Second / FramePeriod)

// fnResync is how many implausible FNs that agree with each other (a BTS
// whose clock really jumped) make clockFN follow the new clock.
const fnResync = 3

// clockFN advances radio time to fn (RTS_REQ, TIME_IND) unless fn is
// implausible: a step of more than fnJumpMax either way from the current
// FN is a corrupt message, not the clock (a single one would otherwise
// freeze radio time until the BTS clock caught up with it, up to half a
// hyperframe, or fire every timer at once). It is counted
// (rx:err:fn_jump) and ignored, until fnResync of them agree: then radio
// time continues from the new FN without a jump.
func (e *Engine) clockFN(bts *BTS, fn uint32) {
	if e.fnValid {
		if d := fnDelta(fn, e.lastFN); d > fnJumpMax || d < -fnJumpMax {
			e.l1ctr.Inc(L1FNJump)
			if e.fnOddN > 0 && abs(fnDelta(fn, e.fnOdd)) <= fnJumpMax {
				e.fnOddN++
			} else {
				e.fnOddN = 1
			}
			e.fnOdd = fn
			if e.fnOddN >= fnResync {
				e.l1log.Warn("BTS frame number jumped, radio time follows", "from", e.lastFN, "to", fn)
				e.lastFN, e.fnOddN = fn, 0
			}
			return
		}
	}
	e.fnOddN = 0
	e.advance(bts, fn)
}

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}

// EventKind classifies engine events for observers.
type EventKind int

// Engine events.
const (
	EvBTSConnected EventKind = iota + 1
	EvBTSLost
	EvBTSActive   // INFO_IND processed, BTS active
	EvBTSInactive // INFO_IND without ACTIVE, or BTS lost
)

// Event is passed to observers (Gb, tests) from inside the engine goroutine.
type Event struct {
	Kind EventKind
	BTS  uint8 // the BTS of EvBTSActive / EvBTSInactive
}

// Observe registers f to be called, inside the engine goroutine, on every
// engine event. Call it before the driver runs the engine or from inside
// the engine.
func (e *Engine) Observe(f func(Event)) { e.hooks = append(e.hooks, f) }

func (e *Engine) emit(ev Event) {
	for _, f := range e.hooks {
		f(ev)
	}
}

// L1Counters is the PCU socket counter group.
func (e *Engine) L1Counters() *ratectr.Group { return e.l1ctr }

// Connected reports whether a BTS connection exists. Engine goroutine only.
func (e *Engine) Connected() bool { return e.gen != 0 }

// ProtocolVersion is the PCUIF version spoken now (0 before the first
// INFO_IND). Engine goroutine only.
func (e *Engine) ProtocolVersion() pcuif.Version { return e.ver }

// Now is the engine's radio time (advanced by the BTS frame number).
// Engine goroutine only.
func (e *Engine) Now() time.Duration { return e.now }

// Logger is the engine's "pcu" logger (for the composition layer's own
// messages about it).
func (e *Engine) Logger() *slog.Logger { return e.log }
