package vty

import (
	"strconv"

	"github.com/gopcu/gopcu/internal/ratectr"
)

// WriteRateCounters prints every group as libosmocore's `show
// rate-counters` does: "<description> <index>:" (or "<description> <index>
// (<name>):" for a named group) then
// "%25s: %10d (%d/s %d/m %d/h %d/d) <counter description>" per counter.
func WriteRateCounters(c *Context, r *ratectr.Registry, skipZero bool) {
	for _, g := range r.Groups() {
		c.Printf("%s %d", g.Description, g.Index)
		if g.IndexName != "" {
			c.Printf(" (%s)", g.IndexName)
		}
		c.Print(":\n")
		for i, d := range g.Descs {
			ctr := g.Ctr(i)
			if skipZero && ctr.Value() == 0 {
				continue
			}
			c.Printf("%25s: %10d (%d/s %d/m %d/h %d/d) %s\n", d.Name, ctr.Value(),
				ctr.Rate(ratectr.PerSecond), ctr.Rate(ratectr.PerMinute), ctr.Rate(ratectr.PerHour),
				ctr.Rate(ratectr.PerDay), d.Description)
		}
	}
}

// StatsReporter is one `stats reporter (statsd|log) [NAME]` (libosmocore
// struct osmo_stats_reporter). Sending statistics is pending; the settings
// are kept and written back.
type StatsReporter struct {
	Type        string // "statsd" or "log"
	Name        string
	RemoteIP    string
	RemotePort  int
	LocalIP     string
	MTU         int
	Level       string // "global" (default), "peer", "subscriber"
	Prefix      string
	FlushPeriod int
	Enabled     bool
}

// StatsConfig is the `stats` family state.
type StatsConfig struct {
	Interval     int // `stats interval`, default 5 s
	TCPInterval  int // `stats-tcp interval`, default 0
	TCPBatchSize int // `stats-tcp batch-size`, default 5
	Reporters    []*StatsReporter
	// Counters, when set, is listed by `show rate-counters [skip-zero]`
	// in libosmocore's format. ShowRateCounters, when set, replaces that.
	Counters         *ratectr.Registry
	ShowRateCounters func(c *Context, skipZero bool)
	// ShowStats, when set, implements `show stats [level L] [skip-zero]`
	// (level "" = every group).
	ShowStats func(c *Context, level string, skipZero bool)
	// Report and Reset implement `stats report` / `stats reset`.
	Report, Reset func()
}

