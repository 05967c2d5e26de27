// Command pcubench drives the same workloads through gopcu and through
// osmo-pcu (Debian's /usr/bin/osmo-pcu 1.1.0, PCUIF v10) in one run,
// interleaved and repeated, and prints a table: PCU CPU per 1 000 radio
// blocks (RTS_REQs), the gopcu/osmo-pcu ratio, max RSS, the RTS_REQ ->
// DATA_REQ latency (p50/p99/max, real-time workloads) and, for gopcu, the
// allocations per block and GC cycles per 100 000 blocks of the whole
// process (its Go runtime metrics). `make bench-compare` runs it.
//
// Both PCUs are child processes started with the same osmo-pcu style
// config file; their CPU is the sum of their threads' run time
// (/proc/PID/task/*/schedstat) over the measured phase only, their max RSS
// the kernel's VmHWM. The BTS side runs in this process: a minimal
// RTS_REQ stub for the idle workloads and the MS emulator (internal/emu/msemu)
// with the SGSN emulator (internal/emu/sgsnemu) for the loaded ones. CPU figures
// come from virtual time (the next block as soon as the PCU answered),
// latency figures from real time (one block per 4.615 ms frame schedule).
//
//	pcubench -gopcu bin/gopcu -reps 3
//	pcubench -w idle-4,ul-bulk -reps 5 -scale 0.5
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"math/bits"
	"os"
	"os/exec"
	"os/signal"
	"slices"
	"strings"
	"syscall"
	"time"
)

// workload is one benchmark scenario.
type workload struct {
	name string
	desc string
	// BTS side
	trx  int
	mask uint8
	stub bool // the minimal RTS stub (idle); else the MS emulator
	rts  int  // stub, virtual time: RTS_REQs sent one at a time
	// MS emulator
	ms       int
	class    int
	egprs    int
	ulBytes  int
	dl       bool // the SGSN emulator keeps each MS's downlink busy
	dlFrame  int
	duration time.Duration // radio time (virtual) or wall time (real time)
	realtime bool
	timeInd  bool // real time, the frame clock of osmo-bts-virtual (the lab's BTS)
	bts      int  // > 1: that many BTSs on the one PCU socket, ms MSs in each (gopcu only)
}

func workloads(scale float64) []workload {
	n := func(x int) int { return max(int(float64(x)*scale), 1) }
	d := func(x time.Duration) time.Duration { return max(time.Duration(float64(x)*scale), time.Second) }
	return []workload{
		{name: "idle-4", desc: "1 TRX, 4 PDCHs, no MS; one RTS at a time", trx: 1, mask: 0xf0, stub: true, rts: n(12000)},
		{name: "idle-64", desc: "8 TRX x 8 PDCHs, no MS; one RTS at a time", trx: 8, mask: 0xff, stub: true, rts: n(32000)},
		{name: "ul-bulk", desc: "2 TRX x 8 PDCHs, 32 MSs x 100 kB uplink", trx: 2, mask: 0xff, ms: 32, class: 12, ulBytes: 100000, duration: d(120 * time.Second)},
		{name: "dl-bulk", desc: "1 TRX x 8 PDCHs, 16 MSs, SGSN keeps the downlink busy (CS)", trx: 1, mask: 0xff, ms: 16, class: 12, dl: true, dlFrame: 1000, duration: d(60 * time.Second)},
		{name: "egprs-dl", desc: "1 TRX x 8 PDCHs, 8 EGPRS MSs, downlink at MCS-9", trx: 1, mask: 0xff, ms: 8, class: 12, egprs: 12, dl: true, dlFrame: 1500, duration: d(60 * time.Second)},
		{name: "mix-64", desc: "8 TRX x 8 PDCHs, 64 MSs, 20 kB uplink each and a busy downlink", trx: 8, mask: 0xff, ms: 64, class: 12, ulBytes: 20000, dl: true, dlFrame: 500, duration: d(30 * time.Second)},
		{name: "lab-idle-4", desc: "real time as osmo-bts-virtual sends it: TIME_IND at block starts, RTS_REQs 5 frames ahead, PTCCH RTS; 4 idle PDCHs (CPU per 1000 RTS)", trx: 1, mask: 0xf0, stub: true, realtime: true, timeInd: true, duration: d(20 * time.Second)},
		{name: "lat-idle-64", desc: "real time: 8 TRX x 8 PDCHs idle, all RTS of a block at once", trx: 8, mask: 0xff, stub: true, realtime: true, duration: d(10 * time.Second)},
		{name: "lat-mix-64", desc: "real time: the mix-64 load", trx: 8, mask: 0xff, ms: 64, class: 12, ulBytes: 20000, dl: true, dlFrame: 500, realtime: true, duration: d(10 * time.Second)},
		{name: "scale-2048", desc: "32 BTSs x 8 TRX x 8 PDCHs on one socket (2 048 PDCHs), 128 uplink MSs per BTS (gopcu only)", trx: 8, mask: 0xff, bts: 32, ms: 128, class: 12, ulBytes: 50000, duration: d(4 * time.Second)},
	}
}

