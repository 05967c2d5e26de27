package rlcmac

// This file holds the uplink (MS -> network) control messages of TS 44.060 §11.2.

type ulMsg struct{}

func (ulMsg) Uplink() bool { return true }

// PacketControlAck (TS 44.060 §11.2.2), normal burst format.
type PacketControlAck struct {
	ulMsg
	TLLI    uint32
	CtrlAck uint8 // CTRL_ACK, 2 bits
	HasR5   bool
	HasTN   bool
	TNRRBP  uint8
	HasGRNT bool
	GRNTI   uint8
	HasR6   bool
	HasExt  bool
	Ext     uint16 // CTRL_ACK_Extension, 9 bits
}

func (*PacketControlAck) MsgType() uint8 { return MTPacketControlAck }
func (*PacketControlAck) Name() string   { return "Packet Control Acknowledgement" }

func (m *PacketControlAck) csn(c *Coder) {
	c.U32(&m.TLLI, 32, "TLLI")
	c.U8(&m.CtrlAck, 2, "CTRL_ACK")
	if c.Ext(&m.HasR5, "Release 5") {
		c.optU8(&m.HasTN, &m.TNRRBP, 3, "TN_RRBP")
		c.optU8(&m.HasGRNT, &m.GRNTI, 4, "G_RNTI_Extension")
		if c.Ext(&m.HasR6, "Release 6") {
			if c.Opt(&m.HasExt, "CTRL_ACK_Extension") {
				c.U16(&m.Ext, 9, "CTRL_ACK_Extension")
			}
		}
	}
}

// PacketControlAckAB is the Packet Control Acknowledgement sent as access
// bursts (TS 44.060 §11.2.2a / Table 11.2.2.1): 8-bit "0111 11 <CTRL_ACK:2>"
// or 11-bit "110 0111 11 <CTRL_ACK:2>" (EGPRS) formats.
type PacketControlAckAB struct {
	CtrlAck uint8
}

// Encode8 returns the 8-bit access burst value.
func (p PacketControlAckAB) Encode8() uint8 { return 0x7C | p.CtrlAck&3 }

// Encode11 returns the 11-bit access burst value.
func (p PacketControlAckAB) Encode11() uint16 { return 0x67C | uint16(p.CtrlAck&3) }

// DecodePacketControlAckAB recognises an access burst Packet Control Ack.
func DecodePacketControlAckAB(ra uint16, is11 bool) (PacketControlAckAB, bool) {
	if is11 {
		if ra&^3 == 0x67C {
			return PacketControlAckAB{CtrlAck: uint8(ra & 3)}, true
		}
		return PacketControlAckAB{}, false
	}
	if ra&^3 == 0x7C {
		return PacketControlAckAB{CtrlAck: uint8(ra & 3)}, true
	}
	return PacketControlAckAB{}, false
}

// ---------------------------------------------------------------------------

// ChannelQualityReport (§11.2.6 / §12).
type ChannelQualityReport struct {
	CValue   uint8
	RXQual   uint8
	SignVar  uint8
	HasILev  [8]bool
	ILevelTN [8]uint8
}

func (q *ChannelQualityReport) csn(c *Coder) {
	c.U8(&q.CValue, 6, "C_VALUE")
	c.U8(&q.RXQual, 3, "RXQUAL")
	c.U8(&q.SignVar, 6, "SIGN_VAR")
	for i := 0; i < 8; i++ {
		c.optU8(&q.HasILev[i], &q.ILevelTN[i], 4, "I_LEVEL_TN")
	}
}

// PacketDownlinkAckNack (TS 44.060 §11.2.6).
type PacketDownlinkAckNack struct {
	ulMsg
	DownlinkTFI uint8
	AckNack     AckNackDescription
	HasChanReq  bool
	ChanReq     ChannelRequestDescription
	Quality     ChannelQualityReport
	HasR99      bool
	HasPFI      bool
	PFI         uint8
}

func (*PacketDownlinkAckNack) MsgType() uint8 { return MTPacketDownlinkAckNack }
func (*PacketDownlinkAckNack) Name() string   { return "Packet Downlink Ack/Nack" }

