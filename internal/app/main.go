// Package app is the gopcu daemon put together: the engine (pcu) with its
// config file and VTY (pcu/config, vty, pcu/daemon), log targets
// (internal/logx), stats reporters, Prometheus exporter and pcap capture
// (stats/*), GSMTAP, signals (reload, state dump) and systemd
// notification. cmd/gopcu parses the command line and the environment
// into Settings and runs a Daemon; tests/system starts its Gb rigs the
// same way.
//
// The file names are the ones the daemon's log lines carry with `logging
// print file` (main.go, signals.go, stats.go, logtargets.go), as when
// the code was cmd/gopcu's.
package app

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/netip"
	"os"
	"runtime/debug"
	"sort"
	"strconv"

	"github.com/gopcu/gopcu/bssgp/ns/nsudp"
	"github.com/gopcu/gopcu/gsmtap/gsmtapudp"
	"github.com/gopcu/gopcu/internal/logx"
	"github.com/gopcu/gopcu/internal/ratectr"
	"github.com/gopcu/gopcu/pcu"
	"github.com/gopcu/gopcu/pcu/config"
	pcud "github.com/gopcu/gopcu/pcu/daemon"
	"github.com/gopcu/gopcu/pcu/driver"
	"github.com/gopcu/gopcu/pcu/pcuif"
	"github.com/gopcu/gopcu/stats"
	"github.com/gopcu/gopcu/stats/prom"
	"github.com/gopcu/gopcu/vty"
	"github.com/gopcu/gopcu/vty/console"
)

// Options are what the program gives the daemon besides its Settings.
type Options struct {
	// Version is the build's version: `show version`, the start-up log
	// line and the TXT_IND to the BTS name it ("": pcu.Version).
	Version string
	// Logs is the log registry the daemon and the engine log through
	// (nil: logx.Discard()).
	Logs *logx.Registry
	// LogOutput is the *logx.Fanout Logs writes to: it gets the config
	// file's `log` targets as soon as the file is read, and telnet
	// sessions' `logging enable` reads it. nil (or another handler): the
	// outputs are left alone.
	LogOutput slog.Handler
	// Counters holds the rate counter groups (nil: a new registry).
	Counters *ratectr.Registry
	// Stderr is the writer of the `log stderr` target, the console's
	// errors and the stuck-shutdown message (nil: io.Discard).
	Stderr io.Writer
	// ListenUDP opens the NS sockets (nil: nsudp.ListenUDP); tests open
	// them in a network namespace.
	ListenUDP func(binds []netip.AddrPort, deliver func(nsudp.Datagram)) (*nsudp.UDP, error)
}

// Daemon is gopcu: the engine wired to its interfaces.
type Daemon struct {
	s       *Settings
	version string
	logs    *logx.Registry
	ctrs    *ratectr.Registry
	eng     *pcu.Engine
	v       *vty.VTY
	cfg     *config.Config
	base    slog.Handler
	stderr  io.Writer
	stats   *statsWiring
	tap     *gsmtapudp.UDPSender // nil: no gsmtap-remote-host
	drv     driver.Options       // the engine's driver (NS sockets)
}

