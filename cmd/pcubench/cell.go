package main

import (
	"context"
	"fmt"
	"net/netip"
	"slices"
	"sync"
	"time"

	"github.com/gopcu/gopcu/internal/emu/btsemu"
	"github.com/gopcu/gopcu/internal/emu/msemu"
	"github.com/gopcu/gopcu/internal/emu/sgsnemu"
	"github.com/gopcu/gopcu/pcu/pcuif"
	"github.com/gopcu/gopcu/rlcmac"
)

// runCell runs a loaded workload: the MS emulator on the BTS emulator
// and, for downlink, the SGSN emulator keeping every MS's downlink queue
// filled.
func runCell(ctx context.Context, k pcuKind, w workload, rd *runDir, nsPort, sgsnPort int) (result, error) {
	c := &cellRun{w: w, info: cellInfo(w.trx, w.mask, w.egprs > 0, nsPort, sgsnPort)}
	bts, err := btsemu.Listen(btsemu.Config{Path: rd.sock, Version: pcuif.V10, Info: c.info})
	if err != nil {
		return result{}, err
	}
	defer bts.Close()
	c.bts = bts
	up := make(chan struct{})
	if w.dl {
		sg, err := c.listenSGSN(sgsnPort, up)
		if err != nil {
			return result{}, err
		}
		defer sg.Close()
		c.sg = sg
	}
	p, err := k.start(rd, "")
	if err != nil {
		return result{}, err
	}
	defer p.stop()
	c.p = p
	if err := c.waitUp(ctx, up); err != nil {
		return result{}, err
	}
	p.waitMetrics(ctx)
	c.addMSs()
	if err := c.warmUp(ctx); err != nil {
		return result{}, err
	}
	return c.measure(ctx)
}

// cellRun is the cell of one loaded workload: the emulators, the PCU
// under test and the downlink feed.
type cellRun struct {
	w    workload
	info *pcuif.InfoInd
	bts  *btsemu.BTS
	sg   *sgsnemu.Server // downlink workloads only
	p    *pcuProc
	cell *msemu.Cell
	// the downlink feed: octets sent to, last received by and blocks
	// without progress of every MS
	sent, lastDL, stall []int
	dlFrame             []byte
}

// listenSGSN starts the SGSN emulator; it closes up when the cell's BVC
// is unblocked.
func (c *cellRun) listenSGSN(sgsnPort int, up chan struct{}) (*sgsnemu.Server, error) {
	var once sync.Once
	return sgsnemu.Listen(netip.AddrPortFrom(netip.MustParseAddr("127.0.0.1"), uint16(sgsnPort)), sgsnemu.Config{DLLifetime: 60000},
		sgsnemu.Callbacks{BVCState: func(bvci uint16, unblocked bool, now time.Duration) {
			if bvci == c.info.BVCI && unblocked {
				once.Do(func() { close(up) })
			}
		}})
}

// waitUp waits for the PCU's PDCHs and, for downlink, the BVC.
func (c *cellRun) waitUp(ctx context.Context, up chan struct{}) error {
	w, p := c.w, c.p
	wctx, cancel := context.WithTimeout(ctx, 20*time.Second)
	defer cancel()
	if err := c.bts.WaitActive(wctx, w.pdchsPerBTS()); err != nil {
		return fmt.Errorf("%w\n%s log:\n%s", err, p.name, p.tailLog())
	}
	if w.dl {
		select {
		case <-up:
		case <-wctx.Done():
			return fmt.Errorf("BVC not unblocked\n%s log:\n%s", p.name, p.tailLog())
		}
	}
	return nil
}

// addMSs adds the workload's MSs with their uplink frames (and, for
// downlink, their radio access capability at the SGSN).
func (c *cellRun) addMSs() {
	w := c.w
	c.cell = msemu.NewCell(c.bts, 1)
	c.dlFrame = make([]byte, w.dlFrame)
	for i := 0; i < w.ms; i++ {
		tlli := 0xc2000000 + uint32(i)
		m := c.cell.AddMS(tlli, fmt.Sprintf("9017000001%05d", i), w.class)
		m.EGPRSClass = w.egprs
		for _, f := range ulFrames(i, w.ulBytes) {
			m.SendLLC(f)
		}
		if c.sg != nil {
			rac := msRAC(w.class, w.egprs)
			c.sg.Do(func(s *sgsnemu.SGSN, now time.Duration) { s.SetMSRAC(tlli, rac) })
		}
		c.sent = append(c.sent, 0)
	}
	c.lastDL = make([]int, w.ms)
	c.stall = make([]int, w.ms)
}

// feed keeps about four frames outstanding per MS; frames a PCU dropped
// (an MS merged on access) count as received after 200 blocks without
// progress.
func (c *cellRun) feed() error {
	if c.sg == nil {
		return nil
	}
	w := c.w
	for i, m := range c.cell.MSs {
		if m.DLOctets != c.lastDL[i] {
			c.lastDL[i], c.stall[i] = m.DLOctets, 0
		} else if c.stall[i]++; c.stall[i] > 200 {
			c.sent[i], c.stall[i] = m.DLOctets, 0
		}
		for c.sent[i]-m.DLOctets < 4*w.dlFrame {
			if err := c.sg.SendDLUnitdata(c.info.BVCI, m.TLLI, m.IMSI, msemu.UIFrame(3, uint16(c.sent[i]/w.dlFrame), c.dlFrame[:w.dlFrame-6])); err != nil {
				return err
			}
			c.sent[i] += w.dlFrame
		}
	}
	return nil
}

