// Command gopcu is the gopcu daemon: an Osmocom-compatible GPRS PCU. It
// connects to OsmoBTS over the PCU socket and (as the Gb work lands) to
// the SGSN, and is configured like osmo-pcu (config file, telnet VTY).
package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"

	"github.com/gopcu/gopcu/internal/logx"
	"github.com/gopcu/gopcu/internal/ratectr"
	"github.com/gopcu/gopcu/pcu"
	"github.com/gopcu/gopcu/pcu/pcuif"
)

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

func run(args []string, stdout, stderr io.Writer) int {
	s, err := parseSettings(args, stderr)
	if err != nil {
		fmt.Fprintf(stderr, "gopcu: %v\n", err)
		return 1
	}
	if s.Help {
		return 0
	}
	if s.Version {
		fmt.Fprintf(stdout, "gopcu version %s\n", pcu.Version)
		return 0
	}
	logs := logx.NewText(stderr)
	if s.LogLevel != "" {
		l, err := logx.ParseLevel(s.LogLevel)
		if err != nil {
			fmt.Fprintf(stderr, "gopcu: %v\n", err)
			return 1
		}
		logs.SetAll(l)
	}
	d, err := newDaemon(s, logs, &ratectr.Registry{}, stdout, stderr)
	if err != nil {
		fmt.Fprintf(stderr, "gopcu: %v\n", err)
		return 1
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	signal.Ignore(syscall.SIGPIPE)
	if err := d.run(ctx); err != nil {
		fmt.Fprintf(stderr, "gopcu: %v\n", err)
		return 1
	}
	return 0
}

// daemon wires the engine and its interfaces.
type daemon struct {
	s      *settings
	logs   *logx.Registry
	ctrs   *ratectr.Registry
	eng    *pcu.Engine
	stdout io.Writer
	stderr io.Writer
}

func newDaemon(s *settings, logs *logx.Registry, ctrs *ratectr.Registry, stdout, stderr io.Writer) (*daemon, error) {
	sock := pcu.DefaultSocketPath
	if s.SocketGiven {
		sock = s.PCUSocket
	}
	params := pcu.DefaultParams()
	if s.MCC > 0 || s.MNC > 0 {
		params.OverrideMCC, params.OverrideMNC = s.MCC, s.MNC
	}
	eng := pcu.New(pcu.Config{SocketPath: sock, PinVersion: pcuif.Version(s.PinVersion), Logs: logs, Counters: ctrs,
		Params: &params, Gb: true})
	return &daemon{s: s, logs: logs, ctrs: ctrs, eng: eng, stdout: stdout, stderr: stderr}, nil
}

func (d *daemon) run(ctx context.Context) error {
	log := d.logs.Logger(logx.CatPCU)
	logx.Notice(log, "gopcu starting", "version", pcu.Version)
	err := d.eng.Run(ctx)
	// Leave the counters in the log: operators and the lab test read them.
	for _, g := range d.ctrs.Groups() {
		for i, desc := range g.Descs {
			if v := g.Value(i); v != 0 {
				logx.Notice(log, "counter at exit", "group", g.Name, "index", g.Index, "name", desc.Name, "value", v)
			}
		}
	}
	return err
}
