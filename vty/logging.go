package vty

import (
	"bytes"
	"context"
	"fmt"
	"log/slog"
	"strconv"
	"strings"
	"sync"

	"github.com/gopcu/gopcu/internal/logx"
)

// LogCategory is one logging category as the VTY offers it.
type LogCategory struct {
	Name     string // VTY name, lower case ("rlcmac", "lns")
	Help     string // help line of the token
	Level    slog.Level
	Disabled bool // category off by default (osmo-pcu: csn1)
}

// LogTarget is one `log ...` target (libosmocore struct log_target): the
// per-target settings written back by `show running-config`.
type LogTarget struct {
	Kind       string // "stderr", "file", "syslog", "alarms", "gsmtap", "systemd-journal"
	Arg        string // file name, syslog facility, gsmtap host, alarm count
	Blocking   bool   // "blocking-io"
	Raw        bool   // systemd-journal raw
	FilterAll  bool
	Color      bool
	CatHex     bool
	Category   bool
	ThreadID   bool
	Timestamp  bool
	ExtTime    bool
	PrintLevel bool
	PrintFile  string // "0", "1", "basename"
	FileLast   bool
	// ForceAll is the level of `logging level force-all`, in force while
	// Forced says so (libosmocore log_target.loglevel, 0 = released).
	ForceAll slog.Level
	forceSet bool
	Levels   map[string]slog.Level
	// Disabled are the categories this target does not log at all
	// (libosmocore's per-target category "enabled" = 0): a new target
	// starts with the categories' defaults (osmo-pcu 1.1.0: csn1, lmi,
	// lmib), `logging level CAT LEVEL` and `logging level set-all` enable.
	Disabled map[string]bool
}

// Forced returns the `logging level force-all` level and whether it is
// set. While set it replaces every category's level for this target
// (libosmocore should_log_to_target ignores the category levels then);
// the category levels are kept and apply again after `no logging level
// force-all`.
func (t *LogTarget) Forced() (slog.Level, bool) { return t.ForceAll, t.forceSet }

// SetForceAll is `logging level force-all <level>`.
func (t *LogTarget) SetForceAll(l slog.Level) { t.ForceAll, t.forceSet = l, true }

// ReleaseForceAll is `no logging level force-all`.
func (t *LogTarget) ReleaseForceAll() { t.forceSet = false }

// Wants reports whether the target logs a record of the category and
// level by its levels (libosmocore: nothing of a disabled category, then
// the forced level alone while set, else the category's); the filter
// (FilterAll) is not looked at.
func (t *LogTarget) Wants(cat string, l slog.Level) bool {
	if t.Disabled[cat] {
		return false
	}
	if t.forceSet {
		return l >= t.ForceAll
	}
	if lv, ok := t.Levels[cat]; ok && l < lv {
		return false
	}
	return true
}

// LogxTarget is the target as a logx output named name writing to sink:
// its levels, enabled categories, force-all, filter and line format;
// catIndex numbers the categories for `logging print category-hex`
// (Logging.CatIndex). Categories the target has no level for (gopcu's own)
// are logged from NOTICE.
func (t *LogTarget) LogxTarget(name string, sink logx.Sink, catIndex map[string]int) *logx.Target {
	lt := &logx.Target{
		Name:      name,
		Levels:    make(map[string]slog.Level, len(t.Levels)),
		Default:   logx.LevelNotice,
		FilterAll: t.FilterAll,
		CatIndex:  catIndex,
		Colors:    logx.CategoryColors,
		Sink:      sink,
		Format: logx.Format{
			Timestamp:    t.Timestamp,
			ExtTimestamp: t.ExtTime,
			ThreadID:     t.ThreadID,
			Category:     t.Category,
			CategoryHex:  t.CatHex,
			Level:        t.PrintLevel,
			File:         logx.ParseFileMode(t.PrintFile),
			FileLast:     t.FileLast,
			Color:        t.Color,
		},
	}
	for k, l := range t.Levels {
		lt.Levels[k] = l
	}
	if len(t.Disabled) > 0 {
		lt.Disabled = make(map[string]bool, len(t.Disabled))
		for k, d := range t.Disabled {
			lt.Disabled[k] = d
		}
	}
	lt.ForceAll, lt.Force = t.Forced()
	return lt
}