func (m *PacketDownlinkAckNack) csn(c *Coder) {
	c.U8(&m.DownlinkTFI, 5, "DOWNLINK_TFI")
	m.AckNack.csn(c)
	if c.Opt(&m.HasChanReq, "Channel Request Description") {
		m.ChanReq.csn(c)
	}
	m.Quality.csn(c)
	if c.Ext(&m.HasR99, "Release 99") {
		c.optU8(&m.HasPFI, &m.PFI, 7, "PFI")
	}
}

// ---------------------------------------------------------------------------

// EGPRSChannelQualityReport (§11.2.6a, < EGPRS Channel Quality Report IE >, §12.5.x).
type EGPRSChannelQualityReport struct {
	HasGMSK             bool
	MeanBEPGMSK, CVGMSK uint8
	Has8PSK             bool
	MeanBEP8PSK, CV8PSK uint8
	CValue              uint8
	HasBEPTN            bool
	BEPTN               [8]struct {
		Present bool
		Is8PSK  bool
		MeanBEP uint8
	}
	HasILevTN bool
	ILevTN    [8]struct {
		Present bool
		ILevel  uint8
	}
}

func (q *EGPRSChannelQualityReport) csn(c *Coder) {
	optMeanBEP(c, &q.HasGMSK, &q.MeanBEPGMSK, &q.CVGMSK, "MEAN_BEP_GMSK", "CV_BEP_GMSK")
	optMeanBEP(c, &q.Has8PSK, &q.MeanBEP8PSK, &q.CV8PSK, "MEAN_BEP_8PSK", "CV_BEP_8PSK")
	c.U8(&q.CValue, 6, "C_VALUE")
	codeTNQuality(c, q)
}

// EGPRSPacketDownlinkAckNack (TS 44.060 §11.2.6a).
type EGPRSPacketDownlinkAckNack struct {
	ulMsg
	DownlinkTFI   uint8
	MSOutOfMemory bool
	HasQuality    bool
	Quality       EGPRSChannelQualityReport
	HasChanReq    bool
	ChanReq       ChannelRequestDescription
	HasPFI        bool
	PFI           uint8
	HasExtBits    bool
	ExtBits       ExtensionBits
	AckNack       EGPRSAckNack
}

func (*EGPRSPacketDownlinkAckNack) MsgType() uint8 { return MTEGPRSPacketDownlinkAckNack }
func (*EGPRSPacketDownlinkAckNack) Name() string   { return "EGPRS Packet Downlink Ack/Nack" }

func (m *EGPRSPacketDownlinkAckNack) csn(c *Coder) {
	c.U8(&m.DownlinkTFI, 5, "DOWNLINK_TFI")
	c.Bool(&m.MSOutOfMemory, "MS_OUT_OF_MEMORY")
	if c.Opt(&m.HasQuality, "EGPRS Channel Quality Report") {
		m.Quality.csn(c)
	}
	if c.Opt(&m.HasChanReq, "Channel Request Description") {
		m.ChanReq.csn(c)
	}
	c.optU8(&m.HasPFI, &m.PFI, 7, "PFI")
	if c.Opt(&m.HasExtBits, "Extension Bits") {
		m.ExtBits.csn(c)
	}
	m.AckNack.csn(c)
}

// ---------------------------------------------------------------------------

// PacketUplinkDummyControlBlock (TS 44.060 §11.2.8b).
type PacketUplinkDummyControlBlock struct {
	ulMsg
	TLLI uint32
}

func (*PacketUplinkDummyControlBlock) MsgType() uint8 { return MTPacketUplinkDummyControl }
func (*PacketUplinkDummyControlBlock) Name() string {
	return "Packet Uplink Dummy Control Block"
}

func (m *PacketUplinkDummyControlBlock) csn(c *Coder) { c.U32(&m.TLLI, 32, "TLLI") }

// ---------------------------------------------------------------------------