// pdchsPerBTS counts a BTS's PDCHs: the mask on each TRX.
func (w workload) pdchsPerBTS() int { return w.trx * bits.OnesCount8(w.mask) }

// result is one run of one workload on one PCU.
type result struct {
	cpu      time.Duration
	blocks   int
	rss      int64
	lat      *latencies
	mallocs  float64 // gopcu: heap allocations in the measured phase
	gcs      float64 // gopcu: GC cycles in the measured phase
	rt       bool
	ul, dl   int           // in the measured phase: UL data blocks the MSs sent, DL octets they received
	ulResent int           // of the UL blocks, those resent
	wall     time.Duration // the measured phase's wall clock
	// read and write system calls of the PCU in the phase
	reads, writes int64
}

func main() {
	gopcuBin := flag.String("gopcu", "", "gopcu binary (default: go build ./cmd/gopcu into a temporary directory)")
	osmoBin := flag.String("osmo-pcu", "/usr/bin/osmo-pcu", "osmo-pcu binary (empty: gopcu only)")
	reps := flag.Int("reps", 3, "repetitions of each workload (gopcu and osmo-pcu interleaved)")
	only := flag.String("w", "", "comma-separated workloads (default: all)")
	scale := flag.Float64("scale", 1, "scale the workloads' length")
	maxprocs := flag.Int("gomaxprocs", 0, "GOMAXPROCS of gopcu (0: the runtime's default)")
	flag.StringVar(&logLevel, "log-level", logLevel, "log level of both PCUs (logging level set-all)")
	flag.IntVar(&rrPrio, "rr", 0, "run both PCUs with SCHED_RR at this priority (chrt -r), as their systemd units do; 0: the default policy")
	keep := flag.Bool("keep", false, "keep the run directories (config, logs)")
	pcus := flag.String("pcus", "gopcu,osmo-pcu", "the PCUs to run")
	list := flag.Bool("list", false, "list the workloads and exit")
	flag.BoolVar(&noMetrics, "no-metrics", false, "run gopcu without its metrics endpoint (no allocation and GC figures): serving and scraping /metrics takes about 0.8 MB of resident memory that osmo-pcu has no counterpart for")
	flag.Parse()
	keepDirs = *keep
	ws := workloads(*scale)
	if *list {
		for _, w := range ws {
			fmt.Printf("%-12s %s\n", w.name, w.desc)
		}
		return
	}
	if *only != "" {
		names := strings.Split(*only, ",")
		ws = slices.DeleteFunc(ws, func(w workload) bool { return !slices.Contains(names, w.name) })
		if len(ws) == 0 {
			fmt.Fprintln(os.Stderr, "pcubench: no such workload:", *only)
			os.Exit(2)
		}
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	bin := *gopcuBin
	if bin == "" && strings.Contains(*pcus, "gopcu") {
		dir, err := os.MkdirTemp("", "pcubench-bin")
		if err != nil {
			fail(err)
		}
		defer os.RemoveAll(dir)
		bin = dir + "/gopcu"
		fmt.Fprintln(os.Stderr, "pcubench: building gopcu")
		c := exec.Command("go", "build", "-o", bin, "./cmd/gopcu")
		c.Env = append(os.Environ(), "CGO_ENABLED=0") // static, as packaged: no libc/ld.so pages in its RSS
		c.Stdout, c.Stderr = os.Stderr, os.Stderr
		if err := c.Run(); err != nil {
			fail(fmt.Errorf("go build ./cmd/gopcu: %w", err))
		}
	}
	kinds := []pcuKind{{name: "gopcu", bin: bin, gopcu: true}}
	if *maxprocs > 0 {
		kinds[0].env = []string{fmt.Sprintf("GOMAXPROCS=%d", *maxprocs)}
	}
	if *osmoBin != "" {
		if _, err := os.Stat(*osmoBin); err != nil {
			fmt.Fprintf(os.Stderr, "pcubench: %v: gopcu only\n", err)
		} else {
			kinds = append(kinds, pcuKind{name: "osmo-pcu", bin: *osmoBin})
		}
	}
	kinds = slices.DeleteFunc(kinds, func(k pcuKind) bool { return !slices.Contains(strings.Split(*pcus, ","), k.name) })
	if err := bench(ctx, os.Stdout, kinds, ws, *reps); err != nil {
		fail(err)
	}
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "pcubench:", err)
	os.Exit(1)
}