// New reads the config file of s and builds the daemon: VTY, log
// targets (when o.LogOutput is the registry's fan-out), GSMTAP, pcap
// capture, Prometheus exporter and the engine. Nothing runs before Run;
// an error (config file, log target, pcap file) is start-up's end.
func New(s Settings, o Options) (*Daemon, error) {
	logs, base, ctrs, stderr := o.Logs, o.LogOutput, o.Counters, o.Stderr
	if logs == nil {
		logs = logx.Discard()
	}
	if ctrs == nil {
		ctrs = &ratectr.Registry{}
	}
	if stderr == nil {
		stderr = io.Discard
	}
	version := o.Version
	if version == "" {
		version = pcu.Version
	}
	v, cfg := config.New(version) // `show version`
	v.Logging.Registry = logs
	v.Stats.Counters = ctrs
	// The config file (osmo-pcu's syntax): a missing default file means
	// defaults, a missing or broken -c file stops start-up (osmo-pcu exits).
	if _, err := os.Stat(s.ConfigFile); err == nil || s.ConfigGiven {
		if err := v.ReadConfigFile(s.ConfigFile); err != nil {
			return nil, fmt.Errorf("config file: %w", err)
		}
	}
	if err := setLogLevelOption(v, s.LogLevel); err != nil {
		return nil, err
	}
	sock := cfg.SocketPath
	if s.SocketGiven {
		sock = s.PCUSocket
	}
	d := &Daemon{s: &s, version: version, cfg: cfg, base: base, v: v, drv: driver.Options{ListenUDP: o.ListenUDP}}
	if base != nil {
		// before anything logs: the config's targets, not the fan-out's
		// key=value default
		if err := applyLogTargets(v, logs, base, stderr, d.logOptions()); err != nil {
			closeLogTargets(base)
			return nil, err
		}
	}
	w := &statsWiring{d: d}
	d.stats = w
	params := d.Params()
	ecfg := pcu.Config{SocketPath: sock, PinVersion: pcuif.Version(s.PinVersion), Logs: logs, Counters: ctrs,
		Params: &params, Gb: true, PCUVersion: version}
	tapHost := cfg.GSMTAPHost
	if s.GSMTAPIP != "" { // -i overrides gsmtap-remote-host (osmo-pcu pcu_main.cpp handle_options())
		tapHost = s.GSMTAPIP
	}
	if tapHost != "" { // opened once at start, as osmo-pcu
		if tap, err := gsmtapudp.DialUDP(tapHost); err != nil {
			logs.Logger(logx.CatPCU).Error("GSMTAP disabled", "err", err)
		} else {
			d.tap, ecfg.GSMTAP = tap, tap
		}
	}
	if s.PcapFile != "" {
		c, err := openCapture(s.PcapFile, tapHost, s.PcapMaxMiB, s.PcapFiles)
		if err != nil {
			return nil, err
		}
		w.capture, ecfg.Capture = c, c
	}
	if s.MetricsAddr != "" {
		w.prom = prom.New(ctrs)
		w.gauges = newEngineGauges(w.prom)
		ecfg.Observer = promObserver{w.prom}
	}
	eng := pcu.New(ecfg)
	d.setMemoryLimit(params)
	pcud.InstallVTY(eng, v)
	d.logs, d.ctrs, d.eng, d.v, d.stderr = logs, ctrs, eng, v, stderr
	v.Stats.Report = w.report
	v.Stats.ShowStats = func(c *vty.Context, level string, skipZero bool) {
		o := stats.ShowOptions{SkipZero: skipZero}
		if level != "" {
			o.MaxLevel, _ = stats.ParseLevel(level)
		}
		stats.WriteShowStats(c, ctrs.Groups(), w.itemsNow(), o)
	}
	return d, nil
}

// Exec runs a VTY command inside the engine goroutine and then hands the
// (possibly changed) pcu node to the engine. Once the engine has stopped
// the command does not run at all (the VTY sessions learn it through
// daemonExecutor.Stopped).
func (d *Daemon) Exec(f func()) {
	// dropped: Call fails only once the engine has stopped; the session
	// learns it from daemonExecutor.Stopped
	_ = d.eng.Call(func() {
		f()
		p := d.Params()
		d.eng.SetParams(p)
		d.setMemoryLimit(p)
		d.reapplyLogTargets()
	})
}

// setMemoryLimit gives the Go runtime its soft memory limit from the
// process's memory bound (docs/reliability.md), unless GOMEMLIMIT sets one.
func (d *Daemon) setMemoryLimit(p pcu.Params) {
	if os.Getenv("GOMEMLIMIT") == "" {
		debug.SetMemoryLimit(pcu.SoftMemoryLimit(p))
	}
}

// daemonExecutor runs VTY handlers in the engine (vty.Executor) and tells
// the sessions when the engine has stopped (vty.StopNotifier).
type daemonExecutor struct{ d *Daemon }

func (x daemonExecutor) Do(f func())              { x.d.Exec(f) }
func (x daemonExecutor) Stopped() <-chan struct{} { return x.d.eng.Done() }

// Params are the engine parameters of the VTY's configuration (the pcu
// and ns nodes) and the settings' -m/-n override.
func (d *Daemon) Params() pcu.Params {
	p := pcud.ParamsFromConfig(d.cfg)
	p.NSTimers = pcud.NSTimersFromVTY(d.v.NS) // the `ns` node
	if d.s.MCC > 0 || d.s.MNC > 0 {
		p.OverrideMCC, p.OverrideMNC = d.s.MCC, d.s.MNC
	}
	return p
}

// VTY is the daemon's command tree (config file, telnet, console).
func (d *Daemon) VTY() *vty.VTY { return d.v }

// Engine is the daemon's engine.
func (d *Daemon) Engine() *pcu.Engine { return d.eng }

