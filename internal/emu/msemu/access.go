package msemu

import (
	"time"

	"github.com/gopcu/gopcu/pcu/pcuif"
	"github.com/gopcu/gopcu/rlcmac"
)

// Packet access: the per-block timers, the RACH and the Immediate Assignment
// (TS 44.018 §3.5.2, TS 44.060 §7.1).

func (m *MS) beforeBlock(fn uint32) {
	if m.Mute {
		return
	}
	// Over a real BTS an UL TBF the network dropped (its assignment lost,
	// N3101 run out) must not hold the MS for ever: with no USF for
	// TBFWatchdog the MS returns to packet idle (as T3182 would end the
	// TBF, TS 44.060 §13.1); its frames are lost to the layers above.
	if m.cell.rt && m.ul.active && pcuif.FNDelta(fn, m.ulHeard) > tbfWatchdogFrames {
		m.ul = ulState{}
		m.Aborted++
	}
	// T3190 (TS 44.060 §13.1), over any air: no valid RLC data block of
	// the DL TBF for 5 s since its assignment or the last one, and the MS
	// releases it abnormally and returns to packet idle mode (§8.7.1),
	// where it reads the CCCH again and accesses for its UL data. The
	// network may have dropped the TBF while the MS took it: a Packet
	// Downlink Assignment whose Control Ack was lost is repeated under the
	// old TBF's TFI, which the MS no longer answers to, and the network
	// gives the new TBF up (TestLostAssignmentAckT3190).
	if m.dl.active && pcuif.FNDelta(fn, m.dlHeard) > t3190Frames {
		m.dl = dlState{}
		m.Aborted++
	}
	if m.dl.waitRelease && pcuif.FNDelta(fn, m.dl.releaseFN) >= 0 {
		m.dl.waitRelease = false // T3192 expired: packet idle
	}
	// Access: RACH when data waits, no UL TBF exists and the MS is not in
	// downlink transfer (then it asks in the DL Ack/Nack instead).
	if m.waitPUA != 0 && pcuif.FNDelta(fn, m.waitPUA) > 0 {
		m.waitPUA = 0 // T3168 expired: access again
	}
	if m.rachWait && pcuif.FNDelta(fn, m.rachFN) > rachGiveUpFrames {
		m.rachWait = false // no (usable) assignment: access again, as after T3146
	}
	if len(m.ulQueue) > 0 && !m.ul.active && !m.rachWait && !m.dl.active && m.waitPUA == 0 {
		m.rachRA = 0x78 | uint16(m.cell.rnd.Intn(8))
		if m.cell.rt && m.rachRA == 0x7f {
			// osmo-bts takes RA 0x7f for a CS request (it is no packet
			// access RA in osmo-bts's L1SAP_IS_PACKET_RACH) and
			// passes it to the BSC
			m.rachRA = 0x7e
		}
		m.rach11 = false
		switch {
		case m.TwoPhase && m.EGPRSClass > 0:
			// EGPRS Packet Channel Request, Two Phase Access: 110000 <priority:2> <random:3>
			m.rachRA = 0b110000<<5 | uint16(m.cell.rnd.Intn(8))
			m.rach11 = true
		case m.TwoPhase:
			m.rachRA = 0x70 | uint16(m.cell.rnd.Intn(8))
		case m.EGPRSClass > 0:
			// EGPRS Packet Channel Request, One Phase Access (TS 44.060
			// §11.2.5a): 0 <multislot class - 1:5> <priority:2> <random:3>
			m.rachRA = uint16((m.EGPRSClass-1)&0x1f)<<5 | uint16(m.cell.rnd.Intn(8))
			m.rach11 = true
		}
		m.rachFN = fn
		m.rachWait = true
		m.trace("rach", len(m.ulQueue))
		burst := uint8(1) // ACCESS_0
		if m.rach11 {
			burst = 2 // ACCESS_1: EGPRS access burst
		}
		m.cell.air.Send(&pcuif.RACHInd{SAPI: pcuif.SAPIRACH, RA: m.rachRA, Is11Bit: m.rach11, FN: fn % 42432, ARFCN: m.cell.arfcn,
			BurstType: burst, QTA: int16(m.DistanceQbits)})
	}
}

// rachGiveUpFrames is how long an MS waits for the answer to its channel
// request before it accesses again (5 s; a real MS gives up after T3146
// or waits T3122 after an IMMEDIATE ASSIGNMENT REJECT, TS 44.018 §3.3.1.1.3):
// without it an MS whose request went unanswered (or was rejected) under
// overload would never send again.
const rachGiveUpFrames = int(5 * time.Second / (120 * time.Millisecond / 26))

