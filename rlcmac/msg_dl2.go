package rlcmac

// PacketTimeslotReconfigure (TS 44.060 §11.2.31), dynamic allocation only.
type PacketTimeslotReconfigure struct {
	dlMsg
	PageMode      uint8
	GlobalTFI     GlobalTFI
	EGPRS         bool
	ChannelCoding uint8 // CS (2 bits) or MCS (4 bits)
	// EGPRS only.
	Resegment    bool
	HasDLWS      bool
	DLWindowSize uint8
	HasULWS      bool
	ULWindowSize uint8
	LinkQualMode uint8
	HasExtTA     bool
	ExtTA        uint8
	HasR99       bool // GPRS
	TA           GlobalPacketTimingAdvance
	DLRLCUnacked bool
	ControlAck   bool
	HasDLTFI     bool
	DLTFI        uint8
	HasULTFI     bool
	ULTFI        uint8
	DLTimeslots  uint8
	HasFreq      bool
	Freq         FrequencyParameters
	Alloc        DynamicAllocation // HasUplinkTFI is not coded here (TRDynamic_Allocation)
}

func (*PacketTimeslotReconfigure) MsgType() uint8 { return MTPacketTimeslotReconfigure }
func (*PacketTimeslotReconfigure) Name() string   { return "Packet Timeslot Reconfigure" }

func (m *PacketTimeslotReconfigure) csn(c *Coder) {
	c.U8(&m.PageMode, 2, "PAGE_MODE")
	c.Fixed(0, 1, "fixed 0")
	m.GlobalTFI.csn(c)
	c.Bool(&m.EGPRS, "GPRS/EGPRS")
	if !m.EGPRS {
		c.U8(&m.ChannelCoding, 2, "CHANNEL_CODING_COMMAND")
		m.common(c)
		if c.Ext(&m.HasR99, "Release 99") {
			optExtTA(c, &m.HasExtTA, &m.ExtTA)
		}
		return
	}
	c.Fixed(0, 2, "EGPRS 00")
	if !noCompactMA(c) {
		return
	}
	c.U8(&m.ChannelCoding, 4, "EGPRS_CHANNEL_CODING_COMMAND")
	c.Bool(&m.Resegment, "RESEGMENT")
	c.optU8(&m.HasDLWS, &m.DLWindowSize, 5, "DOWNLINK_EGPRS_WindowSize")
	c.optU8(&m.HasULWS, &m.ULWindowSize, 5, "UPLINK_EGPRS_WindowSize")
	c.U8(&m.LinkQualMode, 2, "LINK_QUALITY_MEASUREMENT_MODE")
	m.TA.csn(c)
	optExtTA(c, &m.HasExtTA, &m.ExtTA)
	m.rest(c)
}

func (m *PacketTimeslotReconfigure) common(c *Coder) {
	m.TA.csn(c)
	m.rest(c)
}

func (m *PacketTimeslotReconfigure) rest(c *Coder) {
	c.Bool(&m.DLRLCUnacked, "DOWNLINK_RLC_MODE")
	c.Bool(&m.ControlAck, "CONTROL_ACK")
	c.optU8(&m.HasDLTFI, &m.DLTFI, 5, "DOWNLINK_TFI_ASSIGNMENT")
	c.optU8(&m.HasULTFI, &m.ULTFI, 5, "UPLINK_TFI_ASSIGNMENT")
	c.U8(&m.DLTimeslots, 8, "DOWNLINK_TIMESLOT_ALLOCATION")
	if c.Opt(&m.HasFreq, "Frequency Parameters") {
		m.Freq.csn(c)
	}
	c.Fixed(0, 1, "Dynamic Allocation")
	m.Alloc.code(c, false)
}

// PacketCellChangeContinue (TS 44.060 §11.2.2a).
type PacketCellChangeContinue struct {
	dlMsg
	PageMode    uint8
	GlobalTFI   GlobalTFI
	HasID       bool
	ARFCN       uint16
	BSIC        uint8
	ContainerID uint8
}

