// Package daemon composes the gopcu engine (package pcu) with its
// surroundings: it maps the osmo-pcu configuration onto engine
// parameters (ParamsFromConfig), renders osmo-pcu's VTY `show` commands
// and stat items from the engine's read-only views (InstallVTY,
// StatItems), and opens the sockets the engine is handed (GSMTAP). The
// engine itself holds state, handles events and schedules; it knows
// nothing of the VTY or of the config file.
package daemon

import (
	"fmt"
	"math/bits"
	"strconv"
	"strings"
	"time"

	"github.com/gopcu/gopcu/internal/ratectr"
	"github.com/gopcu/gopcu/llc"
	"github.com/gopcu/gopcu/pcu"
	"github.com/gopcu/gopcu/pcu/config"
	"github.com/gopcu/gopcu/vty"
)

// InstallVTY gives osmo-pcu's engine `show` commands (and libosmogb's NS
// commands) their handlers. Handlers run in the VTY executor, i.e. inside
// the engine goroutine, where the engine's views may be taken.
func InstallVTY(e *pcu.Engine, v *vty.VTY) {
	installNSVTY(e, v)
	set := func(cmd string, h vty.Handler) {
		if err := v.SetHandlerVE(cmd, h); err != nil {
			e.Logger().Error("cannot install VTY command", "cmd", cmd, "err", err)
		}
	}
	set("show bts statistics", func(c *vty.Context) error {
		for _, nr := range e.BTSNrs() {
			b, _ := e.BTSView(nr)
			c.Printf("BTS%d:\n", nr)
			b.Ctr.WriteVTY(c, " ", false)
		}
		return nil
	})
	set("show bts pdch", func(c *vty.Context) error {
		for _, nr := range e.BTSNrs() {
			showPDCH(c, e, nr)
		}
		return nil
	})
	set("show tbf (all|ccch|pacch)", func(c *vty.Context) error {
		filter := c.Args[0]
		var tbfs []pcu.TBFView
		for _, nr := range e.BTSNrs() {
			tbfs = e.TBFViews(nr, tbfs[:0])
			for i, dir := range []pcu.Dir{pcu.DirUL, pcu.DirDL} {
				if i > 0 {
					c.Printf("\n")
				}
				c.Printf("%s TBFs\n", dir)
				for _, t := range tbfs {
					if t.Dir != dir || filter == "ccch" && !t.CCCH || filter == "pacch" && t.CCCH {
						continue
					}
					showTBF(c, e.Now(), &t)
				}
			}
		}
		return nil
	})
	set("show ms all", func(c *vty.Context) error {
		var ms []pcu.MSView
		for _, nr := range e.BTSNrs() {
			ms = e.MSViews(nr, ms[:0])
			for i := range ms {
				showMS(c, &ms[i])
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
		if m, ok := e.MSViewByTLLI(uint32(v)); ok {
			showMS(c, &m)
			return nil
		}
		c.Printf("Unknown TLLI %08x.\n", v)
		return nil
	})
	set("show ms imsi IMSI", func(c *vty.Context) error {
		if m, ok := e.MSViewByIMSI(c.Args[0]); ok {
			showMS(c, &m)
			return nil
		}
		c.Printf("Unknown IMSI '%s'.\n", c.Args[0])
		return nil
	})
	set("show bts-timer [TNNNN]", func(c *vty.Context) error {
		arg := ""
		if len(c.Args) > 0 {
			arg = c.Args[0]
		}
		for _, nr := range e.BTSNrs() {
			b, _ := e.BTSView(nr)
			c.Printf("BTS%d:\n", nr)
			if err := btsTimers(&b).Show(c, arg, " "); err != nil {
				return err
			}
		}
		return nil
	})
	// gopcu's own: the LLC queues with their AQM state (osmo-pcu has none).
	v.InstallVE("show llc-queue", "Show running system information\nDownlink LLC queues and their AQM state\n",
		func(c *vty.Context) error {
			for _, nr := range e.BTSNrs() {
				e.QueueStats(nr, func(m pcu.MSView, st llc.QueueStats) {
					c.Printf("%s, IMSI %s: %d frames, %d octets\n", m.String(), m.IMSI, m.QueueFrames, m.QueueOctets)
					for _, l := range st.Lines(e.Now()) {
						c.Printf("%s\n", l)
					}
				})
			}
			return nil
		})
}

// showPDCH writes osmo-pcu 1.1.0's `show bts pdch` for one BTS.
func showPDCH(c *vty.Context, e *pcu.Engine, nr uint8) {
	b, _ := e.BTSView(nr)
	state := "disabled"
	if b.Active {
		state = "active"
	}
	c.Printf("BTS%d (%s)\n", nr, state)
	for t := range b.TRX {
		trx := &b.TRX[t]
		if trx.Enabled == 0 {
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
			c.Printf("  TS%d: PDCH %s, %d UL TBFs, %d DL TBFs\n", s, en, p.UL, p.DL)
		}
	}
}

// btsTimers is osmo-pcu's `show bts-timer` table of one BTS: the values
// of its last INFO_IND (T3193 in 10 ms units there) and of SI13's GPRS
// Cell Options (T3168, T3192: TS 44.018 §10.5.2.37b).
func btsTimers(b *pcu.BTSView) vty.Tdefs {
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
	return ts
}

// showTBF writes one TBF as osmo-pcu 1.1.0's `show tbf`: flags are its
// assignment flags (CCCH 1, PACCH 2) and 4 once a DL TBF got a Packet
// Downlink Ack/Nack; created is the wall clock less the TBF's age.
func showTBF(c *vty.Context, now time.Duration, t *pcu.TBFView) {
	valid := "valid"
	if t.TLLI == pcu.TLLIUnset {
		valid = "invalid"
	}
	c.Printf("TBF: TFI=%d TLLI=0x%08x (%s) TA=%d DIR=%s IMSI=%s\n", t.TFI, t.TLLI, valid, t.TA, t.Dir, t.IMSI)
	flags := 2
	if t.CCCH {
		flags = 1
	}
	if t.Dir == pcu.DirDL && t.EverAcked {
		flags |= 4
	}
	created := time.Now().Add(-(now - t.Created)).Unix()
	c.Printf(" created=%d state=%s flags=%08x [CCCH:%d, PACCH:%d] 1st_TS=%d 1st_cTS=%d ctrl_TS=%d MS_CLASS=%d/%d\n",
		created, t.State, flags, flags&1, flags&2, lowestSlot(t.Slots), t.CtrlTS, t.CtrlTS, t.MSClass, t.EGPRSClass)
	var ts strings.Builder
	for s := 0; s < 8; s++ {
		if t.Slots&(1<<s) != 0 {
			mark := ""
			if uint8(s) == t.CtrlTS {
				mark = "!"
			}
			fmt.Fprintf(&ts, "%d%s ", s, mark)
		}
	}
	c.Printf(" TS_alloc=%s TRX_ID=%d CS=%s", ts.String(), t.TRX, t.CS)
	if t.Dir == pcu.DirUL {
		c.Printf(" WS=%d V(Q)=%d V(R)=%d\n", t.WS, t.VQ, t.VR)
		// osmo-pcu 1.1.0 lists no counter under an UL TBF's statistics
		c.Printf(" TBF Statistics:\n")
	} else {
		stalled := ""
		if t.Stalled {
			stalled = " STALLED"
		}
		c.Printf(" WS=%d V(A)=%d V(S)=%d nBSN=%d%s\n", t.WS, t.VA, t.VS, t.Resend, stalled)
		if t.Ctr != nil {
			t.Ctr.WriteVTY(c, " ", false)
		}
	}
	for _, g := range []*ratectr.Group{t.GPRSCtr, t.EGPRSCtr} {
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

// rxQualBER is the bit error rate (%) RXQUAL 0..7 stands for (TS 45.008
// §8.2.4), as osmo-pcu prints "MS RX quality".
var rxQualBER = [8]int{0, 0, 0, 1, 2, 4, 9, 18}

// showMS writes one MS as osmo-pcu 1.1.0's `show ms`.
func showMS(c *vty.Context, m *pcu.MSView) {
	c.Printf("MS TLLI=%08x, IMSI=%s\n", m.TLLI, m.IMSI)
	mode, dl, ul := "GPRS", m.CSDL, m.CSUL
	if m.EGPRS {
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
	if m.PACCH >= 0 {
		c.Printf("%d ", m.PACCH)
	}
	c.Printf("\n")
	c.Printf("  LLC queue length:       %d\n", m.QueueFrames)
	c.Printf("  LLC queue octets:       %d\n", m.QueueOctets)
	showMeas(c, m)
	if t := m.UL; t != nil {
		c.Printf("  Uplink TBF:             TFI=%d, state=%s\n", t.TFI, t.State)
	}
	if t := m.DL; t != nil {
		c.Printf("  Downlink TBF:           TFI=%d, state=%s\n", t.TFI, t.State)
		c.Printf("  Current DL Throughput:  %d Kbps \n", m.DLThroughputKbps)
	}
	if m.Ctr != nil {
		m.Ctr.WriteVTY(c, "  ", false)
	}
}

// showMeas writes the measurement lines of `show ms` (osmo-pcu 1.1.0
// pcu_vty_functions.cpp show_ms()).
func showMeas(c *vty.Context, ms *pcu.MSView) {
	m := &ms.Meas
	if m.HaveUL {
		c.Printf("  RSSI:                   %d dBm\n", ms.RSSI)
		c.Printf("  Bit error rate:         %d %%\n", m.BER10k/100)
		c.Printf("  Link quality:           %d dB\n", ms.LinkQ/10)
		c.Printf("  Burst timing offset:    %d/4 bit\n", ms.BTO)
	}
	if !m.HaveDL {
		return
	}
	c.Printf("  Downlink NACK rate:     %d %%\n", m.NackPct)
	if m.HaveRxQ {
		c.Printf("  MS RX quality:          %d %%\n", rxQualBER[m.RxQual&7])
	}
	c.Printf("  MS C value:             %d dB\n", m.CValue)
	if m.HaveRxQ {
		// SIGN_VAR in 0.25 dB² steps (TS 45.008 §8.2.5), rounded
		c.Printf("  MS SIGN variance:       %d dB\n", (int(m.SignVar)+2)/4)
	}
	for i, l := range m.ILevel {
		if l >= 0 {
			// I_LEVEL n: the interference is 2n dB below C (TS 45.008 §10.3)
			c.Printf("  MS I level (slot %d):    %d dB\n", i, -2*int(l))
		}
	}
}
