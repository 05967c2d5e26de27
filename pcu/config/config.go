// Package config holds osmo-pcu's `pcu` node configuration as a plain Go
// struct, installs the node's commands (osmo-pcu src/pcu_vty.c syntax,
// ranges, help strings, attributes, deprecation notes) on a vty tree, and
// writes the node back in osmo-pcu's exact `show running-config` order.
package config

import (
	"strconv"

	"github.com/gopcu/gopcu/vty"
)

// Application attribute bits of osmo-pcu (PCU_VTY_ATTR_*).
const (
	AttrNewTBF    uint32 = 1 << iota // 'n' applies when a new TBF begins
	AttrNewSubscr                    // 's' applies when a new subscriber attaches
	AttrNSReset                      // 'r' applies when the NS is reset
)

// UsrAttrs are osmo-pcu's application attribute letters and descriptions
// (the typo "is begins" is osmo-pcu's).
var UsrAttrs = []vty.UsrAttr{
	{Letter: 'n', Desc: "This command applies when a new TBF is begins"},
	{Letter: 's', Desc: "This command applies when a new subscriber attaches"},
	{Letter: 'r', Desc: "This command applies when the NS is reset"},
}

// Special values.
const (
	LifetimeInfinite  = 0xffff // `queue lifetime infinite`
	CodelUseDefault   = 0      // `queue codel`: default interval (4000 ms)
	CodelDisabled     = -1     // `no queue codel`
	DefaultSocketPath = "/tmp/pcu_bts"
	DefaultMSClass    = 12
)

// LQRange is a link quality window in dB.
type LQRange struct{ Low, High int }

// GSMTAP categories in bit order (osmo-pcu pcu_gsmtap_categ_names).
var GSMTAPCategories = []struct{ Name, Help string }{
	{"dl-unknown", "Unknown / Unparseable / Erroneous Downlink Blocks"},
	{"dl-dummy", "Downlink Dummy Blocks"},
	{"dl-ctrl", "Downlink Control Blocks"},
	{"dl-data-gprs", "Downlink Data Blocks (GPRS)"},
	{"dl-data-egprs", "Downlink Data Blocks (EGPRS)"},
	{"dl-ptcch", "Downlink PTCCH Blocks"},
	{"dl-agch", "Downlink AGCH Blocks"},
	{"dl-pch", "Downlink PCH Blocks"},
	{"ul-unknown", "Unknown / Unparseable / Erroneous Downlink Blocks"},
	{"ul-dummy", "Uplink Dummy Blocks"},
	{"ul-ctrl", "Uplink Control Blocks"},
	{"ul-data-gprs", "Uplink Data Blocks (GPRS)"},
	{"ul-data-egprs", "Uplink Data Blocks (EGPRS)"},
	{"ul-rach", "Uplink RACH Bursts"},
	{"ul-ptcch", "Uplink PTCCH Bursts"},
}

