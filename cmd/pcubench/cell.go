package main

import (
	"context"
	"fmt"
	"net/netip"
	"slices"
	"sync"
	"time"

	"github.com/gopcu/gopcu/pcu/pcuif"
	"github.com/gopcu/gopcu/rlcmac"
	"github.com/gopcu/gopcu/tests/btsemu"
	"github.com/gopcu/gopcu/tests/msemu"
	"github.com/gopcu/gopcu/tests/sgsnemu"
)

// runCell runs a loaded workload: the MS emulator on the BTS emulator
// and, for downlink, the SGSN emulator keeping every MS's downlink queue
// filled.
func runCell(ctx context.Context, k pcuKind, w workload, rd *runDir, nsPort, sgsnPort int) (result, error) {
	info := cellInfo(w.trx, w.mask, w.egprs > 0, nsPort, sgsnPort)
	bts, err := btsemu.Listen(btsemu.Config{Path: rd.sock, Version: pcuif.V10, Info: info})
	if err != nil {
		return result{}, err
	}
	defer bts.Close()
	var sg *sgsnemu.Server
	up := make(chan struct{})
	if w.dl {
		var once sync.Once
		sg, err = sgsnemu.Listen(netip.AddrPortFrom(netip.MustParseAddr("127.0.0.1"), uint16(sgsnPort)), sgsnemu.Config{DLLifetime: 60000},
			sgsnemu.Callbacks{BVCState: func(bvci uint16, unblocked bool, now time.Duration) {
				if bvci == info.BVCI && unblocked {
					once.Do(func() { close(up) })
				}
			}})
		if err != nil {
			return result{}, err
		}
		defer sg.Close()
	}
	p, err := k.start(rd, "")
	if err != nil {
		return result{}, err
	}
	defer p.stop()
	pdchs := 0
	for t := 0; t < w.trx; t++ {
		for ts := 0; ts < 8; ts++ {
			if w.mask&(1<<ts) != 0 {
				pdchs++
			}
		}
	}
	wctx, cancel := context.WithTimeout(ctx, 20*time.Second)
	defer cancel()
	if err := bts.WaitActive(wctx, pdchs); err != nil {
		return result{}, fmt.Errorf("%w\n%s log:\n%s", err, p.name, p.tailLog())
	}
	if w.dl {
		select {
		case <-up:
		case <-wctx.Done():
			return result{}, fmt.Errorf("BVC not unblocked\n%s log:\n%s", p.name, p.tailLog())
		}
	}
	p.waitMetrics(ctx)
	cell := msemu.NewCell(bts, 1)
	var sent []int
	dlFrame := make([]byte, w.dlFrame)
	for i := 0; i < w.ms; i++ {
		tlli := 0xc2000000 + uint32(i)
		m := cell.AddMS(tlli, fmt.Sprintf("9017000001%05d", i), w.class)
		m.EGPRSClass = w.egprs
		for _, f := range ulFrames(i, w.ulBytes) {
			m.SendLLC(f)
		}
		if sg != nil {
			rac := msRAC(w.class, w.egprs)
			sg.Do(func(s *sgsnemu.SGSN, now time.Duration) { s.SetMSRAC(tlli, rac) })
		}
		sent = append(sent, 0)
	}
	// feed keeps about four frames outstanding per MS; frames a PCU
	// dropped (an MS merged on access) count as received after 200 blocks
	// without progress
	lastDL := make([]int, w.ms)
	stall := make([]int, w.ms)
	feed := func() error {
		if sg == nil {
			return nil
		}
		for i, m := range cell.MSs {
			if m.DLOctets != lastDL[i] {
				lastDL[i], stall[i] = m.DLOctets, 0
			} else if stall[i]++; stall[i] > 200 {
				sent[i], stall[i] = m.DLOctets, 0
			}
			for sent[i]-m.DLOctets < 4*w.dlFrame {
				if err := sg.SendDLUnitdata(info.BVCI, m.TLLI, m.IMSI, msemu.UIFrame(3, uint16(sent[i]/w.dlFrame), dlFrame[:w.dlFrame-6])); err != nil {
					return err
				}
				sent[i] += w.dlFrame
			}
		}
		return nil
	}
	// warm up: the first blocks (access, assignments) before the phase;
	// with downlink until every MS receives (osmo-pcu starts a DL TBF
	// assigned on CCCH after X2002 on the wall clock)
	warm := time.Now().Add(15 * time.Second)
	for i := 0; ; i++ {
		if err := feed(); err != nil {
			return result{}, err
		}
		if err := cell.Step(ctx); err != nil {
			return result{}, err
		}
		if i < 20 {
			continue
		}
		if !w.dl || !slices.ContainsFunc(cell.MSs, func(m *msemu.MS) bool { return m.DLOctets == 0 }) {
			break
		}
		if time.Now().After(warm) {
			if slices.ContainsFunc(cell.MSs, func(m *msemu.MS) bool { return m.DLOctets > 0 }) {
				break // some MSs wait for an uplink TBF to end
			}
			return result{}, fmt.Errorf("downlink not running after 15 s\n%s log:\n%s", p.name, p.tailLog())
		}
		time.Sleep(2 * time.Millisecond)
	}
	var lat *latencies
	if w.realtime {
		lat = &latencies{}
		var mu sync.Mutex
		bts.OnRTSLatency(func(d time.Duration) { mu.Lock(); lat.add(d); mu.Unlock() })
	}
	rts0 := bts.Stats().RTSSent
	ul0, dl0 := 0, 0
	for _, m := range cell.MSs {
		ul0 += m.ULOctets
		dl0 += m.DLOctets
	}
	r, err := measure(ctx, p, func() (int, error) {
		start := time.Now()
		last := bts.FN()
		var radio time.Duration
		for radio < w.duration {
			if err := ctx.Err(); err != nil {
				return 0, err
			}
			if err := feed(); err != nil {
				return 0, err
			}
			if err := cell.Step(ctx); err != nil {
				return 0, err
			}
			fn := bts.FN()
			radio += time.Duration((fn+pcuif.MaxFN-last)%pcuif.MaxFN) * btsemu.FramePeriod
			last = fn
			if w.realtime {
				time.Sleep(time.Until(start.Add(radio)))
			}
		}
		return bts.Stats().RTSSent - rts0, nil
	})
	r.lat, r.rt = lat, w.realtime
	ul, dl := -ul0, -dl0
	for _, m := range cell.MSs {
		ul += m.ULOctets
		dl += m.DLOctets
	}
	if err == nil && (w.ulBytes > 0 && ul+ul0 == 0 || w.dl && dl == 0) {
		return r, fmt.Errorf("no traffic (uplink %d, downlink %d octets)\n%s log:\n%s", ul, dl, p.name, p.tailLog())
	}
	r.ul, r.dl = ul, dl
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
func msRAC(class, egprs int) []byte {
	if egprs == 0 {
		return sgsnemu.MultislotRAC(class)
	}
	var r rlcmac.MSRadioAccessCapability
	r.N = 1
	r.Values[0].AccessTech = 3
	r.Values[0].RFPowerCap = 1
	r.Values[0].HasMultislot = true
	r.Values[0].Multislot.HasGPRS = true
	r.Values[0].Multislot.GPRSClass = uint8(class)
	r.Values[0].Multislot.HasEGPRS = true
	r.Values[0].Multislot.EGPRSClass = uint8(egprs)
	b := make([]byte, 64)
	n, err := rlcmac.EncodeMSRadioAccessCapability(b, &r)
	if err != nil {
		panic(err)
	}
	return b[:n]
}

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
