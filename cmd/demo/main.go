// Command demo runs gopcu with its built-in emulators on one machine, with
// no BTS, SGSN or root: the BTS emulator serves the PCU socket in real time
// and gopcu answers every radio block. It prints one status line per second
// and a summary. (The TBF engine and the MS/SGSN emulators extend this
// into the bufferbloat demo; see docs/features.md for what is done.)
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/gopcu/gopcu/internal/logx"
	"github.com/gopcu/gopcu/internal/ratectr"
	"github.com/gopcu/gopcu/pcu"
	"github.com/gopcu/gopcu/pcu/pcuif"
	"github.com/gopcu/gopcu/tests/btsemu"
)

func main() {
	dur := flag.Duration("duration", 10*time.Second, "how long to run")
	ver := flag.Int("pcuif-version", 12, "PCUIF version the emulated BTS speaks (10, 11, 12)")
	flag.Parse()
	if err := run(*dur, pcuif.Version(*ver)); err != nil {
		fmt.Fprintln(os.Stderr, "demo:", err)
		os.Exit(1)
	}
}

func run(dur time.Duration, v pcuif.Version) error {
	if !v.Valid() {
		return fmt.Errorf("PCUIF version %d: must be 10, 11 or 12", v)
	}
	dir, err := os.MkdirTemp("", "gopcu-demo")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	sock := filepath.Join(dir, "pcu_bts")
	bts, err := btsemu.Listen(btsemu.Config{Path: sock, Version: v})
	if err != nil {
		return err
	}
	defer bts.Close()
	var answered, bytes atomic.Uint64
	bts.OnDataReq(func(d pcuif.Data) { answered.Add(1); bytes.Add(uint64(len(d.Payload))) })

	ctrs := &ratectr.Registry{}
	eng := pcu.New(pcu.Config{SocketPath: sock, Logs: logx.NewText(os.Stderr), Counters: ctrs})
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	ctx, cancel := context.WithTimeout(ctx, dur)
	defer cancel()
	done := make(chan struct{})
	go func() { eng.Run(ctx); close(done) }()

	fmt.Printf("gopcu %s demo: emulated BTS (PCUIF %s, 1 TRX, PDCH on TS4-7) <-> gopcu, %v\n", pcu.Version, v, dur)
	wctx, wcancel := context.WithTimeout(ctx, 5*time.Second)
	err = bts.WaitActive(wctx, 4)
	wcancel()
	if err != nil {
		return err
	}
	go bts.RunRealtime(ctx)
	start := time.Now()
	tick := time.NewTicker(time.Second)
	defer tick.Stop()
	for {
		select {
		case <-tick.C:
			st := bts.Stats()
			el := time.Since(start)
			fmt.Printf("[%5.1fs %3.0f%%] PDCHs active %d | RTS %6d answered %6d (%.0f blocks/s) | mismatched %d\n",
				el.Seconds(), 100*el.Seconds()/dur.Seconds(), len(bts.ActivePDCHs()), st.RTSSent, answered.Load(),
				float64(answered.Load())/el.Seconds(), st.Mismatched)
		case <-ctx.Done():
			<-done
			st := bts.Stats()
			fmt.Printf("\nsummary: %d RTS_REQs sent, %d DATA_REQs answered, %d mismatched, %d bad messages\n",
				st.RTSSent, answered.Load(), st.Mismatched, st.BadMessages)
			if st.Mismatched != 0 || st.BadMessages != 0 {
				return fmt.Errorf("the PCU answered wrongly")
			}
			return nil
		}
	}
}
