// Command msemu runs gopcu's MS emulator: it serves a PCU socket as the
// BTS emulator does (a running gopcu or osmo-pcu connects to it), runs
// the GSM frame clock and lets N emulated mobile stations use the cell:
// each sends its uplink LLC frames (RACH, one- or two-phase access, data
// on its USF), receives whatever downlink data the SGSN sends it and
// answers the polls. When the run ends it prints one line per MS.
//
//	msemu -path /tmp/pcu_bts -ms 8 -class 12 -ul 20000 -duration 30s
//	msemu -ms 32 -trx 2 -loss 0.05 -fast    # virtual time, as fast as the PCU answers
//
// Uplink frames are LLC UI frames on SAPI 3 with a valid FCS; the MSs'
// TLLIs are -tlli + n (local TLLIs) and IMSIs 9017000001nnnnn, so an SGSN
// (or a test) can address them.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"
	"text/tabwriter"
	"time"

	"github.com/gopcu/gopcu/internal/emu/btsemu"
	"github.com/gopcu/gopcu/internal/emu/msemu"
	"github.com/gopcu/gopcu/pcu/pcuif"
)

// config is what the flags set.
type config struct {
	Path      string
	Version   pcuif.Version
	TRX       int
	PDCHMask  uint8
	MSs       int
	Class     int
	EGPRS     int // EGPRS multislot class, 0: GPRS only
	TwoPhase  bool
	Loss      float64
	Duration  time.Duration // radio time
	ULBytes   int           // uplink octets per MS
	FrameSize int           // LLC frame size of the uplink data
	TLLI      uint32        // TLLI of the first MS
	Seed      int64
	Fast      bool // virtual time instead of real time

	started func(*msemu.Cell) // tests: called once the PDCHs are active
}

func defaultConfig() config {
	return config{Path: "/tmp/pcu_bts", Version: pcuif.V12, TRX: 1, PDCHMask: 0xf0, MSs: 4, Class: 12, Duration: 10 * time.Second,
		ULBytes: 10000, FrameSize: 500, TLLI: 0xc2000000, Seed: 1}
}

// msResult is what one MS did.
type msResult struct {
	TLLI               uint32
	IMSI               string
	ULFrames, ULOctets int // handed to uplink TBFs
	ULQueued           int // frames still waiting for a TBF
	ULDone             bool
	DLFrames, DLOctets int
	Polls              int
}

func main() {
	cfg := defaultConfig()
	flag.StringVar(&cfg.Path, "path", cfg.Path, "PCU socket path to serve (the PCU connects to it)")
	ver := flag.Int("version", int(cfg.Version), "PCUIF version (10, 11 or 12)")
	flag.IntVar(&cfg.TRX, "trx", cfg.TRX, "number of TRX (1..8), each with -pdch-mask")
	mask := flag.Uint("pdch-mask", uint(cfg.PDCHMask), "PDCH timeslot mask of each TRX")
	flag.IntVar(&cfg.MSs, "ms", cfg.MSs, "number of MSs")
	flag.IntVar(&cfg.Class, "class", cfg.Class, "GPRS multislot class (1..45)")
	flag.IntVar(&cfg.EGPRS, "egprs", cfg.EGPRS, "EGPRS multislot class (0: GPRS only)")
	flag.BoolVar(&cfg.TwoPhase, "two-phase", cfg.TwoPhase, "two-phase access (Packet Resource Request)")
	flag.Float64Var(&cfg.Loss, "loss", cfg.Loss, "radio block loss rate, each direction (0..1)")
	flag.DurationVar(&cfg.Duration, "duration", cfg.Duration, "radio time to run")
	flag.IntVar(&cfg.ULBytes, "ul", cfg.ULBytes, "uplink LLC octets per MS")
	flag.IntVar(&cfg.FrameSize, "frame", cfg.FrameSize, "uplink LLC frame size (octets, 6..1560)")
	tlli := flag.Uint("tlli", uint(cfg.TLLI), "TLLI of the first MS")
	flag.Int64Var(&cfg.Seed, "seed", cfg.Seed, "seed of the loss and access randomness")
	flag.BoolVar(&cfg.Fast, "fast", cfg.Fast, "virtual time: step the clock as fast as the PCU answers")
	flag.Parse()
	cfg.Version, cfg.PDCHMask, cfg.TLLI = pcuif.Version(*ver), uint8(*mask), uint32(*tlli)
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, cfg, os.Stdout); err != nil && !errors.Is(err, context.Canceled) {
		fmt.Fprintln(os.Stderr, "msemu:", err)
		os.Exit(1)
	}
}

