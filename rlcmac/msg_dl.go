package rlcmac

// This file holds the downlink (network -> MS) control messages of TS 44.060 §11.2.

type dlMsg struct{}

func (dlMsg) Uplink() bool { return false }

// ---------------------------------------------------------------------------

// EGPRSAckNack is the EGPRS Ack/Nack Description IE (TS 44.060 §12.3.1).
// Bitmaps are MSB-first. Without the length field the URBB extends to the end
// of the block.
type EGPRSAckNack struct {
	HasLength bool
	Length    uint8 // L; computed when encoding
	FinalAck  bool
	BOW       bool // BEGINNING_OF_WINDOW
	EOW       bool // END_OF_WINDOW
	SSN       uint16
	HasCRBB   bool
	CRBBLen   uint8 // bits, <= 127
	CRBBColor bool  // COMPRESSED_BITMAP_STARTING_COLOR_CODE (true = ones)
	CRBB      [16]byte
	URBBLen   uint16 // bits, <= 336
	URBB      [42]byte
}

// MaxURBBBits is the largest uncompressed bitmap a control block can carry.
const MaxURBBBits = 336

func (d *EGPRSAckNack) csn(c *Coder) {
	if !c.dec {
		if d.URBBLen > MaxURBBBits || d.CRBBLen > 127 {
			c.Fail(ErrOverflow, "EGPRS Ack/Nack bitmap")
			return
		}
		if d.HasLength {
			l := 15 + int(d.URBBLen)
			if d.HasCRBB {
				l += 8 + int(d.CRBBLen)
			}
			if l > 255 {
				c.Fail(ErrOverflow, "EGPRS Ack/Nack Length")
				return
			}
			d.Length = uint8(l)
		}
	}
	c.Bool(&d.HasLength, "EGPRS Ack/Nack length choice")
	if d.HasLength {
		c.U8(&d.Length, 8, "Length L")
	}
	start := c.Pos()
	c.Bool(&d.FinalAck, "FINAL_ACK_INDICATION")
	c.Bool(&d.BOW, "BEGINNING_OF_WINDOW")
	c.Bool(&d.EOW, "END_OF_WINDOW")
	c.U16(&d.SSN, 11, "STARTING_SEQUENCE_NUMBER")
	if c.Opt(&d.HasCRBB, "CRBB") {
		c.U8(&d.CRBBLen, 7, "COMPRESSED_BITMAP_LENGTH")
		c.Bool(&d.CRBBColor, "COMPRESSED_BITMAP_STARTING_COLOR_CODE")
		c.BitString(d.CRBB[:], int(d.CRBBLen), "CRBB")
	}
	if c.err != nil {
		return
	}
	if c.dec {
		var n int
		if d.HasLength {
			n = int(d.Length) - (c.Pos() - start)
			if n < 0 {
				c.Fail(ErrInvalid, "Length L")
				return
			}
		} else {
			n = c.v.Remaining()
		}
		if n > MaxURBBBits {
			c.Fail(ErrOverflow, "URBB")
			return
		}
		d.URBBLen = uint16(n)
	} else if !d.HasLength && int(d.URBBLen) != c.v.Remaining() {
		c.Fail(ErrInvalid, "URBB must fill the block without length field")
		return
	}
	c.BitString(d.URBB[:], int(d.URBBLen), "URBB")
}

// URBBBit returns bit i (0 = first transmitted) of the uncompressed bitmap.
func (d *EGPRSAckNack) URBBBit(i int) bool { return d.URBB[i>>3]>>(7-uint(i&7))&1 == 1 }

// SetURBBBit sets bit i of the uncompressed bitmap.
func (d *EGPRSAckNack) SetURBBBit(i int, v bool) {
	if v {
		d.URBB[i>>3] |= 1 << (7 - uint(i&7))
	} else {
		d.URBB[i>>3] &^= 1 << (7 - uint(i&7))
	}
}

// ---------------------------------------------------------------------------

