package rlcmac

// Information elements (TS 44.060 §12) that several control messages share.

// GlobalTFI (§12.10): an uplink or downlink TFI.
type GlobalTFI struct {
	Downlink bool
	TFI      uint8
}

func (g *GlobalTFI) csn(c *Coder) {
	c.Bool(&g.Downlink, "Global TFI direction")
	c.U8(&g.TFI, 5, "TFI")
}

// PacketTimingAdvance (§12.12).
type PacketTimingAdvance struct {
	HasValue bool
	Value    uint8 // 6 bits
	HasIndex bool
	Index    uint8 // TIMING_ADVANCE_INDEX, 4 bits
	TN       uint8 // TIMING_ADVANCE_TIMESLOT_NUMBER, 3 bits
}

func (t *PacketTimingAdvance) csn(c *Coder) {
	optTAValue(c, &t.HasValue, &t.Value)
	optTAIndex(c, &t.HasIndex, &t.Index, &t.TN, "TA index", "TIMING_ADVANCE_INDEX", "TIMING_ADVANCE_TIMESLOT_NUMBER")
}

// optTAValue codes "{ 0 | 1 < TIMING_ADVANCE_VALUE : bit(6) > }".
func optTAValue(c *Coder, has *bool, v *uint8) {
	if c.Opt(has, "TA value") {
		c.U8(v, 6, "TIMING_ADVANCE_VALUE")
	}
}

// optTAIndex codes "{ 0 | 1 < x_TIMING_ADVANCE_INDEX : bit(4) >
// < x_TIMING_ADVANCE_TIMESLOT_NUMBER : bit(3) > }".
func optTAIndex(c *Coder, has *bool, idx, tn *uint8, name, idxName, tnName string) {
	if c.Opt(has, name) {
		c.U8(idx, 4, idxName)
		c.U8(tn, 3, tnName)
	}
}

// GlobalPacketTimingAdvance (§12.12a).
type GlobalPacketTimingAdvance struct {
	HasValue      bool
	Value         uint8
	HasUL         bool
	ULIndex, ULTN uint8
	HasDL         bool
	DLIndex, DLTN uint8
}

func (t *GlobalPacketTimingAdvance) csn(c *Coder) {
	optTAValue(c, &t.HasValue, &t.Value)
	optTAIndex(c, &t.HasUL, &t.ULIndex, &t.ULTN, "UL TA", "UPLINK_TIMING_ADVANCE_INDEX", "UPLINK_TIMING_ADVANCE_TIMESLOT_NUMBER")
	optTAIndex(c, &t.HasDL, &t.DLIndex, &t.DLTN, "DL TA", "DOWNLINK_TIMING_ADVANCE_INDEX", "DOWNLINK_TIMING_ADVANCE_TIMESLOT_NUMBER")
}

// PowerControlParameters (§12.13): ALPHA and per-timeslot GAMMA.
type PowerControlParameters struct {
	Alpha    uint8    // 4 bits
	HasGamma [8]bool  // per TN
	Gamma    [8]uint8 // 5 bits
}

func (p *PowerControlParameters) csn(c *Coder) {
	c.U8(&p.Alpha, 4, "ALPHA")
	for i := 0; i < 8; i++ {
		c.optU8(&p.HasGamma[i], &p.Gamma[i], 5, "GAMMA_TN")
	}
}

// StartingFrameNumber (§12.21): absolute (T1', T3, T2) or relative k.
type StartingFrameNumber struct {
	Relative   bool
	T1, T3, T2 uint8  // absolute: N32 (5), N51 (6), N26 (5) -- TS 44.018 §10.5.2.38
	K          uint16 // relative, 13 bits
}

func (s *StartingFrameNumber) csn(c *Coder) {
	c.Bool(&s.Relative, "Starting Frame Number type")
	if s.Relative {
		c.U16(&s.K, 13, "k")
		return
	}
	codeStartingTime(c, &s.T1, &s.T3, &s.T2)
}

func codeStartingTime(c *Coder, t1, t3, t2 *uint8) {
	c.U8(t1, 5, "T1'")
	c.U8(t3, 6, "T3")
	c.U8(t2, 5, "T2")
}

// StartingTimeFromFN converts a frame number to the TS 44.018 §10.5.2.38
// Starting Time fields (T1' = (FN/1326) mod 32, T3 = FN mod 51, T2 = FN mod 26).
func StartingTimeFromFN(fn uint32) (t1, t3, t2 uint8) {
	return uint8((fn / 1326) % 32), uint8(fn % 51), uint8(fn % 26)
}