// Config is everything the `pcu` node sets, with osmo-pcu's defaults from
// Default. Field comments name the command.
type Config struct {
	FCInterval       int  // flow-control-interval <1-10> (s), 1
	FCBucketTime     int  // flow-control bucket-time (csec), 0 = unset; never written back (osmo-pcu)
	FCBVCBucketSize  int  // flow-control force-bvc-bucket-size, 0 = computed
	FCBVCLeakRate    int  // flow-control force-bvc-leak-rate, 0 = computed
	FCMSBucketSize   int  // flow-control force-ms-bucket-size
	FCMSLeakRate     int  // flow-control force-ms-leak-rate
	ForceInitialCS   bool // cs <1-4> [<1-4>]
	InitialCSDL      int
	InitialCSUL      int
	MaxCSDL, MaxCSUL int  // cs max, 4 4; 0 0 after `no cs max`
	CSAdjEnabled     bool // cs threshold / no cs threshold
	CSAdjLower       int  // 10
	CSAdjUpper       int  // 33
	CSDowngradeThr   int  // cs downgrade-threshold, 200; 0 = off
	CSLQual          [4]LQRange
	MCSLQual         [9]LQRange
	ForceInitialMCS  bool // mcs <1-9> [<1-9>]
	InitialMCSDL     int
	InitialMCSUL     int
	MaxMCSDL         int // mcs max, 9 9
	MaxMCSUL         int
	WSBase, WSPDCH   int  // window-size, 64 0
	DLArq2           bool // egprs dl arq-type arq2 (false = spb/ARQ1)
	LLCLifetime      int  // queue lifetime (csec), 0 unset, 0xffff infinite
	LLCHysteresis    int  // queue hysteresis (csec), 0 off
	LLCIdleAckDelay  int  // queue idle-ack-delay (csec), 10
	CodelIntervalMS  int  // queue codel: CodelUseDefault / CodelDisabled / interval in ms
	AllocAlgorithm   string
	ForceTwoPhase    bool // two-phase-access
	ForceAlpha       int  // alpha <0-10>, -1 = si13
	Gamma            int  // gamma <0-62>, stored /2
	DLPreemptiveRetx bool // dl-tbf-preemptive-retransmission, true
	MSClassDefault   int  // multislot-class default, 12
	SocketPath       string
	GSMTAPHost       string // gsmtap-remote-host, "" = unset
	GSMTAPCategMask  uint32
	NSDialectSNS     bool // gb-dialect ip-sns
	NSIPDSCP         int  // gb ip-dscp, -1 unset
	NSPriority       int  // gb socket-priority, -1 unset
	Timers           vty.Tdefs
	Queue            QueueExt // gopcu's queue extensions (hidden commands)
	AQM              AQMExt   // gopcu's AQM selection, ECN, PIE and RED (aqm.go)
	MSMax            int      // ms-max (gopcu, hidden), 0 = default
	FlowControlMS    bool     // flow-control-ms (gopcu, hidden), default off

	// `neighbor resolution A.B.C.D [<0-65535>]` (osmo-pcu 1.1.0, removed in
	// 1.3.0): the BSC's neighbour resolution CTRL service; "" = unset
	// (resolve over the PCU socket). The port defaults to 4248.
	NeighCtrlAddr string
	NeighCtrlPort int
}

// Timers returns osmo-pcu's PCU timer table with defaults (osmo-pcu gprs_pcu.c T_defs_pcu).
func Timers() vty.Tdefs {
	ts := vty.Tdefs{
		{T: 3113, Default: 7, Unit: vty.UnitS, Desc: "Timeout for paging"},
		{T: 3190, Default: 5, Unit: vty.UnitS, Desc: "Return to packet idle mode after Packet DL Assignment on CCCH (s)"},
		{T: 3141, Default: 10, Unit: vty.UnitS, Desc: "Timeout for contention resolution procedure (s)"},
		{T: 3172, Default: 5000, Unit: vty.UnitMS, Desc: "Wait Indication used in Imm Ass Reject during TBF Establishment (PACCH)", Max: 255000},
		{T: -1, Default: 1000, Unit: vty.UnitMS, Desc: "[ARFCN+BSIC]->[RAC+CI] resolution timeout (ms)"},
		{T: -2, Default: 1000, Unit: vty.UnitMS, Desc: "RIM RAN-INFO response timeout (ms)"},
		{T: -10, Default: 5, Unit: vty.UnitS, Desc: "[ARFCN+BSIC]->[RAC+CI] resolution cache entry storage timeout (s)"},
		{T: -11, Default: 5, Unit: vty.UnitS, Desc: "[RAC+CI]->[SI] resolution cache entry storage timeout (s)"},
		{T: -101, Default: 30, Unit: vty.UnitS, Desc: "BSSGP (un)blocking procedures timer (s)"},
		{T: -102, Default: 30, Unit: vty.UnitS, Desc: "BSSGP reset procedure timer (s)"},
		{T: -2000, Default: 0, Unit: vty.UnitMS, Desc: "Delay release of UL TBF after tx Packet Access Reject (PACCH) (ms)"},
		{T: -2001, Default: 2, Unit: vty.UnitS, Desc: "PACCH assignment timeout (s)"},
		{T: -2002, Default: 200, Unit: vty.UnitMS, Desc: "Waiting after IMM.ASS confirm timer (ms)"},
		{T: -2030, Default: 60, Unit: vty.UnitS, Desc: "Time to keep an idle MS object alive (s)"},
		{T: -2031, Default: 2000, Unit: vty.UnitMS, Desc: "Time to keep an idle DL TBF alive (ms)"},
	}
	ts.Reset()
	return ts
}

