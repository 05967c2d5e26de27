package msemu

import (
	"math/bits"

	"github.com/gopcu/gopcu/pcu/pcuif"
	"github.com/gopcu/gopcu/rlcmac"
)

// Downlink control messages and what the MS answers: Packet Uplink Ack/Nack,
// Packet Downlink and Uplink Assignment, timing advance (TS 44.060 §11.2).

func (m *MS) sendCtrl(fn uint32, trx, ts uint8, msg rlcmac.Message) {
	out := make([]byte, rlcmac.ControlBlockLen)
	if _, err := rlcmac.EncodeUL(out, &rlcmac.ULCtrlHeader{}, msg); err != nil {
		panic(err)
	}
	m.cell.queueULOffs(fn, trx, ts, out, m.burstOffset())
}

// burstOffset is how late the MS's bursts arrive: its distance minus the
// timing advance it applies (quarter bits).
func (m *MS) burstOffset() int16 { return int16(m.DistanceQbits - 4*int(m.ta)) }

// setTA applies a Packet Timing Advance IE.
func (m *MS) setTA(t *rlcmac.PacketTimingAdvance) {
	if t.HasValue {
		m.ta = t.Value
	}
	if t.HasIndex {
		m.tai, m.taiTS = int(t.Index), t.TN
	}
}

// ptcch reads the MS's slot of a PTCCH/D block.
func (m *MS) ptcch(d pcuif.Data) {
	if m.tai < 0 || d.TS != m.taiTS || len(d.Payload) < 16 {
		return
	}
	if v := d.Payload[m.tai]; v != 0x7f {
		m.ta, m.taPTCCH = v&0x3f, int(v&0x3f)
	}
}

// dlControl handles a downlink control block: it counts it and hands the
// messages the MS acts on to their handlers.
func (m *MS) dlControl(d pcuif.Data) {
	h, msg, err := rlcmac.DecodeDL(d.Payload)
	if err != nil {
		return
	}
	if m.BeforeControl != nil {
		if _, dummy := msg.(*rlcmac.PacketDownlinkDummyControlBlock); !dummy {
			m.BeforeControl(msg)
			if m.Mute {
				return
			}
		}
	}
	if _, dummy := msg.(*rlcmac.PacketDownlinkDummyControlBlock); dummy {
		m.cell.Blocks.Dummy++
		return
	}
	m.cell.Blocks.Control++
	switch x := msg.(type) {
	case *rlcmac.PacketUplinkAckNack:
		m.uplinkAckNack(d, h, x)
	case *rlcmac.PacketDownlinkAssignment:
		if !m.IgnoreDLAssignment {
			m.downlinkAssignment(d, h, x)
		}
	case *rlcmac.PacketUplinkAssignment:
		m.uplinkAssignment(d, h, x)
	default:
		m.naccDL(d, h, msg)
	}
}

// ackPoll answers a poll of a downlink control block (S/P set) with a
// Packet Control Acknowledgement in the RRBP block.
func (m *MS) ackPoll(d pcuif.Data, h rlcmac.DLCtrlHeader) {
	if h.SP {
		m.sendCtrl(rrbpFN(d.FN, h.RRBP), d.TRX, d.TS, &rlcmac.PacketControlAck{TLLI: m.TLLI, CtrlAck: 3})
	}
}

// uplinkAckNack applies a Packet Uplink Ack/Nack to the MS's UL TBF: the
// contention resolution, the TA, the MCS and the acknowledged blocks; the
// final one ends the TBF and, when polled, either asks for the next TBF or
// acknowledges.
func (m *MS) uplinkAckNack(d pcuif.Data, h rlcmac.DLCtrlHeader, x *rlcmac.PacketUplinkAckNack) {
	if !m.ul.active || m.ul.trx != d.TRX || x.UplinkTFI != m.ul.tfi {
		return
	}
	if x.HasContentionTLLI && x.ContentionTLLI == m.TLLI {
		m.ul.contention = true
	}
	if x.HasTA {
		m.setTA(&x.TA)
		if x.TA.HasValue {
			m.taPUAN = int(x.TA.Value)
		}
	}
	final := x.AckNack.FinalAck
	if x.EGPRS {
		// the MCS for new blocks and retransmissions (TS 44.060 §8.1.1.2)
		if cs := rlcmac.CSFromCommand(x.ChannelCoding, true); cs != rlcmac.CSUnknown {
			m.cs = cs
		}
		m.ul.reseg = x.Resegment
		m.ul.sw.ApplyEGPRSAckNack(&x.EGPRSAckNack)
		final = x.EGPRSAckNack.FinalAck
	} else {
		m.ul.sw.ApplyGPRSAckNack(&x.AckNack)
	}
	if !final {
		return
	}
	m.ul.done = true
	m.ul = ulState{}
	if !h.SP {
		return
	}
	fn := rrbpFN(d.FN, h.RRBP)
	if len(m.ulQueue) > 0 && x.TBFEst && !m.NoReuse {
		// data came during the countdown: ask for the next TBF in
		// the final ack's poll (TS 44.060 §9.3.3.3) and listen here
		// for its assignment
		prr := &rlcmac.PacketResourceRequest{ID: rlcmac.ULID{IsTLLI: true, TLLI: m.TLLI},
			ChanReq: rlcmac.ChannelRequestDescription{RLCOctetCount: uint16(min(len(m.ulQueue[0]), 0xffff))}}
		if m.Class > 0 {
			prr.HasRAC = true
			prr.RAC = msRAC(m.Class, m.EGPRSClass)
		}
		m.sbaTRX, m.sbaTS = d.TRX, d.TS
		m.sendCtrl(fn, d.TRX, d.TS, prr)
		m.waitPUA = (fn + 4*217) % pcuif.MaxFN // T3168
		m.ULReuses++
		return
	}
	m.sendCtrl(fn, d.TRX, d.TS, &rlcmac.PacketControlAck{TLLI: m.TLLI, CtrlAck: 3})
}

