package rlcmac

import "errors"

// RR messages on CCCH (3GPP TS 44.018) that a PCU sends on AGCH/PCH, and the
// RACH access burst contents (Channel Request, EGPRS Packet Channel Request).
//
// Encoded blocks are 23 octets: the L2 pseudo length octet (TS 44.006 §6.3:
// (plen << 2) | 0x01, plen = octets of the message without rest octets),
// then the message, then the rest octets and 0x2B padding.

// RR message types and protocol discriminator (TS 44.018 §10.4, TS 24.007 §11.2.3.1.1).
const (
	RRProtocolDiscriminator  = 0x06
	RRImmediateAssignment    = 0x3F
	RRImmediateAssignmentRej = 0x3A
	RRPagingRequestType1     = 0x21
	MACBlockLen              = 23 // AGCH/PCH block incl. L2 pseudo length
)

// ErrNotRR: the block is not the expected RR message.
var ErrNotRR = errors.New("rlcmac: not the expected RR message")

// IA rest octet kinds (TS 44.018 §10.5.2.16).
const (
	IAROther           = 0 // not decoded (LL, HL, HH 1 ...)
	IARPacketUplink    = 1 // HH 00 < Packet Uplink Assignment >
	IARPacketDownlink  = 2 // HH 01 < Packet Downlink Assignment >
	IAREGPRSPacketUpl  = 3 // LH 00 < EGPRS Packet Uplink Assignment >
	iarUnknownFirstTwo = 4
)

// IARestOctets holds the packet variants of the IA Rest Octets.
type IARestOctets struct {
	Kind uint8 // IARPacketUplink, IARPacketDownlink, IAREGPRSPacketUpl, IAROther

	// Uplink (GPRS and EGPRS).
	Dynamic        bool // GPRS: 1 = dynamic (one phase), 0 = single block; EGPRS: 1 = one phase, 0 = multi block
	TFI            uint8
	Polling        bool
	USF            uint8
	USFGranularity bool
	HasP0          bool
	P0             uint8
	BTSPwrCtrlMode bool
	PRMode         bool
	ChannelCoding  uint8 // GPRS CHANNEL_CODING_COMMAND (2) / EGPRS MCS (4)
	TLLIBlockCC    bool
	HasAlpha       bool
	Alpha          uint8
	Gamma          uint8
	HasTAI         bool
	TAI            uint8
	HasStartTime   bool // single/multi block: always present
	T1, T3, T2     uint8
	HasExtRA       bool // GPRS R99 additions (uplink)
	ExtRA          uint8
	// EGPRS uplink.
	NAccessTech   uint8
	AccessTech    [8]uint8
	HasBEPPeriod2 bool
	BEPPeriod2    uint8
	Resegment     bool
	WindowSize    uint8 // (WS-64)/32
	NumBlocks     uint8 // multi block: NR_OF_RADIO_BLOCKS_ALLOCATED

	// Downlink.
	TLLI         uint32
	HasTFI       bool // TFI_ASSIGNMENT .. TA_VALID present
	RLCUnacked   bool
	TAValid      bool
	HasEGPRS     bool // R99 additions: EGPRS window size etc.
	LinkQualMode uint8
}

func (r *IARestOctets) csn(c *Coder) {
	if !r.codeKind(c) {
		return
	}
	switch r.Kind {
	case IARPacketUplink:
		r.uplink(c)
	case IARPacketDownlink:
		r.downlink(c)
	case IAREGPRSPacketUpl:
		r.egprsUplink(c)
	}
}

// codeKind codes the choice of IA rest octets: "H H 0 0" Packet Uplink
// Assignment, "H H 0 1" Packet Downlink Assignment, "L H 0 0" EGPRS Packet
// Uplink Assignment. It reports whether a variant that Kind names follows
// (a decoder sets Kind to IAROther for the other variants).
func (r *IARestOctets) codeKind(c *Coder) bool {
	var hh, h bool // first and second L/H bit
	var sel uint8
	if !c.dec {
		switch r.Kind {
		case IARPacketUplink:
			hh, h = true, true
		case IARPacketDownlink:
			hh, h, sel = true, true, 1
		case IAREGPRSPacketUpl:
			h = true
		default:
			c.Fail(ErrInvalid, "IA rest octets kind")
			return false
		}
	}
	c.LH(&hh, "IA rest octets")
	c.LH(&h, "IA rest octets")
	if !h {
		r.Kind = IAROther
		return false
	}
	if hh {
		c.U8(&sel, 2, "packet assignment choice")
	} else if c.dec {
		c.U8(&sel, 2, "EGPRS choice")
	} else {
		c.Fixed(0, 2, "EGPRS 00")
	}
	if !c.dec || c.err != nil {
		return c.err == nil
	}
	switch {
	case hh && sel == 0:
		r.Kind = IARPacketUplink
	case hh && sel == 1:
		r.Kind = IARPacketDownlink
	case !hh && sel == 0:
		r.Kind = IAREGPRSPacketUpl
	default:
		r.Kind = IAROther
		return false
	}
	return true
}