// PacketUplinkAckNack (TS 44.060 §11.2.28).
type PacketUplinkAckNack struct {
	dlMsg
	PageMode  uint8
	UplinkTFI uint8
	EGPRS     bool
	// CHANNEL_CODING_COMMAND (GPRS, 2 bits) or EGPRS_CHANNEL_CODING_COMMAND (4 bits).
	ChannelCoding uint8
	AckNack       AckNackDescription // GPRS
	// Common Uplink Ack/Nack Data.
	HasContentionTLLI bool
	ContentionTLLI    uint32
	HasTA             bool
	TA                PacketTimingAdvance
	HasPower          bool
	Power             PowerControlParameters
	HasExtBits        bool
	ExtBits           ExtensionBits
	// GPRS Release 99 additions.
	HasR99 bool
	// Both.
	HasExtTA bool
	ExtTA    uint8
	TBFEst   bool
	// EGPRS.
	Resegment    bool
	PreemptiveTx bool
	PRRRetx      bool
	ARACRetx     bool
	EGPRSAckNack EGPRSAckNack
}

func (*PacketUplinkAckNack) MsgType() uint8 { return MTPacketUplinkAckNack }
func (*PacketUplinkAckNack) Name() string   { return "Packet Uplink Ack/Nack" }

func (m *PacketUplinkAckNack) csn(c *Coder) {
	c.U8(&m.PageMode, 2, "PAGE_MODE")
	c.Fixed(0, 2, "fixed 00")
	c.U8(&m.UplinkTFI, 5, "UPLINK_TFI")
	c.Bool(&m.EGPRS, "GPRS/EGPRS")
	if !m.EGPRS {
		c.U8(&m.ChannelCoding, 2, "CHANNEL_CODING_COMMAND")
		m.AckNack.csn(c)
		m.common(c, false)
		c.Fixed(0, 1, "Fixed Allocation Parameters")
		if c.Ext(&m.HasR99, "Release 99") {
			optExtTA(c, &m.HasExtTA, &m.ExtTA)
			c.Bool(&m.TBFEst, "TBF_EST")
			var r5 bool
			c.Ext(&r5, "Release 5")
		}
		return
	}
	c.Fixed(0, 2, "EGPRS 00")
	c.U8(&m.ChannelCoding, 4, "EGPRS_CHANNEL_CODING_COMMAND")
	c.Bool(&m.Resegment, "RESEGMENT")
	c.Bool(&m.PreemptiveTx, "PRE_EMPTIVE_TRANSMISSION")
	c.Bool(&m.PRRRetx, "PRR_RETRANSMISSION_REQUEST")
	c.Bool(&m.ARACRetx, "ARAC_RETRANSMISSION_REQUEST")
	m.common(c, true)
	m.EGPRSAckNack.csn(c)
}

// common codes the < Common Uplink Ack/Nack Data IE >; the EGPRS variant
// adds TBF_EST and the extended timing advance (TS 44.060 §11.2.28).
func (m *PacketUplinkAckNack) common(c *Coder, egprs bool) {
	c.optU32(&m.HasContentionTLLI, &m.ContentionTLLI, 32, "CONTENTION_RESOLUTION_TLLI")
	if egprs {
		c.Bool(&m.TBFEst, "TBF_EST")
	}
	if c.Opt(&m.HasTA, "Packet Timing Advance") {
		m.TA.csn(c)
	}
	if egprs {
		optExtTA(c, &m.HasExtTA, &m.ExtTA)
	}
	if c.Opt(&m.HasPower, "Power Control Parameters") {
		m.Power.csn(c)
	}
	if c.Opt(&m.HasExtBits, "Extension Bits") {
		m.ExtBits.csn(c)
	}
}

// ---------------------------------------------------------------------------

// DynamicAllocation (TS 44.060 §11.2.29, < Dynamic Allocation struct >).
type DynamicAllocation struct {
	ExtendedDynamic  bool
	HasP0            bool
	P0               uint8
	PRMode           bool
	USFGranularity   bool // 1 = four blocks
	HasUplinkTFI     bool
	UplinkTFI        uint8
	HasBlocksGranted bool
	BlocksGranted    uint8
	HasStartingTime  bool
	StartingTime     StartingFrameNumber
	WithPower        bool // Timeslot_Allocation_Power_Ctrl_Param variant
	Alpha            uint8
	HasUSF           [8]bool // per TN: timeslot allocated
	USF              [8]uint8
	Gamma            [8]uint8 // WithPower only
}