// Default returns osmo-pcu's defaults.
func Default() *Config {
	return &Config{
		FCInterval: 1,
		MaxCSDL:    4, MaxCSUL: 4,
		CSAdjEnabled: true, CSAdjLower: 10, CSAdjUpper: 33,
		CSDowngradeThr: 200,
		CSLQual:        [4]LQRange{{-256, 6}, {5, 8}, {7, 13}, {12, 256}},
		MCSLQual: [9]LQRange{{-256, 6}, {5, 8}, {7, 13}, {12, 15}, {14, 17},
			{16, 18}, {17, 20}, {19, 24}, {23, 256}},
		MaxMCSDL: 9, MaxMCSUL: 9,
		WSBase:           64,
		LLCIdleAckDelay:  10,
		CodelIntervalMS:  CodelUseDefault,
		AllocAlgorithm:   "dynamic",
		ForceAlpha:       -1,
		DLPreemptiveRetx: true,
		MSClassDefault:   DefaultMSClass,
		SocketPath:       DefaultSocketPath,
		NSIPDSCP:         -1,
		NSPriority:       -1,
		Timers:           Timers(),
	}
}

func atoi(s string) int { n, _ := strconv.Atoi(s); return n }

// setArg is a command handler storing its first argument, a number, in *p.
func setArg(p *int) vty.Handler {
	return func(c *vty.Context) error { *p = atoi(c.Args[0]); return nil }
}

// setInt is a command handler storing v in *p.
func setInt(p *int, v int) vty.Handler { return func(*vty.Context) error { *p = v; return nil } }

// printSet writes the config line " cmd v" when v is set (not its zero
// value, the default the line would restore).
func printSet[T comparable](c *vty.Context, cmd string, v T) {
	var zero T
	if v != zero {
		c.Printf(" %s %v\n", cmd, v)
	}
}

