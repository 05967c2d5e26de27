package daemon

import (
	"time"

	"github.com/gopcu/gopcu/bssgp/ns/nse"
	"github.com/gopcu/gopcu/llc"
	"github.com/gopcu/gopcu/pcu"
	"github.com/gopcu/gopcu/pcu/config"
	"github.com/gopcu/gopcu/vty"
)

// ParamsFromConfig maps the `pcu` node (osmo-pcu's VTY) onto the engine's
// parameters. Timers come from the node's `timer` table.
func ParamsFromConfig(c *config.Config) pcu.Params {
	p := pcu.DefaultParams()
	if c.ForceInitialCS {
		p.ForceCSDL, p.ForceCSUL = c.InitialCSDL, c.InitialCSUL
	}
	p.CSMaxDL, p.CSMaxUL = c.MaxCSDL, c.MaxCSUL
	p.CSAdjust, p.CSAdjLower, p.CSAdjUpper = c.CSAdjEnabled, c.CSAdjLower, c.CSAdjUpper
	for i := range p.CSLQ {
		p.CSLQ[i] = [2]int{c.CSLQual[i].Low, c.CSLQual[i].High}
	}
	for i := range p.MCSLQ {
		p.MCSLQ[i] = [2]int{c.MCSLQual[i].Low, c.MCSLQual[i].High}
	}
	p.AllocAlgo = c.AllocAlgorithm
	if c.ForceInitialMCS {
		p.ForceMCSDL, p.ForceMCSUL = c.InitialMCSDL, c.InitialMCSUL
	}
	p.MCSMaxDL, p.MCSMaxUL = c.MaxMCSDL, c.MaxMCSUL
	p.WSBase, p.WSPDCH = c.WSBase, c.WSPDCH
	p.TwoPhaseAccess = c.ForceTwoPhase
	p.MultislotDefault = 0 // the default class 12 is only osmo-pcu's guess (pcu/alloc Class)
	if c.MSClassDefault != config.DefaultMSClass {
		p.MultislotDefault = c.MSClassDefault
	}
	p.PreemptiveRetx = c.DLPreemptiveRetx
	p.DLArq2 = c.DLArq2
	p.LLC = llc.DefaultConfig()
	switch c.CodelIntervalMS {
	case config.CodelDisabled:
		p.LLC.CoDel = false
	case config.CodelUseDefault:
		p.LLC.CoDel = true
	default:
		p.LLC.CoDel = true
		p.LLC.Interval = time.Duration(c.CodelIntervalMS) * time.Millisecond
	}
	if c.Queue.Variant == "osmo" {
		p.LLC.Variant = llc.VariantOsmo
	}
	p.LLC.Target = time.Duration(c.Queue.TargetUS) * time.Microsecond
	p.LLC.MaxPacket, p.LLC.Quantum = c.Queue.MaxPacket, c.Queue.Quantum
	p.LLC.MSLimit, p.LLC.GlobalLimit = c.Queue.MSLimit, c.Queue.GlobalLimit
	switch {
	case c.AQM.AQM != "":
		p.LLC.AQM, _ = llc.ParseAQM(c.AQM.AQM)
	case c.Queue.Variant == "osmo" || c.CodelIntervalMS > 0 || c.Queue.TargetUS != 0:
		// osmo-pcu's `queue codel interval N` keeps its meaning (CoDel
		// with that interval), as do gopcu's CoDel-only settings; with
		// none of them and no `queue aqm`, the default AQM runs (RED per
		// flow, llc.DefaultConfig)
		p.LLC.AQM = llc.AQMCoDel
	}
	p.LLC.NoECN, p.LLC.NoFQ = c.AQM.NoECN, c.AQM.NoFQ
	ms := func(n int) time.Duration { return time.Duration(n) * time.Millisecond }
	p.LLC.PIE = llc.PIEConfig{Target: ms(c.AQM.PIETargetMS), TUpdate: ms(c.AQM.PIETUpdateMS), MaxBurst: ms(c.AQM.PIEMaxBurstMS)}
	p.LLC.RED = llc.REDConfig{Min: c.AQM.REDMin, Max: c.AQM.REDMax, MaxP: c.AQM.REDProb, Wlog: uint8(c.AQM.REDEWMA)}
	if c.MSMax > 0 {
		p.MSMax = c.MSMax
	}
	p.LLC.Lifetime = uint16(c.LLCLifetime)
	p.LLC.Hysteresis = uint16(c.LLCHysteresis)
	p.LLC.IdleAckDelay = uint16(c.LLCIdleAckDelay)
	if c.NSDialectSNS {
		p.GbDialect = "ip-sns"
	}
	p.FlowControlInterval = time.Duration(c.FCInterval) * time.Second
	p.FlowControlMS = c.FlowControlMS
	p.FCForceBVCBucket, p.FCForceBVCLeak = c.FCBVCBucketSize, c.FCBVCLeakRate
	p.FCForceMSBucket, p.FCForceMSLeak = c.FCMSBucketSize, c.FCMSLeakRate
	p.FCBucketTime = c.FCBucketTime
	p.GSMTAPCategories = c.GSMTAPCategMask
	timer := func(t int) (time.Duration, bool) {
		d := c.Timers.Get(t)
		if d == nil {
			return 0, false
		}
		switch d.Unit {
		case vty.UnitMS:
			return time.Duration(d.Val) * time.Millisecond, true
		default:
			return time.Duration(d.Val) * time.Second, true
		}
	}
	set := func(dst *time.Duration, t int) {
		if v, ok := timer(t); ok {
			*dst = v
		}
	}
	set(&p.T3141, 3141)
	set(&p.T3190, 3190)
	set(&p.T3113, 3113)
	set(&p.T3172, 3172)
	set(&p.X2001, -2001)
	set(&p.X2002, -2002)
	set(&p.X2030, -2030)
	set(&p.X2031, -2031)
	set(&p.NACC.X1, -1)
	set(&p.NACC.X2, -2)
	set(&p.NACC.X10, -10)
	set(&p.NACC.X11, -11)
	p.NACC.NeighCtrlAddr, p.NACC.NeighCtrlPort = c.NeighCtrlAddr, c.NeighCtrlPort
	return p
}

// NSTimersFromVTY maps the `ns` node's `timer` table (libosmogb's
// gprs_ns2_vty.c names; durations in seconds, retries as counts) onto the
// NS entity's timers. They reach the NSE when the Gb is (re)started, at
// the next INFO_IND. A duration of 0, which libosmogb accepts and which
// would make the timer fire on every loop turn, is taken as 1 s.
func NSTimersFromVTY(ns *vty.NSConfig) nse.Timers {
	t := nse.DefaultTimers()
	if ns == nil {
		return t
	}
	dur := func(name string, d *time.Duration) {
		if v, ok := ns.Timers[name]; ok {
			*d = time.Duration(max(v, 1)) * time.Second
		}
	}
	count := func(name string, n *int) {
		if v, ok := ns.Timers[name]; ok {
			*n = v
		}
	}
	dur("tns-block", &t.TnsBlock)
	count("tns-block-retries", &t.TnsBlockRetries)
	dur("tns-reset", &t.TnsReset)
	count("tns-reset-retries", &t.TnsResetRetries)
	dur("tns-test", &t.TnsTest)
	dur("tns-alive", &t.TnsAlive)
	count("tns-alive-retries", &t.TnsAliveRetries)
	dur("tsns-prov", &t.TsnsProv)
	count("tsns-size-retries", &t.TsnsSizeRetries)
	count("tsns-config-retries", &t.TsnsConfigRetries)
	count("tsns-procedures-retries", &t.TsnsProcRetries)
	return t
}
