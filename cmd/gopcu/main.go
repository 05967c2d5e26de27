// Command gopcu is the gopcu daemon: an Osmocom-compatible GPRS PCU. It
// connects to OsmoBTS over the PCU socket and to the SGSN over Gb, and is
// configured like osmo-pcu (config file, telnet VTY). This package is the
// process: command line and environment, exit codes and the signal
// hook-up; the daemon itself is internal/app.
package main

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"os"

	"github.com/gopcu/gopcu/internal/app"
	"github.com/gopcu/gopcu/internal/logx"
	"github.com/gopcu/gopcu/internal/ratectr"
)

// Exit codes, as osmo-pcu's where it has them (osmo-pcu src/pcu_main.cpp:
// return 0 after the main loop, exit(1) for a broken -c file or a VTY that
// cannot listen; libosmocore's option handling exit(2) for an unknown
// --vty-ref-mode).
const (
	exitOK       = 0 // normal end: SIGTERM/SIGINT, -h, -V, --vty-ref-xml
	exitFailure  = 1 // bad option, config file, VTY/metrics listen, log target
	exitUsage    = 2 // unknown --vty-ref-mode
	exitShutdown = 3 // SIGTERM/SIGINT, but the shutdown did not finish within the grace time (app.Daemon.HandleSignals)
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
		fmt.Fprintf(stdout, "gopcu version %s\n", fullVersion())
		return 0
	}
	if s.VTYRefXML {
		return writeVTYRef(s, stdout, stderr)
	}
	// The outputs are the config's `log` targets (internal/app's
	// applyLogTargets); the fan-out's own handler writes the key=value
	// lines of --log-format logfmt.
	base := logx.NewFanout(slog.NewTextHandler(stderr, logx.HandlerOptions()))
	d, err := newDaemon(s, logx.New(base), base, &ratectr.Registry{}, stderr)
	if err != nil {
		fmt.Fprintf(stderr, "gopcu: %v\n", err)
		return 1
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	// SIGTERM/SIGINT (a second one kills), SIGHUP, SIGUSR1/2
	d.HandleSignals(ctx, cancel, func() { os.Exit(exitShutdown) })
	if err := d.Run(ctx); err != nil {
		fmt.Fprintf(stderr, "gopcu: %v\n", err)
		return exitFailure
	}
	return exitOK
}

// newDaemon builds the daemon of s with gopcu's version (app.New): logs
// is the log registry, base the *logx.Fanout it writes to, which gets the
// config file's `log` targets as soon as the file is read (nil: left
// alone), stderr the `log stderr` target's writer.
func newDaemon(s *settings, logs *logx.Registry, base slog.Handler, ctrs *ratectr.Registry, stderr io.Writer) (*app.Daemon, error) {
	return app.New(s.Settings, app.Options{Version: fullVersion(), Logs: logs, LogOutput: base, Counters: ctrs, Stderr: stderr})
}