// ULID is the "0 < Global TFI > | 1 < TLLI >" identity of uplink messages.
type ULID struct {
	IsTLLI    bool
	GlobalTFI GlobalTFI
	TLLI      uint32
}

func (id *ULID) csn(c *Coder) {
	c.Bool(&id.IsTLLI, "ID")
	if id.IsTLLI {
		c.U32(&id.TLLI, 32, "TLLI")
	} else {
		id.GlobalTFI.csn(c)
	}
}

// PacketResourceRequest (TS 44.060 §11.2.16).
type PacketResourceRequest struct {
	ulMsg
	HasAccessType bool
	AccessType    uint8
	ID            ULID
	HasRAC        bool
	RAC           MSRadioAccessCapability
	ChanReq       ChannelRequestDescription
	HasChangeMark bool
	ChangeMark    uint8
	CValue        uint8
	HasSignVar    bool
	SignVar       uint8
	HasILev       [8]bool
	ILevelTN      [8]uint8
	HasR99        bool
	HasBEP        bool
	BEP           struct {
		HasGMSK             bool
		MeanBEPGMSK, CVGMSK uint8
		Has8PSK             bool
		MeanBEP8PSK, CV8PSK uint8
	}
	HasTNQuality bool // EGPRS Timeslot Link Quality Measurements (not decoded further)
	HasPFI       bool
	PFI          uint8
	AddRACInfo   bool // MS_RAC_AdditionalInformationAvailable
	Retx         bool // RetransmissionOfPRR
}

func (*PacketResourceRequest) MsgType() uint8 { return MTPacketResourceRequest }
func (*PacketResourceRequest) Name() string   { return "Packet Resource Request" }

func (m *PacketResourceRequest) csn(c *Coder) {
	c.optU8(&m.HasAccessType, &m.AccessType, 2, "ACCESS_TYPE")
	m.ID.csn(c)
	if c.Opt(&m.HasRAC, "MS Radio Access Capability 2") {
		m.RAC.csn(c)
	}
	m.ChanReq.csn(c)
	c.optU8(&m.HasChangeMark, &m.ChangeMark, 2, "CHANGE_MARK")
	c.U8(&m.CValue, 6, "C_VALUE")
	c.optU8(&m.HasSignVar, &m.SignVar, 6, "SIGN_VAR")
	for i := 0; i < 8; i++ {
		c.optU8(&m.HasILev[i], &m.ILevelTN[i], 4, "I_LEVEL_TN")
	}
	if c.Ext(&m.HasR99, "Release 99") {
		if c.Opt(&m.HasBEP, "EGPRS BEP Link Quality Measurements") {
			b := &m.BEP
			optMeanBEP(c, &b.HasGMSK, &b.MeanBEPGMSK, &b.CVGMSK, "MEAN_BEP_GMSK", "CV_BEP_GMSK")
			optMeanBEP(c, &b.Has8PSK, &b.MeanBEP8PSK, &b.CV8PSK, "MEAN_BEP_8PSK", "CV_BEP_8PSK")
		}
		if c.Opt(&m.HasTNQuality, "EGPRS Timeslot Link Quality Measurements") {
			var q EGPRSChannelQualityReport
			codeTNQuality(c, &q)
		}
		c.optU8(&m.HasPFI, &m.PFI, 7, "PFI")
		c.Bool(&m.AddRACInfo, "MS_RAC_AdditionalInformationAvailable")
		c.Bool(&m.Retx, "RetransmissionOfPRR")
		// Release 5+ additions are ignored (null | 0 | 1 ...).
	}
}

// codeTNQuality codes the per-timeslot BEP and interference measurements
// (TS 44.060 §12.5.3, < EGPRS Timeslot Link Quality Measurements IE >).
func codeTNQuality(c *Coder, q *EGPRSChannelQualityReport) {
	if c.Opt(&q.HasBEPTN, "BEP_MEASUREMENTS") {
		for i := range q.BEPTN {
			t := &q.BEPTN[i]
			if c.Opt(&t.Present, "BEP_MEASUREMENT") {
				c.Bool(&t.Is8PSK, "GMSK/8PSK")
				c.U8(&t.MeanBEP, 4, "MEAN_BEP_TN")
			}
		}
	}
	if c.Opt(&q.HasILevTN, "INTERFERENCE_MEASUREMENTS") {
		for i := range q.ILevTN {
			t := &q.ILevTN[i]
			c.optU8(&t.Present, &t.ILevel, 4, "I_LEVEL")
		}
	}
}

