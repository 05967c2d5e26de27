package app

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"runtime"
	"syscall"
	"time"

	"github.com/gopcu/gopcu/internal/logx"
	"github.com/gopcu/gopcu/pcu"
)

// shutdownGrace bounds the clean shutdown after SIGTERM/SIGINT: engine
// stop, Gb close, counters to the log, files flushed. Past it the
// daemon calls HandleSignals's stuck (cmd/gopcu exits with its exit code
// 3) so that systemd's stop never waits for its own TimeoutStopSec.
var shutdownGrace = 5 * time.Second

// HandleSignals is the process's signal handling (osmo-pcu's sighandler):
//
//   - SIGTERM, SIGINT: cancel (clean shutdown, exit code 0). As osmo-pcu,
//     the handlers then go back to the default action, so a second SIGTERM
//     or SIGINT kills the process at once; and the shutdown is bounded:
//     past 5 s (shutdownGrace) stuck is called.
//   - SIGHUP: reopen the files of the `log file` targets (after logrotate
//     moved them; libosmocore's log_targets_reopen). osmo-pcu ignores
//     SIGHUP.
//   - SIGUSR1, SIGUSR2: a state dump in the log (osmo-pcu prints its talloc
//     report to stderr): memory use, goroutines, per BTS the PDCHs, MSs,
//     TBFs and LLC queue totals. The dump collects garbage first, so its
//     heap_alloc is the live heap (as talloc's report counts live
//     allocations only), not live heap plus garbage the GC has not reached.
//
// SIGPIPE is ignored. The handlers are installed when it returns; they
// run until ctx ends.
func (d *Daemon) HandleSignals(ctx context.Context, cancel context.CancelFunc, stuck func()) {
	ch := make(chan os.Signal, 4)
	signal.Notify(ch, syscall.SIGTERM, syscall.SIGINT, syscall.SIGHUP, syscall.SIGUSR1, syscall.SIGUSR2)
	signal.Ignore(syscall.SIGPIPE)
	go d.signalLoop(ctx, ch, cancel, stuck)
}

func (d *Daemon) signalLoop(ctx context.Context, ch chan os.Signal, cancel context.CancelFunc, stuck func()) {
	defer signal.Stop(ch)
	log := d.logs.Logger(logx.CatPCU)
	for {
		select {
		case <-ctx.Done():
			return
		case sig := <-ch:
			switch sig {
			case syscall.SIGTERM, syscall.SIGINT:
				logx.Notice(log, "signal received, shutting down", "signal", sigName(sig))
				signal.Reset(syscall.SIGTERM, syscall.SIGINT)
				cancel()
				go func() {
					time.Sleep(shutdownGrace)
					fmt.Fprintf(d.stderr, "gopcu: shutdown took longer than %v\n", shutdownGrace)
					stuck()
				}()
				return
			case syscall.SIGHUP:
				if err := d.reopenLogs(); err != nil {
					log.Error("SIGHUP: reopening log files", "err", err)
				} else {
					logx.Notice(log, "SIGHUP: log files reopened")
				}
			case syscall.SIGUSR1, syscall.SIGUSR2:
				d.dumpState(sigName(sig))
			}
		}
	}
}

// reopenLogs reopens the `log file` targets.
func (d *Daemon) reopenLogs() error {
	if f, ok := d.base.(*logx.Fanout); ok {
		return f.Reopen()
	}
	return nil
}

// stateDump is what SIGUSR1 writes: one line for the process, one per BTS.
type stateDump struct {
	HeapAlloc, HeapSys, Sys uint64
	Goroutines              int
	BTS                     []btsDump
}

type btsDump struct {
	Nr                   uint8
	Active               bool
	PDCHs                int // enabled
	MS                   int
	TBFsUL, TBFsDL       int
	LLCFrames, LLCOctets int
}

// snapshot collects the dump (the BTS part inside the engine goroutine;
// not running: process part only).
func (d *Daemon) snapshot() stateDump {
	runtime.GC() // heap_alloc then is the live heap; a dump is rare and asked for
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	s := stateDump{HeapAlloc: ms.HeapAlloc, HeapSys: ms.HeapSys, Sys: ms.Sys, Goroutines: runtime.NumGoroutine()}
	// dropped: Call fails only once the engine has stopped; the dump then
	// has the process part only
	_ = d.eng.Call(func() {
		for _, nr := range d.eng.BTSNrs() {
			b, _ := d.eng.BTSView(nr)
			s.BTS = append(s.BTS, btsTotals(d.eng, &b))
		}
	})
	return s
}

// btsTotals counts a BTS's enabled PDCHs, MSs, TBFs and queued LLC
// frames (engine goroutine only).
func btsTotals(e *pcu.Engine, b *pcu.BTSView) btsDump {
	bd := btsDump{Nr: b.Nr, Active: b.Active, MS: b.MSCount, TBFsUL: b.TBFsUL, TBFsDL: b.TBFsDL}
	bd.LLCFrames, bd.LLCOctets = e.QueueTotals(b.Nr)
	for t := range b.TRX {
		for _, p := range b.TRX[t].PDCH {
			if p.Enabled {
				bd.PDCHs++
			}
		}
	}
	return bd
}

// dumpState logs the snapshot at NOTICE in the PCU category.
func (d *Daemon) dumpState(sig string) {
	s := d.snapshot()
	log := d.logs.Logger(logx.CatPCU)
	logx.Notice(log, "state dump", "signal", sig, "heap_alloc", s.HeapAlloc, "heap_sys", s.HeapSys,
		"sys", s.Sys, "goroutines", s.Goroutines, "bts", len(s.BTS))
	for _, b := range s.BTS {
		logx.Notice(log, "state dump", "bts", b.Nr, "active", b.Active, "pdch", b.PDCHs, "ms", b.MS,
			"tbf_ul", b.TBFsUL, "tbf_dl", b.TBFsDL, "llc_frames", b.LLCFrames, "llc_octets", b.LLCOctets)
	}
}

// sigName is the signal's SIGxxx name.
func sigName(s os.Signal) string {
	switch s {
	case syscall.SIGTERM:
		return "SIGTERM"
	case syscall.SIGINT:
		return "SIGINT"
	case syscall.SIGHUP:
		return "SIGHUP"
	case syscall.SIGUSR1:
		return "SIGUSR1"
	case syscall.SIGUSR2:
		return "SIGUSR2"
	}
	return s.String()
}