// Logging is the logging configuration of the VTY: targets and the
// category table. `logging level` on any target also sets the level of the
// category in Registry (logx has one output, so it follows the last change).
// Telnet sessions that ran `logging enable` are outputs of the handler
// Server.LogHandler returns; Registry is told what they want (SetDemand),
// so their levels decide for them whatever the other targets' are.
type Logging struct {
	Categories []LogCategory
	Targets    []*LogTarget
	Registry   *logx.Registry

	syncMu  sync.Mutex
	vty     *VTY
	sessOut *logx.Fanout // of Server.LogHandler: the sessions' targets
}

// CatIndex numbers the categories as `logging print category-hex` prints
// them: libosmocore numbers them in the order of its table (osmo-pcu's,
// then the library's), which is the VTY's; the registry's other
// categories (gopcu's own) follow.
func (lg *Logging) CatIndex() map[string]int {
	idx := make(map[string]int, len(lg.Categories))
	for i, c := range lg.Categories {
		idx[c.Name] = i
	}
	if lg.Registry != nil {
		for _, c := range lg.Registry.Categories() {
			if _, ok := idx[c.Name]; !ok {
				idx[c.Name] = len(idx)
			}
		}
	}
	return idx
}

// defaultDisabled are the categories a new target does not log.
func (lg *Logging) defaultDisabled() map[string]bool {
	m := map[string]bool{}
	for _, c := range lg.Categories {
		if c.Disabled {
			m[c.Name] = true
		}
	}
	return m
}

// applyMask is `logging set-log-mask MASK` (libosmocore
// log_parse_category_mask): every category of t is switched off, then each
// ':'-separated entry switches on the categories it names by their
// libosmocore names ("DRLCMAC", "DLNS"; case-insensitive), with
// "NAME,LEVEL" at the libosmocore level number (1 debug, 3 info, 5 notice,
// 7 error, 8 fatal; an entry with a level names every category starting
// with NAME, as libosmocore's compare does), without a level at DEBUG.
func (lg *Logging) applyMask(t *LogTarget, mask string) {
	if t.Disabled == nil {
		t.Disabled = map[string]bool{}
	}
	for _, cat := range lg.Categories {
		t.Disabled[cat.Name] = true
	}
	for _, tok := range strings.Split(mask, ":") {
		name, lv, hasLevel := strings.Cut(tok, ",")
		level := logx.LevelDebug
		if hasLevel {
			n, _ := strconv.Atoi(lv)
			level = osmoLevel(n)
		}
		for _, cat := range lg.Categories {
			osmo := "D" + strings.ToUpper(cat.Name)
			match := strings.EqualFold(osmo, name)
			if hasLevel {
				match = len(name) <= len(osmo) && strings.EqualFold(osmo[:len(name)], name)
			}
			if !match {
				continue
			}
			delete(t.Disabled, cat.Name)
			if t.Levels != nil {
				t.Levels[cat.Name] = level
			}
			if lg.Registry != nil && t.Kind != "vty" {
				_ = lg.Registry.SetLevel(cat.Name, level)
			}
		}
	}
}

// osmoLevel maps a libosmocore level number onto a level (0 and 1 debug).
func osmoLevel(n int) slog.Level {
	switch {
	case n <= logx.OsmoDebug:
		return logx.LevelDebug
	case n <= logx.OsmoInfo:
		return logx.LevelInfo
	case n <= logx.OsmoNotice:
		return logx.LevelNotice
	case n <= logx.OsmoError:
		return logx.LevelError
	}
	return logx.LevelFatal
}

// defaultLogCategories derives the category table from logx.
func defaultLogCategories() []LogCategory {
	var out []LogCategory
	for _, c := range logx.DefaultCategories {
		out = append(out, LogCategory{Name: c.Name, Help: c.Description, Level: c.Default, Disabled: !c.Enabled})
	}
	return out
}

var logLevels = []struct {
	name, help string
	l          slog.Level
}{
	{"debug", "Log debug messages and higher levels", logx.LevelDebug},
	{"info", "Log informational messages and higher levels", logx.LevelInfo},
	{"notice", "Log noticeable messages and higher levels", logx.LevelNotice},
	{"error", "Log error messages and higher levels", logx.LevelError},
	{"fatal", "Log only fatal messages", logx.LevelFatal},
}

