package btsemu

import (
	"context"
	"fmt"
	"time"

	"github.com/gopcu/gopcu/pcu/pcuif"
)

// FramePeriod is the GSM TDMA frame duration (120/26 ms).
const FramePeriod = pcuif.FramePeriod

// BlockNr returns the block number (0..11) of a block-start FN, or -1
// (pcuif.BlockNr).
func BlockNr(fn uint32) int { return pcuif.BlockNr(fn) }

// NextBlockFN returns the first FN of the block after the one starting at
// fn (pcuif.NextBlockFN).
func NextBlockFN(fn uint32) uint32 { return pcuif.NextBlockFN(fn) }

// FN returns the FN of the next block the emulator will request.
func (b *BTS) FN() uint32 {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.fn
}

// SetFN sets the FN of the next block (it must be a block start).
func (b *BTS) SetFN(fn uint32) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.fn = fn
	if BlockNr(fn) < 0 {
		b.fn = NextBlockFN(fn)
	}
}

// Block is one radio block period: the RTSs the emulator sent and the
// DATA_REQs that answered them.
type Block struct {
	FN      uint32
	BlockNr int
	Answers []pcuif.Data // one per active PDCH (and PTCCH when due), in RTS order
}

// Step runs one radio block in virtual time: TIME_IND, then an RTS_REQ per
// active PDCH (plus a PTCCH RTS_REQ once per 104 frames), then waits for
// the PCU to answer each one (at most timeout). Unanswered RTSs are counted
// and reported as an error.
func (b *BTS) Step(ctx context.Context, timeout time.Duration) (Block, error) {
	b.mu.Lock()
	fn := b.fn
	b.fn = NextBlockFN(fn)
	b.mu.Unlock()
	return b.runBlock(ctx, fn, timeout)
}

func (b *BTS) runBlock(ctx context.Context, fn uint32, timeout time.Duration) (Block, error) {
	blk := Block{FN: fn, BlockNr: BlockNr(fn)}
	if err := b.Send(&pcuif.TimeInd{FN: fn}); err != nil {
		return blk, err
	}
	pdchs := b.ActivePDCHs()
	type wait struct {
		k  key
		ch chan pcuif.Data
	}
	waits := make([]wait, 0, 2*len(pdchs))
	ptcch := fn%104 == 8 // the PTCCH/D block follows in idle frame 12 of the 104-multiframe
	for _, p := range pdchs {
		for _, s := range []pcuif.SAPI{pcuif.SAPIPDTCH, pcuif.SAPIPTCCH} {
			rfn := fn
			if s == pcuif.SAPIPTCCH {
				if !ptcch {
					continue
				}
				rfn = fn + 4
			}
			k := key{s, rfn, p[0], p[1]}
			ch := make(chan pcuif.Data, 1)
			b.mu.Lock()
			b.pending[k] = ch
			b.stats.RTSSent++
			arfcn := b.cfg.Info.TRX[p[0]].ARFCN
			b.mu.Unlock()
			waits = append(waits, wait{k, ch})
			b.mu.Lock()
			b.rtsSent(k)
			b.mu.Unlock()
			if err := b.Send(&pcuif.RTSReq{SAPI: s, FN: rfn, ARFCN: arfcn, TRX: p[0], TS: p[1], BlockNr: uint8(blk.BlockNr)}); err != nil {
				return blk, err
			}
		}
	}
	deadline := time.NewTimer(timeout)
	defer deadline.Stop()
	var missing int
	for _, w := range waits {
		select {
		case d, ok := <-w.ch:
			if ok {
				blk.Answers = append(blk.Answers, d)
			} else {
				missing++
			}
		case <-deadline.C:
			missing++
		case <-ctx.Done():
			return blk, ctx.Err()
		}
	}
	if missing > 0 {
		b.mu.Lock()
		for _, w := range waits {
			delete(b.pending, w.k)
			delete(b.sentAt, w.k)
		}
		b.stats.Unanswered += missing
		b.mu.Unlock()
		return blk, fmt.Errorf("btsemu: %d RTS_REQs of FN %d unanswered", missing, fn)
	}
	return blk, nil
}

// RunRealtime runs the frame clock in real time (one radio block every
// 4 frames or 5 with an idle frame, 4.615 ms per frame) until ctx ends or
// the PCU disconnects. Answers are not awaited: OnDataReq sees them.
func (b *BTS) RunRealtime(ctx context.Context) error {
	start := time.Now()
	var frames uint32
	for {
		b.mu.Lock()
		fn := b.fn
		b.fn = NextBlockFN(fn)
		b.mu.Unlock()
		frames += (b.FN() - fn + pcuif.MaxFN) % pcuif.MaxFN
		if err := b.sendBlockRTS(fn); err != nil {
			return err
		}
		due := start.Add(time.Duration(frames) * FramePeriod)
		select {
		case <-ctx.Done():
			return nil
		case <-time.After(time.Until(due)):
		}
	}
}

func (b *BTS) sendBlockRTS(fn uint32) error {
	if err := b.Send(&pcuif.TimeInd{FN: fn}); err != nil {
		return err
	}
	for _, p := range b.ActivePDCHs() {
		b.mu.Lock()
		arfcn := b.cfg.Info.TRX[p[0]].ARFCN
		b.stats.RTSSent++
		b.pending[key{pcuif.SAPIPDTCH, fn, p[0], p[1]}] = nil
		b.rtsSent(key{pcuif.SAPIPDTCH, fn, p[0], p[1]})
		b.mu.Unlock()
		if err := b.Send(&pcuif.RTSReq{SAPI: pcuif.SAPIPDTCH, FN: fn, ARFCN: arfcn, TRX: p[0], TS: p[1], BlockNr: uint8(BlockNr(fn))}); err != nil {
			return err
		}
		if fn%104 == 8 {
			b.mu.Lock()
			b.stats.RTSSent++
			b.pending[key{pcuif.SAPIPTCCH, fn + 4, p[0], p[1]}] = nil
			b.mu.Unlock()
			if err := b.Send(&pcuif.RTSReq{SAPI: pcuif.SAPIPTCCH, FN: fn + 4, ARFCN: arfcn, TRX: p[0], TS: p[1], BlockNr: uint8(BlockNr(fn))}); err != nil {
				return err
			}
		}
	}
	return nil
}