// Run serves the VTY (telnet, and the console if the settings ask for
// it), the stats reporters and the Prometheus exporter, tells systemd
// the daemon is ready, and runs the engine until ctx ends: then the VTY
// sessions end, the engine stops and the non-zero counters are logged.
// The error is a listener's (VTY, metrics) or a log target's, or the
// engine's.
func (d *Daemon) Run(ctx context.Context) error {
	if err := d.applyLogTargets(); err != nil { // `log file|gsmtap|...` of the config file
		return err
	}
	log := d.logs.Logger(logx.CatPCU)
	logx.Notice(log, "gopcu starting", "version", d.version)
	srv := vty.NewServer(d.v, daemonExecutor{d})
	if d.base != nil {
		d.logs.SetHandler(srv.LogHandler(d.base)) // `logging enable` in telnet sessions
	}
	addr := d.v.BindAddr(d.s.VTYPort)
	if d.s.VTYPortGiven || d.s.VTYBind != "127.0.0.1" {
		addr = net.JoinHostPort(d.s.VTYBind, strconv.Itoa(d.s.VTYPort))
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return fmt.Errorf("VTY: %w", err)
	}
	go srv.Serve(ln)
	defer srv.Close()
	logx.Notice(log, "VTY listening", "addr", ln.Addr().String())
	defer d.stats.close()
	if d.stats.prom != nil {
		ps, err := d.stats.prom.Serve(d.s.MetricsAddr)
		if err != nil {
			return fmt.Errorf("metrics: %w", err)
		}
		d.stats.promSrv = ps
		logx.Notice(log, "Prometheus metrics", "url", "http://"+ps.Addr().String()+"/metrics")
	}
	go d.stats.run(ctx)
	if d.s.Console {
		go d.console(ctx)
	}
	if err := sdNotify("READY=1\nSTATUS=VTY on " + ln.Addr().String()); err != nil {
		logx.Notice(log, "sd_notify", "err", err)
	}
	// Stop order: the VTY sessions end while the engine still runs their
	// commands, then the engine stops.
	// The counter groups are taken while the engine still runs: its stop
	// closes the Gb, whose bssgp and ns groups go with it.
	engCtx, stopEngine := context.WithCancel(context.Background())
	atStop := make(chan []*ratectr.Group, 1)
	go func() {
		<-ctx.Done()
		srv.Close()
		var gs []*ratectr.Group
		// dropped: Call fails only once the engine has stopped; then no
		// group is read and the exit lines list none
		_ = d.eng.Call(func() { gs = d.ctrs.Groups() })
		atStop <- gs
		stopEngine()
	}()
	err = driver.Run(engCtx, d.eng, d.drv)
	if d.tap != nil {
		d.tap.Close()
	}
	stopEngine()
	_ = sdNotify("STOPPING=1") // dropped: systemd's socket gone at exit; nothing left to count it

	var before []*ratectr.Group
	select {
	case before = <-atStop:
	default: // the engine ended on its own
	}
	// Leave the counters in the log: operators and the lab test read them.
	logCountersAtExit(log, exitGroups(before, d.ctrs.Groups()))
	return err
}

// exitGroups is every group of a and b once, ordered by name then index:
// the groups registered while the engine ran (a) and at exit (b). A group
// freed in between keeps its values, read at exit.
func exitGroups(a, b []*ratectr.Group) []*ratectr.Group {
	seen := map[*ratectr.Group]bool{}
	var out []*ratectr.Group
	for _, g := range append(append([]*ratectr.Group(nil), a...), b...) {
		if !seen[g] {
			seen[g] = true
			out = append(out, g)
		}
	}
	sort.SliceStable(out, func(i, j int) bool {
		if out[i].Name != out[j].Name {
			return out[i].Name < out[j].Name
		}
		return out[i].Index < out[j].Index
	})
	return out
}

// logCountersAtExit logs every non-zero counter of groups at NOTICE
// ("counter at exit group=bts index=0 name=rlc:sent value=2686").
func logCountersAtExit(log *slog.Logger, groups []*ratectr.Group) {
	for _, g := range groups {
		for i, desc := range g.Descs {
			if v := g.Value(i); v != 0 {
				if g.IndexName != "" {
					logx.Notice(log, "counter at exit", "group", g.Name, "index", g.Index, "index_name", g.IndexName, "name", desc.Name, "value", v)
					continue
				}
				logx.Notice(log, "counter at exit", "group", g.Name, "index", g.Index, "name", desc.Name, "value", v)
			}
		}
	}
}

// console attaches an interactive VTY console (readline) to the terminal.
func (d *Daemon) console(ctx context.Context) {
	if err := console.Run(d.v, daemonExecutor{d}, console.Config{}); err != nil {
		fmt.Fprintf(d.stderr, "gopcu: console: %v\n", err)
	}
}
