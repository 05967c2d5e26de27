package config

import (
	"github.com/gopcu/gopcu/vty"
)

// AQMExt holds gopcu's AQM selection and ECN commands (llc.Config's AQM,
// NoECN, NoFQ, PIE and RED). osmo-pcu's `queue codel`, `queue codel
// interval <1-1000>` and `no queue codel` keep their meaning: they switch
// the AQM on and off; these commands choose which AQM runs while it is on.
// Zero values are the defaults and are not written back:
//
//	queue aqm (codel|pie|red)            no queue aqm          (red; see below)
//	no queue ecn                         queue ecn             (ECN marking on)
//	no queue fq                          queue fq              (flow queues on)
//	queue pie target <1-10000>      ms   no queue pie target   (automatic)
//	queue pie tupdate <1-10000>     ms   no queue pie tupdate  (= target)
//	queue pie max-burst <0-100000>  ms   no queue pie max-burst (10 × target)
//	queue red min <3086-1073741824>      no queue red min      (from the drain rate)
//	queue red max <3087-1073741824>      no queue red max      (3 × min)
//	queue red probability <1-100>   %    no queue red probability (10)
//	queue red ewma <1-10>                no queue red ewma     (2: weight 1/4)
type AQMExt struct {
	// AQM: "" (the default: RED per flow, unless `queue codel interval N`,
	// `queue codel target` or `queue codel variant osmo` ask for CoDel:
	// pcu/daemon params.go), "codel", "pie" or "red".
	AQM           string
	NoECN, NoFQ   bool
	PIETargetMS   int
	PIETUpdateMS  int
	PIEMaxBurstMS int // -1: 0 ms (no burst allowance)
	REDMin        int
	REDMax        int
	REDProb       int
	REDEWMA       int
}

const (
	hQueue = "Configure the LLC queue\n"
	hNo    = "Negate a command or set its defaults\n"
	hPIE   = "PIE AQM (RFC 8033) parameters\n"
	hRED   = "RED AQM (per flow, head drop/mark) parameters\n"
)

var aqmHelp = map[string]string{
	"queue aqm (codel|pie|red)":       hQueue + "AQM algorithm while `queue codel` is on\nCoDel (RFC 8289)\nPIE (RFC 8033)\nRED per flow with head drop/mark (default)\n",
	"no queue aqm":                    hNo + hQueue + "AQM algorithm (RED)\n",
	"queue ecn":                       hQueue + "Mark ECN-capable IP packets CE instead of dropping them (default)\n",
	"no queue ecn":                    hNo + hQueue + "Drop ECN-capable IP packets as any other\n",
	"queue fq":                        hQueue + "One queue per IP flow inside each MS queue (default)\n",
	"no queue fq":                     hNo + hQueue + "One FIFO for all user data of an MS\n",
	"queue pie target <1-10000>":      hQueue + hPIE + "Target queue delay (QDELAY_REF)\nMilliseconds\n",
	"no queue pie target":             hNo + hQueue + hPIE + "Target queue delay (automatic, from the MS's rate)\n",
	"queue pie tupdate <1-10000>":     hQueue + hPIE + "Drop probability update period (T_UPDATE)\nMilliseconds\n",
	"no queue pie tupdate":            hNo + hQueue + hPIE + "Update period (the target)\n",
	"queue pie max-burst <0-100000>":  hQueue + hPIE + "Burst allowance (MAX_BURST)\nMilliseconds\n",
	"no queue pie max-burst":          hNo + hQueue + hPIE + "Burst allowance (10 times the target)\n",
	"queue red min <3086-1073741824>": hQueue + hRED + "Average flow backlog where marks and drops start\nOctets\n",
	"no queue red min":                hNo + hQueue + hRED + "Minimum threshold (the backlog the MS drains in the automatic CoDel target, less one MTU)\n",
	"queue red max <3087-1073741824>": hQueue + hRED + "Average flow backlog where every packet is marked or dropped\nOctets\n",
	"no queue red max":                hNo + hQueue + hRED + "Maximum threshold (3 times the minimum)\n",
	"queue red probability <1-100>":   hQueue + hRED + "Mark/drop probability at the maximum threshold\nPercent\n",
	"no queue red probability":        hNo + hQueue + hRED + "Probability (10 percent)\n",
	"queue red ewma <1-10>":           hQueue + hRED + "Weight of the average backlog: 2^-N per packet\nN\n",
	"no queue red ewma":               hNo + hQueue + hRED + "Weight (2^-2)\n",
}

