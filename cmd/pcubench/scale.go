package main

import (
	"context"
	"fmt"
	"time"

	"github.com/gopcu/gopcu/internal/emu/btsemu"
	"github.com/gopcu/gopcu/internal/emu/msemu"
	"github.com/gopcu/gopcu/pcu/pcuif"
)

// runScale runs a workload of several BTSs on one PCU socket (w.bts of
// them, PCUIF's bts_nr): a msemu cell per BTS, each with w.ms uplink MSs,
// stepped in turn block after block in virtual time. The MSs join one per
// BTS per block (one RACH per BTS at a time), then the phase is measured.
func runScale(ctx context.Context, k pcuKind, w workload, rd *runDir, nsPort, sgsnPort int) (result, error) {
	group, err := btsemu.ListenGroup(btsemu.Config{Path: rd.sock, Version: pcuif.V10}, w.bts, func(n int) *pcuif.InfoInd {
		ii := cellInfo(w.trx, w.mask, w.egprs > 0, nsPort, sgsnPort)
		for t := 0; t < w.trx; t++ {
			ii.TRX[t].ARFCN = uint16(100 + 16*n + 2*t) // every cell its own frequencies
		}
		ii.BVCI = uint16(1800 + n)
		ii.CellID = uint16(6969 + n)
		return ii
	})
	if err != nil {
		return result{}, err
	}
	defer group[0].Close()
	p, err := k.start(rd, "")
	if err != nil {
		return result{}, err
	}
	defer p.stop()
	wctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	for n, b := range group {
		if err := b.WaitActive(wctx, w.pdchsPerBTS()); err != nil {
			return result{}, fmt.Errorf("BTS %d: %w\n%s log:\n%s", n, err, p.name, p.tailLog())
		}
	}
	p.waitMetrics(ctx)
	cells := make([]*msemu.Cell, len(group))
	for n, b := range group {
		cells[n] = msemu.NewCell(b, int64(n+1))
	}
	step := func() error {
		for n, c := range cells {
			if err := c.Step(ctx); err != nil {
				return fmt.Errorf("BTS %d: %w", n, err)
			}
		}
		return nil
	}
	// warm-up: the MSs join, then a settling period
	for i := 0; i < w.ms+100; i++ {
		if i < w.ms {
			for n, c := range cells {
				m := c.AddMS(0xc2000000+uint32(n)<<12+uint32(i), fmt.Sprintf("90170%03d%07d", n, i), w.class)
				for _, f := range ulFrames(n*w.ms+i, w.ulBytes) {
					m.SendLLC(f)
				}
			}
		}
		if err := step(); err != nil {
			return result{}, err
		}
	}
	rts := func() int {
		n := 0
		for _, b := range group {
			n += b.Stats().RTSSent
		}
		return n
	}
	rts0 := rts()
	ul0, rs0, _ := traffic(cells...)
	r, err := measure(ctx, p, func() (int, error) {
		err := runRadio(ctx, w.duration, false, group[0].FN, step)
		return rts() - rts0, err
	})
	ul, rs, _ := traffic(cells...)
	r.ul, r.ulResent = ul-ul0, rs-rs0
	if err == nil && r.ul == 0 {
		return r, fmt.Errorf("no uplink in the measured phase\n%s log:\n%s", p.name, p.tailLog())
	}
	return r, err
}
