package config

import (
	"strconv"

	"github.com/gopcu/gopcu/vty"
)

// QueueExt holds gopcu's extensions of the `queue` commands (the llc
// package's Config beyond osmo-pcu's). Zero values mean gopcu's defaults and
// are not written back. The commands are listed under `?` and `list` with
// their help (osmoPCUSurface hides them again for the differential tests
// against osmo-pcu 1.1.0); `show running-config` writes what was set,
// after the `queue codel` line:
//
//	queue codel variant (rfc|osmo)          no queue codel variant
//	queue codel target <0-10000000>  (µs)   no queue codel target
//	queue codel maxpacket <1-65535>         no queue codel maxpacket
//	queue codel quantum <64-65535>          no queue codel quantum
//	queue limit ms <4096-1073741824>        no queue limit ms
//	queue limit global <65536-68719476736>  no queue limit global
//
// gopcu's bound on MS objects (Config.MSMax), and FLOW-CONTROL-MS
// (Config.FlowControlMS; TS 48.018 §8.2.4, which osmo-pcu never sends):
//
//	ms-max <1-1000000>                      no ms-max
//	flow-control-ms                         no flow-control-ms
type QueueExt struct {
	Variant     string // "" (rfc) or "osmo"
	TargetUS    int
	MaxPacket   int
	Quantum     int
	MSLimit     int
	GlobalLimit int64
}

var extHelp = map[string]string{
	"queue codel variant (rfc|osmo)":         "Configure the LLC queue\nControlled Delay AQM\nCoDel variant\nRFC 8289 CoDel per flow (gopcu default)\nosmo-pcu's CoDel automaton\n",
	"no queue codel variant":                 "Negate a command or set its defaults\nConfigure the LLC queue\nControlled Delay AQM\nCoDel variant\n",
	"queue codel target <0-10000000>":        "Configure the LLC queue\nControlled Delay AQM\nCoDel target delay (rfc variant; automatic unless set)\nTarget in microseconds (below 500000 starves TCP on GPRS)\n",
	"no queue codel target":                  "Negate a command or set its defaults\nConfigure the LLC queue\nControlled Delay AQM\nCoDel target delay (automatic)\n",
	"queue codel maxpacket <1-65535>":        "Configure the LLC queue\nControlled Delay AQM\nNo drop while a flow holds at most this many octets\nOctets\n",
	"no queue codel maxpacket":               "Negate a command or set its defaults\nConfigure the LLC queue\nControlled Delay AQM\nMaxpacket (variant default)\n",
	"queue codel quantum <64-65535>":         "Configure the LLC queue\nControlled Delay AQM\nDeficit round robin quantum across flows\nOctets\n",
	"no queue codel quantum":                 "Negate a command or set its defaults\nConfigure the LLC queue\nControlled Delay AQM\nQuantum (1543 octets)\n",
	"queue limit ms <4096-1073741824>":       "Configure the LLC queue\nMemory limits\nPer MS\nOctets\n",
	"no queue limit ms":                      "Negate a command or set its defaults\nConfigure the LLC queue\nMemory limits\nPer MS (default)\n",
	"queue limit global <65536-68719476736>": "Configure the LLC queue\nMemory limits\nAll MSs together\nOctets\n",
	"no queue limit global":                  "Negate a command or set its defaults\nConfigure the LLC queue\nMemory limits\nAll MSs together (default)\n",
	"ms-max <1-1000000>":                     "Most MS objects kept per BTS (the oldest idle ones make room)\nNumber of MSs\n",
	"no ms-max":                              "Negate a command or set its defaults\nMost MS objects kept per BTS (default)\n",
	"flow-control-ms":                        "Send FLOW-CONTROL-MS for each MS with a DL TBF, sized from its radio drain rate\n",
	"no flow-control-ms":                     "Negate a command or set its defaults\nSend no FLOW-CONTROL-MS (default, as osmo-pcu)\n",
}

// extNode installs gopcu's extension commands on a node: each with its
// help from the table, applied at once (vty.Immediate).
type extNode struct {
	n    *vty.Node
	help map[string]string
}

func (x extNode) in(str string, h vty.Handler) { x.n.Install(str, x.help[str], h, vty.Immediate()) }

