package rlcmac

import "time"

// IAParams are the common inputs of the Immediate Assignment builders
// (TS 44.018 §9.1.18, osmo-pcu encoding.cpp
// Encoding::write_immediate_assignment()).
type IAParams struct {
	TN     uint8
	TSC    uint8
	ARFCN  uint16
	TA     uint8  // timing advance (0..63)
	RA     uint16 // 8-bit RA, or the 11-bit RA when Is11Bit
	Is11   bool   // 11-bit access burst: RA field 0x7F, Extended RA = RA & 0x1F
	RefFN  uint32 // frame number of the access burst (Request Reference)
	Alpha  uint8
	Gamma  uint8
	HasTAI bool // timing advance index present
	TAI    uint8
}

func (p *IAParams) base(downlink bool) ImmediateAssignment {
	m := ImmediateAssignment{TBF: true, Downlink: downlink, ChanType: 1, TN: p.TN, TSC: p.TSC, ARFCN: p.ARFCN, TA: p.TA}
	m.ReqRef.RA = uint8(p.RA)
	if p.Is11 {
		m.ReqRef.RA = 0x7F
	}
	m.ReqRef.SetFN(p.RefFN)
	return m
}

func (p *IAParams) rest(r *IARestOctets) {
	r.HasAlpha, r.Alpha, r.Gamma = true, p.Alpha, p.Gamma
	r.HasTAI, r.TAI = p.HasTAI, p.TAI
}

// IAUplinkDynamic builds the one-phase packet uplink assignment (IA rest
// octets "HH 00", dynamic allocation) for an 8-bit RACH.
func IAUplinkDynamic(p IAParams, tfi, usf uint8, cs CodingScheme) ImmediateAssignment {
	m := p.base(false)
	m.Rest = IARestOctets{Kind: IARPacketUplink, Dynamic: true, TFI: tfi, USF: usf,
		ChannelCoding: cs.ChannelCodingCommand(), TLLIBlockCC: true}
	p.rest(&m.Rest)
	return m
}

// IAUplinkSingleBlock builds the single block allocation (two-phase access)
// whose block is at sbaFN (TBF starting time).
func IAUplinkSingleBlock(p IAParams, sbaFN uint32) ImmediateAssignment {
	m := p.base(false)
	m.Rest = IARestOctets{Kind: IARPacketUplink}
	m.Rest.HasAlpha, m.Rest.Alpha, m.Rest.Gamma = true, p.Alpha, p.Gamma
	m.Rest.T1, m.Rest.T3, m.Rest.T2 = StartingTimeFromFN(sbaFN)
	m.Rest.HasStartTime = true
	return m
}

// IAEGPRSUplinkDynamic builds the EGPRS one-phase assignment ("LH 00") for an
// 11-bit EGPRS Packet Channel Request.
func IAEGPRSUplinkDynamic(p IAParams, tfi, usf uint8, mcs CodingScheme, ws int) ImmediateAssignment {
	p.Is11 = true
	m := p.base(false)
	m.Rest = IARestOctets{Kind: IAREGPRSPacketUpl, HasExtRA: true, ExtRA: uint8(p.RA & 0x1F), Dynamic: true,
		TFI: tfi, USF: usf, ChannelCoding: mcs.ChannelCodingCommand(), WindowSize: EGPRSWindowSizeCode(ws)}
	p.rest(&m.Rest)
	return m
}

// IAEGPRSUplinkMultiBlock builds the EGPRS two-phase (multi block) assignment
// of one radio block at fn.
func IAEGPRSUplinkMultiBlock(p IAParams, fn uint32) ImmediateAssignment {
	p.Is11 = true
	m := p.base(false)
	m.Rest = IARestOctets{Kind: IAREGPRSPacketUpl, HasExtRA: true, ExtRA: uint8(p.RA & 0x1F), HasStartTime: true}
	m.Rest.HasAlpha, m.Rest.Alpha, m.Rest.Gamma = true, p.Alpha, p.Gamma
	m.Rest.T1, m.Rest.T3, m.Rest.T2 = StartingTimeFromFN(fn)
	return m
}

// IADownlink builds the packet downlink assignment ("HH 01") sent on PCH or
// AGCH. egprsWS > 0 adds the EGPRS window size (Release 99 additions). With
// poll the MS answers with a Packet Control Ack at pollFN (TBF starting time).
func IADownlink(p IAParams, tlli uint32, tfi uint8, taValid bool, egprsWS int, poll bool, pollFN uint32) ImmediateAssignment {
	m := p.base(true)
	m.Rest = IARestOctets{Kind: IARPacketDownlink, TLLI: tlli, HasTFI: true, TFI: tfi, TAValid: taValid, Polling: poll}
	p.rest(&m.Rest)
	if poll {
		m.Rest.HasStartTime = true
		m.Rest.T1, m.Rest.T3, m.Rest.T2 = StartingTimeFromFN(pollFN)
	}
	if egprsWS > 0 {
		m.Rest.HasEGPRS, m.Rest.WindowSize = true, EGPRSWindowSizeCode(egprsWS)
	}
	return m
}

// IAReject builds the Immediate Assignment Reject osmo-pcu sends (4 copies of
// the request reference, feature indicator "implicit reject PS", Extended RA
// for 11-bit bursts).
func IAReject(ra uint16, is11 bool, refFN uint32, wait uint8) ImmediateAssignmentReject {
	m := ImmediateAssignmentReject{FeatureIndicator: 1}
	for i := range m.Ref {
		m.Ref[i].RA = uint8(ra)
		if is11 {
			m.Ref[i].RA = 0x7F
		}
		m.Ref[i].SetFN(refFN)
		m.Wait[i] = wait
	}
	if is11 {
		m.HasExtRA[0], m.ExtRA[0] = true, uint8(ra&0x1F)
	}
	return m
}

// WaitIndication encodes a Packet Access Reject WAIT_INDICATION (TS 44.060
// §12.16 / osmo-pcu encoding.cpp write_packet_access_reject()): units of 20 ms when it fits (≤ 255 × 20 ms),
// else seconds (capped at 255 s).
func WaitIndication(d time.Duration) (wait uint8, units20ms bool) {
	if d <= 255*20*time.Millisecond {
		return uint8((d + 19*time.Millisecond) / (20 * time.Millisecond)), true
	}
	s := (d + time.Second - 1) / time.Second
	if s > 255 {
		s = 255
	}
	return uint8(s), false
}

// AddPage appends a page to a Packet Paging Request if the message still
// fits in one control block (osmo-pcu fills up to the block and re-queues the
// rest); it returns false when it does not.
func (m *PacketPagingRequest) AddPage(p PageEntry) bool {
	if int(m.N) >= len(m.Pages) {
		return false
	}
	m.Pages[m.N] = p
	m.N++
	// The repetition needs one more bit for the closing "0".
	if left, ok := bitsLeft(m); !ok || left < 1 {
		m.N--
		m.Pages[m.N] = PageEntry{}
		return false
	}
	return true
}