func (r *IARestOctets) alphaGamma(c *Coder) {
	c.optU8(&r.HasAlpha, &r.Alpha, 4, "ALPHA")
	c.U8(&r.Gamma, 5, "GAMMA")
}

// dynamicHead codes the start of the dynamic allocation of the (EGPRS)
// Packet Uplink Assignment (TS 44.018 §10.5.2.16): TFI_ASSIGNMENT, POLLING,
// the "0" dynamic allocation, USF, USF_GRANULARITY, P0 and PR_MODE.
func (r *IARestOctets) dynamicHead(c *Coder) {
	c.U8(&r.TFI, 5, "TFI_ASSIGNMENT")
	c.Bool(&r.Polling, "POLLING")
	c.Fixed(0, 1, "dynamic allocation")
	c.U8(&r.USF, 3, "USF")
	c.Bool(&r.USFGranularity, "USF_GRANULARITY")
	optP0(c, &r.HasP0, &r.P0, nil, &r.PRMode)
}

// dynamicTail codes the end of a dynamic uplink assignment: ALPHA, GAMMA,
// TIMING_ADVANCE_INDEX and TBF_STARTING_TIME.
func (r *IARestOctets) dynamicTail(c *Coder) {
	r.alphaGamma(c)
	r.taiAndStartingTime(c)
}

// taiAndStartingTime codes the optional TIMING_ADVANCE_INDEX and
// TBF_STARTING_TIME.
func (r *IARestOctets) taiAndStartingTime(c *Coder) {
	c.optU8(&r.HasTAI, &r.TAI, 4, "TIMING_ADVANCE_INDEX")
	if c.Opt(&r.HasStartTime, "TBF_STARTING_TIME") {
		codeStartingTime(c, &r.T1, &r.T3, &r.T2)
	}
}

// startingTime codes the mandatory TBF_STARTING_TIME of a single or multi
// block allocation.
func (r *IARestOctets) startingTime(c *Coder) {
	r.HasStartTime = true
	codeStartingTime(c, &r.T1, &r.T3, &r.T2)
}

func (r *IARestOctets) uplink(c *Coder) {
	c.Bool(&r.Dynamic, "allocation choice")
	if !r.Dynamic {
		r.alphaGamma(c)
		c.Fixed(1, 2, "01")
		r.startingTime(c)
		if c.OptLH(&r.HasP0, "P0") {
			codeP0(c, &r.P0, &r.BTSPwrCtrlMode, &r.PRMode)
		}
	} else {
		r.dynamicHead(c)
		c.U8(&r.ChannelCoding, 2, "CHANNEL_CODING_COMMAND")
		c.Bool(&r.TLLIBlockCC, "TLLI_BLOCK_CHANNEL_CODING")
		r.dynamicTail(c)
	}
	r99 := r.HasExtRA
	if c.ExtLH(&r99, "Release 99 additions") {
		c.optU8(&r.HasExtRA, &r.ExtRA, 5, "Extended RA")
	} else if c.dec {
		r.HasExtRA = false
	}
}