// Write emits the `pcu` node in osmo-pcu's order (config_write_pcu).
func (cfg *Config) Write(c *vty.Context) {
	c.Print("pcu\n")
	c.Printf(" flow-control-interval %d\n", cfg.FCInterval)
	printSet(c, "flow-control force-bvc-bucket-size", cfg.FCBVCBucketSize)
	printSet(c, "flow-control force-bvc-leak-rate", cfg.FCBVCLeakRate)
	printSet(c, "flow-control force-ms-bucket-size", cfg.FCMSBucketSize)
	printSet(c, "flow-control force-ms-leak-rate", cfg.FCMSLeakRate)
	pair := func(prefix string, dl, ul int) {
		if dl == ul {
			c.Printf(" %s %d\n", prefix, dl)
		} else {
			c.Printf(" %s %d %d\n", prefix, dl, ul)
		}
	}
	if cfg.ForceInitialCS {
		pair("cs", cfg.InitialCSDL, cfg.InitialCSUL)
	}
	if cfg.MaxCSDL != 0 && cfg.MaxCSUL != 0 {
		pair("cs max", cfg.MaxCSDL, cfg.MaxCSUL)
	}
	if cfg.CSAdjEnabled {
		c.Printf(" cs threshold %d %d\n", cfg.CSAdjLower, cfg.CSAdjUpper)
	} else {
		c.Print(" no cs threshold\n")
	}
	if cfg.CSDowngradeThr != 0 {
		c.Printf(" cs downgrade-threshold %d\n", cfg.CSDowngradeThr)
	} else {
		c.Print(" no cs downgrade-threshold\n")
	}
	q := cfg.CSLQual
	c.Printf(" cs link-quality-ranges cs1 %d cs2 %d %d cs3 %d %d cs4 %d\n",
		q[0].High, q[1].Low, q[1].High, q[2].Low, q[2].High, q[3].Low)
	m := cfg.MCSLQual
	c.Printf(" mcs link-quality-ranges mcs1 %d", m[0].High)
	for i := 1; i < 8; i++ {
		c.Printf(" mcs%d %d %d", i+1, m[i].Low, m[i].High)
	}
	c.Printf(" mcs9 %d\n", m[8].Low)
	if cfg.ForceInitialMCS {
		pair("mcs", cfg.InitialMCSDL, cfg.InitialMCSUL)
	}
	if cfg.MaxMCSDL != 0 && cfg.MaxMCSUL != 0 {
		pair("mcs max", cfg.MaxMCSDL, cfg.MaxMCSUL)
	}
	c.Printf(" window-size %d %d\n", cfg.WSBase, cfg.WSPDCH)
	if cfg.DLArq2 {
		c.Print(" egprs dl arq-type arq2\n")
	}
	if cfg.LLCLifetime == LifetimeInfinite {
		c.Print(" queue lifetime infinite\n")
	} else if cfg.LLCLifetime != 0 {
		c.Printf(" queue lifetime %d\n", cfg.LLCLifetime)
	}
	printSet(c, "queue hysteresis", cfg.LLCHysteresis)
	printSet(c, "queue idle-ack-delay", cfg.LLCIdleAckDelay)
	switch cfg.CodelIntervalMS {
	case CodelUseDefault:
		c.Print(" queue codel\n")
	case CodelDisabled:
		c.Print(" no queue codel\n")
	default:
		c.Printf(" queue codel interval %d\n", cfg.CodelIntervalMS/10)
	}
	cfg.writeQueueExt(c)
	cfg.writeAQMExt(c)
	c.Printf(" alloc-algorithm %s\n", cfg.AllocAlgorithm)
	if cfg.ForceTwoPhase {
		c.Print(" two-phase-access\n")
	}
	if cfg.ForceAlpha >= 0 {
		c.Printf(" alpha %d\n", cfg.ForceAlpha)
	}
	c.Printf(" gamma %d\n", cfg.Gamma*2)
	if !cfg.DLPreemptiveRetx {
		c.Print(" no dl-tbf-preemptive-retransmission\n")
	}
	if cfg.MSClassDefault != DefaultMSClass {
		c.Printf(" multislot-class default %d\n", cfg.MSClassDefault)
	}
	if cfg.SocketPath != DefaultSocketPath {
		c.Printf(" pcu-socket %s\n", cfg.SocketPath)
	}
	printSet(c, "gsmtap-remote-host", cfg.GSMTAPHost)
	for i, g := range GSMTAPCategories {
		if cfg.GSMTAPCategMask&(1<<i) != 0 {
			c.Printf(" gsmtap-category %s\n", g.Name)
		}
	}
	if cfg.NSDialectSNS {
		c.Print(" gb-dialect ip-sns\n")
	} else {
		c.Print(" gb-dialect classic\n")
	}
	if cfg.NSIPDSCP != -1 {
		c.Printf(" gb ip-dscp %d\n", cfg.NSIPDSCP)
	}
	if cfg.NSPriority != -1 {
		c.Printf(" gb socket-priority %d\n", cfg.NSPriority)
	}
	if cfg.NeighCtrlAddr != "" {
		c.Printf(" neighbor resolution %s %d\n", cfg.NeighCtrlAddr, cfg.NeighCtrlPort)
	}
	cfg.Timers.Write(c, " timer ")
}

// AppInfo returns the vty.AppInfo of osmo-pcu (name, copyright banner,
// attribute letters, logging categories) with the given version.
func AppInfo(version string) vty.AppInfo {
	return vty.AppInfo{
		Name:    "OsmoPCU",
		Version: version,
		Copyright: "Copyright (C) 2012 by Ivan Kluchnikov <kluchnikovi@gmail.com> and \n" +
			"                      Andreas Eversberg <jolly@eversberg.eu>\n" +
			"License GNU GPL version 2 or later\n" +
			"This is free software: you are free to change and redistribute it.\n" +
			"There is NO WARRANTY, to the extent permitted by law.\n",
		UsrAttrs:      UsrAttrs,
		ConfigFile:    "osmo-pcu.cfg",
		LogCategories: LogCategories(),
	}
}