func levelName(l slog.Level) string {
	for _, x := range logLevels {
		if x.l == l {
			return x.name
		}
	}
	return strings.ToLower(logx.LevelName(l))
}

// NewTarget makes a target with libosmocore's defaults for a new target.
func (lg *Logging) NewTarget(kind, arg string) *LogTarget {
	t := &LogTarget{Kind: kind, Arg: arg, Color: true, CatHex: true, PrintFile: "1", Levels: map[string]slog.Level{},
		Disabled: lg.defaultDisabled()}
	for _, c := range lg.Categories {
		t.Levels[c.Name] = c.Level
	}
	if kind == "file" || kind == "syslog" || kind == "gsmtap" || kind == "alarms" || kind == "systemd-journal" {
		t.Color = false
	}
	lg.Targets = append(lg.Targets, t)
	return t
}

// Find returns the target of a kind and argument.
func (lg *Logging) Find(kind, arg string) *LogTarget {
	for _, t := range lg.Targets {
		if t.Kind == kind && (arg == "" || t.Arg == arg) {
			return t
		}
	}
	return nil
}

func (lg *Logging) remove(t *LogTarget) {
	for i, x := range lg.Targets {
		if x == t {
			lg.Targets = append(lg.Targets[:i], lg.Targets[i+1:]...)
			return
		}
	}
}