// installAQMExt installs the commands, listed under `?` and `list` with
// their help (osmoPCUSurface hides them for the osmo-pcu comparisons).
func installAQMExt(n *vty.Node, cfg *Config) {
	a := &cfg.AQM
	x := extNode{n, aqmHelp}
	in := x.in
	flag := func(p *bool, v bool) vty.Handler { return func(*vty.Context) error { *p = v; return nil } }
	in("queue aqm (codel|pie|red)", func(c *vty.Context) error {
		if c.Args[0] != "codel" && cfg.Queue.Variant == "osmo" {
			return c.Warnf("%% queue aqm %s needs queue codel variant rfc (the osmo variant is osmo-pcu's CoDel)\n", c.Args[0])
		}
		a.AQM = c.Args[0] // written back as given (without it the choice depends on the CoDel settings)
		return nil
	})
	in("no queue aqm", func(*vty.Context) error { a.AQM = ""; return nil })
	in("queue ecn", flag(&a.NoECN, false))
	in("no queue ecn", flag(&a.NoECN, true))
	in("queue fq", flag(&a.NoFQ, false))
	in("no queue fq", flag(&a.NoFQ, true))
	x.number("queue pie target", "<1-10000>", &a.PIETargetMS)
	x.number("queue pie tupdate", "<1-10000>", &a.PIETUpdateMS)
	in("queue pie max-burst <0-100000>", func(c *vty.Context) error {
		a.PIEMaxBurstMS = atoi(c.Args[0])
		if a.PIEMaxBurstMS == 0 {
			a.PIEMaxBurstMS = -1
		}
		return nil
	})
	in("no queue pie max-burst", setInt(&a.PIEMaxBurstMS, 0))
	in("queue red min <3086-1073741824>", func(c *vty.Context) error {
		if v := atoi(c.Args[0]); a.REDMax != 0 && v >= a.REDMax {
			return c.Warnf("%% queue red min %d must be below queue red max %d\n", v, a.REDMax)
		}
		a.REDMin = atoi(c.Args[0])
		return nil
	})
	in("no queue red min", setInt(&a.REDMin, 0))
	in("queue red max <3087-1073741824>", func(c *vty.Context) error {
		if v := atoi(c.Args[0]); a.REDMin != 0 && v <= a.REDMin {
			return c.Warnf("%% queue red max %d must be above queue red min %d\n", v, a.REDMin)
		}
		a.REDMax = atoi(c.Args[0])
		return nil
	})
	in("no queue red max", setInt(&a.REDMax, 0))
	x.number("queue red probability", "<1-100>", &a.REDProb)
	x.number("queue red ewma", "<1-10>", &a.REDEWMA)
}

// writeAQMExt writes the AQM lines that differ from the defaults, in the
// order of llc.Config.VTYExtLines.
func (cfg *Config) writeAQMExt(c *vty.Context) {
	a := &cfg.AQM
	printSet(c, "queue aqm", a.AQM)
	if a.NoECN {
		c.Print(" no queue ecn\n")
	}
	if a.NoFQ {
		c.Print(" no queue fq\n")
	}
	for _, l := range []struct {
		name string
		v    int
	}{{"pie target", a.PIETargetMS}, {"pie tupdate", a.PIETUpdateMS}, {"pie max-burst", a.PIEMaxBurstMS},
		{"red min", a.REDMin}, {"red max", a.REDMax}, {"red probability", a.REDProb}, {"red ewma", a.REDEWMA}} {
		if l.v != 0 {
			c.Printf(" queue %s %d\n", l.name, max(l.v, 0))
		}
	}
}