func (r *IARestOctets) downlink(c *Coder) {
	c.U32(&r.TLLI, 32, "TLLI")
	if c.Opt(&r.HasTFI, "TFI_ASSIGNMENT") {
		c.U8(&r.TFI, 5, "TFI_ASSIGNMENT")
		c.Bool(&r.RLCUnacked, "RLC_MODE")
		r.alphaGamma(c)
		c.Bool(&r.Polling, "POLLING")
		c.Bool(&r.TAValid, "TA_VALID")
	}
	r.taiAndStartingTime(c)
	optP0(c, &r.HasP0, &r.P0, &r.BTSPwrCtrlMode, &r.PRMode)
	if c.ExtLH(&r.HasEGPRS, "Release 99 additions") {
		c.U8(&r.WindowSize, 5, "EGPRS Window Size")
		c.U8(&r.LinkQualMode, 2, "LINK_QUALITY_MEASUREMENT_MODE")
		c.optU8(&r.HasBEPPeriod2, &r.BEPPeriod2, 4, "BEP_PERIOD2")
	}
}

func (r *IARestOctets) egprsUplink(c *Coder) {
	r.HasExtRA = true
	c.U8(&r.ExtRA, 5, "Extended RA")
	atr := r.NAccessTech > 0
	if c.Opt(&atr, "Access Technologies Request") {
		codeList(c, &r.NAccessTech, r.AccessTech[:], 4, "Access Technology Type")
	} else if c.dec {
		r.NAccessTech = 0
	}
	c.Bool(&r.Dynamic, "one/two phase")
	if r.Dynamic {
		r.dynamicHead(c)
		c.U8(&r.ChannelCoding, 4, "EGPRS_CHANNEL_CODING_COMMAND")
		c.Bool(&r.TLLIBlockCC, "TLLI_BLOCK_CHANNEL_CODING")
		c.optU8(&r.HasBEPPeriod2, &r.BEPPeriod2, 4, "BEP_PERIOD2")
		c.Bool(&r.Resegment, "RESEGMENT")
		c.U8(&r.WindowSize, 5, "EGPRS Window Size")
		r.dynamicTail(c)
		return
	}
	r.alphaGamma(c)
	r.startingTime(c)
	c.U8(&r.NumBlocks, 2, "NUMBER OF RADIO BLOCKS ALLOCATED")
	optP0(c, &r.HasP0, &r.P0, &r.BTSPwrCtrlMode, &r.PRMode)
}

// RequestReference is TS 44.018 §10.5.2.30: RA and the reduced frame number.
type RequestReference struct {
	RA         uint8
	T1, T3, T2 uint8 // T1' (5 bits), T3 (6), T2 (5)
}

// SetFN fills T1'/T3/T2 from a frame number.
func (r *RequestReference) SetFN(fn uint32) { r.T1, r.T3, r.T2 = StartingTimeFromFN(fn) }

func (r *RequestReference) csn(c *Coder) {
	c.U8(&r.RA, 8, "RA")
	codeStartingTime(c, &r.T1, &r.T3, &r.T2)
}

// ImmediateAssignment (TS 44.018 §9.1.18) for a packet TBF.
type ImmediateAssignment struct {
	PageMode uint8
	TBF      bool // Dedicated mode or TBF: T/D (TS 44.018 §10.5.2.25b)
	Downlink bool // ... downlink bit
	TMA      bool
	// Packet Channel Description (§10.5.2.25a).
	ChanType uint8 // 5 bits, 1 for PDTCH/F
	TN       uint8
	TSC      uint8
	Hopping  bool
	ARFCN    uint16
	MAIO     uint8
	HSN      uint8
	ReqRef   RequestReference
	TA       uint8
	MALen    uint8 // Mobile Allocation length (octets)
	MA       [8]byte
	HasStart bool // Starting Time IE (0x7C)
	StartT1  uint8
	StartT3  uint8
	StartT2  uint8
	Rest     IARestOctets
}

func (m *ImmediateAssignment) csn(c *Coder) {
	c.Fixed(RRProtocolDiscriminator, 8, "skip indicator/PD")
	c.Fixed(RRImmediateAssignment, 8, "message type")
	c.Spare(1)
	c.Bool(&m.TMA, "TMA")
	c.Bool(&m.Downlink, "downlink")
	c.Bool(&m.TBF, "T/D")
	c.Spare(2)
	c.U8(&m.PageMode, 2, "page mode")
	c.U8(&m.ChanType, 5, "channel type")
	c.U8(&m.TN, 3, "TN")
	c.U8(&m.TSC, 3, "TSC")
	c.Bool(&m.Hopping, "H")
	if m.Hopping {
		c.U8(&m.MAIO, 6, "MAIO")
		c.U8(&m.HSN, 6, "HSN")
	} else {
		c.Spare(2)
		c.U16(&m.ARFCN, 10, "ARFCN")
	}
	m.ReqRef.csn(c)
	c.U8(&m.TA, 8, "timing advance")
	if !c.dec && int(m.MALen) > len(m.MA) {
		c.Fail(ErrOverflow, "mobile allocation")
		return
	}
	c.U8(&m.MALen, 8, "mobile allocation length")
	if int(m.MALen) > len(m.MA) {
		c.Fail(ErrOverflow, "mobile allocation")
		return
	}
	for i := 0; i < int(m.MALen); i++ {
		c.U8(&m.MA[i], 8, "mobile allocation")
	}
}