// ---------------------------------------------------------------------------

// PacketMobileTBFStatus (TS 44.060 §11.2.9c).
type PacketMobileTBFStatus struct {
	ulMsg
	GlobalTFI     GlobalTFI
	Cause         uint8 // TBF_CAUSE, 3 bits
	HasStatusType bool
	StatusType    uint8
}

func (*PacketMobileTBFStatus) MsgType() uint8 { return MTPacketMobileTBFStatus }
func (*PacketMobileTBFStatus) Name() string   { return "Packet Mobile TBF Status" }

func (m *PacketMobileTBFStatus) csn(c *Coder) {
	m.GlobalTFI.csn(c)
	c.U8(&m.Cause, 3, "TBF_CAUSE")
	c.optU8(&m.HasStatusType, &m.StatusType, 6, "STATUS_MESSAGE_TYPE")
}

// AdditionalMSRAC is the Additional MS Radio Access Capabilities message (TS 44.060 §11.2.32).
type AdditionalMSRAC struct {
	ulMsg
	ID  ULID
	RAC MSRadioAccessCapability
}

func (*AdditionalMSRAC) MsgType() uint8 { return MTAdditionalMSRAC }
func (*AdditionalMSRAC) Name() string   { return "Additional MS Radio Access Capabilities" }

func (m *AdditionalMSRAC) csn(c *Coder) {
	m.ID.csn(c)
	m.RAC.csn(c)
}

// ---------------------------------------------------------------------------

// NCMeasurement is one neighbour cell measurement (§11.2.9 / §11.2.3a).
type NCMeasurement struct {
	FrequencyN uint8
	HasBSIC    bool
	BSIC       uint8
	RXLev      uint8
}

func codeNCMeas(c *Coder, n *uint8, m []NCMeasurement) {
	c.U8(n, 3, "NUMBER_OF_NC_MEASUREMENTS")
	if int(*n) > len(m) {
		c.Fail(ErrOverflow, "NC measurements")
		return
	}
	for i := 0; i < int(*n); i++ {
		c.U8(&m[i].FrequencyN, 6, "FREQUENCY_N")
		c.optU8(&m[i].HasBSIC, &m[i].BSIC, 6, "BSIC_N")
		c.U8(&m[i].RXLev, 6, "RXLEV_N")
	}
}

// PacketMeasurementReport (TS 44.060 §11.2.9), NC Measurement Report variant.
type PacketMeasurementReport struct {
	ulMsg
	TLLI         uint32
	HasPSI5CM    bool
	PSI5CM       uint8
	NCMode       bool
	RXLevServing uint8
	NMeas        uint8
	Meas         [7]NCMeasurement
}

func (*PacketMeasurementReport) MsgType() uint8 { return MTPacketMeasurementReport }
func (*PacketMeasurementReport) Name() string   { return "Packet Measurement Report" }

func (m *PacketMeasurementReport) csn(c *Coder) {
	c.U32(&m.TLLI, 32, "TLLI")
	c.optU8(&m.HasPSI5CM, &m.PSI5CM, 2, "PSI5_CHANGE_MARK")
	var ext bool
	if c.Opt(&ext, "NC/EXT report") {
		c.Fail(ErrUnsupported, "EXT Measurement Report")
		return
	}
	c.Bool(&m.NCMode, "NC_MODE")
	c.U8(&m.RXLevServing, 6, "RXLEV_SERVING_CELL")
	c.Fixed(0, 1, "Serving Cell Data spare")
	codeNCMeas(c, &m.NMeas, m.Meas[:])
	var r99 bool
	c.Ext(&r99, "Release 99") // additions not decoded
}