func (v *VTY) installStats() {
	sc := &StatsConfig{Interval: 5, TCPBatchSize: 5}
	v.Stats = sc
	node := v.addNode(StatsNode, "config-stats", "%s(config-stats)# ", v.writeStats)
	cfg := v.Config()

	// named is the reporter name a command gives (its argument, "" without
	// one) and that reporter of type typ, nil when there is none.
	named := func(c *Context, typ string) (string, *StatsReporter) {
		name := ""
		if len(c.Args) > 0 {
			name = c.Args[0]
		}
		for _, r := range sc.Reporters {
			if r.Type == typ && r.Name == name {
				return name, r
			}
		}
		return name, nil
	}
	reporter := func(typ string) Handler {
		return func(c *Context) error {
			name, r := named(c, typ)
			if r == nil {
				r = &StatsReporter{Type: typ, Name: name, Level: "global"}
				sc.Reporters = append(sc.Reporters, r)
			}
			c.Enter(StatsNode, r)
			return nil
		}
	}
	noReporter := func(typ string) Handler {
		return func(c *Context) error {
			name, r := named(c, typ)
			if r == nil {
				return c.Warnf("%% There is no such statsd reporter with name '%s'\n", name)
			}
			for i, x := range sc.Reporters {
				if x == r {
					sc.Reporters = append(sc.Reporters[:i], sc.Reporters[i+1:]...)
					break
				}
			}
			return nil
		}
	}
	cfg.lib("stats reporter statsd [NAME]", reporter("statsd"))
	cfg.lib("no stats reporter statsd [NAME]", noReporter("statsd"))
	cfg.lib("stats reporter log [NAME]", reporter("log"))
	cfg.lib("no stats reporter log [NAME]", noReporter("log"))
	cfg.lib("stats interval <0-65535>", func(c *Context) error { sc.Interval, _ = strconv.Atoi(c.Args[0]); return nil })
	cfg.lib("stats-tcp interval <0-65535>", func(c *Context) error { sc.TCPInterval, _ = strconv.Atoi(c.Args[0]); return nil })
	cfg.lib("stats-tcp batch-size <1-65535>", func(c *Context) error { sc.TCPBatchSize, _ = strconv.Atoi(c.Args[0]); return nil })

	rep := func(f func(c *Context, r *StatsReporter)) Handler {
		return func(c *Context) error {
			r, ok := c.Index().(*StatsReporter)
			if !ok {
				return c.Warnf("%% No reporter\n")
			}
			f(c, r)
			return nil
		}
	}
	node.lib("local-ip ADDR", rep(func(c *Context, r *StatsReporter) { r.LocalIP = c.Args[0] }))
	node.lib("no local-ip", rep(func(c *Context, r *StatsReporter) { r.LocalIP = "" }))
	node.lib("remote-ip ADDR", rep(func(c *Context, r *StatsReporter) { r.RemoteIP = c.Args[0] }))
	node.lib("remote-port <1-65535>", rep(func(c *Context, r *StatsReporter) { r.RemotePort, _ = strconv.Atoi(c.Args[0]) }))
	node.lib("mtu <100-65535>", rep(func(c *Context, r *StatsReporter) { r.MTU, _ = strconv.Atoi(c.Args[0]) }))
	node.lib("no mtu", rep(func(c *Context, r *StatsReporter) { r.MTU = 0 }))
	node.lib("prefix PREFIX", rep(func(c *Context, r *StatsReporter) { r.Prefix = c.Args[0] }))
	node.lib("no prefix", rep(func(c *Context, r *StatsReporter) { r.Prefix = "" }))
	node.lib("level (global|peer|subscriber)", rep(func(c *Context, r *StatsReporter) { r.Level = c.Args[0] }))
	node.Install("enable", "Enable the reporter\n", rep(func(c *Context, r *StatsReporter) { r.Enabled = true }), libCmd())
	node.Install("disable", "Disable the reporter\n", rep(func(c *Context, r *StatsReporter) { r.Enabled = false }), libCmd())
	node.lib("flush-period <0-65535>", rep(func(c *Context, r *StatsReporter) { r.FlushPeriod, _ = strconv.Atoi(c.Args[0]) }))

	showRC := func(c *Context) error {
		skip := len(c.Args) > 0
		switch {
		case sc.ShowRateCounters != nil:
			sc.ShowRateCounters(c, skip)
		case sc.Counters != nil:
			WriteRateCounters(c, sc.Counters, skip)
		}
		return nil
	}
	showStats := func(level bool) Handler {
		return func(c *Context) error {
			if sc.ShowStats == nil {
				return nil
			}
			lvl, args := "", c.Args
			if level && len(args) > 0 {
				lvl, args = args[0], args[1:]
			}
			sc.ShowStats(c, lvl, len(args) > 0 && args[0] != "")
			return nil
		}
	}
	v.InstallVE("show stats [skip-zero]", libHelp["show stats [skip-zero]"], showStats(false), libCmd())
	v.InstallVE("show stats level (global|peer|subscriber) [skip-zero]", libHelp["show stats level (global|peer|subscriber) [skip-zero]"], showStats(true), libCmd())
	v.InstallVE("show asciidoc counters", libHelp["show asciidoc counters"], Pending, libCmd())
	v.InstallVE("show rate-counters [skip-zero]", libHelp["show rate-counters [skip-zero]"], showRC, libCmd())
	v.Enable().lib("stats report", func(c *Context) error {
		if sc.Report != nil {
			sc.Report()
		}
		return nil
	})
	v.Enable().lib("stats reset", func(c *Context) error {
		if sc.Reset != nil {
			sc.Reset()
		}
		return nil
	})
}

// writeStats is libosmocore's config_write_stats (reporter lines are
// indented by two spaces there, and so here).
func (v *VTY) writeStats(c *Context) bool {
	sc := v.Stats
	c.Printf("stats interval %d\n", sc.Interval)
	if sc.TCPInterval != 0 {
		c.Printf("stats-tcp interval %d\n", sc.TCPInterval)
	}
	if sc.TCPBatchSize != 5 {
		c.Printf("stats-tcp batch-size %d\n", sc.TCPBatchSize)
	}
	for _, r := range sc.Reporters {
		c.Printf("stats reporter %s", r.Type)
		if r.Name != "" {
			c.Printf(" %s", r.Name)
		}
		c.Print("\n")
		if r.Type == "statsd" {
			if r.RemoteIP != "" {
				c.Printf("  remote-ip %s\n", r.RemoteIP)
			}
			if r.RemotePort != 0 {
				c.Printf("  remote-port %d\n", r.RemotePort)
			}
			if r.LocalIP != "" {
				c.Printf("  local-ip %s\n", r.LocalIP)
			}
			if r.MTU != 0 {
				c.Printf("  mtu %d\n", r.MTU)
			}
		}
		c.Printf("  level %s\n", r.Level)
		if r.Prefix != "" {
			c.Printf("  prefix %s\n", r.Prefix)
		} else {
			c.Print("  no prefix\n")
		}
		if r.FlushPeriod > 0 {
			c.Printf("  flush-period %d\n", r.FlushPeriod)
		}
		if r.Enabled {
			c.Print("  enable\n")
		} else {
			c.Print("  disable\n")
		}
	}
	return true
}

