package bssgp

import "github.com/gopcu/gopcu/bssgp/internal/tlv"

// PDU is any BSSGP PDU of this package. The concrete types are pointers to
// the structs in pdus.go (one per TS 48.018 §10 PDU) and *Raw.
type PDU interface {
	Type() PDUType
	// ies walks the PDU's IE table (codec.go).
	ies(c *codec)
}

// MarshalLen returns the encoded length of p.
func MarshalLen(p PDU) int {
	c := codec{e: tlv.Enc{N: 1}}
	p.ies(&c)
	return c.e.N
}

// MarshalTo encodes p into b and returns the number of bytes written.
func MarshalTo(p PDU, b []byte) (int, error) {
	if len(b) < MarshalLen(p) {
		return 0, ErrShortBuffer
	}
	b[0] = byte(p.Type())
	c := codec{e: tlv.Enc{B: b, N: 1}}
	p.ies(&c)
	return c.e.N, nil
}

// Marshal encodes p into a new slice.
func Marshal(p PDU) ([]byte, error) {
	b := make([]byte, MarshalLen(p))
	n, err := MarshalTo(p, b)
	return b[:n], err
}

func hasUnitdataHeader(t PDUType) bool { return t == PDUDLUnitdata || t == PDUULUnitdata }

// prep checks the type octet and header of b and splits the IEs into d.
func prep(b []byte, t PDUType, d *dec, parseIEs bool) error {
	d.t = t
	d.b = b
	if len(b) < 1 {
		return &Error{Cause: CauseProtocolErrorUnspec, Type: t, Reason: "empty PDU"}
	}
	if PDUType(b[0]) != t {
		return &Error{Cause: CauseProtocolErrorUnspec, Type: PDUType(b[0]), Reason: "unexpected PDU type"}
	}
	off := 1
	if hasUnitdataHeader(t) {
		if len(b) < 8 {
			return &Error{Cause: CauseInvalidMandatoryInfo, Type: t, Offset: len(b), Reason: "header truncated"}
		}
		off = 8
	}
	if parseIEs {
		d.parse(off)
	}
	return d.err
}

func unmarshal(b []byte, p PDU, d *dec) error {
	_, raw := p.(*Raw)
	if err := prep(b, p.Type(), d, !raw); err != nil {
		return err
	}
	p.ies(&codec{d: d})
	return d.err
}

// Unmarshal decodes b into p (a pointer to one of this package's PDU structs
// of the matching type). Byte-slice fields alias b.
func Unmarshal(b []byte, p PDU) error {
	var d dec
	return unmarshal(b, p, &d)
}

// NewPDU returns an empty PDU struct for type t, or a *Raw for PDU types this
// package does not model (PFC, MBMS, PS handover, LCS...).
func NewPDU(t PDUType) PDU {
	switch t {
	case PDUDLUnitdata:
		return new(DLUnitdata)
	case PDUULUnitdata:
		return new(ULUnitdata)
	case PDURACapability:
		return new(RACapability)
	case PDUPagingPS:
		return new(PagingPS)
	case PDUPagingCS:
		return new(PagingCS)
	case PDURACapabilityUpdate:
		return new(RACapabilityUpdate)
	case PDURACapabilityUpdAck:
		return new(RACapabilityUpdateAck)
	case PDURadioStatus:
		return new(RadioStatus)
	case PDUSuspend:
		return new(Suspend)
	case PDUSuspendAck:
		return new(SuspendAck)
	case PDUSuspendNack:
		return new(SuspendNack)
	case PDUResume:
		return new(Resume)
	case PDUResumeAck:
		return new(ResumeAck)
	case PDUResumeNack:
		return new(ResumeNack)
	case PDUBVCBlock:
		return new(BVCBlock)
	case PDUBVCBlockAck:
		return new(BVCBlockAck)
	case PDUBVCReset:
		return new(BVCReset)
	case PDUBVCResetAck:
		return new(BVCResetAck)
	case PDUBVCUnblock:
		return new(BVCUnblock)
	case PDUBVCUnblockAck:
		return new(BVCUnblockAck)
	case PDUFlowControlBVC:
		return new(FlowControlBVC)
	case PDUFlowControlBVCAck:
		return new(FlowControlBVCAck)
	case PDUFlowControlMS:
		return new(FlowControlMS)
	case PDUFlowControlMSAck:
		return new(FlowControlMSAck)
	case PDUFlushLL:
		return new(FlushLL)
	case PDUFlushLLAck:
		return new(FlushLLAck)
	case PDULLCDiscarded:
		return new(LLCDiscarded)
	case PDUStatus:
		return new(Status)
	case PDURANInformation, PDURANInformationReq, PDURANInformationAck, PDURANInformationError, PDURANInfoAppError:
		return &RIM{PDUType: t}
	}
	return &Raw{PDUType: t}
}

