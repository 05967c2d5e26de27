package pcu

import (
	"fmt"
	"math/bits"
	"strconv"
	"strings"
	"time"

	"github.com/gopcu/gopcu/internal/ratectr"
	"github.com/gopcu/gopcu/llc"
	"github.com/gopcu/gopcu/pcu/config"
	"github.com/gopcu/gopcu/vty"
)

// ParamsFromConfig maps the `pcu` node (osmo-pcu's VTY) onto the engine's
// parameters. Timers come from the node's `timer` table.
func ParamsFromConfig(c *config.Config) Params {
	p := DefaultParams()
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
	p.MultislotDefault = 0 // the default class 12 is only osmo-pcu's guess (allocClass)
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
	p.FCForceBVCBucket, p.FCForceBVCLeak = c.FCBVCBucketSize, c.FCBVCLeakRate
	p.FCForceMSBucket, p.FCForceMSLeak = c.FCMSBucketSize, c.FCMSLeakRate
	p.FCBucketTime = c.FCBucketTime
	p.GSMTAPHost = c.GSMTAPHost
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

// SetParams replaces the engine's parameters; queue settings reach every
// existing MS at once. Engine goroutine only.
func (e *Engine) SetParams(p Params) {
	if err := e.llcShared.Apply(p.LLC); err != nil {
		e.llcLog.Error("queue configuration refused", "err", err)
		p.LLC = e.params.LLC
	}
	lowered := p.MSMax > 0 && (e.params.MSMax == 0 || p.MSMax < e.params.MSMax)
	e.params = p
	if lowered {
		for _, b := range e.bts {
			if n := len(b.ms.all) - p.MSMax; n > 0 {
				e.reclaimMS(b, n)
			}
		}
	}
}

// InstallVTY gives osmo-pcu's engine `show` commands their handlers.
// Handlers run in the VTY executor, i.e. inside the engine goroutine.
func (e *Engine) InstallVTY(v *vty.VTY) {
	e.installNSVTY(v) // gb.go
	set := func(cmd string, h vty.Handler) {
		if err := v.SetHandlerVE(cmd, h); err != nil {
			e.log.Error("cannot install VTY command", "cmd", cmd, "err", err)
		}
	}
	set("show bts statistics", func(c *vty.Context) error {
		for _, nr := range e.btsNrs() {
			b := e.bts[nr]
			c.Printf("BTS%d:\n", nr)
			b.Ctr.WriteVTY(c, " ", false)
		}
		return nil
	})
	set("show bts pdch", func(c *vty.Context) error {
		for _, nr := range e.btsNrs() {
			b := e.bts[nr]
			state := "disabled"
			if b.Active {
				state = "active"
			}
			c.Printf("BTS%d (%s)\n", nr, state)
			for t := range b.TRX {
				trx := &b.TRX[t]
				if trx.enabledMask() == 0 {
					continue
				}
				c.Printf(" TRX%d\n", t)
				for s := range trx.PDCH {
					p := &trx.PDCH[s]
					en := "disabled"
					if p.Enabled {
						en = "enabled"
					}
					// osmo-pcu 1.1.0's order of the words (its numbers are
					// swapped: it shows the DL TBFs as UL TBFs)
					c.Printf("  TS%d: PDCH %s, %d UL TBFs, %d DL TBFs\n", s, en, len(p.ul), len(p.dl))
				}
			}
		}
		return nil
	})
	set("show tbf (all|ccch|pacch)", func(c *vty.Context) error {
		filter := c.Args[0]
		for _, nr := range e.btsNrs() {
			b := e.bts[nr]
			for i, dir := range []Dir{DirUL, DirDL} {
				if i > 0 {
					c.Printf("\n")
				}
				c.Printf("%s TBFs\n", dir)
				for _, t := range b.tbfs {
					if t.dir != dir || filter == "ccch" && !t.ccch || filter == "pacch" && t.ccch {
						continue
					}
					e.showTBF(c, t)
				}
			}
		}
		return nil
	})
	set("show ms all", func(c *vty.Context) error {
		for _, nr := range e.btsNrs() {
			for _, m := range e.bts[nr].ms.all {
				e.showMS(c, m)
			}
		}
		return nil
	})
	set("show ms tlli TLLI", func(c *vty.Context) error {
		v, err := strconv.ParseUint(strings.TrimPrefix(strings.ToLower(c.Args[0]), "0x"), 16, 32)
		if err != nil {
			c.Printf("Invalid TLLI.\n")
			return nil
		}
		for _, nr := range e.btsNrs() {
			if m := e.bts[nr].ms.byTLLI[uint32(v)]; m != nil {
				e.showMS(c, m)
				return nil
			}
		}
		c.Printf("Unknown TLLI %08x.\n", v)
		return nil
	})
	set("show ms imsi IMSI", func(c *vty.Context) error {
		for _, nr := range e.btsNrs() {
			if m := e.bts[nr].ms.byIMSI[c.Args[0]]; m != nil {
				e.showMS(c, m)
				return nil
			}
		}
		c.Printf("Unknown IMSI '%s'.\n", c.Args[0])
		return nil
	})
	set("show bts-timer [TNNNN]", func(c *vty.Context) error {
		arg := ""
		if len(c.Args) > 0 {
			arg = c.Args[0]
		}
		for _, nr := range e.btsNrs() {
			b := e.bts[nr]
			ts := config.BTSTimers()
			set := func(t int, v uint64) {
				if d := ts.Get(t); d != nil && v != 0 {
					d.Val = v
				}
			}
			set(3142, uint64(b.Info.T3142))
			set(3169, uint64(b.Info.T3169))
			set(3191, uint64(b.Info.T3191))
			set(3193, uint64(b.Info.T3193x10ms)*10)
			set(3195, uint64(b.Info.T3195))
			if b.HaveSI13 { // (T3192 may be 0 ms)
				for t, d := range map[int]time.Duration{3168: b.SI13.T3168(), 3192: b.SI13.T3192()} {
					if td := ts.Get(t); td != nil {
						td.Val = uint64(d / time.Millisecond)
					}
				}
			}
			c.Printf("BTS%d:\n", nr)
			if err := ts.Show(c, arg, " "); err != nil {
				return err
			}
		}
		return nil
	})
	// gopcu's own: the LLC queues with their AQM state (osmo-pcu has none).
	v.InstallVE("show llc-queue", "Show running system information\nDownlink LLC queues and their AQM state\n",
		func(c *vty.Context) error {
			for _, nr := range e.btsNrs() {
				for _, m := range e.bts[nr].ms.all {
					c.Printf("%s, IMSI %s: %d frames, %d octets\n", m, m.IMSI, m.Queue.Len(), m.Queue.Octets())
					for _, l := range m.Queue.Stats(e.now).Lines(e.now) {
						c.Printf("%s\n", l)
					}
				}
			}
			return nil
		})
}

func (e *Engine) btsNrs() []uint8 {
	var out []uint8
	for i := 0; i < 256; i++ {
		if e.bts[uint8(i)] != nil {
			out = append(out, uint8(i))
		}
	}
	return out
}

// showTBF writes one TBF as osmo-pcu 1.1.0's `show tbf`: flags are its
// assignment flags (CCCH 1, PACCH 2) and 4 once a DL TBF got a Packet
// Downlink Ack/Nack; created is the wall clock less the TBF's radio age.
func (e *Engine) showTBF(c *vty.Context, t *TBF) {
	m := t.ms
	valid := "valid"
	if m.TLLI == TLLIUnset {
		valid = "invalid"
	}
	c.Printf("TBF: TFI=%d TLLI=0x%08x (%s) TA=%d DIR=%s IMSI=%s\n", t.tfi, m.TLLI, valid, m.TA, t.dir, m.IMSI)
	flags := 2
	if t.ccch {
		flags = 1
	}
	if t.dir == DirDL && t.everAcked {
		flags |= 4
	}
	created := time.Now().Add(-(e.now - t.created)).Unix()
	c.Printf(" created=%d state=%s flags=%08x [CCCH:%d, PACCH:%d] 1st_TS=%d 1st_cTS=%d ctrl_TS=%d MS_CLASS=%d/%d\n",
		created, t.state, flags, flags&1, flags&2, lowestSlot(t.slots), t.ctrlTS, t.ctrlTS, m.MSClass, m.EGPRSClass)
	var ts strings.Builder
	for s := 0; s < 8; s++ {
		if t.slots&(1<<s) != 0 {
			mark := ""
			if uint8(s) == t.ctrlTS {
				mark = "!"
			}
			fmt.Fprintf(&ts, "%d%s ", s, mark)
		}
	}
	c.Printf(" TS_alloc=%s TRX_ID=%d CS=%s", ts.String(), t.trx, t.cs)
	if t.dir == DirUL {
		c.Printf(" WS=%d V(Q)=%d V(R)=%d\n", t.rw.WS(), t.rw.VQ(), t.rw.VR())
		// osmo-pcu 1.1.0 lists no counter under an UL TBF's statistics
		c.Printf(" TBF Statistics:\n")
	} else {
		stalled := ""
		if t.sw.Stalled() {
			stalled = " STALLED"
		}
		c.Printf(" WS=%d V(A)=%d V(S)=%d nBSN=%d%s\n", t.sw.WS(), t.sw.VA(), t.sw.VS(), t.sw.ResendNeeded(), stalled)
		if t.ctr != nil {
			t.ctr.WriteVTY(c, " ", false)
		}
	}
	for _, g := range []*ratectr.Group{t.gprsCtr, t.egprsCtr} {
		if g != nil {
			g.WriteVTY(c, " ", false)
		}
	}
	c.Printf("\n\n")
}

// lowestSlot is the first timeslot of a mask (0 for none).
func lowestSlot(slots uint8) int {
	if slots == 0 {
		return 0
	}
	return bits.TrailingZeros8(slots)
}

// pacchSlot is the PACCH of an MS as osmo-pcu 1.1.0 shows it: the lowest
// timeslot its TBFs have in common (TS 44.060 §8.1.1.2.2; a TBF assigned
// on PACCH counts once assigned), -1 for none.
func pacchSlot(m *MS) int {
	var mask uint8 = 0xff
	have := false
	for _, t := range []*TBF{m.UL, m.DL} {
		if t != nil && (t.ccch || t.state != TBFAssign) {
			mask &= t.slots
			have = true
		}
	}
	if !have || mask == 0 {
		return -1
	}
	return lowestSlot(mask)
}

// showMS writes one MS as osmo-pcu 1.1.0's `show ms`.
func (e *Engine) showMS(c *vty.Context, m *MS) {
	c.Printf("MS TLLI=%08x, IMSI=%s\n", m.TLLI, m.IMSI)
	mode, dl, ul := "GPRS", m.CSDL, m.CSUL
	if m.egprs(m.bts) {
		mode, dl = "EGPRS", m.MCSDL
		if m.MCSUL != 0 {
			ul = m.MCSUL
		}
	}
	c.Printf("  Timing advance (TA):    %d\n", m.TA)
	c.Printf("  Coding scheme uplink:   %s\n", ul)
	c.Printf("  Coding scheme downlink: %s\n", dl)
	c.Printf("  Mode:                   %s\n", mode)
	c.Printf("  MS class:               %d\n", m.MSClass)
	c.Printf("  EGPRS MS class:         %d\n", m.EGPRSClass)
	c.Printf("  PACCH:                  ")
	if s := pacchSlot(m); s >= 0 {
		c.Printf("%d ", s)
	}
	c.Printf("\n")
	c.Printf("  LLC queue length:       %d\n", m.Queue.Len())
	c.Printf("  LLC queue octets:       %d\n", m.Queue.Octets())
	m.meas.show(c.Printf, m)
	if t := m.UL; t != nil {
		c.Printf("  Uplink TBF:             TFI=%d, state=%s\n", t.tfi, t.state)
	}
	if t := m.DL; t != nil {
		c.Printf("  Downlink TBF:           TFI=%d, state=%s\n", t.tfi, t.state)
		kbps := 0
		if age := e.now - t.created; age > 0 {
			kbps = int(float64(t.sentBytes) * 8 / age.Seconds() / 1000)
		}
		c.Printf("  Current DL Throughput:  %d Kbps \n", kbps)
	}
	if m.Ctr != nil {
		m.Ctr.WriteVTY(c, "  ", false)
	}
}