// Target cell kinds of a Packet Cell Change Notification (TS 44.060
// §11.2.3a: "0" GSM, "10" 3G target cell, "110" the Rel-8 struct with an
// optional GSM, 3G and/or E-UTRAN target, "1110" CSG target).
const (
	PCCNTargetGSM    uint8 = 0
	PCCNTarget3G     uint8 = 1
	PCCNTargetRel8   uint8 = 2
	PCCNTargetCSG    uint8 = 3 // decoded as unsupported (osmo-pcu: not supported)
	pccnTargetsKnown       = 3
)

// PCCN3GTarget is the 3G Target Cell struct of a PCCN (FDD and/or TDD).
type PCCN3GTarget struct {
	HasFDD, HasFDDBandwidth bool
	FDDARFCN                uint16 // 14 bits
	FDDBandwidth            uint8
	ScramblingCode          uint16 // 9 bits
	HasTDD, HasTDDBandwidth bool
	TDDARFCN                uint16 // 14 bits
	TDDBandwidth            uint8
	CellParameter           uint8 // 7 bits
	SyncCase                uint8
	ReportingQuantity       uint8 // 6 bits
}

func (t *PCCN3GTarget) csn(c *Coder) {
	if c.Opt(&t.HasFDD, "FDD Target Cell") {
		c.U16(&t.FDDARFCN, 14, "FDD_ARFCN")
		c.optU8(&t.HasFDDBandwidth, &t.FDDBandwidth, 3, "BANDWIDTH_FDD")
		c.U16(&t.ScramblingCode, 9, "SCRAMBLING_CODE")
	}
	if c.Opt(&t.HasTDD, "TDD Target Cell") {
		c.U16(&t.TDDARFCN, 14, "TDD_ARFCN")
		c.optU8(&t.HasTDDBandwidth, &t.TDDBandwidth, 3, "BANDWIDTH_TDD")
		c.U8(&t.CellParameter, 7, "CELL_PARAMETER")
		c.U8(&t.SyncCase, 1, "Sync Case TSTD")
	}
	c.U8(&t.ReportingQuantity, 6, "REPORTING_QUANTITY")
}

// PCCNEUTRANTarget is the E-UTRAN Target Cell struct of a PCCN.
type PCCNEUTRANTarget struct {
	EARFCN            uint16
	HasBandwidth      bool
	Bandwidth         uint8
	PCID              uint16 // Physical Layer Cell Identity, 9 bits
	ReportingQuantity uint8
}

func (t *PCCNEUTRANTarget) csn(c *Coder) {
	c.U16(&t.EARFCN, 16, "EARFCN")
	c.optU8(&t.HasBandwidth, &t.Bandwidth, 3, "Measurement Bandwidth")
	c.U16(&t.PCID, 9, "Physical Layer Cell Identity")
	c.U8(&t.ReportingQuantity, 6, "REPORTING_QUANTITY")
}

// PCCNEUTRANMeas is one cell of the E-UTRAN CCN Measurement Report.
type PCCNEUTRANMeas struct {
	FreqIndex, ReportingQuantity uint8
	CellID                       uint16
}

// PacketCellChangeNotification (TS 44.060 §11.2.3a). Target selects the
// target cell struct: GSM (ARFCN, BSIC), 3G (UTRAN), or the Rel-8 struct
// whose GSM part (HasGSM: ARFCN, BSIC), 3G part and E-UTRAN part are each
// optional, plus an optional E-UTRAN CCN Measurement Report.
type PacketCellChangeNotification struct {
	ulMsg
	GlobalTFI      GlobalTFI
	Target         uint8
	HasGSM         bool // Rel-8 struct: GSM target present
	ARFCN          uint16
	BSIC           uint8
	Has3G          bool // Rel-8 struct: 3G target present (always for PCCNTarget3G)
	UTRAN          PCCN3GTarget
	HasEUTRAN      bool
	EUTRAN         PCCNEUTRANTarget
	HasEUTRANMeas  bool
	EUTRAN3GBAUsed uint8
	NEUTRANMeas    uint8 // 1..4
	EUTRANMeas     [4]PCCNEUTRANMeas
	PSI3           bool // 1: PSI3_CHANGE_MARK follows, else BA_IND
	BAInd          uint8
	PSI3CM         uint8
	PMOUsed        bool
	PCCNSending    bool
	RXLevServing   uint8
	NMeas          uint8
	Meas           [7]NCMeasurement
}