func (v *VTY) installLogging() {
	cats := v.Info.LogCategories
	if cats == nil {
		cats = defaultLogCategories()
	}
	lg := &Logging{Categories: cats, vty: v}
	v.Logging = lg
	logNode := v.addNode(LogNode, "config-log", "%s(config-log)# ", v.writeLog)

	var names []string
	var catHelp strings.Builder
	for _, c := range cats {
		names = append(names, c.Name)
		catHelp.WriteString(c.Help + "\n")
	}
	var lvNames []string
	var lvHelp strings.Builder
	for _, l := range logLevels {
		lvNames = append(lvNames, l.name)
		lvHelp.WriteString(l.help + "\n")
	}
	levelArgs := "(" + strings.Join(lvNames, "|") + ")"
	catArgs := "(" + strings.Join(names, "|") + ")"
	const lstr = "Configure logging\n"
	const pstr = "Log commands to print\n"

	target := func(c *Context) *LogTarget {
		if t, ok := c.Index().(*LogTarget); ok {
			return t
		}
		if s := c.Session(); s != nil {
			if t := s.LogTarget(); t != nil {
				return t
			}
		}
		return nil
	}
	need := func(h func(c *Context, t *LogTarget) error) Handler {
		return func(c *Context) error {
			t := target(c)
			if t == nil {
				return c.Warnf("%% Logging was not enabled.\n")
			}
			s := c.Session()
			if s == nil || t.Kind != "vty" {
				return h(c, t)
			}
			s.logMu.Lock()
			err := h(c, t)
			s.logMu.Unlock()
			lg.SyncSessions()
			return err
		}
	}
	bit := func(p func(t *LogTarget) *bool) Handler {
		return need(func(c *Context, t *LogTarget) error { *p(t) = c.Args[0] == "1"; return nil })
	}
	type tc struct {
		str, help string
		h         Handler
	}
	common := []tc{
		{"logging filter all (0|1)", lstr + "Filter log messages\nGlobal log filter\nDo you want to log all messages?\nOnly print messages matched by other filters\nBypass filter and print all messages\n",
			bit(func(t *LogTarget) *bool { return &t.FilterAll })},
		{"logging color (0|1)", lstr + "Configure color-printing for log messages\nDon't use color for printing messages\nUse color for printing messages\n",
			bit(func(t *LogTarget) *bool { return &t.Color })},
		{"logging timestamp (0|1)", lstr + "Configure log message timestamping\nDon't prefix each log message\nPrefix each log message with current timestamp\n",
			bit(func(t *LogTarget) *bool { return &t.Timestamp })},
		{"logging print extended-timestamp (0|1)", lstr + pstr + "Configure log message timestamping\nDon't prefix each log message\nPrefix each log message with current timestamp with YYYYMMDDhhmmssnnn\n",
			bit(func(t *LogTarget) *bool { return &t.ExtTime })},
		{"logging print thread-id (0|1)", lstr + pstr + "Configure log message logging Thread ID\nDon't prefix each log message\nPrefix each log message with current Thread ID\n",
			bit(func(t *LogTarget) *bool { return &t.ThreadID })},
		{"logging print category (0|1)", lstr + pstr + "Configure log message\nDon't prefix each log message\nPrefix each log message with category/subsystem name\n",
			bit(func(t *LogTarget) *bool { return &t.Category })},
		{"logging print category-hex (0|1)", lstr + pstr + "Configure log message\nDon't prefix each log message\nPrefix each log message with category/subsystem nr in hex ('<000b>')\n",
			bit(func(t *LogTarget) *bool { return &t.CatHex })},
		{"logging print level (0|1)", lstr + pstr + "Configure log message\nDon't prefix each log message\nPrefix each log message with the log level name\n",
			bit(func(t *LogTarget) *bool { return &t.PrintLevel })},
		{"logging print file (0|1|basename) [last]", lstr + pstr + "Prefix each log message with the source file and line\nDon't include filename or line number\nPrefix each log message with the source file's full path and line\nPrefix each log message with the source file's basename (strip leading paths) and line\nLog source file info at the end of a log line. If omitted, log source file info just before the log text.\n",
			need(func(c *Context, t *LogTarget) error {
				t.PrintFile = c.Args[0]
				t.FileLast = len(c.Args) > 1
				return nil
			})},
	}
	setLevel := need(func(c *Context, t *LogTarget) error {
		l, err := logx.ParseLevel(c.Args[1])
		if err != nil {
			return c.Warnf("%% Invalid level '%s'\n", c.Args[1])
		}
		if _, ok := t.Levels[c.Args[0]]; !ok {
			return c.Warnf("%% Invalid category '%s'\n", c.Args[0])
		}
		t.Levels[c.Args[0]] = l
		delete(t.Disabled, c.Args[0])
		if lg.Registry != nil && t.Kind != "vty" {
			_ = lg.Registry.SetLevel(c.Args[0], l)
		}
		return nil
	})
	levelCmds := []tc{
		{"logging level " + catArgs + " " + levelArgs, lstr + "Set the log level for a specified category\n" + catHelp.String() + lvHelp.String(), setLevel},
		{"logging level set-all " + levelArgs, lstr + "Set the log level for a specified category\nOnce-off set all categories to the given log level. There is no single command to take back these changes -- each category is set to the given level, period.\n" + lvHelp.String(),
			need(func(c *Context, t *LogTarget) error {
				l, _ := logx.ParseLevel(c.Args[0])
				for k := range t.Levels {
					t.Levels[k] = l
				}
				clear(t.Disabled)
				if lg.Registry != nil && t.Kind != "vty" {
					lg.Registry.SetAll(l)
				}
				return nil
			})},
		{"logging level force-all " + levelArgs, lstr + "Set the log level for a specified category\nGlobal setting for all subsystems\n" + lvHelp.String(),
			need(func(c *Context, t *LogTarget) error {
				l, err := logx.ParseLevel(c.Args[0])
				if err != nil {
					return c.Warnf("%% Invalid level '%s'\n", c.Args[0])
				}
				t.SetForceAll(l)
				return nil
			})},
		{"no logging level force-all", "Negate a command or set its defaults\n" + lstr + "Set the log level for a specified category\nRelease any globally forced log level set with 'logging level force-all <level>'\n",
			need(func(c *Context, t *LogTarget) error { t.ReleaseForceAll(); return nil })},
	}

	// deprecated forms, still accepted (libosmocore logging_vty.c)
	deprecatedLevel := []tc{
		{"logging level " + catArgs + " everything", lstr + "Set the log level for a specified category\n" + catHelp.String() + "Deprecated alias for 'debug'\n",
			func(c *Context) error {
				c.Print("% Ignoring deprecated logging level 'everything' keyword\n")
				return nil
			}},
		{"logging level all " + levelArgs, lstr + "Set the log level for a specified category\nDeprecated alias for 'force-all'\n" + lvHelp.String(), levelCmds[2].h},
		{"logging level all everything", lstr + "Set the log level for a specified category\nDeprecated alias for 'force-all'\nDeprecated alias for 'debug'\n", levelCmds[3].h},
	}

	// VIEW/ENABLE: session logging (libosmocore logging_vty_add_cmds order)
	v.InstallVE("logging enable", hp("logging enable", ""), func(c *Context) error {
		s := c.Session()
		if s == nil {
			return nil
		}
		if s.LogTarget() != nil {
			return c.Warnf("%% Logging already enabled.\n")
		}
		t := &LogTarget{Kind: "vty", Levels: map[string]slog.Level{}, PrintFile: "1", Color: true, CatHex: true,
			Disabled: lg.defaultDisabled()}
		for _, cat := range lg.Categories {
			t.Levels[cat.Name] = cat.Level
		}
		s.setLogTarget(t)
		lg.SyncSessions()
		return nil
	}, libCmd())
	v.InstallVE("logging disable", hp("logging disable", ""), func(c *Context) error {
		s := c.Session()
		if s == nil || s.LogTarget() == nil {
			return c.Warnf("%% Logging was not enabled.\n")
		}
		s.setLogTarget(nil)
		lg.SyncSessions()
		return nil
	}, libCmd())
	for _, x := range common {
		v.InstallVE(x.str, hp(x.str, x.help), x.h, libCmd())
	}
	setMask := need(func(c *Context, t *LogTarget) error {
		lg.applyMask(t, c.Args[0])
		return nil
	})
	v.InstallVE("logging set-log-mask MASK", hp("logging set-log-mask MASK", ""), setMask, libCmd())
	v.InstallVE("logging set log mask MASK", lstr+"Decide which categories to output.\nLog commands\nMask commands\n'set log mask' is deprecated, please refer to the docs of 'set-log-mask' instead\n",
		setMask, libCmd(), Deprecated())
	for _, x := range levelCmds {
		v.InstallVE(x.str, hp(x.str, x.help), x.h, libCmd())
	}
	for _, x := range deprecatedLevel {
		v.InstallVE(x.str, x.help, x.h, libCmd(), Deprecated())
	}
	v.InstallVE("logp "+catArgs+" "+levelArgs+" .LOGMESSAGE", "Print a message on all log outputs; useful for placing markers in test logs\n"+catHelp.String()+lvHelp.String()+"Arbitrary message to log on given category and log level\n", func(c *Context) error {
		if lg.Registry != nil {
			l, _ := logx.ParseLevel(c.Args[1])
			lg.Registry.Logger(c.Args[0]).Log(context.Background(), l, strings.Join(c.Args[2:], " "))
		}
		return nil
	}, libCmd())
	v.InstallVE("show logging vty", libHelp["show logging vty"], func(c *Context) error {
		t := target(c)
		if t == nil {
			return c.Warnf("%% Logging was not enabled.\n")
		}
		if s := c.Session(); s != nil && t.Kind == "vty" {
			s.logMu.Lock()
			defer s.logMu.Unlock()
		}
		showTarget(c, lg, t)
		return nil
	}, libCmd())
	v.InstallVE("show alarms", libHelp["show alarms"], func(c *Context) error {
		return c.Warnf("%% No alarms, run 'log alarms <2-32700>'\n")
	}, libCmd())

	// CONFIG: targets
	cfg := v.Config()
	enter := func(c *Context, kind, arg string, blocking bool) {
		t := lg.Find(kind, arg)
		if t == nil {
			t = lg.NewTarget(kind, arg)
		}
		if kind == "stderr" || kind == "file" {
			t.Blocking = blocking
		}
		c.Enter(LogNode, t)
	}
	del := func(c *Context, kind, arg, msg string) error {
		t := lg.Find(kind, arg)
		if t == nil {
			return c.Warnf("%s", msg)
		}
		lg.remove(t)
		return nil
	}
	cfg.lib("log stderr [blocking-io]", func(c *Context) error { enter(c, "stderr", "", len(c.Args) > 0); return nil })
	cfg.lib("no log stderr", func(c *Context) error { return del(c, "stderr", "", "% No stderr logging active\n") })
	cfg.lib("log file FILENAME [blocking-io]", func(c *Context) error { enter(c, "file", c.Args[0], len(c.Args) > 1); return nil })
	cfg.lib("no log file FILENAME", func(c *Context) error {
		return del(c, "file", c.Args[0], fmt.Sprintf("%% No such log file '%s'\n", c.Args[0]))
	})
	cfg.lib("log alarms <2-32700>", func(c *Context) error {
		if t := lg.Find("alarms", ""); t != nil {
			lg.remove(t)
		}
		enter(c, "alarms", c.Args[0], false)
		return nil
	})
	cfg.lib("no log alarms", func(c *Context) error { return del(c, "alarms", "", "% No osmo_strrb target found\n") })
	cfg.lib("log syslog (authpriv|cron|daemon|ftp|lpr|mail|news|user|uucp)", func(c *Context) error {
		if t := lg.Find("syslog", ""); t != nil {
			t.Arg = c.Args[0]
			c.Enter(LogNode, t)
			return nil
		}
		enter(c, "syslog", c.Args[0], false)
		return nil
	})
	cfg.lib("log syslog local <0-7>", func(c *Context) error {
		arg := "local" + c.Args[0]
		if t := lg.Find("syslog", ""); t != nil {
			t.Arg = arg
			c.Enter(LogNode, t)
			return nil
		}
		enter(c, "syslog", arg, false)
		return nil
	})
	cfg.lib("no log syslog", func(c *Context) error { return del(c, "syslog", "", "% No syslog target found\n") })
	cfg.lib("log systemd-journal [raw]", func(c *Context) error {
		enter(c, "systemd-journal", "", false)
		lg.Find("systemd-journal", "").Raw = len(c.Args) > 0
		return nil
	})
	cfg.lib("no log systemd-journal", func(c *Context) error {
		return del(c, "systemd-journal", "", "% No systemd-journal logging active\n")
	})
	cfg.lib("log gsmtap [HOSTNAME]", func(c *Context) error {
		h := "localhost"
		if len(c.Args) > 0 {
			h = c.Args[0]
		}
		enter(c, "gsmtap", h, false)
		return nil
	})
	cfg.lib("no log gsmtap [HOSTNAME]", func(c *Context) error {
		h := "localhost"
		if len(c.Args) > 0 {
			h = c.Args[0]
		}
		return del(c, "gsmtap", h, fmt.Sprintf("%% Unable to find GSMTAP log target for %s\n", h))
	})

	for _, x := range common {
		logNode.Install(x.str, hp(x.str, x.help), x.h, libCmd())
	}
	for _, x := range levelCmds {
		logNode.Install(x.str, hp(x.str, x.help), x.h, libCmd())
	}
	for _, x := range deprecatedLevel {
		logNode.Install(x.str, x.help, x.h, libCmd(), Deprecated())
	}
}