func (c *config) check() error {
	switch {
	case !c.Version.Valid():
		return fmt.Errorf("PCUIF version %d: must be 10, 11 or 12", c.Version)
	case c.TRX < 1 || c.TRX > pcuif.NumTRX:
		return fmt.Errorf("%d TRX: 1..%d", c.TRX, pcuif.NumTRX)
	case c.PDCHMask == 0:
		return errors.New("no PDCH in the mask")
	case c.MSs < 1 || c.MSs > 100000:
		return fmt.Errorf("%d MSs", c.MSs)
	case c.Class < 1 || c.Class > 45 || c.EGPRS < 0 || c.EGPRS > 45:
		return fmt.Errorf("multislot class %d / EGPRS %d: 1..45", c.Class, c.EGPRS)
	case c.Loss < 0 || c.Loss >= 1:
		return fmt.Errorf("loss %v: 0 <= loss < 1", c.Loss)
	case c.FrameSize < 6 || c.FrameSize > 1560:
		return fmt.Errorf("frame size %d: 6..1560", c.FrameSize)
	case c.ULBytes < 0 || c.Duration <= 0:
		return errors.New("negative uplink size or no duration")
	}
	return nil
}

// info is the INFO_IND: the BTS emulator's default cell with cfg's TRXs
// (ARFCN 871, 873, ...), PDCHs and coding schemes.
func (c *config) info() *pcuif.InfoInd {
	ii := btsemu.DefaultInfo(c.Version)
	for t := 0; t < c.TRX; t++ {
		ii.TRX[t].ARFCN = uint16(871 + 2*t)
		ii.TRX[t].PDCHMask = c.PDCHMask
		for ts := range ii.TRX[t].TS {
			ii.TRX[t].TS[ts].TSC = 7
		}
	}
	if c.EGPRS > 0 {
		for n := 1; n <= 9; n++ {
			ii.Flags |= pcuif.FlagMCS(n)
		}
	}
	return ii
}

// ulFrames are the uplink LLC frames of MS i: UI frames on SAPI 3 whose
// information field names the MS and the frame number.
func (c *config) ulFrames(i int) [][]byte {
	var out [][]byte
	for k, left := 0, c.ULBytes; left > 0; k++ {
		n := max(min(c.FrameSize, left), 6)
		info := make([]byte, n-6) // UI header 3 octets, FCS 3
		for j := range info {
			info[j] = byte(i*7 + k + j)
		}
		if len(info) >= 4 {
			info[0], info[1], info[2], info[3] = byte(i>>8), byte(i), byte(k>>8), byte(k)
		}
		out = append(out, msemu.UIFrame(3, uint16(k), info))
		left -= n
	}
	return out
}

func imsi(i int) string { return fmt.Sprintf("9017000001%05d", i%100000) }

