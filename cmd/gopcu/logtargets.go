package main

import (
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"reflect"
	"sync"

	"github.com/gopcu/gopcu/internal/logx"
	"github.com/gopcu/gopcu/pcu"
	"github.com/gopcu/gopcu/pcu/config"
	"github.com/gopcu/gopcu/vty"
)

// logGSMTAPPort is the UDP port `log gsmtap HOST` sends to (libosmocore:
// GSMTAP_UDP_PORT); tests point it elsewhere.
var logGSMTAPPort = logx.GSMTAPPort

// logApplyMu serialises applyLogTargets.
var logApplyMu sync.Mutex

// applyLogTargets makes the VTY's `log stderr|file|syslog|gsmtap` targets
// the outputs of base, which must be the *logx.Fanout the registry writes
// to (anything else: nothing to do). Call it once after the config file
// was read and again after every VTY command that may change logging; it
// runs where the VTY commands run (it reads v.Logging).
//
// The `log stderr` target osmo-pcu has at start-up, while unchanged, is
// gopcu's default stderr output (slog text lines, as before there were
// targets) with the categories' default levels and enabled flags (csn1
// off, as osmo-pcu), or defLevel for all of them, all enabled, when not
// empty (--log-level); `no log stderr` removes it. The registry's category
// levels become the lowest level any output wants (disabled where none
// wants the category) and each output filters for itself; telnet sessions
// add their wishes to the registry themselves (vty.Logging.SyncSessions). Files and GSMTAP sockets stay open from
// one call to the next. Targets that cannot be opened are left out and
// reported in the error; `log alarms` and `log systemd-journal` are
// accepted by the VTY but inert.
func applyLogTargets(v *vty.VTY, logs *logx.Registry, base slog.Handler, stderr io.Writer, defLevel string) error {
	fan, ok := base.(*logx.Fanout)
	if !ok || v == nil || v.Logging == nil || logs == nil {
		return nil
	}
	logApplyMu.Lock()
	defer logApplyMu.Unlock()
	defLevels := map[string]slog.Level{}
	for _, c := range v.Logging.Categories {
		defLevels[c.Name] = c.Level
		if c.Disabled {
			defLevels[c.Name] = logx.LevelOff
		}
	}
	for _, c := range logs.Categories() {
		if _, ok := defLevels[c.Name]; !ok {
			defLevels[c.Name] = logx.LevelNotice
			if !defaultEnabled(c.Name) {
				defLevels[c.Name] = logx.LevelOff
			}
		}
	}
	if defLevel != "" {
		l, err := logx.ParseLevel(defLevel)
		if err != nil {
			return err
		}
		for k := range defLevels {
			defLevels[k] = l
		}
	}
	hadTargets := len(fan.Config().Targets) > 0
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
		if isDefaultStderr(vt) {
			cfg.Default = true
			continue
		}
		name := vt.Kind
		if vt.Arg != "" {
			name += " " + vt.Arg
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
		cfg.Targets = append(cfg.Targets, t)
	}
	if cfg.Default {
		// Always: telnet sessions may make the registry emit more.
		cfg.DefaultLevels = defLevels
	}
	fan.Configure(cfg)

	// Registry levels: the lowest any output wants.
	if len(cfg.Targets) > 0 || hadTargets || defLevel != "" {
		for _, c := range logs.Categories() {
			min := logx.LevelOff
			if cfg.Default {
				min = defLevels[c.Name]
			}
			for _, t := range cfg.Targets {
				min = minLevel(min, t.MinLevel(c.Name))
			}
			if min >= logx.LevelOff { // no output wants the category
				_ = logs.SetEnabled(c.Name, false)
				continue
			}
			_ = logs.SetLevel(c.Name, min)
		}
	}
	return errors.Join(errs...)
}

// defaultEnabled is a logx category's enabled flag at start-up.
func defaultEnabled(cat string) bool {
	for _, c := range logx.DefaultCategories {
		if c.Name == cat {
			return c.Enabled
		}
	}
	return true
}

func minLevel(a, b slog.Level) slog.Level {
	if b < a {
		return b
	}
	return a
}

var (
	defStderrOnce sync.Once
	defStderr     vty.LogTarget
)

// isDefaultStderr reports whether t is the `log stderr` target exactly as
// osmo-pcu has it at start-up (config.New): then gopcu's own stderr output
// (slog text lines, which tools and tests parse) stays instead of
// libosmocore-formatted lines. Any change to it (a `log stderr` section
// with other settings in the config file, a VTY command) makes it a
// target like the others.
func isDefaultStderr(t *vty.LogTarget) bool {
	if t.Kind != "stderr" {
		return false
	}
	defStderrOnce.Do(func() {
		v, _ := config.New(pcu.Version)
		if d := v.Logging.Find("stderr", ""); d != nil {
			defStderr = *d
		}
	})
	return reflect.DeepEqual(*t, defStderr)
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
		return logx.DialGSMTAP(vt.Arg, logGSMTAPPort, ident)
	case "syslog":
		return logx.OpenSyslog(vt.Arg, ident)
	}
	return nil, nil
}

// applyLogTargets is applyLogTargets on the daemon's VTY, registry and
// outputs.
func (d *daemon) applyLogTargets() error {
	lv := ""
	if d.s != nil {
		lv = d.s.LogLevel
	}
	return applyLogTargets(d.v, d.logs, d.base, d.stderr, lv)
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
func (d *daemon) reapplyLogTargets() {
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