func onOff(b bool) string {
	if b {
		return "On"
	}
	return "Off"
}

func showTarget(c *Context, lg *Logging, t *LogTarget) {
	if t.forceSet {
		c.Printf(" Global Loglevel: %s\n", logx.LevelName(t.ForceAll))
	} else {
		c.Print(" Global Loglevel: unknown 0x0\n")
	}
	c.Printf(" Use color: %s, Print Timestamp: %s\n", onOff(t.Color), onOff(t.Timestamp))
	c.Print(" Log Level specific information:\n")
	for _, cat := range lg.Categories {
		en := "Enabled"
		if t.Disabled[cat.Name] {
			en = "Disabled"
		}
		c.Printf("  %-10s %-10s %-8s %s\n", strings.ToUpper(cat.Name), logx.LevelName(t.Levels[cat.Name]), en, cat.Help)
	}
	c.Printf(" Log Filter 'ALL': %s\n", map[bool]string{true: "Enabled", false: "Disabled"}[t.FilterAll])
}

func b01(b bool) int {
	if b {
		return 1
	}
	return 0
}

// writeLog writes every target (libosmocore config_write_log).
func (v *VTY) writeLog(c *Context) bool {
	lg := v.Logging
	for _, t := range lg.Targets {
		switch t.Kind {
		case "stderr":
			if t.Blocking {
				c.Print("log stderr blocking-io\n")
			} else {
				c.Print("log stderr\n")
			}
		case "file":
			if t.Blocking {
				c.Printf("log file %s blocking-io\n", t.Arg)
			} else {
				c.Printf("log file %s\n", t.Arg)
			}
		case "syslog":
			c.Printf("log syslog %s\n", t.Arg)
		case "alarms":
			c.Printf("log alarms %s\n", t.Arg)
		case "gsmtap":
			c.Printf("log gsmtap %s\n", t.Arg)
		case "systemd-journal":
			if t.Raw {
				c.Print("log systemd-journal raw\n")
			} else {
				c.Print("log systemd-journal\n")
			}
		}
		c.Printf(" logging filter all %d\n", b01(t.FilterAll))
		c.Printf(" logging color %d\n", b01(t.Color))
		c.Printf(" logging print category-hex %d\n", b01(t.CatHex))
		c.Printf(" logging print category %d\n", b01(t.Category))
		c.Printf(" logging print thread-id %d\n", b01(t.ThreadID))
		if t.ExtTime {
			c.Print(" logging print extended-timestamp 1\n")
		} else {
			c.Printf(" logging timestamp %d\n", b01(t.Timestamp))
		}
		if t.PrintLevel {
			c.Print(" logging print level 1\n")
		}
		last := ""
		if t.FileLast {
			last = " last"
		}
		c.Printf(" logging print file %s%s\n", t.PrintFile, last)
		if t.forceSet {
			c.Printf(" logging level force-all %s\n", levelName(t.ForceAll))
		}
		for _, cat := range lg.Categories {
			c.Printf(" logging level %s %s\n", cat.Name, levelName(t.Levels[cat.Name]))
		}
	}
	return true
}