// run serves the PCU socket, waits for a PCU to activate the PDCHs, runs
// the MSs for cfg.Duration of radio time and prints their results to out.
func run(ctx context.Context, cfg config, out io.Writer) error {
	if err := cfg.check(); err != nil {
		return err
	}
	info := cfg.info()
	bts, err := btsemu.Listen(btsemu.Config{Path: cfg.Path, Version: cfg.Version, Info: info})
	if err != nil {
		return err
	}
	defer bts.Close()
	pdchs := btsemu.InfoPDCHs(info)
	fmt.Fprintf(out, "msemu: PCUIF %s on %s, %d TRX with %d PDCHs, waiting for a PCU\n", cfg.Version, cfg.Path, cfg.TRX, pdchs)
	if err := bts.WaitActive(ctx, pdchs); err != nil {
		return err
	}
	cell := msemu.NewCell(bts, cfg.Seed)
	cell.DLLoss, cell.ULLoss = cfg.Loss, cfg.Loss
	for i := 0; i < cfg.MSs; i++ {
		ms := cell.AddMS(cfg.TLLI+uint32(i), imsi(i), cfg.Class)
		ms.EGPRSClass, ms.TwoPhase = cfg.EGPRS, cfg.TwoPhase
		for _, f := range cfg.ulFrames(i) {
			ms.SendLLC(f)
		}
	}
	if cfg.started != nil {
		cfg.started(cell)
	}
	mode := "real time"
	if cfg.Fast {
		mode = "virtual time"
	}
	fmt.Fprintf(out, "msemu: PCU connected; %d MSs (class %d, EGPRS %d), %d octets uplink each, loss %v, %v of radio time (%s)\n",
		cfg.MSs, cfg.Class, cfg.EGPRS, cfg.ULBytes, cfg.Loss, cfg.Duration, mode)
	err = clock(ctx, cfg, bts, cell)
	writeResults(out, results(cell))
	return err
}

// clock steps the cell until cfg.Duration of radio time has passed; in
// real time each block waits for its due time on the wall clock.
func clock(ctx context.Context, cfg config, bts *btsemu.BTS, cell *msemu.Cell) error {
	start := time.Now()
	last := bts.FN()
	var radio time.Duration
	for radio < cfg.Duration {
		if err := ctx.Err(); err != nil {
			return err
		}
		if err := cell.Step(ctx); err != nil {
			return err
		}
		fn := bts.FN()
		radio += time.Duration((fn+pcuif.MaxFN-last)%pcuif.MaxFN) * btsemu.FramePeriod
		last = fn
		if !cfg.Fast {
			if d := time.Until(start.Add(radio)); d > 0 {
				select {
				case <-ctx.Done():
					return ctx.Err()
				case <-time.After(d):
				}
			}
		}
	}
	return nil
}

func results(cell *msemu.Cell) []msResult {
	var rs []msResult
	for _, m := range cell.MSs {
		rs = append(rs, msResult{TLLI: m.TLLI, IMSI: m.IMSI, ULFrames: m.ULFrames, ULOctets: m.ULOctets, ULQueued: m.ULPending(),
			ULDone: m.ULPending() == 0 && !m.ULActive(), DLFrames: m.DLFrames, DLOctets: m.DLOctets, Polls: m.Polls})
	}
	return rs
}

// writeResults prints a table: one line per MS and a total. The uplink
// of an MS is "done" when all its frames went into TBFs that ended with
// the PCU's final Packet Uplink Ack/Nack.
func writeResults(out io.Writer, rs []msResult) {
	w := tabwriter.NewWriter(out, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(w, "MS\tTLLI\tIMSI\tUL frames\tUL octets\tUL queued\tUL\tDL frames\tDL octets\tpolls\t")
	var tot msResult
	done := 0
	for i, r := range rs {
		state := "busy"
		if r.ULDone {
			state = "done"
			done++
		}
		fmt.Fprintf(w, "%d\t0x%08x\t%s\t%d\t%d\t%d\t%s\t%d\t%d\t%d\t\n", i, r.TLLI, r.IMSI, r.ULFrames, r.ULOctets, r.ULQueued, state,
			r.DLFrames, r.DLOctets, r.Polls)
		tot.ULFrames += r.ULFrames
		tot.ULOctets += r.ULOctets
		tot.ULQueued += r.ULQueued
		tot.DLFrames += r.DLFrames
		tot.DLOctets += r.DLOctets
		tot.Polls += r.Polls
	}
	fmt.Fprintf(w, "all\t\t\t%d\t%d\t%d\t%d/%d\t%d\t%d\t%d\t\n", tot.ULFrames, tot.ULOctets, tot.ULQueued, done, len(rs),
		tot.DLFrames, tot.DLOctets, tot.Polls)
	w.Flush()
}