// ulAssigned handles an uplink Immediate Assignment (EGPRS or GPRS) that
// answers the MS's access burst if its request reference matches; it
// reports whether it did.
func (m *MS) ulAssigned(ia *rlcmac.ImmediateAssignment, egprs bool) bool {
	if !m.refMatches(ia) {
		return false
	}
	m.rachWait = false
	m.iaTA(ia)
	if !ia.Rest.Dynamic {
		m.resourceRequest(ia) // multi block: two-phase access
		return true
	}
	m.cs = rlcmac.CSFromCommand(ia.Rest.ChannelCoding, egprs)
	var usf [8]uint8
	usf[ia.TN] = ia.Rest.USF
	ws := 0
	if egprs {
		ws = rlcmac.EGPRSWindowSize(ia.Rest.WindowSize)
	}
	m.startULWS(m.cell.iaTRX(ia), ia.Rest.TFI, 1<<ia.TN, usf, false, ws)
	m.trace("ia", 1)
	return true
}

// immAss handles an Immediate Assignment; it reports whether it was ours.
func (m *MS) immAss(fn uint32, ia *rlcmac.ImmediateAssignment) bool {
	switch ia.Rest.Kind {
	case rlcmac.IAREGPRSPacketUpl:
		if !m.rachWait || !m.rach11 || ia.ReqRef.RA != 0x7f || !ia.Rest.HasExtRA || ia.Rest.ExtRA != uint8(m.rachRA&0x1f) {
			return false
		}
		return m.ulAssigned(ia, true)
	case rlcmac.IARPacketUplink:
		if !m.rachWait || m.rach11 || uint16(ia.ReqRef.RA) != m.rachRA {
			return false
		}
		return m.ulAssigned(ia, false)
	case rlcmac.IARPacketDownlink:
		if ia.Rest.TLLI != m.TLLI {
			return false
		}
		if m.dl.active || m.ul.active {
			// The CCCH downlink assignment takes an MS from packet idle
			// into packet transfer mode (TS 44.018 §3.5.3.1); in packet
			// transfer mode the MS listens to its PDCHs only, where the
			// network assigns it on PACCH (TS 44.060 clause 8). An
			// IMMEDIATE ASSIGNMENT that still comes is stale: the PCU
			// sent it on PCH for a TBF it freed when the MS accessed
			// (the frames went to a TBF assigned on PACCH, under the
			// same TFI) and the BTS kept it for the MS's paging block.
			// Acting on it restarted the receive window of the running
			// TBF (V(Q) = V(R) = 0, §9.1.5) while the network went on
			// with its BSNs: the stall in docs/reliability.md.
			m.IgnoredDLImmAss++
			return true
		}
		ws := 0
		if ia.Rest.HasEGPRS {
			ws = rlcmac.EGPRSWindowSize(ia.Rest.WindowSize)
		}
		m.iaTA(ia)
		m.startDL(m.cell.iaTRX(ia), ia.Rest.TFI, 1<<ia.TN, ws)
		return true
	}
	return false
}

// refMatches reports whether the Request Reference of ia names our RACH's FN.
func (m *MS) refMatches(ia *rlcmac.ImmediateAssignment) bool {
	var rr rlcmac.RequestReference
	rr.SetFN(m.rachFN)
	return rr.T1 == ia.ReqRef.T1 && rr.T2 == ia.ReqRef.T2 && rr.T3 == ia.ReqRef.T3
}

// resourceRequest sends the Packet Resource Request of two-phase access in
// the single (or multi) block an Immediate Assignment allocated at its
// starting time (TS 44.018 §10.5.2.38), with the MS Radio Access
// Capability, and waits for the Packet Uplink Assignment.
func (m *MS) resourceRequest(ia *rlcmac.ImmediateAssignment) {
	fn := startFN(m.rachFN, ia.Rest.T1, ia.Rest.T3, ia.Rest.T2)
	prr := &rlcmac.PacketResourceRequest{ID: rlcmac.ULID{IsTLLI: true, TLLI: m.TLLI},
		ChanReq: rlcmac.ChannelRequestDescription{RLCOctetCount: 1000}}
	if m.Class > 0 {
		prr.HasRAC = true
		prr.RAC = msRAC(m.Class, m.EGPRSClass)
	}
	m.sbaTRX, m.sbaTS = m.cell.iaTRX(ia), ia.TN
	m.sendCtrl(fn, m.sbaTRX, ia.TN, prr)
	m.waitPUA = (fn + 4*217) % pcuif.MaxFN // T3168 ~4 s
}

// iaTA applies the timing advance (and TAI, on the assigned TN) of an
// Immediate Assignment.
func (m *MS) iaTA(ia *rlcmac.ImmediateAssignment) {
	m.ta = ia.TA
	if ia.Rest.HasTAI {
		m.tai, m.taiTS = int(ia.Rest.TAI), ia.TN
	}
}