// bench runs every workload reps times on every PCU, interleaved, printing
// each run as it ends and the table at the end.
func bench(ctx context.Context, out io.Writer, kinds []pcuKind, ws []workload, reps int) error {
	all := map[string]map[string][]result{}
	seq, failed := 0, 0
	for _, w := range ws {
		all[w.name] = map[string][]result{}
		for rep := 0; rep < reps; rep++ {
			for i := range kinds {
				k := kinds[(i+rep)%len(kinds)] // alternate who goes first
				if w.bts > 1 && !k.gopcu {
					continue // a gopcu workload: osmo-pcu is not run on it
				}
				seq++
				r, err := runOne(ctx, k, w, seq)
				if ctx.Err() != nil {
					return ctx.Err()
				}
				if err != nil {
					// reported, left out of the table (a failing run is
					// a finding, not a reason to lose the others)
					fmt.Fprintf(os.Stderr, "  %-12s %-9s rep %d: FAILED: %v\n", w.name, k.name, rep+1, err)
					failed++
					continue
				}
				fmt.Fprintf(os.Stderr, "  %-12s %-9s rep %d: %s\n", w.name, k.name, rep+1, r.line())
				all[w.name][k.name] = append(all[w.name][k.name], r)
			}
		}
	}
	writeTable(out, kinds, ws, all)
	if failed > 0 {
		return fmt.Errorf("%d runs failed", failed)
	}
	return nil
}

func (r result) cpuPer1000() float64 {
	if r.blocks == 0 {
		return 0
	}
	return r.cpu.Seconds() * 1000 / float64(r.blocks)
}

func (r result) line() string {
	s := fmt.Sprintf("%d blocks, CPU %.3f s (%.2f ms/1000), max RSS %.1f MB", r.blocks, r.cpu.Seconds(), 1000*r.cpuPer1000(), float64(r.rss)/1e6)
	if r.lat != nil && r.lat.n() > 0 {
		s += ", latency " + r.lat.summary()
	}
	if r.blocks > 0 {
		s += fmt.Sprintf(", %.2f reads + %.2f writes/block", float64(r.reads)/float64(r.blocks), float64(r.writes)/float64(r.blocks))
	}
	if r.ul > 0 || r.dl > 0 {
		s += fmt.Sprintf(", UL %d blocks (%d resent), DL %d kB", r.ul, r.ulResent, r.dl/1000)
	}
	if r.wall > 0 && !r.rt {
		// virtual time: as fast as the PCU and the emulators go
		s += fmt.Sprintf(", %.0f blocks/s with the PCU at %.0f %% of a core", float64(r.blocks)/r.wall.Seconds(), 100*r.cpu.Seconds()/r.wall.Seconds())
	}
	if r.mallocs > 0 || r.gcs > 0 {
		s += fmt.Sprintf(", %.2f allocs/block, %.1f GC/100k blocks", r.mallocs/float64(r.blocks), r.gcs*1e5/float64(r.blocks))
	}
	return s
}

func median(xs []float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	s := slices.Clone(xs)
	slices.Sort(s)
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}

func minmax(xs []float64) (float64, float64) {
	return slices.Min(xs), slices.Max(xs)
}

// writeTable prints, per workload and PCU, the medians over the
// repetitions (min-max in brackets) and gopcu's ratio to osmo-pcu.
func writeTable(out io.Writer, kinds []pcuKind, ws []workload, all map[string]map[string][]result) {
	fmt.Fprintln(out, "| workload | PCU | blocks | CPU ms / 1000 blocks (min-max) | ratio | max RSS MB | latency p50 / p99 / max | allocs / block | GC / 100k blocks |")
	fmt.Fprintln(out, "|---|---|---:|---:|---:|---:|---|---:|---:|")
	for _, w := range ws {
		byKind := all[w.name]
		var ref float64
		if rs := byKind["osmo-pcu"]; len(rs) > 0 {
			ref = median(collect(rs, func(r result) float64 { return r.cpuPer1000() }))
		}
		for _, k := range kinds {
			rs := byKind[k.name]
			if len(rs) == 0 {
				continue
			}
			cpu := collect(rs, func(r result) float64 { return 1000 * r.cpuPer1000() })
			lo, hi := minmax(cpu)
			ratio := "-"
			if ref > 0 && k.name != "osmo-pcu" {
				ratio = fmt.Sprintf("%.2fx", median(cpu)/1000/ref)
			}
			rss := median(collect(rs, func(r result) float64 { return float64(r.rss) / 1e6 }))
			blocks := median(collect(rs, func(r result) float64 { return float64(r.blocks) }))
			lat := "-"
			if rs[0].lat != nil && rs[0].lat.n() > 0 {
				var m latencies
				for _, r := range rs {
					m.merge(r.lat)
				}
				lat = m.summary()
			}
			alloc, gc := "-", "-"
			if k.gopcu && !noMetrics {
				alloc = fmt.Sprintf("%.2f", median(collect(rs, func(r result) float64 { return r.mallocs / float64(max(r.blocks, 1)) })))
				gc = fmt.Sprintf("%.1f", median(collect(rs, func(r result) float64 { return r.gcs * 1e5 / float64(max(r.blocks, 1)) })))
			}
			cpuCol := fmt.Sprintf("%.1f (%.1f-%.1f)", median(cpu), lo, hi)
			if rs[0].rt {
				cpuCol += " rt"
			}
			fmt.Fprintf(out, "| %s | %s | %.0f | %s | %s | %.1f | %s | %s | %s |\n", w.name, k.name, blocks, cpuCol, ratio, rss, lat, alloc, gc)
		}
	}
}

