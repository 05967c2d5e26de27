// Command tcplab runs gopcu's real-TCP bufferbloat lab (root): Linux's own
// TCP (curl against an HTTP server) and ping run through gopcu over the
// emulated radio in real time, between network namespaces with TUN
// devices that the lab creates and removes. It runs the queue management
// scenarios one after the other and prints a Markdown table; -plot writes
// a PNG of ping RTT and queue delay over time.
//
//	go run ./cmd/tcplab                       # seed scenario: 1 MS, 360 kB
//	go run ./cmd/tcplab -ms 2                 # two MSs in parallel
//
// Interrupting it (Ctrl-C, SIGTERM) stops curl and ping and deletes the
// namespaces; namespaces of an earlier lab killed with SIGKILL are deleted
// at start.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
	"syscall"
	"time"

	"github.com/gopcu/gopcu/internal/emu/demo"
	"github.com/gopcu/gopcu/internal/emu/tcplab"
)

func main() {
	cfg := tcplab.DefaultConfig()
	demo.CellFlags(flag.CommandLine, &cfg.MSs, &cfg.CS, &cfg.Slots, &cfg.FileBytes)
	flag.IntVar(&cfg.IdlePings, "idle", cfg.IdlePings, "pings before the downloads start")
	flag.DurationVar(&cfg.PingInterval, "i", cfg.PingInterval, "ping interval (ping -i)")
	flag.IntVar(&cfg.MTU, "mtu", cfg.MTU, "TUN MTU")
	flag.IntVar(&cfg.N201U, "n201u", cfg.N201U, "LLC N201-U (SNDCP segments larger packets)")
	flag.IntVar(&cfg.RcvBuf, "rcvbuf", cfg.RcvBuf, "MS's TCP receive buffer maximum in octets (0: Linux default)")
	flag.StringVar(&cfg.CC, "cc", cfg.CC, "the HTTP server's TCP congestion control (cubic, reno, bbr; empty: the host's default)")
	scen := flag.String("scenario", "all", "all, off, osmo or gopcu")
	plot := flag.String("plot", "", "PNG plot file (empty: none)")
	quiet := flag.Bool("q", false, "no live status lines")
	trace := flag.String("trace", "", "file for a trace: the server's TCP state (ss -tin) every second, and every packet at the TUN devices in radio time")
	flag.Parse()
	if !*quiet {
		cfg.Status = os.Stdout
	}
	demo.Main("tcplab", func(ctx context.Context, dir string) error {
		cfg.Dir = dir
		return run(ctx, cfg, *scen, *plot, *trace)
	}, syscall.SIGHUP)
}

// run checks the host, deletes stale namespaces, runs the scenarios named
// by scen and prints their table (and the plot's file name).
func run(ctx context.Context, cfg tcplab.Config, scen, plot, trace string) error {
	if trace != "" {
		f, err := os.Create(trace)
		if err != nil {
			return err
		}
		defer f.Close()
		cfg.Trace = f
	}
	if err := tcplab.Check(); err != nil {
		return err
	}
	if gone := tcplab.CleanStale(); len(gone) > 0 {
		fmt.Printf("deleted stale namespaces: %s\n", strings.Join(gone, " "))
	}
	var scs []demo.Scenario
	for i, sc := range demo.Scenarios() {
		if scen == "all" || scen == []string{"off", "osmo", "gopcu"}[i] {
			scs = append(scs, sc)
		}
	}
	if len(scs) == 0 {
		return fmt.Errorf("unknown scenario %q", scen)
	}
	fmt.Printf("gopcu tcplab: %d MS, CS-%d on %d PDCHs, %d kB HTTP download per MS (Linux TCP, curl), ping -i %v, MTU %d, N201-U %d, MS rcvbuf %d, TCP %s, real time\n",
		cfg.MSs, cfg.CS, cfg.Slots, cfg.FileBytes>>10, cfg.PingInterval.Seconds(), cfg.MTU, cfg.N201U, cfg.RcvBuf, cfg.CC)
	var rows []tcplab.Row
	var results []*demo.Result
	start := time.Now()
	for _, sc := range scs {
		r, err := tcplab.Run(ctx, cfg, sc)
		if err != nil {
			if errors.Is(err, context.Canceled) || ctx.Err() != nil {
				fmt.Fprintln(os.Stderr, "tcplab: interrupted; namespaces removed")
				os.RemoveAll(cfg.Dir)
				os.Exit(130)
			}
			if r == nil {
				return err
			}
			fmt.Fprintln(os.Stderr, "tcplab:", err)
		}
		results = append(results, &r.Result)
		rows = append(rows, tcplab.Summarize(r, cfg))
		if r.TUNDrops > 0 || r.MaxLag > 100*time.Millisecond {
			fmt.Printf("note: %s: lab dropped %d packets, radio clock lagged up to %v\n", sc.Name, r.TUNDrops, r.MaxLag)
		}
	}
	return demo.Finish(os.Stdout, func(w io.Writer) { tcplab.WriteTable(w, rows) }, start, plot, results)
}