// Parse decodes one BSSGP PDU. PDU types this package does not model come
// back as *Raw; reserved type values are an error with cause "Protocol error
// - unspecified".
func Parse(b []byte) (PDU, error) {
	if len(b) < 1 {
		return nil, &Error{Cause: CauseProtocolErrorUnspec, Reason: "empty PDU"}
	}
	t := PDUType(b[0])
	if _, known := pduNames[t]; !known && !(t >= 0x50 && t <= 0x64) && !(t >= 0x80 && t <= 0x93) {
		return nil, &Error{Cause: CauseProtocolErrorUnspec, Type: t, Reason: "unknown PDU type"}
	}
	p := NewPDU(t)
	if err := Unmarshal(b, p); err != nil {
		return nil, err
	}
	return p, nil
}

// Raw is a PDU this package does not decode: the type octet and the rest.
type Raw struct {
	PDUType PDUType
	Body    []byte
}

func (p *Raw) Type() PDUType { return p.PDUType }
func (p *Raw) ies(c *codec) {
	if c.decoding() {
		p.PDUType, p.Body = c.d.t, c.d.b[1:]
		return
	}
	c.e.Raw(p.Body...)
}

// ---- RL and BSSGP SAP (TS 48.018 §10.2) ----

// DLUnitdata is DL-UNITDATA (TS 48.018 §10.2.1), SGSN -> BSS, PTP BVC.
//
//	PDU type | TLLI (4) | QoS Profile (3) | PDU Lifetime | [MS RAC] [Priority]
//	[DRX] [IMSI] [TLLI (old)] [PFI] [LSA Info] [Service UTRAN CCO]
//	[Subscriber Profile ID] [Alignment] | LLC-PDU
type DLUnitdata struct {
	TLLI          uint32
	QoS           [3]byte // QoS Profile (§11.3.28)
	PDULifetime   uint16  // centiseconds (§11.3.25); 0xffff = infinite
	MSRAC         []byte  // MS Radio Access Capability value (TS 24.008 §10.5.5.12a)
	Priority      uint8
	HasPriority   bool
	DRX           uint16 // DRX Parameters (TS 24.008 §10.5.5.6)
	HasDRX        bool
	IMSI          []byte // Mobile Identity value; see DecodeIMSI
	OldTLLI       uint32
	HasOldTLLI    bool
	PFI           uint8
	HasPFI        bool
	LSAInfo       []byte
	ServiceCCO    uint8
	HasServiceCCO bool
	SPID          uint8 // Subscriber Profile ID for RAT/Frequency priority
	HasSPID       bool
	Alignment     int // number of alignment octets; -1 = IE absent
	LLC           []byte
}

func (p *DLUnitdata) Type() PDUType { return PDUDLUnitdata }

func (p *DLUnitdata) ies(c *codec) {
	c.unitdataHdr(&p.TLLI, &p.QoS)
	c.u16(IEPDULifetime, M, &p.PDULifetime, nil)
	c.bytes(IEMSRadioAccessCap, O, tlv.TLV, 0, -1, &p.MSRAC)
	c.u8(IEPriority, O, &p.Priority, &p.HasPriority)
	c.u16(IEDRXParameters, O, &p.DRX, &p.HasDRX)
	c.imsi(O, &p.IMSI)
	c.u32(IETLLI, O, &p.OldTLLI, &p.HasOldTLLI)
	c.u8(IEPFI, O, &p.PFI, &p.HasPFI)
	c.bytes(IELSAInformation, O, tlv.TLV, 0, -1, &p.LSAInfo)
	c.u8(IEServiceUTRANCCO, O, &p.ServiceCCO, &p.HasServiceCCO)
	c.u8(IESubscriberProfID, O, &p.SPID, &p.HasSPID)
	c.alignment(&p.Alignment)
	c.bytes(IELLCPDU, M, tlv.TL16, 0, -1, &p.LLC)
}