func collect(rs []result, f func(result) float64) []float64 {
	out := make([]float64, len(rs))
	for i, r := range rs {
		out[i] = f(r)
	}
	return out
}

// runOne starts the BTS side and the PCU, waits for the PDCHs, measures
// the workload's phase and stops everything.
func runOne(ctx context.Context, k pcuKind, w workload, seq int) (result, error) {
	rd, err := newRunDir(seq)
	if err != nil {
		return result{}, err
	}
	defer rd.close()
	nsPort, err := freeUDPPort()
	if err != nil {
		return result{}, err
	}
	sgsnPort, err := freeUDPPort()
	if err != nil {
		return result{}, err
	}
	if w.stub {
		return runStub(ctx, k, w, rd, nsPort, sgsnPort)
	}
	if w.bts > 1 {
		return runScale(ctx, k, w, rd, nsPort, sgsnPort)
	}
	return runCell(ctx, k, w, rd, nsPort, sgsnPort)
}

// measure wraps the measured phase: CPU, runtime figures, max RSS.
func measure(ctx context.Context, p *pcuProc, phase func() (int, error)) (result, error) {
	// two scrapes back to back: the second minus the first is what a
	// scrape itself allocates, taken off the phase's figure
	ga := p.runtimeStats(ctx)
	g0 := p.runtimeStats(ctx)
	c0, err := p.cpu()
	if err != nil {
		return result{}, err
	}
	r0, w0 := p.ioCalls()
	start := time.Now()
	blocks, err := phase()
	wall := time.Since(start)
	if err != nil {
		return result{}, fmt.Errorf("%w\n%s log:\n%s", err, p.name, p.tailLog())
	}
	c1, err := p.cpu()
	if err != nil {
		return result{}, err
	}
	r1, w1 := p.ioCalls()
	g1 := p.runtimeStats(ctx)
	rss, err := p.maxRSS()
	if err != nil {
		return result{}, err
	}
	r := result{cpu: c1 - c0, blocks: blocks, rss: rss, reads: r1 - r0, writes: w1 - w0, wall: wall}
	if g0.ok && g1.ok {
		r.mallocs, r.gcs = max(g1.mallocs-g0.mallocs-(g0.mallocs-ga.mallocs), 0), g1.gcs-g0.gcs
	}
	return r, nil
}

func runStub(ctx context.Context, k pcuKind, w workload, rd *runDir, nsPort, sgsnPort int) (result, error) {
	s, err := listenStub(rd.sock, cellInfo(w.trx, w.mask, false, nsPort, sgsnPort))
	if err != nil {
		return result{}, err
	}
	defer s.close()
	p, err := k.start(rd, "")
	if err != nil {
		return result{}, err
	}
	defer p.stop()
	if err := s.accept(20 * time.Second); err != nil {
		return result{}, fmt.Errorf("%w\n%s log:\n%s", err, p.name, p.tailLog())
	}
	p.waitMetrics(ctx)
	// warm up: a few blocks before the measured phase
	if err := s.serial(2 * len(s.pdchs)); err != nil {
		return result{}, err
	}
	if w.timeInd {
		r, err := measure(ctx, p, func() (int, error) { return s.frames(w.duration) })
		r.rt = true
		return r, err
	}
	if w.realtime {
		lat := &latencies{}
		r, err := measure(ctx, p, func() (int, error) { return s.realtime(w.duration, lat) })
		r.lat, r.rt = lat, true
		return r, err
	}
	return measure(ctx, p, func() (int, error) { return w.rts, s.serial(w.rts) })
}