// EncodeImmediateAssignment writes the 23-octet AGCH/PCH block.
func EncodeImmediateAssignment(b []byte, m *ImmediateAssignment) (int, error) {
	c, err := rrEncoder(b)
	if err != nil {
		return 0, err
	}
	m.csn(&c)
	if m.HasStart {
		c.Fixed(0x7C, 8, "starting time IEI")
		codeStartingTime(&c, &m.StartT1, &m.StartT3, &m.StartT2)
	}
	plen := c.Pos() / 8
	m.Rest.csn(&c)
	return rrFinish(b, &c, plen)
}

// rrEncoder returns the Coder for the message part of a 23-octet AGCH/PCH
// block b (after the L2 pseudo length octet).
func rrEncoder(b []byte) (Coder, error) {
	if len(b) < MACBlockLen {
		return Coder{}, ErrOverflow
	}
	return NewEncoder(b[1:MACBlockLen]), nil
}

// rrFinish pads the block after the rest octets and writes the L2 pseudo
// length (TS 44.006 §6.3) of the plen message octets that precede them.
func rrFinish(b []byte, c *Coder, plen int) (int, error) {
	c.PadSpare()
	if c.err != nil {
		return 0, c.err
	}
	b[0] = byte(plen<<2 | 1)
	return MACBlockLen, nil
}

// rrDecoder returns the Coder for the message part of an AGCH/PCH block and
// the message length its L2 pseudo length octet gives.
func rrDecoder(b []byte) (Coder, int, error) {
	if len(b) < 2 {
		return Coder{}, 0, &BitError{Off: 0, Field: "L2 pseudo length", Err: ErrShort}
	}
	return NewDecoder(b[1:]), int(b[0] >> 2), nil
}

// DecodeImmediateAssignment parses a 23-octet block (with L2 pseudo length).
func DecodeImmediateAssignment(b []byte, m *ImmediateAssignment) error {
	c, plen, err := rrDecoder(b)
	if err != nil {
		return err
	}
	m.csn(&c)
	if c.err != nil {
		return c.err
	}
	m.HasStart = false
	if c.Pos()/8+3 <= plen {
		m.HasStart = true
		c.Fixed(0x7C, 8, "starting time IEI")
		codeStartingTime(&c, &m.StartT1, &m.StartT3, &m.StartT2)
	}
	if plen*8 > c.v.end {
		return &BitError{Off: 0, Field: "L2 pseudo length", Err: ErrInvalid}
	}
	if c.err == nil && c.Pos() < plen*8 {
		c.v.pos = plen * 8
	}
	m.Rest.csn(&c)
	return c.err
}

// ---------------------------------------------------------------------------

// ImmediateAssignmentReject (TS 44.018 §9.1.20).
type ImmediateAssignmentReject struct {
	FeatureIndicator uint8 // high nibble of octet 3 (osmo-pcu: 0x1 "implicit detach for PS")
	PageMode         uint8
	Ref              [4]RequestReference
	Wait             [4]uint8 // Wait Indication (T3122/T3142 seconds)
	HasExtRA         [4]bool  // IAR rest octets (§10.5.2.17), "0 | 1 <Extended RA>" as plain bits (as osmo-pcu and Wireshark)
	ExtRA            [4]uint8
}

func (m *ImmediateAssignmentReject) csn(c *Coder) {
	c.Fixed(RRProtocolDiscriminator, 8, "skip indicator/PD")
	c.Fixed(RRImmediateAssignmentRej, 8, "message type")
	c.U8(&m.FeatureIndicator, 4, "feature indicator")
	c.U8(&m.PageMode, 4, "page mode")
	for i := 0; i < 4; i++ {
		m.Ref[i].csn(c)
		c.U8(&m.Wait[i], 8, "wait indication")
	}
}

