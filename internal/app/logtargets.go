package app

import (
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"sync"

	"github.com/gopcu/gopcu/internal/logx"
	"github.com/gopcu/gopcu/internal/logx/netsink"
	"github.com/gopcu/gopcu/vty"
)

// logGSMTAPPort is the UDP port `log gsmtap HOST` sends to (libosmocore:
// GSMTAP_UDP_PORT); tests point it elsewhere.
var logGSMTAPPort = logx.GSMTAPPort

// logApplyMu serialises applyLogTargets.
var logApplyMu sync.Mutex

// Log line formats of the `log stderr` target (--log-format,
// GOPCU_LOG_FORMAT).
const (
	// LogFormatOsmocom: libosmocore's line layout as the target's
	// `logging print ...`, `logging color` and `logging timestamp` say,
	// exactly what `show running-config` shows (osmo-pcu's default
	// target, without a `log` node: colour, "<000c>" category number,
	// "file.go:123", no timestamp).
	LogFormatOsmocom = "osmocom"
	// LogFormatLogfmt: gopcu's extension for log collectors, one
	// key=value line per record (time=... level=NOTICE msg="..." k=v
	// cat=pcu) with the target's levels and filter; its print, colour and
	// timestamp settings do not apply.
	LogFormatLogfmt = "logfmt"
)

// ParseLogFormat checks a --log-format value ("" is the default).
func ParseLogFormat(s string) (string, error) {
	switch s {
	case "", LogFormatOsmocom:
		return LogFormatOsmocom, nil
	case LogFormatLogfmt:
		return LogFormatLogfmt, nil
	}
	return "", fmt.Errorf("--log-format %q: must be %s or %s", s, LogFormatOsmocom, LogFormatLogfmt)
}

// applyLogTargets makes the VTY's `log stderr|file|syslog|gsmtap` targets
// the outputs of base, which must be the *logx.Fanout the registry writes
// to (anything else: nothing to do). Call it once after the config file
// was read and again after every VTY command that may change logging; it
// runs where the VTY commands run (it reads v.Logging).
//
// Every target is what `show running-config` says it is: `log stderr`
// too, which without a `log` node in the config file is osmo-pcu 1.1.0's
// start-up target (config.New), so gopcu's stderr looks like osmo-pcu's.
// Only format logfmt (--log-format) makes the `log stderr` target write
// key=value lines through base's default handler instead, with that
// target's levels and filter. The registry's category levels become the
// lowest level any output wants (disabled where none wants the category)
// and each output filters for itself; telnet sessions add their wishes to
// the registry themselves (vty.Logging.SyncSessions). Files and GSMTAP
// sockets stay open from one call to the next. Targets that cannot be
// opened are left out and reported in the error; `log alarms` and `log
// systemd-journal` are accepted by the VTY but inert.
func applyLogTargets(v *vty.VTY, logs *logx.Registry, base slog.Handler, stderr io.Writer, o logOptions) error {
	fan, ok := base.(*logx.Fanout)
	if !ok || v == nil || v.Logging == nil || logs == nil {
		return nil
	}
	logApplyMu.Lock()
	defer logApplyMu.Unlock()
	lg := v.Logging
	old := map[string]logx.Sink{}
	for _, t := range fan.Config().Targets {
		old[t.Name] = t.Sink
	}
	catIndex := lg.CatIndex() // `logging print category-hex`
	ident := v.Info.Name
	if ident == "" {
		ident = "gopcu"
	}
	cfg := logx.FanoutConfig{}
	var errs []error
	for _, vt := range lg.Targets {
		name := vt.Kind
		if vt.Arg != "" {
			name += " " + vt.Arg
		}
		if vt.Kind == "stderr" && o.Format == LogFormatLogfmt {
			t := vt.LogxTarget(name, nil, catIndex)
			if o.Level != nil {
				t.Default = *o.Level
			}
			cfg.Default = true
			cfg.DefaultLevels = map[string]slog.Level{}
			for _, c := range logs.Categories() {
				cfg.DefaultLevels[c.Name] = t.MinLevel(c.Name)
			}
			continue
		}
		sink, err := openLogSink(vt, name, old[name], ident, stderr)
		if err != nil {
			var pe *os.PathError
			if errors.As(err, &pe) {
				err = pe.Err // the name is in the message already
			}
			errs = append(errs, fmt.Errorf("log %s: %w", name, err))
			continue
		}
		if sink == nil {
			continue
		}
		t := vt.LogxTarget(name, sink, catIndex)
		if vt.Kind == "stderr" && o.Level != nil {
			// gopcu's own categories (no `logging level` for them) follow
			// --log-level on stderr
			t.Default = *o.Level
		}
		cfg.Targets = append(cfg.Targets, t)
	}
	fan.Configure(cfg)

	// Registry levels: the lowest any output wants.
	for _, c := range logs.Categories() {
		min := logx.LevelOff
		if cfg.Default {
			if l, ok := cfg.DefaultLevels[c.Name]; ok {
				min = l
			} else {
				min = logx.LevelNotice
			}
		}
		for _, t := range cfg.Targets {
			min = minLevel(min, t.MinLevel(c.Name))
		}
		if min >= logx.LevelOff { // no output wants the category
			errs = append(errs, logs.SetEnabled(c.Name, false))
			continue
		}
		errs = append(errs, logs.SetLevel(c.Name, min))
	}
	return errors.Join(errs...)
}