func (d *DynamicAllocation) csn(c *Coder) { d.code(c, true) }

// code codes the struct; withTFI is false in the Packet Timeslot
// Reconfigure, whose < Dynamic Allocation struct > has no
// UPLINK_TFI_ASSIGNMENT (TS 44.060 §11.2.31: the TFIs come before it).
func (d *DynamicAllocation) code(c *Coder, withTFI bool) {
	c.Bool(&d.ExtendedDynamic, "Extended_Dynamic_Allocation")
	optP0(c, &d.HasP0, &d.P0, nil, &d.PRMode)
	c.Bool(&d.USFGranularity, "USF_GRANULARITY")
	if withTFI {
		c.optU8(&d.HasUplinkTFI, &d.UplinkTFI, 5, "UPLINK_TFI_ASSIGNMENT")
	}
	c.optU8(&d.HasBlocksGranted, &d.BlocksGranted, 8, "RLC_DATA_BLOCKS_GRANTED")
	if c.Opt(&d.HasStartingTime, "TBF Starting Time") {
		d.StartingTime.csn(c)
	}
	c.Bool(&d.WithPower, "Timeslot Allocation choice")
	if d.WithPower {
		c.U8(&d.Alpha, 4, "ALPHA")
	}
	for i := 0; i < 8; i++ {
		if c.Opt(&d.HasUSF[i], "Timeslot Allocation") {
			c.U8(&d.USF[i], 3, "USF_TN")
			if d.WithPower {
				c.U8(&d.Gamma[i], 5, "GAMMA_TN")
			}
		}
	}
}

// SingleBlockAllocation (TS 44.060 §11.2.29, < Single Block Allocation struct >)
// and, for EGPRS, the Multi Block allocation (with NumBlocks).
type SingleBlockAllocation struct {
	TN           uint8
	HasAlphaGam  bool
	Alpha, Gamma uint8
	HasP0        bool
	P0           uint8
	BTSPwrMode   bool
	PRMode       bool
	StartingTime StartingFrameNumber
	NumBlocks    uint8 // EGPRS multi block only (2 bits)
}

func (s *SingleBlockAllocation) csn(c *Coder, multi bool) {
	c.U8(&s.TN, 3, "TIMESLOT_NUMBER")
	if c.Opt(&s.HasAlphaGam, "ALPHA and GAMMA_TN") {
		c.U8(&s.Alpha, 4, "ALPHA")
		c.U8(&s.Gamma, 5, "GAMMA_TN")
	}
	optP0(c, &s.HasP0, &s.P0, &s.BTSPwrMode, &s.PRMode)
	s.StartingTime.csn(c)
	if multi {
		c.U8(&s.NumBlocks, 2, "NUMBER_OF_RADIO_BLOCKS_ALLOCATED")
	}
}

// Uplink allocation kinds of the Packet Uplink Assignment.
const (
	AllocDynamic     = 1 // "01 < Dynamic Allocation >"
	AllocSingleBlock = 2 // "10 < Single Block Allocation >" (EGPRS: Multi Block)
)

// PacketUplinkAssignment (TS 44.060 §11.2.29).
type PacketUplinkAssignment struct {
	dlMsg
	PageMode    uint8
	Persistence PersistenceLevel
	ID          MSID // Global TFI, TLLI, TQI or Packet Request Reference
	EGPRS       bool
	// GPRS: CHANNEL_CODING_COMMAND (2 bits); EGPRS: EGPRS_CHANNEL_CODING_COMMAND (4 bits).
	ChannelCoding          uint8
	TLLIBlockChannelCoding bool
	TA                     PacketTimingAdvance
	HasFreq                bool
	Freq                   FrequencyParameters
	Alloc                  uint8 // AllocDynamic or AllocSingleBlock
	Dynamic                DynamicAllocation
	Single                 SingleBlockAllocation
	HasR99                 bool // GPRS
	HasExtTA               bool
	ExtTA                  uint8
	// EGPRS.
	HasContentionTLLI bool
	ContentionTLLI    uint32
	Resegment         bool
	WindowSize        uint8 // EGPRS_WindowSize code (WS-64)/32
	NAccessTech       uint8
	AccessTech        [8]uint8
	ARACRetx          bool
	HasBEPPeriod2     bool
	BEPPeriod2        uint8
}

