package demo

import (
	"context"
	"path/filepath"
	"time"

	"github.com/gopcu/gopcu/internal/emu/btsemu"
	"github.com/gopcu/gopcu/llc"
	"github.com/gopcu/gopcu/pcu"
	"github.com/gopcu/gopcu/pcu/driver"
	"github.com/gopcu/gopcu/pcu/pcuif"
)

// Radio is the radio side the demo and the real-TCP lab (tcplab) run a
// scenario on: the BTS emulator on a PCU socket with PDCHs on the first
// timeslots, and gopcu's engine on it in-process with an ULSink as its
// SGSN side.
type Radio struct {
	BTS  *btsemu.BTS
	Eng  *pcu.Engine
	Gb   *ULSink // UL-UNITDATA for the radio loop
	stop func()
}

// StartRadio starts the BTS emulator on dir/pcu_bts with slots PDCHs
// and the engine with the queue configuration lc and the coding scheme
// pinned to CS-cs (no link adaptation, `cs N N` and `cs max N N`, for
// comparable scenarios), and waits up to 10 s (or ctx) until the PDCHs
// are active. The engine runs until Close.
func StartRadio(ctx context.Context, dir string, slots, cs int, lc llc.Config) (*Radio, error) {
	path := filepath.Join(dir, "pcu_bts")
	info := btsemu.DefaultInfo(pcuif.V12)
	info.TRX[0].PDCHMask = byte(0xff << (8 - slots))
	info.InitialCS = uint8(cs)
	bts, err := btsemu.Listen(btsemu.Config{Path: path, Version: pcuif.V12, Info: info})
	if err != nil {
		return nil, err
	}
	params := pcu.DefaultParams()
	params.LLC = lc
	params.ForceCSDL, params.ForceCSUL = cs, cs
	params.CSMaxDL, params.CSMaxUL = cs, cs
	r := &Radio{BTS: bts, Eng: pcu.New(pcu.Config{SocketPath: path, Params: &params}), Gb: &ULSink{}}
	r.Eng.SetGb(r.Gb)
	ectx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { driver.Run(ectx, r.Eng, driver.Options{}); close(done) }()
	r.stop = func() {
		cancel()
		<-done
		bts.Close()
	}
	wctx, wcancel := context.WithTimeout(ctx, 10*time.Second)
	defer wcancel()
	if err := bts.WaitActive(wctx, slots); err != nil {
		r.Close()
		return nil, err
	}
	return r, nil
}

// Close stops the engine, then the BTS emulator.
func (r *Radio) Close() { r.stop() }

// MSClass is the multislot class of the MSs on slots PDCHs: 12, or 29
// (8 Rx) beyond 4.
func MSClass(slots int) int {
	if slots > 4 {
		return 29
	}
	return 12
}