// installTallocFSM adds the talloc and FSM inspection commands; Go has no
// talloc, so they print nothing (pending). FSM listing is pending too.
func (v *VTY) installTallocFSM() {
	for _, s := range []string{
		"show talloc-context (application|global|all) (full|brief|DEPTH)",
		"show talloc-context (application|global|all) (full|brief|DEPTH) tree ADDRESS",
		"show talloc-context (application|global|all) (full|brief|DEPTH) filter REGEXP",
		"show fsm NAME",
		"show fsm all",
		"show fsm-instances NAME",
		"show fsm-instances all",
	} {
		v.InstallVE(s, libHelp[s], Pending, libCmd())
	}
}

// NSTimers are the NS timer names of the `ns` node, in libosmogb order,
// with their defaults (libosmocore gprs_ns2 default_timeout).
var NSTimers = []struct {
	Name    string
	Default int
}{
	{"tns-block", 3}, {"tns-block-retries", 3}, {"tns-reset", 3}, {"tns-reset-retries", 3},
	{"tns-test", 30}, {"tns-alive", 3}, {"tns-alive-retries", 10}, {"tsns-prov", 3},
	{"tsns-size-retries", 3}, {"tsns-config-retries", 3}, {"tsns-procedures-retries", 3},
}

// CPUSched is the `cpu-sched` node state (cpusched.go): the settings,
// applied to the process and written back (libosmocore
// config_write_sched).
type CPUSched struct {
	RRPrio   int // policy rr <1-32>, 0 = unset
	affinity []affinityEntry
	sys      schedSystem
}

// NSConfig is the `ns` node state. Only the timers are configurable in
// osmo-pcu (its NSE and binds come from INFO_IND).
type NSConfig struct {
	Timers map[string]int
}

// Finish adds the library families that osmo-pcu installs after its own
// commands (CPU scheduling, then NS), so that `list` shows osmo-pcu's order.
// Call it once, after the application installed its nodes and commands.
func (v *VTY) Finish() {
	cfg := v.Config()
	sched := &CPUSched{sys: defaultSched}
	v.CPUSched = sched
	cs := v.addNode(CPUSchedNode, "config-cpu-sched", "%s(config-cpu-sched)# ", func(c *Context) bool {
		sched.writeConfig(c)
		return false
	})
	cfg.lib("cpu-sched", func(c *Context) error { c.Enter(CPUSchedNode, nil); return nil })
	cs.lib("policy rr <1-32>", func(c *Context) error {
		prio, _ := strconv.Atoi(c.Args[0])
		return sched.setPolicy(c, prio)
	}, Immediate())
	cs.lib("cpu-affinity (self|all|<0-4294967295>|THREADNAME) CPUHEXMASK [delay]", func(c *Context) error {
		return sched.setAffinity(c, c.Args[0], c.Args[1], len(c.Args) > 2)
	}, Immediate())
	v.InstallVE("show cpu-sched threads", libHelp["show cpu-sched threads"], sched.showThreads, libCmd())

	ns := &NSConfig{Timers: map[string]int{}}
	for _, t := range NSTimers {
		ns.Timers[t.Name] = t.Default
	}
	v.NS = ns
	nsNode := v.addNode(NSNode, "config-ns", "%s(config-ns)# ", func(c *Context) bool {
		c.Print("ns\n")
		for _, t := range NSTimers {
			c.Printf(" timer %s %d\n", t.Name, ns.Timers[t.Name])
		}
		return false
	})
	cfg.lib("ns", func(c *Context) error { c.Enter(NSNode, nil); return nil })
	tstr := "timer (tns-block|tns-block-retries|tns-reset|tns-reset-retries|tns-test|tns-alive|tns-alive-retries|tsns-prov|tsns-size-retries|tsns-config-retries|tsns-procedures-retries) <0-65535>"
	nsNode.lib(tstr, func(c *Context) error {
		ns.Timers[c.Args[0]], _ = strconv.Atoi(c.Args[1])
		return nil
	})
	for _, s := range []string{"show ns binds [stats]", "show ns entities [stats]", "show ns persistent", "show ns (nsei|nsvc) <0-65535> [stats]",
		"logging filter nse nsei <0-65535>", "logging filter nsvc nsvci <0-65535>"} {
		v.InstallVE(s, libHelp[s], Pending, libCmd())
	}
	v.Enable().lib("nsvc <0-65535> (block|unblock|reset)", Pending)
	ln := v.Node(LogNode)
	ln.lib("logging filter nse nsei <0-65535>", Pending)
	ln.lib("logging filter nsvc nsvci <0-65535>", Pending)
}