// number installs "cmd rng", storing its number in *p, and "no cmd",
// putting back 0: the default (automatic, or the built-in value).
func (x extNode) number(cmd, rng string, p *int) {
	x.in(cmd+" "+rng, setArg(p))
	x.in("no "+cmd, setInt(p, 0))
}

func installQueueExt(n *vty.Node, cfg *Config) {
	x := extNode{n, extHelp}
	in := x.in
	q := &cfg.Queue
	// A target means nothing to the osmo variant (it derives its target
	// from the interval, llc/doc.go), nor does 0: both are refused rather
	// than accepted and ignored.
	in("queue codel variant (rfc|osmo)", func(c *vty.Context) error {
		if c.Args[0] == "osmo" && q.TargetUS != 0 {
			return c.Warnf("%% The osmo variant derives its target from the interval (interval x 13/256): 'no queue codel target' first\n")
		}
		if c.Args[0] == "osmo" && cfg.AQM.AQM != "" && cfg.AQM.AQM != "codel" {
			return c.Warnf("%% The osmo variant is osmo-pcu's CoDel: 'no queue aqm' first (queue aqm %s)\n", cfg.AQM.AQM)
		}
		q.Variant = c.Args[0]
		if q.Variant == "rfc" {
			q.Variant = ""
		}
		return nil
	})
	in("no queue codel variant", func(*vty.Context) error { q.Variant = ""; return nil })
	in("queue codel target <0-10000000>", func(c *vty.Context) error {
		switch {
		case q.Variant == "osmo":
			return c.Warnf("%% The osmo variant derives its target from the interval (interval x 13/256): set 'queue codel interval', or 'queue codel variant rfc' first\n")
		case c.Args[0] == "0":
			return c.Warnf("%% A target of 0 means nothing: 'no queue codel target' makes it automatic (from the MS's drain rate)\n")
		}
		q.TargetUS = atoi(c.Args[0])
		return nil
	})
	in("no queue codel target", setInt(&q.TargetUS, 0))
	x.number("queue codel maxpacket", "<1-65535>", &q.MaxPacket)
	x.number("queue codel quantum", "<64-65535>", &q.Quantum)
	x.number("queue limit ms", "<4096-1073741824>", &q.MSLimit)
	in("queue limit global <65536-68719476736>", func(c *vty.Context) error {
		v, err := strconv.ParseInt(c.Args[0], 10, 64)
		if err != nil {
			return c.Warnf("%% Invalid value %s", c.Args[0])
		}
		q.GlobalLimit = v
		return nil
	})
	in("no queue limit global", func(*vty.Context) error { q.GlobalLimit = 0; return nil })
	x.number("ms-max", "<1-1000000>", &cfg.MSMax)
	in("flow-control-ms", func(*vty.Context) error { cfg.FlowControlMS = true; return nil })
	in("no flow-control-ms", func(*vty.Context) error { cfg.FlowControlMS = false; return nil })
}

// writeQueueExt writes the extension lines that differ from the defaults.
func (cfg *Config) writeQueueExt(c *vty.Context) {
	q := &cfg.Queue
	printSet(c, "queue codel variant", q.Variant)
	printSet(c, "queue codel target", q.TargetUS)
	printSet(c, "queue codel maxpacket", q.MaxPacket)
	printSet(c, "queue codel quantum", q.Quantum)
	printSet(c, "queue limit ms", q.MSLimit)
	printSet(c, "queue limit global", q.GlobalLimit)
	printSet(c, "ms-max", cfg.MSMax)
	if cfg.FlowControlMS {
		c.Printf(" flow-control-ms\n")
	}
}

// osmoPCUSurface hides gopcu's extension commands in `?`, `list` and
// completion again, as they were before they were listed: the tree then
// looks like osmo-pcu 1.1.0's, which the differential transcript tests
// compare byte for byte. The commands keep working.
func osmoPCUSurface(v *vty.VTY) {
	n := v.NodeByName("config-pcu")
	if n == nil {
		return
	}
	for _, c := range n.Cmds {
		_, ext := extHelp[c.String]
		_, aqm := aqmHelp[c.String]
		if ext || aqm {
			c.Attr |= vty.AttrHidden
		}
	}
}