// EncodeImmediateAssignmentReject writes the 23-octet AGCH block.
func EncodeImmediateAssignmentReject(b []byte, m *ImmediateAssignmentReject) (int, error) {
	c, err := rrEncoder(b)
	if err != nil {
		return 0, err
	}
	m.csn(&c)
	plen := c.Pos() / 8
	for i := 0; i < 4; i++ {
		c.optU8(&m.HasExtRA[i], &m.ExtRA[i], 5, "Extended RA")
	}
	return rrFinish(b, &c, plen)
}

// DecodeImmediateAssignmentReject parses a 23-octet AGCH block.
func DecodeImmediateAssignmentReject(b []byte, m *ImmediateAssignmentReject) error {
	c, _, err := rrDecoder(b)
	if err != nil {
		return err
	}
	m.csn(&c)
	for i := 0; i < 4; i++ {
		if c.Ext(&m.HasExtRA[i], "Extended RA") {
			c.U8(&m.ExtRA[i], 5, "Extended RA")
		}
	}
	return c.err
}

// ---------------------------------------------------------------------------

// PagingRequestType1 (TS 44.018 §9.1.22) with one Mobile Identity and P1 Rest Octets.
type PagingRequestType1 struct {
	PageMode    uint8
	ChanNeeded1 uint8
	ChanNeeded2 uint8
	MILen       uint8
	MI          [8]byte // TS 24.008 §10.5.1.4 value part
	// P1 Rest Octets (§10.5.2.23).
	HasNLN   bool
	NLN      uint8
	NLNStat  bool
	HasPrio1 bool
	Prio1    uint8
	HasPrio2 bool
	Prio2    uint8
	// Packet Page Indication 1/2: true = "packet paging procedure" (H).
	PacketPage1 bool
	PacketPage2 bool
}

func (m *PagingRequestType1) csn(c *Coder) {
	c.Fixed(RRProtocolDiscriminator, 8, "skip indicator/PD")
	c.Fixed(RRPagingRequestType1, 8, "message type")
	c.U8(&m.ChanNeeded2, 2, "channel needed 2")
	c.U8(&m.ChanNeeded1, 2, "channel needed 1")
	c.U8(&m.PageMode, 4, "page mode")
	if !c.dec && (m.MILen == 0 || int(m.MILen) > len(m.MI)) {
		c.Fail(ErrInvalid, "mobile identity length")
		return
	}
	c.U8(&m.MILen, 8, "mobile identity length")
	if m.MILen == 0 || int(m.MILen) > len(m.MI) {
		c.Fail(ErrInvalid, "mobile identity length")
		return
	}
	for i := 0; i < int(m.MILen); i++ {
		c.U8(&m.MI[i], 8, "mobile identity")
	}
}

func (m *PagingRequestType1) rest(c *Coder) {
	if c.ExtLH(&m.HasNLN, "NLN(PCH)") {
		c.U8(&m.NLN, 2, "NLN(PCH)")
		c.Bool(&m.NLNStat, "NLN status(PCH)")
	}
	if c.ExtLH(&m.HasPrio1, "Priority 1") {
		c.U8(&m.Prio1, 3, "Priority 1")
	}
	if c.ExtLH(&m.HasPrio2, "Priority 2") {
		c.U8(&m.Prio2, 3, "Priority 2")
	}
	var gci bool
	if c.ExtLH(&gci, "Group Call information") {
		c.Fail(ErrUnsupported, "Group Call information")
		return
	}
	if c.dec && c.AtEnd() {
		return
	}
	c.LH(&m.PacketPage1, "Packet Page Indication 1")
	c.LH(&m.PacketPage2, "Packet Page Indication 2")
}

// EncodePagingRequestType1 writes the 23-octet PCH block.
func EncodePagingRequestType1(b []byte, m *PagingRequestType1) (int, error) {
	c, err := rrEncoder(b)
	if err != nil {
		return 0, err
	}
	m.csn(&c)
	plen := c.Pos() / 8
	m.rest(&c)
	return rrFinish(b, &c, plen)
}