func (*PacketUplinkAssignment) MsgType() uint8 { return MTPacketUplinkAssignment }
func (*PacketUplinkAssignment) Name() string   { return "Packet Uplink Assignment" }

func (m *PacketUplinkAssignment) csn(c *Coder) {
	c.U8(&m.PageMode, 2, "PAGE_MODE")
	m.Persistence.csn(c)
	m.ID.csn(c, idMaskPUA)
	c.Bool(&m.EGPRS, "GPRS/EGPRS")
	if !m.EGPRS {
		c.U8(&m.ChannelCoding, 2, "CHANNEL_CODING_COMMAND")
		c.Bool(&m.TLLIBlockChannelCoding, "TLLI_BLOCK_CHANNEL_CODING")
		m.TA.csn(c)
		if c.Opt(&m.HasFreq, "Frequency Parameters") {
			m.Freq.csn(c)
		}
		m.alloc(c)
		if c.Ext(&m.HasR99, "Release 99") {
			optExtTA(c, &m.HasExtTA, &m.ExtTA)
		}
		return
	}
	c.Fixed(0, 2, "EGPRS 00")
	c.optU32(&m.HasContentionTLLI, &m.ContentionTLLI, 32, "CONTENTION_RESOLUTION_TLLI")
	if !noCompactMA(c) {
		return
	}
	c.U8(&m.ChannelCoding, 4, "EGPRS_CHANNEL_CODING_COMMAND")
	c.Bool(&m.Resegment, "RESEGMENT")
	c.U8(&m.WindowSize, 5, "EGPRS_WINDOW_SIZE")
	codeList(c, &m.NAccessTech, m.AccessTech[:], 4, "Access Technology Type")
	c.Bool(&m.ARACRetx, "ARAC_RETRANSMISSION_REQUEST")
	c.Bool(&m.TLLIBlockChannelCoding, "TLLI_BLOCK_CHANNEL_CODING")
	c.optU8(&m.HasBEPPeriod2, &m.BEPPeriod2, 4, "BEP_PERIOD2")
	m.TA.csn(c)
	optExtTA(c, &m.HasExtTA, &m.ExtTA)
	if c.Opt(&m.HasFreq, "Frequency Parameters") {
		m.Freq.csn(c)
	}
	m.alloc(c)
}

func (m *PacketUplinkAssignment) alloc(c *Coder) {
	c.U8(&m.Alloc, 2, "allocation choice")
	switch m.Alloc {
	case AllocDynamic:
		m.Dynamic.csn(c)
	case AllocSingleBlock:
		m.Single.csn(c, m.EGPRS)
	default:
		c.Fail(ErrUnsupported, "allocation (extension / fixed)")
	}
}

// ---------------------------------------------------------------------------

// PacketDownlinkAssignment (TS 44.060 §11.2.7).
type PacketDownlinkAssignment struct {
	dlMsg
	PageMode       uint8
	Persistence    PersistenceLevel
	ID             MSID // Global TFI or TLLI
	MACMode        uint8
	RLCUnacked     bool // RLC_MODE
	ControlAck     bool
	TimeslotAlloc  uint8 // bit 7 = TN0
	TA             PacketTimingAdvance
	HasP0          bool
	P0             uint8
	BTSPwrMode     bool
	PRMode         bool
	HasFreq        bool
	Freq           FrequencyParameters
	HasDownlinkTFI bool
	DownlinkTFI    uint8
	HasPower       bool
	Power          PowerControlParameters
	HasStartTime   bool
	StartingTime   StartingFrameNumber
	HasMeasMapping bool
	MeasStart      StartingFrameNumber
	MeasInterval   uint8
	MeasBitmap     uint8
	HasR99         bool
	HasEGPRS       bool
	WindowSize     uint8 // EGPRS_WindowSize code
	LinkQualMode   uint8
	HasBEPPeriod2  bool
	BEPPeriod2     uint8
	HasExtTA       bool
	ExtTA          uint8
}

func (*PacketDownlinkAssignment) MsgType() uint8 { return MTPacketDownlinkAssignment }
func (*PacketDownlinkAssignment) Name() string   { return "Packet Downlink Assignment" }