// downlinkAssignment starts the DL TBF a Packet Downlink Assignment for the
// MS gives.
func (m *MS) downlinkAssignment(d pcuif.Data, h rlcmac.DLCtrlHeader, x *rlcmac.PacketDownlinkAssignment) {
	if !m.addressed(&x.ID, d.TRX) {
		return
	}
	slots := reverse(x.TimeslotAlloc)
	m.setTA(&x.TA)
	ws := 0
	if x.HasEGPRS {
		ws = rlcmac.EGPRSWindowSize(x.WindowSize)
	}
	m.startDL(m.cell.freqTRX(x.HasFreq, &x.Freq, d.TRX), x.DownlinkTFI, slots, ws)
	m.ackPoll(d, h)
}

// dynamicSlots returns the timeslots and USFs of a Dynamic Allocation.
func dynamicSlots(a *rlcmac.DynamicAllocation) (slots uint8, usf [8]uint8) {
	for ts := 0; ts < 8; ts++ {
		if a.HasUSF[ts] {
			slots |= 1 << ts
			usf[ts] = a.USF[ts]
		}
	}
	return slots, usf
}

// uplinkAssignment starts the UL TBF a Packet Uplink Assignment for the MS
// gives, or handles a repeated or new assignment of the running one.
func (m *MS) uplinkAssignment(d pcuif.Data, h rlcmac.DLCtrlHeader, x *rlcmac.PacketUplinkAssignment) {
	if !m.addressed(&x.ID, d.TRX) {
		return
	}
	if m.ul.active {
		m.uplinkReassignment(d, h, x)
		return
	}
	slots, usf := dynamicSlots(&x.Dynamic)
	m.cs = rlcmac.CSFromCommand(x.ChannelCoding, x.EGPRS)
	m.waitPUA = 0
	m.setTA(&x.TA)
	ws := 0
	if x.EGPRS {
		ws = rlcmac.EGPRSWindowSize(x.WindowSize)
	}
	m.startULWS(m.cell.freqTRX(x.HasFreq, &x.Freq, d.TRX), x.Dynamic.UplinkTFI, slots, usf, true, ws)
	m.trace("pua", bits.OnesCount8(slots))
	m.ul.reseg = x.Resegment
	m.ackPoll(d, h)
}

// uplinkReassignment handles a Packet Uplink Assignment that comes while
// the MS has a UL TBF.
func (m *MS) uplinkReassignment(d pcuif.Data, h rlcmac.DLCtrlHeader, x *rlcmac.PacketUplinkAssignment) {
	// the network repeats the assignment of the TBF the MS already
	// uses (its Control Ack was lost): acknowledge it again
	if x.Dynamic.HasUplinkTFI && x.Dynamic.UplinkTFI == m.ul.tfi {
		m.ackPoll(d, h)
	}
	// Over a real BTS only: a new TFI reassigns the running TBF
	// (TS 44.060 §8.1.1.1.2: the MS acts on the latest
	// assignment; osmo-pcu 1.1.0 sends a second assignment when
	// the MS asked twice, in a Packet Resource Request and in a
	// DL Ack/Nack).
	if !m.cell.rt || !x.Dynamic.HasUplinkTFI || x.Dynamic.UplinkTFI == m.ul.tfi {
		return
	}
	slots, usf := dynamicSlots(&x.Dynamic)
	for ts := 0; ts < 8; ts++ {
		if slots&(1<<ts) != 0 {
			m.ul.usf[ts] = usf[ts]
		}
	}
	m.ul.tfi, m.ul.slots = x.Dynamic.UplinkTFI, slots
	m.ulHeard = d.FN
	m.ul.trx = m.cell.freqTRX(x.HasFreq, &x.Freq, d.TRX)
	m.ULReassigned++
	m.ackPoll(d, h)
}

// addressed reports whether a Global TFI (TFIs are per TRX) / TLLI in a
// message received on trx identifies this MS.
func (m *MS) addressed(id *rlcmac.MSID, trx uint8) bool {
	switch id.Kind {
	case rlcmac.IDTLLI:
		return id.TLLI == m.TLLI
	case rlcmac.IDGlobalTFI:
		if id.GlobalTFI.Downlink {
			return (m.dl.active || m.dl.waitRelease) && m.dl.trx == trx && id.GlobalTFI.TFI == m.dl.tfi
		}
		return m.ul.active && m.ul.trx == trx && id.GlobalTFI.TFI == m.ul.tfi
	}
	return false
}