// DecodePagingRequestType1 parses a 23-octet PCH block (the optional second
// Mobile Identity is not supported: its presence is a decode error only if it
// breaks the rest octets).
func DecodePagingRequestType1(b []byte, m *PagingRequestType1) error {
	c, plen, err := rrDecoder(b)
	if err != nil {
		return err
	}
	m.csn(&c)
	if c.err != nil {
		return c.err
	}
	if plen*8 > c.v.end || plen*8 < c.Pos() {
		return &BitError{Off: 0, Field: "L2 pseudo length", Err: ErrInvalid}
	}
	c.v.pos = plen * 8
	m.rest(&c)
	return c.err
}

// ---------------------------------------------------------------------------

// AccessType classifies a RACH burst (TS 44.018 §9.1.8 Table 9.1.8.1 for
// 8-bit Channel Request, TS 44.060 §11.2.5a Table 11.2.5a.2 for 11-bit EGPRS
// Packet Channel Request).
type AccessType uint8

// Access types.
const (
	AccessUnknown          AccessType = iota
	AccessOnePhase                    // 8 bit 01111xxx / EGPRS one phase
	AccessSingleBlock                 // 8 bit 01110xxx (two phase / RR signalling)
	AccessEmergency                   // 101xxxxx
	AccessCallReestablish             // 110xxxxx
	AccessAnswerToPaging              // 100xxxxx, 0010xxxx, 0011xxxx, 0001xxxx
	AccessOriginatingCall             // 111xxxxx
	AccessLocationUpdating            // 0000xxxx
	AccessOtherCS                     // other circuit-switched / reserved values
	AccessShort                       // EGPRS short access (100)
	AccessOnePhaseRedLat              // EGPRS one phase, reduced latency (101)
	AccessTwoPhase                    // EGPRS two phase (110000)
	AccessSignalling                  // EGPRS signalling (110011)
	AccessOnePhaseUnack               // EGPRS one phase unacknowledged (110101)
	AccessDedicatedChannel            // EGPRS dedicated channel (110110)
	AccessEmergencyEGPRS              // EGPRS emergency call (110111)
	AccessTwoPhaseIPA                 // 111000
	AccessSignallingIPA               // 111001
)

var accessNames = [...]string{"unknown", "one-phase", "single-block", "emergency", "call-reestablishment",
	"answer-to-paging", "originating-call", "location-updating", "other-cs", "short-access",
	"one-phase-reduced-latency", "two-phase", "signalling", "one-phase-unack", "dedicated-channel",
	"emergency-egprs", "two-phase-ipa", "signalling-ipa"}

func (a AccessType) String() string {
	if int(a) < len(accessNames) {
		return accessNames[a]
	}
	return "?"
}

// IsPacket reports whether the access asks for a packet resource.
func (a AccessType) IsPacket() bool {
	switch a {
	case AccessOnePhase, AccessSingleBlock, AccessShort, AccessOnePhaseRedLat, AccessTwoPhase,
		AccessSignalling, AccessOnePhaseUnack, AccessTwoPhaseIPA, AccessSignallingIPA:
		return true
	}
	return false
}

// ChannelRequest is a decoded access burst.
type ChannelRequest struct {
	Type         AccessType
	MultislotCls uint8 // EGPRS one phase: multislot class (5 bits) or class group (3 bits)
	Priority     uint8
	NumberBlocks uint8 // short access
	RandomBits   uint8
}

// DecodeChannelRequest8 classifies an 8-bit RA (TS 44.018 §9.1.8).
func DecodeChannelRequest8(ra uint8) ChannelRequest {
	cr := ChannelRequest{RandomBits: ra & 7}
	switch {
	case ra&0xF8 == 0x78:
		cr.Type = AccessOnePhase
	case ra&0xF8 == 0x70:
		cr.Type = AccessSingleBlock
	case ra&0xE0 == 0xA0:
		cr.Type, cr.RandomBits = AccessEmergency, ra&0x1F
	case ra&0xE0 == 0xC0:
		cr.Type, cr.RandomBits = AccessCallReestablish, ra&0x1F
	case ra&0xE0 == 0x80 || ra&0xF0 == 0x10 || ra&0xF0 == 0x20 || ra&0xF0 == 0x30:
		cr.Type, cr.RandomBits = AccessAnswerToPaging, ra&0x1F
	case ra&0xE0 == 0xE0:
		cr.Type, cr.RandomBits = AccessOriginatingCall, ra&0x1F
	case ra&0xF0 == 0x00:
		cr.Type, cr.RandomBits = AccessLocationUpdating, ra&0x0F
	default:
		cr.Type = AccessOtherCS
	}
	return cr
}