func (m *PacketDownlinkAssignment) csn(c *Coder) {
	c.U8(&m.PageMode, 2, "PAGE_MODE")
	m.Persistence.csn(c)
	m.ID.csn(c, idMaskPDA)
	c.Fixed(0, 1, "message escape")
	c.U8(&m.MACMode, 2, "MAC_MODE")
	c.Bool(&m.RLCUnacked, "RLC_MODE")
	c.Bool(&m.ControlAck, "CONTROL_ACK")
	c.U8(&m.TimeslotAlloc, 8, "TIMESLOT_ALLOCATION")
	m.TA.csn(c)
	optP0(c, &m.HasP0, &m.P0, &m.BTSPwrMode, &m.PRMode)
	if c.Opt(&m.HasFreq, "Frequency Parameters") {
		m.Freq.csn(c)
	}
	c.optU8(&m.HasDownlinkTFI, &m.DownlinkTFI, 5, "DOWNLINK_TFI_ASSIGNMENT")
	if c.Opt(&m.HasPower, "Power Control Parameters") {
		m.Power.csn(c)
	}
	if c.Opt(&m.HasStartTime, "TBF Starting Time") {
		m.StartingTime.csn(c)
	}
	if c.Opt(&m.HasMeasMapping, "Measurement Mapping") {
		m.MeasStart.csn(c)
		c.U8(&m.MeasInterval, 5, "MEASUREMENT_INTERVAL")
		c.U8(&m.MeasBitmap, 8, "MEASUREMENT_BITMAP")
	}
	if c.Ext(&m.HasR99, "Release 99") {
		if c.Opt(&m.HasEGPRS, "EGPRS parameters") {
			c.U8(&m.WindowSize, 5, "EGPRS_WindowSize")
			c.U8(&m.LinkQualMode, 2, "LINK_QUALITY_MEASUREMENT_MODE")
			c.optU8(&m.HasBEPPeriod2, &m.BEPPeriod2, 4, "BEP_PERIOD2")
		}
		optExtTA(c, &m.HasExtTA, &m.ExtTA)
		noCompactMA(c)
	}
}

// ---------------------------------------------------------------------------

// RejectEntry is one < Reject struct > of a Packet Access Reject.
type RejectEntry struct {
	IDKind    uint8 // 0 TLLI, 1 Packet Request Reference, 2 Global TFI
	TLLI      uint32
	PktReqRef PacketRequestReference
	GlobalTFI GlobalTFI
	HasWait   bool
	Wait      uint8 // WAIT_INDICATION
	WaitSize  bool  // WAIT_INDICATION_SIZE: 0 = seconds, 1 = 20 ms units
}

// Reject ID kinds.
const (
	RejectTLLI      = 0 // "0 < TLLI >"
	RejectPktReqRef = 1 // "10 < Packet Request Reference >"
	RejectGlobalTFI = 2 // "11 < Global TFI >"
)

func (r *RejectEntry) csn(c *Coder) {
	b := r.IDKind != RejectTLLI
	c.Bool(&b, "Reject ID")
	if !b {
		r.IDKind = RejectTLLI
		c.U32(&r.TLLI, 32, "TLLI")
	} else {
		b = r.IDKind == RejectGlobalTFI
		c.Bool(&b, "Reject ID")
		if b {
			r.IDKind = RejectGlobalTFI
			r.GlobalTFI.csn(c)
		} else {
			r.IDKind = RejectPktReqRef
			r.PktReqRef.csn(c)
		}
	}
	if c.Opt(&r.HasWait, "WAIT_INDICATION") {
		c.U8(&r.Wait, 8, "WAIT_INDICATION")
		c.Bool(&r.WaitSize, "WAIT_INDICATION_SIZE")
	}
}

// PacketAccessReject (TS 44.060 §11.2.1).
type PacketAccessReject struct {
	dlMsg
	PageMode uint8
	N        uint8 // number of entries (>= 1)
	Reject   [4]RejectEntry
}

func (*PacketAccessReject) MsgType() uint8 { return MTPacketAccessReject }
func (*PacketAccessReject) Name() string   { return "Packet Access Reject" }