// ChannelRequestDescription (§12.7).
type ChannelRequestDescription struct {
	PeakThroughputClass uint8 // 4 bits
	RadioPriority       uint8 // 2 bits
	RLCUnacked          bool  // RLC_MODE: 1 = unacknowledged
	LLCPDUTypeNonAck    bool  // LLC_PDU_TYPE: 1 = not SACK/ACK
	RLCOctetCount       uint16
}

func (r *ChannelRequestDescription) csn(c *Coder) {
	c.U8(&r.PeakThroughputClass, 4, "PEAK_THROUGHPUT_CLASS")
	c.U8(&r.RadioPriority, 2, "RADIO_PRIORITY")
	c.Bool(&r.RLCUnacked, "RLC_MODE")
	c.Bool(&r.LLCPDUTypeNonAck, "LLC_PDU_TYPE")
	c.U16(&r.RLCOctetCount, 16, "RLC_OCTET_COUNT")
}

// AckNackDescription (§12.3): GPRS Ack/Nack Description.
type AckNackDescription struct {
	FinalAck bool   // FINAL_ACK_INDICATION
	SSN      uint8  // STARTING_SEQUENCE_NUMBER, 7 bits
	RBB      uint64 // RECEIVED_BLOCK_BITMAP; MSB = BSN SSN-64, LSB = BSN SSN-1
}

func (a *AckNackDescription) csn(c *Coder) {
	c.Bool(&a.FinalAck, "FINAL_ACK_INDICATION")
	c.U8(&a.SSN, 7, "STARTING_SEQUENCE_NUMBER")
	c.U64(&a.RBB, 64, "RECEIVED_BLOCK_BITMAP")
}

// ExtensionBits (§12.26): length-prefixed opaque bits.
type ExtensionBits struct {
	Len  uint8 // 1..64 bits
	Bits [8]byte
}

func (e *ExtensionBits) csn(c *Coder) {
	if codeLen1(c, &e.Len, 6, "extension length") {
		c.BitString(e.Bits[:], int(e.Len), "Extension Info")
	}
}

// FrequencyParameters (§12.8): TSC and ARFCN, or a direct encoding.
type FrequencyParameters struct {
	TSC   uint8  // 3 bits
	Kind  uint8  // 0 ARFCN, 1 indirect, 2 direct 1, 3 direct 2
	ARFCN uint16 // Kind 0
	MAIO  uint8  // Kinds 1..3
	// Indirect encoding.
	MANumber      uint8
	HasChangeMark bool
	ChangeMark1   uint8
	HasCM2        bool
	ChangeMark2   uint8
	// Direct encoding 1 (GPRS Mobile Allocation, §12.10a) and 2.
	HSN      uint8
	NRFL     uint8 // RFL numbers
	RFL      [8]uint8
	MAUseIdx bool  // ARFCN index list instead of an MA bitmap
	MALen    uint8 // MA bitmap length in bits (1..64)
	MA       [8]byte
	NIdx     uint8
	ARFCNIdx [16]uint8
	// Direct encoding 2: MA frequency list contents (octets, 3..18).
	MAFreqLen  uint8
	MAFreqList [18]byte
}

func (f *FrequencyParameters) csn(c *Coder) {
	c.U8(&f.TSC, 3, "TSC")
	c.U8(&f.Kind, 2, "Frequency Parameters choice")
	switch f.Kind {
	case 0:
		c.U16(&f.ARFCN, 10, "ARFCN")
	case 1:
		c.U8(&f.MAIO, 6, "MAIO")
		c.U8(&f.MANumber, 4, "MA_NUMBER")
		if c.Opt(&f.HasChangeMark, "CHANGE_MARK") {
			c.U8(&f.ChangeMark1, 2, "CHANGE_MARK_1")
			c.optU8(&f.HasCM2, &f.ChangeMark2, 2, "CHANGE_MARK_2")
		}
	case 2:
		c.U8(&f.MAIO, 6, "MAIO")
		f.gprsMA(c)
	case 3:
		c.U8(&f.MAIO, 6, "MAIO")
		c.U8(&f.HSN, 6, "HSN")
		l := f.MAFreqLen - 3
		if !c.dec && (f.MAFreqLen < 3 || f.MAFreqLen > 18) {
			c.Fail(ErrInvalid, "Length of MA Frequency List")
			return
		}
		c.U8(&l, 4, "Length of MA Frequency List")
		f.MAFreqLen = l + 3
		for i := 0; i < int(f.MAFreqLen); i++ {
			c.U8(&f.MAFreqList[i], 8, "MA Frequency List")
		}
	}
}