// MarshalLen, MarshalTo and Unmarshal are the allocation-free hot-path
// methods (the generic functions work too): they walk the IE table on the
// concrete type, so that the codec stays on the stack.
func (p *DLUnitdata) MarshalLen() int {
	c := codec{e: tlv.Enc{N: 1}}
	p.ies(&c)
	return c.e.N
}

// MarshalTo encodes p into b.
func (p *DLUnitdata) MarshalTo(b []byte) (int, error) {
	if len(b) < p.MarshalLen() {
		return 0, ErrShortBuffer
	}
	b[0] = byte(PDUDLUnitdata)
	c := codec{e: tlv.Enc{B: b, N: 1}}
	p.ies(&c)
	return c.e.N, nil
}

// Unmarshal decodes b into p without allocating; slices alias b.
func (p *DLUnitdata) Unmarshal(b []byte) error {
	var d dec
	if err := prep(b, PDUDLUnitdata, &d, true); err != nil {
		return err
	}
	p.ies(&codec{d: &d})
	return d.err
}

// ULUnitdata is UL-UNITDATA (TS 48.018 §10.2.2), BSS -> SGSN, PTP BVC.
//
//	PDU type | TLLI (4) | QoS Profile (3) | Cell Identifier | [PFI]
//	[LSA Identifier List] [Alignment] | LLC-PDU
type ULUnitdata struct {
	TLLI      uint32
	QoS       [3]byte
	CellID    CellID
	PFI       uint8
	HasPFI    bool
	LSAIDList []byte
	Alignment int // number of alignment octets; -1 = IE absent (osmo-pcu sends 0)
	LLC       []byte
}

func (p *ULUnitdata) Type() PDUType { return PDUULUnitdata }

func (p *ULUnitdata) ies(c *codec) {
	c.unitdataHdr(&p.TLLI, &p.QoS)
	c.cellID(M, &p.CellID, nil)
	c.u8(IEPFI, O, &p.PFI, &p.HasPFI)
	c.bytes(IELSAIdentifierList, O, tlv.TLV, 0, -1, &p.LSAIDList)
	c.alignment(&p.Alignment)
	c.bytes(IELLCPDU, M, tlv.TL16, 0, -1, &p.LLC)
}

// MarshalLen returns the encoded length of p.
func (p *ULUnitdata) MarshalLen() int {
	c := codec{e: tlv.Enc{N: 1}}
	p.ies(&c)
	return c.e.N
}

// MarshalTo encodes p into b without allocating.
func (p *ULUnitdata) MarshalTo(b []byte) (int, error) {
	if len(b) < p.MarshalLen() {
		return 0, ErrShortBuffer
	}
	b[0] = byte(PDUULUnitdata)
	c := codec{e: tlv.Enc{B: b, N: 1}}
	p.ies(&c)
	return c.e.N, nil
}

// Unmarshal decodes b into p; slices alias b.
func (p *ULUnitdata) Unmarshal(b []byte) error {
	var d dec
	if err := prep(b, PDUULUnitdata, &d, true); err != nil {
		return err
	}
	p.ies(&codec{d: &d})
	return d.err
}

// RACapability is RA-CAPABILITY (TS 48.018 §10.2.3), SGSN -> BSS, PTP.
type RACapability struct {
	TLLI  uint32
	MSRAC []byte
}

func (p *RACapability) Type() PDUType { return PDURACapability }
func (p *RACapability) ies(c *codec) {
	c.u32(IETLLI, M, &p.TLLI, nil)
	c.bytes(IEMSRadioAccessCap, M, tlv.TLV, 1, -1, &p.MSRAC)
}