func (m *PacketAccessReject) csn(c *Coder) {
	c.U8(&m.PageMode, 2, "PAGE_MODE")
	if !c.dec && (m.N == 0 || int(m.N) > len(m.Reject)) {
		c.Fail(ErrInvalid, "Reject count")
		return
	}
	m.Reject[0].csn(c)
	c.repeat(&m.N, 1, len(m.Reject), true, "Additional Reject", "Additional Reject", func(i int) { m.Reject[i].csn(c) })
}

// ---------------------------------------------------------------------------

// PacketTBFRelease (TS 44.060 §11.2.26).
type PacketTBFRelease struct {
	dlMsg
	PageMode  uint8
	GlobalTFI GlobalTFI
	ULRelease bool // UPLINK_RELEASE
	DLRelease bool // DOWNLINK_RELEASE
	Cause     uint8
}

// TBF release causes (§11.2.26, Table 11.2.26.2).
const (
	TBFReleaseNormal   = 0
	TBFReleaseAbnormal = 2
)

func (*PacketTBFRelease) MsgType() uint8 { return MTPacketTBFRelease }
func (*PacketTBFRelease) Name() string   { return "Packet TBF Release" }

func (m *PacketTBFRelease) csn(c *Coder) {
	c.U8(&m.PageMode, 2, "PAGE_MODE")
	c.Fixed(0, 1, "fixed 0")
	m.GlobalTFI.csn(c)
	c.Bool(&m.ULRelease, "UPLINK_RELEASE")
	c.Bool(&m.DLRelease, "DOWNLINK_RELEASE")
	c.U8(&m.Cause, 4, "TBF_RELEASE_CAUSE")
}

// ---------------------------------------------------------------------------

// PacketPollingRequest (TS 44.060 §11.2.12).
type PacketPollingRequest struct {
	dlMsg
	PageMode  uint8
	ID        MSID // Global TFI, TLLI or TQI
	TypeOfAck bool // CONTROL_ACK_TYPE: 0 = four access bursts, 1 = RLC/MAC control block
}

func (*PacketPollingRequest) MsgType() uint8 { return MTPacketPollingRequest }
func (*PacketPollingRequest) Name() string   { return "Packet Polling Request" }

func (m *PacketPollingRequest) csn(c *Coder) {
	c.U8(&m.PageMode, 2, "PAGE_MODE")
	m.ID.csn(c, idMaskPolling)
	c.Bool(&m.TypeOfAck, "TYPE_OF_ACK")
}

// ---------------------------------------------------------------------------

// PacketDownlinkDummyControlBlock (TS 44.060 §11.2.6).
type PacketDownlinkDummyControlBlock struct {
	dlMsg
	PageMode    uint8
	Persistence PersistenceLevel
}

func (*PacketDownlinkDummyControlBlock) MsgType() uint8 { return MTPacketDownlinkDummyControl }
func (*PacketDownlinkDummyControlBlock) Name() string {
	return "Packet Downlink Dummy Control Block"
}

func (m *PacketDownlinkDummyControlBlock) csn(c *Coder) {
	c.U8(&m.PageMode, 2, "PAGE_MODE")
	m.Persistence.csn(c)
}

// DummyBlock returns the idle Packet Downlink Dummy Control Block with the
// given USF (osmo-pcu: `40 94 2b…` for USF 0, `47 94 2b…` for USF 7).
func DummyBlock(b []byte, usf uint8) {
	_ = b[ControlBlockLen-1]
	b[0] = PTControl<<6 | usf&7
	b[1] = MTPacketDownlinkDummyControl << 2 // page mode normal (00)
	b[2] = 0x2B &^ 0x80                      // persistence absent (0), then padding
	for i := 3; i < ControlBlockLen; i++ {
		b[i] = PadOctet
	}
}

// ---------------------------------------------------------------------------

// PageEntry is one < Repeated Page info struct > of a Packet Paging Request.
type PageEntry struct {
	ForRR      bool // 1: page request for RR connection establishment
	UseMI      bool // 1: Mobile Identity instead of (P-)TMSI
	TMSI       uint32
	MILen      uint8 // Length_of_Mobile_Identity_contents (octets, <= 15)
	MI         [15]byte
	ChanNeeded uint8 // RR only
	HasEMLPP   bool
	EMLPP      uint8
}

