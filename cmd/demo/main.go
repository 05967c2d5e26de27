// Command demo is gopcu's main job with no BTS, SGSN or root: gopcu runs
// with its BTS, MS and SGSN emulators in one process; every MS gets a
// TCP-like bulk download and a ping every second, once per queue
// management scenario (osmo-pcu without CoDel, osmo-pcu's CoDel, gopcu's
// default). It prints a live status line per MS and second, then a table,
// and writes a PNG plot of ping RTT and queue delay over time.
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/gopcu/gopcu/internal/emu/demo"
)

func main() {
	cfg := demo.DefaultConfig()
	demo.CellFlags(flag.CommandLine, &cfg.MSs, &cfg.CS, &cfg.Slots, &cfg.FileBytes)
	fast := flag.Bool("fast", false, "virtual time: run as fast as the CPU allows instead of real time")
	scen := flag.String("scenario", "all", "all (off, osmo, gopcu), aqm (off, osmo, codel, pie, fq-codel, fq-pie, sfq-red) or one of those names")
	ecn := flag.Bool("ecn", false, "the demo's TCP uses ECN (data ECT(0), CE echoed): gopcu marks instead of dropping")
	plot := flag.String("plot", "demo.png", "PNG plot file (empty: none)")
	loss := flag.Float64("loss", 0, "radio block loss rate (0..1)")
	quiet := flag.Bool("q", false, "no live status lines")
	flag.BoolVar(&cfg.PingFromNet, "ping-from-net", false, "the network pings the MS (default: the MS pings the server, as the seed's phone)")
	flag.Parse()
	cfg.RealTime = !*fast
	cfg.DLLoss = *loss
	if !*quiet {
		cfg.Status = os.Stdout
	}
	demo.Main("demo", func(ctx context.Context, dir string) error {
		cfg.Dir = dir
		return run(ctx, cfg, *scen, *ecn, *plot)
	})
}

// run runs the scenarios named by scen and prints their table (and the
// plot's file name).
func run(ctx context.Context, cfg demo.Config, scen string, ecn bool, plot string) error {
	var scs []demo.Scenario
	switch scen {
	case "all":
		scs = demo.Scenarios()
	case "aqm":
		scs = demo.AQMScenarios()
	default:
		for _, sc := range append(demo.Scenarios(), demo.AQMScenarios()...) {
			if sc.Key == scen && len(scs) == 0 {
				scs = append(scs, sc)
			}
		}
	}
	if ecn {
		scs = demo.WithECN(scs)
	}
	if len(scs) == 0 {
		return fmt.Errorf("unknown scenario %q", scen)
	}
	fmt.Printf("gopcu demo: %d MS, CS-%d on %d PDCHs (%.0f kbit/s LLC payload per MS at most), %d kB download per MS, %s every %v, %s\n",
		cfg.MSs, cfg.CS, cfg.Slots, float64([]int{0, 20, 30, 36, 50}[cfg.CS]*8*50*min(cfg.Slots, 4))/1000, cfg.FileBytes>>10,
		map[bool]string{true: "the network pings each MS", false: "each MS pings the server"}[cfg.PingFromNet], cfg.PingInterval,
		map[bool]string{true: "real time", false: "virtual time"}[cfg.RealTime])
	var rows []demo.Summary
	var results []*demo.Result
	start := time.Now()
	for _, sc := range scs {
		r, err := demo.Run(ctx, cfg, sc)
		if err != nil {
			return err
		}
		results = append(results, r)
		rows = append(rows, demo.Summarize(r, cfg))
	}
	return demo.Finish(os.Stdout, func(w io.Writer) { demo.WriteTable(w, rows) }, start, plot, results)
}