// DecodeEGPRSChannelRequest classifies an 11-bit EGPRS Packet Channel Request
// (TS 44.060 §11.2.5a).
func DecodeEGPRSChannelRequest(ra uint16) ChannelRequest {
	ra &= 0x7FF
	var cr ChannelRequest
	switch {
	case ra>>10 == 0:
		cr = ChannelRequest{Type: AccessOnePhase, MultislotCls: uint8(ra >> 5 & 31), Priority: uint8(ra >> 3 & 3), RandomBits: uint8(ra & 7)}
	case ra>>8 == 4:
		cr = ChannelRequest{Type: AccessShort, NumberBlocks: uint8(ra >> 5 & 7), Priority: uint8(ra >> 3 & 3), RandomBits: uint8(ra & 7)}
	case ra>>8 == 5:
		cr = ChannelRequest{Type: AccessOnePhaseRedLat, MultislotCls: uint8(ra >> 5 & 7), Priority: uint8(ra >> 3 & 3), RandomBits: uint8(ra & 7)}
	default:
		p, rb3, rb5 := uint8(ra>>3&3), uint8(ra&7), uint8(ra&31)
		switch ra >> 5 {
		case 0x30:
			cr = ChannelRequest{Type: AccessTwoPhase, Priority: p, RandomBits: rb3}
		case 0x33:
			cr = ChannelRequest{Type: AccessSignalling, RandomBits: rb5}
		case 0x35:
			cr = ChannelRequest{Type: AccessOnePhaseUnack, RandomBits: rb5}
		case 0x36:
			cr = ChannelRequest{Type: AccessDedicatedChannel, RandomBits: rb5}
		case 0x37:
			cr = ChannelRequest{Type: AccessEmergencyEGPRS, RandomBits: rb5}
		case 0x38:
			cr = ChannelRequest{Type: AccessTwoPhaseIPA, Priority: p, RandomBits: rb3}
		case 0x39:
			cr = ChannelRequest{Type: AccessSignallingIPA, RandomBits: rb5}
		default:
			cr = ChannelRequest{Type: AccessUnknown}
		}
	}
	return cr
}

// EncodeEGPRSChannelRequest is the MS side of DecodeEGPRSChannelRequest.
func EncodeEGPRSChannelRequest(cr ChannelRequest) (uint16, error) {
	p, rb3, rb5 := uint16(cr.Priority&3)<<3, uint16(cr.RandomBits&7), uint16(cr.RandomBits&31)
	switch cr.Type {
	case AccessOnePhase:
		return uint16(cr.MultislotCls&31)<<5 | p | rb3, nil
	case AccessShort:
		return 4<<8 | uint16(cr.NumberBlocks&7)<<5 | p | rb3, nil
	case AccessOnePhaseRedLat:
		return 5<<8 | uint16(cr.MultislotCls&7)<<5 | p | rb3, nil
	case AccessTwoPhase:
		return 0x30<<5 | p | rb3, nil
	case AccessSignalling:
		return 0x33<<5 | rb5, nil
	case AccessOnePhaseUnack:
		return 0x35<<5 | rb5, nil
	case AccessDedicatedChannel:
		return 0x36<<5 | rb5, nil
	case AccessEmergencyEGPRS:
		return 0x37<<5 | rb5, nil
	case AccessTwoPhaseIPA:
		return 0x38<<5 | p | rb3, nil
	case AccessSignallingIPA:
		return 0x39<<5 | rb5, nil
	}
	return 0, ErrInvalid
}

// EGPRSWindowSizeCode encodes an EGPRS window size (64..1024, multiple of 32)
// as the 5-bit code (WS-64)/32 (TS 44.060 Table 12.5.2.1).
func EGPRSWindowSizeCode(ws int) uint8 {
	if ws < 64 {
		ws = 64
	}
	if ws > 1024 {
		ws = 1024
	}
	return uint8((ws - 64) / 32)
}

// EGPRSWindowSize decodes the 5-bit window size code.
func EGPRSWindowSize(code uint8) int { return int(code&31)*32 + 64 }