// gprsMA codes the GPRS Mobile Allocation (§12.10a).
func (f *FrequencyParameters) gprsMA(c *Coder) {
	c.U8(&f.HSN, 6, "HSN")
	codeList(c, &f.NRFL, f.RFL[:], 4, "RFL_NUMBER")
	c.Bool(&f.MAUseIdx, "MA choice")
	if !f.MAUseIdx {
		if codeLen1(c, &f.MALen, 6, "MA_LENGTH") {
			c.BitString(f.MA[:], int(f.MALen), "MA_BITMAP")
		}
		return
	}
	codeList(c, &f.NIdx, f.ARFCNIdx[:], 6, "ARFCN_INDEX")
}

// codeList codes "{ 1 < x : bit(n) > } ** 0" into a fixed array.
func codeList(c *Coder, cnt *uint8, items []uint8, n int, name string) {
	if !c.dec && int(*cnt) > len(items) {
		c.Fail(ErrOverflow, name)
		return
	}
	i := 0
	for c.Next(i < int(*cnt), name) {
		if i == len(items) {
			c.Fail(ErrOverflow, name)
			return
		}
		c.U8(&items[i], n, name)
		i++
	}
	if c.dec {
		*cnt = uint8(i)
	}
}

// PacketRequestReference (§12.11): 11-bit RA (8-bit RA right-aligned) and FN as T1'/T3/T2.
type PacketRequestReference struct {
	RA         uint16
	T1, T3, T2 uint8
}

func (p *PacketRequestReference) csn(c *Coder) {
	c.U16(&p.RA, 11, "RANDOM_ACCESS_INFORMATION")
	codeStartingTime(c, &p.T1, &p.T3, &p.T2)
}

// Identity choices used by several DL messages.
const (
	IDGlobalTFI   = 0 // "0 < Global TFI >"
	IDTLLI        = 1 // "10 < TLLI >"
	IDTQI         = 2 // "110 < TQI >"
	IDPktReqRef   = 3 // "111 < Packet Request Reference >"
	idMaskPUA     = 1<<IDGlobalTFI | 1<<IDTLLI | 1<<IDTQI | 1<<IDPktReqRef
	idMaskPDA     = 1<<IDGlobalTFI | 1<<IDTLLI
	idMaskPolling = 1<<IDGlobalTFI | 1<<IDTLLI | 1<<IDTQI
	idMaskPPCTA   = 1<<IDGlobalTFI | 1<<IDTQI | 1<<IDPktReqRef
)

// MSID identifies the addressed MS in DL messages (§11.2 "... ID" choices).
type MSID struct {
	Kind      uint8 // IDGlobalTFI, IDTLLI, IDTQI, IDPktReqRef
	GlobalTFI GlobalTFI
	TLLI      uint32
	TQI       uint16
	PktReqRef PacketRequestReference
}

func (id *MSID) csn(c *Coder, mask uint8) {
	// Prefix code: 0 | 10 | 110 | 111; PPCTA uses 0 | 110 | 111 (no 10).
	if !c.dec && mask&(1<<id.Kind) == 0 {
		c.Fail(ErrInvalid, "ID")
		return
	}
	var b bool
	b = id.Kind != IDGlobalTFI
	c.Bool(&b, "ID")
	if !b {
		id.Kind = IDGlobalTFI
		id.GlobalTFI.csn(c)
		return
	}
	b = id.Kind != IDTLLI
	c.Bool(&b, "ID")
	if !b {
		if c.dec && mask&(1<<IDTLLI) == 0 {
			c.Fail(ErrInvalid, "ID")
			return
		}
		id.Kind = IDTLLI
		c.U32(&id.TLLI, 32, "TLLI")
		return
	}
	if mask&(1<<IDTQI|1<<IDPktReqRef) == 0 {
		c.Fail(ErrInvalid, "ID")
		return
	}
	b = id.Kind == IDPktReqRef
	c.Bool(&b, "ID")
	if !b {
		id.Kind = IDTQI
		c.U16(&id.TQI, 16, "TQI")
		return
	}
	if c.dec && mask&(1<<IDPktReqRef) == 0 {
		c.Fail(ErrInvalid, "ID")
		return
	}
	id.Kind = IDPktReqRef
	id.PktReqRef.csn(c)
}

// PersistenceLevel is the optional PERSISTENCE_LEVEL (4 x 4 bits) of several DL messages.
type PersistenceLevel struct {
	Present bool
	Level   [4]uint8
}

func (p *PersistenceLevel) csn(c *Coder) {
	if c.Opt(&p.Present, "PERSISTENCE_LEVEL") {
		for i := range p.Level {
			c.U8(&p.Level[i], 4, "PERSISTENCE_LEVEL")
		}
	}
}
