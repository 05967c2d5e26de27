// Package labnet runs emulated MSs on osmo-bts-virtual's virtual Um with the
// whole Osmocom GPRS network behind them: osmo-bts-virtual and osmo-bsc,
// gopcu (or osmo-pcu), osmo-sgsn and osmo-ggsn. Each MS has internal/emu/msemu's
// RLC/MAC over tests/vum's GSMTAP multicast and internal/emu/msnet's LLC, GMM, SM
// and SNDCP; with a PDP context up it can carry Linux traffic through a TUN
// device in its own network namespace.
package labnet

import (
	"context"
	"fmt"
	"math/rand"
	"sync"
	"time"

	"github.com/gopcu/gopcu/internal/emu/msemu"
	"github.com/gopcu/gopcu/internal/emu/msnet"
	"github.com/gopcu/gopcu/rlcmac"
	"github.com/gopcu/gopcu/tests/vum"
)

// Phone is one MS: RLC/MAC and the stack above it.
type Phone struct {
	MS    *msemu.MS
	Stack *msnet.Stack
	Index int
	// Dropped counts uplink IP packets dropped at a full MS queue.
	Dropped int
	// newTLLI is a TLLI GMM assigned, taken on the radio once the MS has
	// no TBF (the PCU knows the running TBFs by the old one); the LLC
	// frames made meanwhile wait in hold, so they go in a TBF whose
	// contention resolution carried the new TLLI (osmo-sgsn knows the MS
	// only by the new TLLI once the Attach Complete arrived).
	newTLLI uint32
	hold    [][]byte
}

// Radio runs a cell of phones over a virtual Um in real time. Everything
// touching the phones runs on its loop goroutine; other goroutines use Do.
type Radio struct {
	Um     *vum.Um
	Cell   *msemu.Cell
	Phones []*Phone
	calls  chan func()
	rnd    *rand.Rand
	mu     sync.Mutex
	err    error
	// Log, when set, sees the stacks' logs.
	Log func(format string, args ...any)
}

// NewRadio makes a cell over um.
func NewRadio(um *vum.Um, seed int64) *Radio {
	return &Radio{Um: um, Cell: msemu.NewCellAir(um, seed), calls: make(chan func(), 1024), rnd: rand.New(rand.NewSource(seed))}
}

// RadioCap is the MS Radio Access Capability the phones send in GMM
// (TS 24.008 §10.5.5.12a): DCS 1800, multislot class cls.
func RadioCap(cls int) []byte { return rlcmac.EncodeMultislotRAC(cls, 0) }

// AddPhone adds an MS with the stack configuration cfg (before Run).
func (r *Radio) AddPhone(cfg msnet.Config, class int) *Phone {
	if cfg.RadioCap == nil {
		cfg.RadioCap = RadioCap(class)
	}
	st := msnet.New(cfg, r.rnd.Uint32())
	ms := r.Cell.AddMS(st.TLLI, cfg.IMSI, class)
	p := &Phone{MS: ms, Stack: st, Index: len(r.Phones)}
	st.Send = func(f []byte) {
		if p.newTLLI != 0 {
			p.hold = append(p.hold, f)
			return
		}
		ms.SendLLC(f)
	}
	st.SetTLLI = func(t uint32) { p.newTLLI = t }
	ms.OnLLC = st.RxLLC
	idx := p.Index
	st.Log = func(format string, args ...any) {
		if r.Log != nil {
			r.Log("ms%d: "+format, append([]any{idx}, args...)...)
		}
	}
	r.Phones = append(r.Phones, p)
	return p
}

// Do runs f on the radio loop and waits for it.
func (r *Radio) Do(ctx context.Context, f func()) error {
	done := make(chan struct{})
	select {
	case r.calls <- func() { f(); close(done) }:
	case <-ctx.Done():
		return ctx.Err()
	}
	select {
	case <-done:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// Post runs f on the radio loop without waiting.
func (r *Radio) Post(f func()) {
	r.calls <- f
}

// Run steps the cell until ctx ends or the air fails.
func (r *Radio) Run(ctx context.Context) error {
	for {
		for drained := false; !drained; {
			select {
			case f := <-r.calls:
				f()
			default:
				drained = true
			}
		}
		for _, p := range r.Phones {
			if p.newTLLI != 0 && !p.MS.Busy() {
				p.MS.TLLI, p.newTLLI = p.newTLLI, 0
				for _, f := range p.hold {
					p.MS.SendLLC(f)
				}
				p.hold = nil
			}
		}
		if err := r.Cell.Step(ctx); err != nil {
			if ctx.Err() != nil {
				return nil
			}
			r.mu.Lock()
			r.err = err
			r.mu.Unlock()
			return err
		}
	}
}

// Wait polls cond on the radio loop until it holds or timeout passes.
func (r *Radio) Wait(ctx context.Context, timeout time.Duration, what string, cond func() bool) error {
	deadline := time.Now().Add(timeout)
	for {
		var ok bool
		if err := r.Do(ctx, func() { ok = cond() }); err != nil {
			return err
		}
		if ok {
			return nil
		}
		r.mu.Lock()
		err := r.err
		r.mu.Unlock()
		if err != nil {
			return fmt.Errorf("%s: radio stopped: %w", what, err)
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("%s: not within %v", what, timeout)
		}
		time.Sleep(20 * time.Millisecond)
	}
}