func (p *PageEntry) csn(c *Coder) {
	c.Bool(&p.ForRR, "page type")
	c.Bool(&p.UseMI, "identity choice")
	if p.UseMI {
		c.U8(&p.MILen, 4, "Length_of_Mobile_Identity_contents")
		for i := 0; i < int(p.MILen); i++ {
			c.U8(&p.MI[i], 8, "Mobile Identity")
		}
	} else {
		c.U32(&p.TMSI, 32, "TMSI")
	}
	if p.ForRR {
		c.U8(&p.ChanNeeded, 2, "CHANNEL_NEEDED")
		c.optU8(&p.HasEMLPP, &p.EMLPP, 3, "eMLPP_PRIORITY")
	}
}

// PacketPagingRequest (TS 44.060 §11.2.10).
type PacketPagingRequest struct {
	dlMsg
	PageMode    uint8
	Persistence PersistenceLevel
	HasNLN      bool
	NLN         uint8
	N           uint8
	Pages       [8]PageEntry
}

func (*PacketPagingRequest) MsgType() uint8 { return MTPacketPagingRequest }
func (*PacketPagingRequest) Name() string   { return "Packet Paging Request" }

func (m *PacketPagingRequest) csn(c *Coder) {
	c.U8(&m.PageMode, 2, "PAGE_MODE")
	m.Persistence.csn(c)
	c.optU8(&m.HasNLN, &m.NLN, 2, "NLN")
	if !c.dec && int(m.N) > len(m.Pages) {
		c.Fail(ErrOverflow, "Repeated Page info")
		return
	}
	c.repeat(&m.N, 0, len(m.Pages), true, "Repeated Page info", "Repeated Page info", func(i int) { m.Pages[i].csn(c) })
}

// ---------------------------------------------------------------------------

// GlobalPowerControlParameters (§12.9a).
type GlobalPowerControlParameters struct {
	Alpha, TAvgW, TAvgT, Pb uint8
	PCMeasChan              bool
	IntMeasChanListAvail    bool
	NAvgI                   uint8
}

func (g *GlobalPowerControlParameters) csn(c *Coder) {
	c.U8(&g.Alpha, 4, "ALPHA")
	c.U8(&g.TAvgW, 5, "T_AVG_W")
	c.U8(&g.TAvgT, 5, "T_AVG_T")
	c.U8(&g.Pb, 4, "Pb")
	c.Bool(&g.PCMeasChan, "PC_MEAS_CHAN")
	c.Bool(&g.IntMeasChanListAvail, "INT_MEAS_CHANNEL_LIST_AVAIL")
	c.U8(&g.NAvgI, 4, "N_AVG_I")
}

// PacketPowerControlTA (TS 44.060 §11.2.13, Packet Power Control/Timing Advance).
type PacketPowerControlTA struct {
	dlMsg
	PageMode       uint8
	ID             MSID // Global TFI, TQI or Packet Request Reference
	HasGlobalPower bool
	GlobalPower    GlobalPowerControlParameters
	// 0: both TA and power; 1: one of them (OnlyPower selects which).
	Single    bool
	OnlyPower bool
	TA        GlobalPacketTimingAdvance
	Power     PowerControlParameters
}

func (*PacketPowerControlTA) MsgType() uint8 { return MTPacketPowerControlTA }
func (*PacketPowerControlTA) Name() string   { return "Packet Power Control/Timing Advance" }

func (m *PacketPowerControlTA) csn(c *Coder) {
	c.U8(&m.PageMode, 2, "PAGE_MODE")
	m.ID.csn(c, idMaskPPCTA)
	c.Fixed(0, 1, "message escape")
	if c.Opt(&m.HasGlobalPower, "Global Power Control Parameters") {
		m.GlobalPower.csn(c)
	}
	c.Bool(&m.Single, "timing/power choice")
	if !m.Single {
		m.TA.csn(c)
		m.Power.csn(c)
		return
	}
	c.Bool(&m.OnlyPower, "timing or power")
	if m.OnlyPower {
		m.Power.csn(c)
	} else {
		m.TA.csn(c)
	}
}