func minLevel(a, b slog.Level) slog.Level {
	if b < a {
		return b
	}
	return a
}

// logOptions are the process options that shape the log outputs.
type logOptions struct {
	Format string      // LogFormatOsmocom ("" too) or LogFormatLogfmt (--log-format)
	Level  *slog.Level // --log-level: also the stderr level of gopcu's own categories
}

// setLogLevelOption applies --log-level to the `log stderr` target as
// `logging level set-all LEVEL` would (every category at that level and
// enabled), so that `show running-config` (and `write file`) show the
// levels in force.
func setLogLevelOption(v *vty.VTY, level string) error {
	if level == "" || v == nil || v.Logging == nil {
		return nil
	}
	l, err := logx.ParseLevel(level)
	if err != nil {
		return err
	}
	for _, t := range v.Logging.Targets {
		if t.Kind != "stderr" {
			continue
		}
		for k := range t.Levels {
			t.Levels[k] = l
		}
		clear(t.Disabled)
	}
	return nil
}

// openLogSink returns the sink of a VTY target, reusing old (same kind and
// argument) when there is one; nil, nil for the inert kinds.
func openLogSink(vt *vty.LogTarget, name string, old logx.Sink, ident string, stderr io.Writer) (logx.Sink, error) {
	if old != nil {
		return old, nil
	}
	switch vt.Kind {
	case "stderr":
		return &logx.WriterSink{W: stderr}, nil
	case "file":
		return logx.OpenFile(vt.Arg)
	case "gsmtap":
		return netsink.DialGSMTAP(vt.Arg, logGSMTAPPort, ident)
	case "syslog":
		return netsink.OpenSyslog(vt.Arg, ident)
	}
	return nil, nil
}

// applyLogTargets is applyLogTargets on the daemon's VTY, registry and
// outputs.
func (d *Daemon) applyLogTargets() error {
	return applyLogTargets(d.v, d.logs, d.base, d.stderr, d.logOptions())
}

// logOptions are the daemon's --log-format and --log-level.
func (d *Daemon) logOptions() logOptions {
	var o logOptions
	if d.s == nil {
		return o
	}
	o.Format = d.s.LogFormat
	if l, err := logx.ParseLevel(d.s.LogLevel); err == nil && d.s.LogLevel != "" {
		o.Level = &l
	}
	return o
}

// closeLogTargets closes the files and sockets of the targets and leaves
// the default output.
func closeLogTargets(base slog.Handler) {
	if fan, ok := base.(*logx.Fanout); ok {
		fan.Close()
	}
}

var lastLogTargetErr string // reapplyLogTargets reports each error once

// reapplyLogTargets is applyLogTargets after a VTY command: an error (a
// file that cannot be opened) is logged once, the other targets work.
func (d *Daemon) reapplyLogTargets() {
	err := d.applyLogTargets()
	msg := ""
	if err != nil {
		msg = err.Error()
	}
	logApplyMu.Lock()
	changed := msg != lastLogTargetErr
	lastLogTargetErr = msg
	logApplyMu.Unlock()
	if changed && err != nil && d.logs != nil {
		d.logs.Logger(logx.CatVTY).Error("log target", "err", err)
	}
}