// TargetGSM returns the GSM target cell (ARFCN, BSIC) if the notification
// names one: the GSM struct, or the Rel-8 struct with its GSM part
// (osmo-pcu nacc_fsm.c fill_neigh_key_from_bts_pkt_cell_chg_not).
func (m *PacketCellChangeNotification) TargetGSM() (arfcn uint16, bsic uint8, ok bool) {
	if m.Target == PCCNTargetGSM || m.Target == PCCNTargetRel8 && m.HasGSM {
		return m.ARFCN, m.BSIC, true
	}
	return 0, 0, false
}

func (*PacketCellChangeNotification) MsgType() uint8 { return MTPacketCellChangeNotification }
func (*PacketCellChangeNotification) Name() string   { return "Packet Cell Change Notification" }

func (m *PacketCellChangeNotification) csn(c *Coder) {
	m.GlobalTFI.csn(c)
	// target cell choice: 0 | 10 | 110 | 1110
	for i := uint8(0); i < pccnTargetsKnown; i++ {
		one := m.Target > i
		c.Bool(&one, "Target Cell choice")
		if c.Err() != nil {
			return
		}
		if !one {
			m.Target = i
			break
		}
		if i == pccnTargetsKnown-1 {
			m.Target = PCCNTargetCSG
			c.Fail(ErrUnsupported, "CSG target cell")
			return
		}
	}
	switch m.Target {
	case PCCNTargetGSM:
		c.U16(&m.ARFCN, 10, "ARFCN")
		c.U8(&m.BSIC, 6, "BSIC")
	case PCCNTarget3G:
		m.Has3G = true
		m.UTRAN.csn(c)
	case PCCNTargetRel8:
		if c.Opt(&m.HasGSM, "GSM target cell") {
			c.U16(&m.ARFCN, 10, "ARFCN")
			c.U8(&m.BSIC, 6, "BSIC")
		}
		if c.Opt(&m.Has3G, "3G target cell") {
			m.UTRAN.csn(c)
		}
		if c.Opt(&m.HasEUTRAN, "E-UTRAN target cell") {
			m.EUTRAN.csn(c)
		}
		if c.Opt(&m.HasEUTRANMeas, "E-UTRAN CCN Measurement Report") {
			c.U8(&m.EUTRAN3GBAUsed, 1, "3G_BA_USED")
			n := m.NEUTRANMeas - 1
			c.U8(&n, 2, "N_E-UTRAN")
			m.NEUTRANMeas = n + 1
			for i := 0; i < int(m.NEUTRANMeas) && i < len(m.EUTRANMeas); i++ {
				e := &m.EUTRANMeas[i]
				c.U8(&e.FreqIndex, 3, "E-UTRAN_FREQUENCY_INDEX")
				c.U16(&e.CellID, 9, "CELL IDENTITY")
				c.U8(&e.ReportingQuantity, 6, "REPORTING_QUANTITY")
			}
		}
	}
	c.Bool(&m.PSI3, "BA_IND/PSI3_CHANGE_MARK")
	if m.PSI3 {
		c.U8(&m.PSI3CM, 2, "PSI3_CHANGE_MARK")
	} else {
		c.U8(&m.BAInd, 1, "BA_IND")
	}
	c.Bool(&m.PMOUsed, "PMO_USED")
	c.Bool(&m.PCCNSending, "PCCN_SENDING")
	c.U8(&m.RXLevServing, 6, "RXLEV_SERVING_CELL")
	c.Fixed(0, 1, "spare")
	codeNCMeas(c, &m.NMeas, m.Meas[:])
	var r6 bool
	c.Ext(&r6, "Release 6") // 3G measurements not decoded
}
