// Command btsemu runs gopcu's BTS emulator on a PCU socket: it serves one
// PCU (gopcu or osmo-pcu) in PCUIF v10, v11 or v12 and runs the GSM frame
// clock in real time, printing what the PCU answers once per second.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/gopcu/gopcu/internal/emu/btsemu"
	"github.com/gopcu/gopcu/internal/ticker"
	"github.com/gopcu/gopcu/pcu/pcuif"
)

func main() {
	path := flag.String("path", "/tmp/pcu_bts", "PCU socket path to listen on")
	ver := flag.Int("version", 12, "PCUIF version (10, 11 or 12)")
	pdch := flag.Uint("pdch-mask", 0xf0, "PDCH timeslot mask of TRX 0")
	flag.Parse()
	v := pcuif.Version(*ver)
	if !v.Valid() {
		fmt.Fprintf(os.Stderr, "btsemu: version %d: must be 10, 11 or 12\n", *ver)
		os.Exit(1)
	}
	info := btsemu.DefaultInfo(v)
	info.TRX[0].PDCHMask = uint8(*pdch)
	bts, err := btsemu.Listen(btsemu.Config{Path: *path, Version: v, Info: info})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	defer bts.Close()
	var blocks, idle atomic.Uint64
	bts.OnDataReq(func(d pcuif.Data) {
		blocks.Add(1)
		if len(d.Payload) == 0 {
			idle.Add(1)
		}
	})
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	fmt.Printf("btsemu: PCUIF %s on %s, waiting for a PCU\n", v, *path)
	go ticker.Every(ctx, time.Second, func(time.Time) bool {
		st := bts.Stats()
		fmt.Printf("btsemu: connected=%v pdchs=%d rts=%d answered=%d (idle %d) mismatched=%d\n",
			bts.Connected(), len(bts.ActivePDCHs()), st.RTSSent, st.Answered, idle.Load(), st.Mismatched)
		return true
	})
	for ctx.Err() == nil {
		if err := bts.WaitActive(ctx, len(onesOf(info.TRX[0].PDCHMask))); err != nil {
			break
		}
		bts.RunRealtime(ctx) // returns on error (PCU gone) or when ctx ends
	}
}

func onesOf(m uint8) []int {
	var o []int
	for i := 0; i < 8; i++ {
		if m&(1<<i) != 0 {
			o = append(o, i)
		}
	}
	return o
}