func (*PacketCellChangeContinue) MsgType() uint8 { return MTPacketCellChangeContinue }
func (*PacketCellChangeContinue) Name() string   { return "Packet Cell Change Continue" }

func (m *PacketCellChangeContinue) csn(c *Coder) {
	c.U8(&m.PageMode, 2, "PAGE_MODE")
	c.Fixed(0, 1, "fixed 0")
	m.GlobalTFI.csn(c)
	if c.Opt(&m.HasID, "ARFCN/BSIC/CONTAINER_ID") {
		c.U16(&m.ARFCN, 10, "ARFCN")
		c.U8(&m.BSIC, 6, "BSIC")
		c.U8(&m.ContainerID, 2, "CONTAINER_ID")
	}
}

// PacketNeighbourCellData (TS 44.060 §11.2.9e). The container repetition
// (PD / CD_LENGTH / data) is carried as raw octets; the first message of a
// sequence may carry the ARFCN/BSIC (17 container octets, else 19).
type PacketNeighbourCellData struct {
	dlMsg
	PageMode       uint8
	GlobalTFI      GlobalTFI
	ContainerID    uint8
	ContainerIndex uint8
	HasID          bool
	ARFCN          uint16
	BSIC           uint8
	Container      [19]byte // 17 octets used when HasID
}

func (*PacketNeighbourCellData) MsgType() uint8 { return MTPacketNeighbourCellData }
func (*PacketNeighbourCellData) Name() string   { return "Packet Neighbour Cell Data" }

func (m *PacketNeighbourCellData) csn(c *Coder) {
	c.U8(&m.PageMode, 2, "PAGE_MODE")
	c.Fixed(0, 1, "fixed 0")
	m.GlobalTFI.csn(c)
	c.U8(&m.ContainerID, 2, "CONTAINER_ID")
	c.Spare(1)
	c.U8(&m.ContainerIndex, 5, "CONTAINER_INDEX")
	n := 19
	if c.Opt(&m.HasID, "ARFCN/BSIC") {
		c.U16(&m.ARFCN, 10, "ARFCN")
		c.U8(&m.BSIC, 6, "BSIC")
		n = 17
	}
	c.BitString(m.Container[:n], n*8, "CONTAINER")
}

// PacketServingCellData (TS 44.060 §11.2.9d).
type PacketServingCellData struct {
	dlMsg
	PageMode       uint8
	GlobalTFI      GlobalTFI
	ContainerIndex uint8
	Container      [19]byte
}

func (*PacketServingCellData) MsgType() uint8 { return MTPacketServingCellData }
func (*PacketServingCellData) Name() string   { return "Packet Serving Cell Data" }

func (m *PacketServingCellData) csn(c *Coder) {
	c.U8(&m.PageMode, 2, "PAGE_MODE")
	c.Fixed(0, 1, "fixed 0")
	m.GlobalTFI.csn(c)
	c.Spare(4)
	c.U8(&m.ContainerIndex, 5, "CONTAINER_INDEX")
	c.BitString(m.Container[:], 19*8, "CONTAINER")
}

// EncodePacketApplicationInformation builds the Packet Application
// Information payload the way osmo-pcu does (osmo-pcu pcu_l1_if.cpp pcu_rx_app_info_req(), TS 44.060 §11.2.47):
// (len+1) octets: PAGE_MODE 00, 4-bit application type, then data bit-packed
// (no MAC header). It returns the octets written.
func EncodePacketApplicationInformation(b []byte, appType uint8, data []byte) (int, error) {
	n := len(data) + 1
	if len(b) < n {
		return 0, ErrOverflow
	}
	v := NewBitVec(b[:n])
	_ = v.Write(0, 2)
	_ = v.Write(uint64(appType&15), 4)
	for _, d := range data {
		if v.Remaining() < 8 {
			_ = v.Write(uint64(d>>(8-uint(v.Remaining()))), v.Remaining())
			break
		}
		_ = v.Write(uint64(d), 8)
	}
	v.PadZero()
	return n, nil
}