// Show are the osmo-pcu VIEW/ENABLE commands the engine implements; they
// are installed as placeholders (printing nothing) in osmo-pcu's order and
// given their handlers later with v.SetHandlerVE(cmd, handler).
var Show = []string{
	"show bts statistics",
	"show bts pdch",
	"show tbf (all|ccch|pacch)",
	"show ms all",
	"show ms tlli TLLI",
	"show ms imsi IMSI",
	"show bts-timer [TNNNN]",
	"show timer [TNNNN]",
}

// Install adds the `pcu` node and its 61 commands (and `pcu` in CONFIG)
// editing cfg, the osmo-pcu show commands (`show timer` works, the others
// are placeholders for the engine), and then finishes the library command
// set (v.Finish). Handlers run in the VTY executor (the engine goroutine),
// so they change cfg directly.
func Install(v *vty.VTY, cfg *Config) *vty.Node {
	for _, s := range Show {
		v.InstallVE(s, help[s], vty.Pending)
	}
	_ = v.SetHandlerVE("show timer [TNNNN]", func(c *vty.Context) error {
		arg := ""
		if len(c.Args) > 0 {
			arg = c.Args[0]
		}
		return cfg.Timers.Show(c, arg, "")
	})
	n := v.AddNode("config-pcu", "%s(config-pcu)# ", func(c *vty.Context) bool { cfg.Write(c); return false })
	id := n.ID
	v.Config().Install("pcu", help["pcu"], func(c *vty.Context) error { c.Enter(id, cfg); return nil }, vty.Immediate())
	installPCU(n, cfg)
	// osmo-pcu's old category name, accepted with a note (libosmocore
	// logging_vty_add_deprecated_subsys)
	v.Node(vty.LogNode).Install("logging level bssgp (debug|info|notice|error|fatal)",
		"Set the log level for a specified category\nDeprecated Category\n", func(c *vty.Context) error {
			c.Printf("%% Ignoring deprecated '%s'\n", c.Cmd.String)
			return nil
		}, vty.Deprecated())
	v.Finish()
	return n
}

func (cfg *Config) categ(name string) int {
	for i, g := range GSMTAPCategories {
		if g.Name == name {
			return i
		}
	}
	return -1
}