// hp returns the recorded libosmocore help of a command, or fallback.
func hp(str, fallback string) string {
	if h, ok := libHelp[str]; ok {
		return h
	}
	return fallback
}

// SyncSessions makes the `logging enable` targets of the telnet sessions
// the outputs of the session handler (Server.LogHandler) and tells the
// Registry the lowest level each category is wanted at by any of them, so
// a session at debug sees debug records while every other output stays at
// its level. The VTY calls it whenever a session's logging changes.
func (lg *Logging) SyncSessions() {
	v := lg.vty
	if v == nil {
		return
	}
	lg.syncMu.Lock()
	defer lg.syncMu.Unlock()
	v.mu.Lock()
	list := make([]*Session, 0, len(v.sessions))
	for s := range v.sessions {
		list = append(list, s)
	}
	v.mu.Unlock()
	sortSessions(list)
	var idx map[string]int
	var targets []*logx.Target
	for _, s := range list {
		s.logMu.Lock()
		t, n := s.logTarget, s.notify
		if t != nil && n != nil {
			if idx == nil {
				idx = lg.CatIndex()
			}
			targets = append(targets, t.LogxTarget(fmt.Sprintf("vty %d", s.id), &sessionSink{n}, idx))
		}
		s.logMu.Unlock()
	}
	if lg.sessOut != nil {
		lg.sessOut.Configure(logx.FanoutConfig{Default: true, Targets: targets})
	}
	if lg.Registry == nil {
		return
	}
	var demand map[string]slog.Level
	if lg.sessOut != nil && len(targets) > 0 {
		demand = map[string]slog.Level{}
		for _, c := range lg.Registry.Categories() {
			min := logx.LevelOff
			for _, t := range targets {
				if l := t.MinLevel(c.Name); l < min {
					min = l
				}
			}
			if min < logx.LevelOff {
				demand[c.Name] = min
			}
		}
	}
	lg.Registry.SetDemand(lg, demand)
}

// sessionSink writes log lines to a telnet session (libosmocore
// _vty_output: the line, then "\r" when it holds a "\n").
type sessionSink struct{ notify func([]byte) }

func (n *sessionSink) Output(_ *logx.Entry, line []byte) error {
	b := make([]byte, 0, len(line)+1)
	b = append(b, line...)
	if bytes.IndexByte(line, '\n') >= 0 {
		b = append(b, '\r')
	}
	n.notify(b)
	return nil
}

func (n *sessionSink) Close() error { return nil }