// warmUp runs the first blocks (access, assignments) before the phase;
// with downlink until every MS receives (osmo-pcu starts a DL TBF
// assigned on CCCH after X2002 on the wall clock).
func (c *cellRun) warmUp(ctx context.Context) error {
	warm := time.Now().Add(15 * time.Second)
	for i := 0; ; i++ {
		if err := c.feed(); err != nil {
			return err
		}
		if err := c.cell.Step(ctx); err != nil {
			return err
		}
		if i < 20 {
			continue
		}
		if !c.w.dl || !slices.ContainsFunc(c.cell.MSs, func(m *msemu.MS) bool { return m.DLOctets == 0 }) {
			return nil
		}
		if time.Now().After(warm) {
			if slices.ContainsFunc(c.cell.MSs, func(m *msemu.MS) bool { return m.DLOctets > 0 }) {
				return nil // some MSs wait for an uplink TBF to end
			}
			return fmt.Errorf("downlink not running after 15 s\n%s log:\n%s", c.p.name, c.p.tailLog())
		}
		time.Sleep(2 * time.Millisecond)
	}
}

// traffic returns the uplink data blocks the cells' MSs sent, those of
// them resent, and the downlink octets they received.
func traffic(cells ...*msemu.Cell) (ulBlocks, ulResent, dl int) {
	for _, c := range cells {
		for _, m := range c.MSs {
			ulBlocks += m.ULBlocks
			ulResent += m.ULResent
			dl += m.DLOctets
		}
	}
	return ulBlocks, ulResent, dl
}

// runRadio steps the radio (step: one block) until d of radio time has
// passed by the BTS's frame numbers (fn), in virtual time or, if
// realtime, paced by the wall clock.
func runRadio(ctx context.Context, d time.Duration, realtime bool, fn func() uint32, step func() error) error {
	start := time.Now()
	last := fn()
	var radio time.Duration
	for radio < d {
		if err := ctx.Err(); err != nil {
			return err
		}
		if err := step(); err != nil {
			return err
		}
		f := fn()
		radio += time.Duration((f+pcuif.MaxFN-last)%pcuif.MaxFN) * btsemu.FramePeriod
		last = f
		if realtime {
			time.Sleep(time.Until(start.Add(radio)))
		}
	}
	return nil
}

// measure runs the workload's measured phase and counts its traffic.
func (c *cellRun) measure(ctx context.Context) (result, error) {
	w, bts, p := c.w, c.bts, c.p
	var lat *latencies
	if w.realtime {
		lat = &latencies{}
		var mu sync.Mutex
		bts.OnRTSLatency(func(d time.Duration) { mu.Lock(); lat.add(d); mu.Unlock() })
	}
	rts0 := bts.Stats().RTSSent
	ul0, rs0, dl0 := traffic(c.cell)
	r, err := measure(ctx, p, func() (int, error) {
		err := runRadio(ctx, w.duration, w.realtime, bts.FN, func() error {
			if err := c.feed(); err != nil {
				return err
			}
			return c.cell.Step(ctx)
		})
		return bts.Stats().RTSSent - rts0, err
	})
	r.lat, r.rt = lat, w.realtime
	ul, rs, dl := traffic(c.cell)
	ul, rs, dl = ul-ul0, rs-rs0, dl-dl0
	// a workload's fixed uplink may all go in the warm-up (it lasts until
	// every MS receives downlink): no uplink at all fails, none in the
	// phase does not
	if err == nil && (w.ulBytes > 0 && ul+ul0 == 0 || w.dl && dl == 0) {
		return r, fmt.Errorf("no traffic (uplink %d blocks in all, downlink %d octets in the phase)\n%s log:\n%s", ul+ul0, dl, p.name, p.tailLog())
	}
	r.ul, r.ulResent, r.dl = ul, rs, dl
	return r, err
}

// ulFrames are n octets of uplink LLC UI frames of 500 octets for MS i.
func ulFrames(i, n int) [][]byte {
	var out [][]byte
	for k := 0; n > 0; k++ {
		l := max(min(500, n), 6)
		info := make([]byte, l-6)
		for j := range info {
			info[j] = byte(i + k + j)
		}
		out = append(out, msemu.UIFrame(3, uint16(k), info))
		n -= l
	}
	return out
}

// msRAC is the MS Radio Access Capability the SGSN sends with the
// downlink (TS 24.008 §10.5.5.12a): the GPRS and EGPRS multislot classes.
func msRAC(class, egprs int) []byte { return rlcmac.EncodeMultislotRAC(class, egprs) }

// latencies collects RTS_REQ -> DATA_REQ times.
type latencies struct{ d []time.Duration }

func (l *latencies) add(d time.Duration) { l.d = append(l.d, d) }
func (l *latencies) n() int              { return len(l.d) }
func (l *latencies) merge(o *latencies) {
	if o != nil {
		l.d = append(l.d, o.d...)
	}
}

func (l *latencies) quantile(q float64) time.Duration {
	s := slices.Clone(l.d)
	slices.Sort(s)
	return s[min(int(q*float64(len(s))), len(s)-1)]
}

func (l *latencies) summary() string {
	if len(l.d) == 0 {
		return "-"
	}
	us := func(d time.Duration) string { return fmt.Sprintf("%.0f", float64(d.Microseconds())) }
	return us(l.quantile(0.5)) + " / " + us(l.quantile(0.99)) + " / " + us(slices.Max(l.d)) + " µs"
}