func installPCU(n *vty.Node, cfg *Config) {
	imm := vty.Immediate()
	newTBF := vty.Usr(AttrNewTBF)
	newSub := vty.Usr(AttrNewSubscr)
	nsReset := vty.Usr(AttrNSReset)
	in := func(str string, h vty.Handler, opts ...vty.Opt) {
		hs, ok := help[str]
		if !ok {
			panic("config: no help for " + str)
		}
		n.Install(str, hs, h, opts...)
	}
	dlul := func(c *vty.Context) (int, int) {
		dl := atoi(c.Args[0])
		ul := dl
		if len(c.Args) > 1 {
			ul = atoi(c.Args[1])
		}
		return dl, ul
	}
	// the DL and UL coding schemes of `cs`, `mcs` and their `max`: the
	// arguments (UL as DL when not given), or 0 for the `no` forms
	schemes := func(dl, ul *int) vty.Handler {
		return func(c *vty.Context) error { *dl, *ul = dlul(c); return nil }
	}
	noSchemes := func(dl, ul *int) vty.Handler { return func(*vty.Context) error { *dl, *ul = 0, 0; return nil } }
	forced := func(force *bool, dl, ul *int) vty.Handler {
		return func(c *vty.Context) error { *force = true; return schemes(dl, ul)(c) }
	}
	notForced := func(force *bool, dl, ul *int) vty.Handler {
		return func(c *vty.Context) error { *force = false; return noSchemes(dl, ul)(c) }
	}

	in("egprs only", func(c *vty.Context) error {
		c.Print("'egprs only' is deprecated, egprs support is controled from BTS/BSC config, this is now a no-op\n")
		return nil
	}, vty.Deprecated())
	in("no egprs", func(c *vty.Context) error {
		c.Print("'no egprs only' is deprecated, egprs support is controled from BTS/BSC config, this is now a no-op\n")
		return nil
	}, vty.Deprecated())
	in("no two-phase-access", func(*vty.Context) error { cfg.ForceTwoPhase = false; return nil }, imm)
	in("cs <1-4> [<1-4>]", forced(&cfg.ForceInitialCS, &cfg.InitialCSDL, &cfg.InitialCSUL), imm)
	in("no cs", notForced(&cfg.ForceInitialCS, &cfg.InitialCSDL, &cfg.InitialCSUL), imm)
	in("cs max <1-4> [<1-4>]", schemes(&cfg.MaxCSDL, &cfg.MaxCSUL), imm)
	in("no cs max", noSchemes(&cfg.MaxCSDL, &cfg.MaxCSUL), imm)
	in("cs threshold <0-100> <0-100>", func(c *vty.Context) error {
		lo, hi := atoi(c.Args[0]), atoi(c.Args[1])
		if lo > hi {
			return c.Warnf("The lower limit must be less than or equal to the upper limit.\n")
		}
		cfg.CSAdjEnabled, cfg.CSAdjLower, cfg.CSAdjUpper = true, lo, hi
		return nil
	}, imm)
	in("no cs threshold", func(*vty.Context) error {
		cfg.CSAdjEnabled, cfg.CSAdjLower, cfg.CSAdjUpper = false, 0, 100
		return nil
	}, imm)
	in("cs downgrade-threshold <1-10000>", setArg(&cfg.CSDowngradeThr), imm)
	in("no cs downgrade-threshold", setInt(&cfg.CSDowngradeThr, 0), imm)
	in("cs link-quality-ranges cs1 <0-35> cs2 <0-35> <0-35> cs3 <0-35> <0-35> cs4 <0-35>", func(c *vty.Context) error {
		a := c.Args
		cfg.CSLQual[0].High = atoi(a[0])
		cfg.CSLQual[1] = LQRange{atoi(a[1]), atoi(a[2])}
		cfg.CSLQual[2] = LQRange{atoi(a[3]), atoi(a[4])}
		cfg.CSLQual[3].Low = atoi(a[5])
		return nil
	}, imm)
	in("mcs link-quality-ranges mcs1 <0-35> mcs2 <0-35> <0-35> mcs3 <0-35> <0-35> mcs4 <0-35> <0-35> mcs5 <0-35> <0-35> mcs6 <0-35> <0-35> mcs7 <0-35> <0-35> mcs8 <0-35> <0-35> mcs9 <0-35>", func(c *vty.Context) error {
		a := c.Args
		cfg.MCSLQual[0].High = atoi(a[0])
		for i := 1; i < 8; i++ {
			cfg.MCSLQual[i] = LQRange{atoi(a[2*i-1]), atoi(a[2*i])}
		}
		cfg.MCSLQual[8].Low = atoi(a[15])
		return nil
	}, imm)
	in("mcs <1-9> [<1-9>]", forced(&cfg.ForceInitialMCS, &cfg.InitialMCSDL, &cfg.InitialMCSUL), imm)
	in("egprs dl arq-type (spb|arq2)", func(c *vty.Context) error { cfg.DLArq2 = c.Args[0] == "arq2"; return nil }, imm)
	in("no mcs", notForced(&cfg.ForceInitialMCS, &cfg.InitialMCSDL, &cfg.InitialMCSUL), imm)
	in("mcs max <1-9> [<1-9>]", schemes(&cfg.MaxMCSDL, &cfg.MaxMCSUL), imm)
	in("no mcs max", noSchemes(&cfg.MaxMCSDL, &cfg.MaxMCSUL), imm)
	in("window-size <0-1024> [<0-256>]", func(c *vty.Context) error {
		cfg.WSBase = atoi(c.Args[0])
		if len(c.Args) > 1 {
			cfg.WSPDCH = atoi(c.Args[1])
		}
		return nil
	}, newTBF)
	in("queue lifetime <1-65534>", setArg(&cfg.LLCLifetime), newTBF)
	in("queue lifetime infinite", setInt(&cfg.LLCLifetime, LifetimeInfinite), newTBF)
	in("no queue lifetime", setInt(&cfg.LLCLifetime, 0), newTBF)
	in("queue hysteresis <1-65535>", setArg(&cfg.LLCHysteresis), newTBF)
	in("no queue hysteresis", setInt(&cfg.LLCHysteresis, 0), newTBF)
	in("queue codel", setInt(&cfg.CodelIntervalMS, CodelUseDefault), newSub)
	in("queue codel interval <1-1000>", func(c *vty.Context) error {
		cfg.CodelIntervalMS = 10 * atoi(c.Args[0])
		return nil
	}, newSub)
	in("no queue codel", setInt(&cfg.CodelIntervalMS, CodelDisabled), newSub)
	installQueueExt(n, cfg)
	installAQMExt(n, cfg)
	in("queue idle-ack-delay <1-65535>", setArg(&cfg.LLCIdleAckDelay), imm)
	in("no queue idle-ack-delay", setInt(&cfg.LLCIdleAckDelay, 0), imm)
	in("alloc-algorithm (a|b|dynamic)", func(c *vty.Context) error { cfg.AllocAlgorithm = c.Args[0]; return nil }, imm)
	in("two-phase-access", func(*vty.Context) error { cfg.ForceTwoPhase = true; return nil }, imm)
	in("flow-control-interval <1-10>", setArg(&cfg.FCInterval), imm)
	in("flow-control bucket-time <1-65534>", setArg(&cfg.FCBucketTime), imm)
	in("no flow-control bucket-time", setInt(&cfg.FCBucketTime, 0), imm)
	in("flow-control force-bvc-bucket-size <1-6553500>", setArg(&cfg.FCBVCBucketSize), imm)
	in("no flow-control force-bvc-bucket-size", setInt(&cfg.FCBVCBucketSize, 0), imm)
	in("flow-control force-bvc-leak-rate <1-6553500>", setArg(&cfg.FCBVCLeakRate), imm)
	in("no flow-control force-bvc-leak-rate", setInt(&cfg.FCBVCLeakRate, 0), imm)
	in("flow-control force-ms-bucket-size <1-6553500>", setArg(&cfg.FCMSBucketSize), imm)
	in("no flow-control force-ms-bucket-size", setInt(&cfg.FCMSBucketSize, 0), imm)
	in("flow-control force-ms-leak-rate <1-6553500>", setArg(&cfg.FCMSLeakRate), imm)
	in("no flow-control force-ms-leak-rate", setInt(&cfg.FCMSLeakRate, 0), imm)
	in("alpha (si13|<0-10>)", func(c *vty.Context) error {
		c.Print("% 'alpha <0-10>' is now deprecated: use osmo-bsc's 'gprs power-control alpha <0-10>' instead\n")
		if c.Args[0] == "si13" {
			cfg.ForceAlpha = -1
		} else {
			cfg.ForceAlpha = atoi(c.Args[0])
		}
		return nil
	}, imm, vty.Deprecated())
	in("gamma <0-62>", func(c *vty.Context) error { cfg.Gamma = atoi(c.Args[0]) / 2; return nil }, imm)
	// osmo-pcu's deprecated forms of `timer X<x>`: `cmd <range>` and `no cmd`.
	deprecatedTimer := func(cmd, rng string, x int) {
		in(cmd+" "+rng, func(c *vty.Context) error {
			c.Printf("%% '%s' is now deprecated: use 'timer X%d <val>' instead\n", cmd, x)
			cfg.Timers.Get(-x).Val = uint64(atoi(c.Args[0]))
			return nil
		}, vty.Deprecated())
		in("no "+cmd, func(c *vty.Context) error {
			c.Printf("%% 'no %s' is now deprecated: use 'timer X%d 0' instead\n", cmd, x)
			cfg.Timers.Get(-x).Val = 0
			return nil
		}, vty.Deprecated())
	}
	deprecatedTimer("dl-tbf-idle-time", "<1-5000>", 2031)
	in("dl-tbf-preemptive-retransmission", func(*vty.Context) error { cfg.DLPreemptiveRetx = true; return nil }, imm)
	in("no dl-tbf-preemptive-retransmission", func(*vty.Context) error { cfg.DLPreemptiveRetx = false; return nil }, imm)
	in("multislot-class default <1-45>", setArg(&cfg.MSClassDefault), vty.Hidden(), newTBF)
	deprecatedTimer("ms-idle-time", "<1-7200>", 2030)
	in("gsmtap-remote-host [HOSTNAME]", func(c *vty.Context) error {
		cfg.GSMTAPHost = "localhost"
		if len(c.Args) > 0 {
			cfg.GSMTAPHost = c.Args[0]
		}
		if c.Interactive() {
			c.Print("% This command requires restart\n")
		}
		return nil
	})
	in("no gsmtap-remote-host", func(c *vty.Context) error {
		cfg.GSMTAPHost = ""
		if c.Interactive() {
			c.Print("% This command requires restart\n")
		}
		return nil
	})
	in("gsmtap-category (enable-all|disable-all)", func(c *vty.Context) error {
		if c.Args[0] == "enable-all" {
			cfg.GSMTAPCategMask = 0xffffffff
		} else {
			cfg.GSMTAPCategMask = 0
		}
		return nil
	})
	var names string
	for i, g := range GSMTAPCategories {
		if i > 0 {
			names += "|"
		}
		names += g.Name
	}
	catStr := "gsmtap-category (" + names + ")"
	in(catStr, func(c *vty.Context) error {
		i := cfg.categ(c.Args[0])
		if i < 0 {
			return vty.ErrWarning
		}
		cfg.GSMTAPCategMask |= 1 << i
		return nil
	})
	in("no "+catStr, func(c *vty.Context) error {
		i := cfg.categ(c.Args[0])
		if i < 0 {
			return vty.ErrWarning
		}
		cfg.GSMTAPCategMask &^= 1 << i
		return nil
	})
	in("pcu-socket PATH", func(c *vty.Context) error {
		if c.Interactive() {
			c.Print("Changing PCU socket path at run-time has no effect\n")
		}
		cfg.SocketPath = c.Args[0]
		return nil
	})
	in("gb-dialect (classic|ip-sns)", func(c *vty.Context) error { cfg.NSDialectSNS = c.Args[0] == "ip-sns"; return nil }, nsReset)
	in("gb ip-dscp <0-63>", setArg(&cfg.NSIPDSCP), nsReset)
	in("gb socket-priority <0-255>", setArg(&cfg.NSPriority), nsReset)
	in("neighbor resolution (A.B.C.D|X:X::X:X) [<0-65535>]", func(c *vty.Context) error {
		c.Print("% Warning: The CTRL interface for Neighbor Address Resolution is now deprecated.Upgrade osmo-bsc and drop the " +
			"'neighbor resolution (A.B.C.D|X:X::X:X) [<0-65535>]' VTY option in order to let osmo-pcu use the new resoluton " +
			"method using the PCUIF over IPA multiplex, which will work out of the box without required configuration.\n")
		cfg.NeighCtrlAddr, cfg.NeighCtrlPort = c.Args[0], 4248
		if len(c.Args) > 1 {
			cfg.NeighCtrlPort = atoi(c.Args[1])
		}
		return nil
	})
	in("timer [TNNNN] [(<0-2147483647>|default)]", func(c *vty.Context) error { return cfg.Timers.TimerCmd(c) }, imm)
}

// String renders the node as `show running-config` writes it.
func (cfg *Config) String() string { return vty.Render(func(c *vty.Context) { cfg.Write(c) }) }

// New builds osmo-pcu's complete VTY: the standard tree, the pcu node
// editing the returned Config, and the stderr log target osmo-pcu has at
// start-up (written back as `log stderr blocking-io`, filter all 1).
func New(version string) (*vty.VTY, *Config) {
	v := vty.New(AppInfo(version))
	cfg := Default()
	Install(v, cfg)
	t := v.Logging.NewTarget("stderr", "")
	t.Blocking, t.FilterAll = true, true
	return v, cfg
}
