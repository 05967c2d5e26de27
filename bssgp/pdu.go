package bssgp

import "encoding/binary"

// PDU is any BSSGP PDU of this package. The concrete types are pointers to
// the structs in pdus.go (one per TS 48.018 §10 PDU) and *Raw.
type PDU interface {
	Type() PDUType
	encode(e *enc)
	decode(d *dec)
}

// MarshalLen returns the encoded length of p.
func MarshalLen(p PDU) int {
	e := enc{n: 1}
	p.encode(&e)
	return e.n
}

// MarshalTo encodes p into b and returns the number of bytes written.
func MarshalTo(p PDU, b []byte) (int, error) {
	if len(b) < MarshalLen(p) {
		return 0, ErrShortBuffer
	}
	b[0] = byte(p.Type())
	e := enc{b: b, n: 1}
	p.encode(&e)
	return e.n, nil
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
	p.decode(d)
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
func (p *Raw) encode(e *enc) { e.raw(p.Body...) }
func (p *Raw) decode(d *dec) { p.PDUType, p.Body = d.t, d.b[1:] }

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

func (p *DLUnitdata) encode(e *enc) {
	e.u32(p.TLLI)
	e.raw(p.QoS[:]...)
	e.tlvU16(IEPDULifetime, p.PDULifetime)
	if p.MSRAC != nil {
		e.tlv(IEMSRadioAccessCap, p.MSRAC)
	}
	if p.HasPriority {
		e.tlvU8(IEPriority, p.Priority)
	}
	if p.HasDRX {
		e.tlvU16(IEDRXParameters, p.DRX)
	}
	if p.IMSI != nil {
		e.tlv(IEIMSI, p.IMSI)
	}
	if p.HasOldTLLI {
		e.tlvU32(IETLLI, p.OldTLLI)
	}
	if p.HasPFI {
		e.tlvU8(IEPFI, p.PFI)
	}
	if p.LSAInfo != nil {
		e.tlv(IELSAInformation, p.LSAInfo)
	}
	if p.HasServiceCCO {
		e.tlvU8(IEServiceUTRANCCO, p.ServiceCCO)
	}
	if p.HasSPID {
		e.tlvU8(IESubscriberProfID, p.SPID)
	}
	if p.Alignment >= 0 {
		e.hdr(IEAlignment, p.Alignment, false)
		for i := 0; i < p.Alignment; i++ {
			e.u8(0)
		}
	}
	e.tlv16(IELLCPDU, p.LLC)
}

func (p *DLUnitdata) decode(d *dec) {
	p.TLLI = binary.BigEndian.Uint32(d.b[1:])
	copy(p.QoS[:], d.b[5:8])
	p.PDULifetime, _ = d.u16(IEPDULifetime, mand)
	p.MSRAC = d.bytes(IEMSRadioAccessCap, opt)
	p.Priority, p.HasPriority = d.u8(IEPriority, opt)
	p.DRX, p.HasDRX = d.u16(IEDRXParameters, opt)
	p.IMSI = d.imsi(opt)
	p.OldTLLI, p.HasOldTLLI = d.u32(IETLLI, opt)
	p.PFI, p.HasPFI = d.u8(IEPFI, opt)
	p.LSAInfo = d.bytes(IELSAInformation, opt)
	p.ServiceCCO, p.HasServiceCCO = d.u8(IEServiceUTRANCCO, opt)
	p.SPID, p.HasSPID = d.u8(IESubscriberProfID, opt)
	p.Alignment = -1
	if v, ok := d.get(IEAlignment, opt, 0, 3); ok {
		p.Alignment = len(v)
	}
	p.LLC, _ = d.get(IELLCPDU, mand, 0, -1)
}

// MarshalLen, MarshalTo and Unmarshal are the allocation-free hot-path
// methods (the generic functions work too).
func (p *DLUnitdata) MarshalLen() int { return MarshalLen(p) }

// MarshalTo encodes p into b.
func (p *DLUnitdata) MarshalTo(b []byte) (int, error) {
	var e enc
	p.encode(&e)
	if len(b) < e.n+1 {
		return 0, ErrShortBuffer
	}
	b[0] = byte(PDUDLUnitdata)
	e = enc{b: b, n: 1}
	p.encode(&e)
	return e.n, nil
}

// Unmarshal decodes b into p without allocating; slices alias b.
func (p *DLUnitdata) Unmarshal(b []byte) error {
	var d dec
	if err := prep(b, PDUDLUnitdata, &d, true); err != nil {
		return err
	}
	p.decode(&d)
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

func (p *ULUnitdata) encode(e *enc) {
	e.u32(p.TLLI)
	e.raw(p.QoS[:]...)
	e.cellID(p.CellID)
	if p.HasPFI {
		e.tlvU8(IEPFI, p.PFI)
	}
	if p.LSAIDList != nil {
		e.tlv(IELSAIdentifierList, p.LSAIDList)
	}
	if p.Alignment >= 0 {
		e.hdr(IEAlignment, p.Alignment, false)
		for i := 0; i < p.Alignment; i++ {
			e.u8(0)
		}
	}
	e.tlv16(IELLCPDU, p.LLC)
}

func (p *ULUnitdata) decode(d *dec) {
	p.TLLI = binary.BigEndian.Uint32(d.b[1:])
	copy(p.QoS[:], d.b[5:8])
	p.CellID, _ = d.cellID(mand)
	p.PFI, p.HasPFI = d.u8(IEPFI, opt)
	p.LSAIDList = d.bytes(IELSAIdentifierList, opt)
	p.Alignment = -1
	if v, ok := d.get(IEAlignment, opt, 0, 3); ok {
		p.Alignment = len(v)
	}
	p.LLC, _ = d.get(IELLCPDU, mand, 0, -1)
}

// ulHdrLen is type + TLLI + QoS.
const ulHdrLen = 8

// MarshalLen returns the encoded length of p.
func (p *ULUnitdata) MarshalLen() int {
	n := ulHdrLen + 10 + 3 + len(p.LLC)
	if p.HasPFI {
		n += 3
	}
	if p.LSAIDList != nil {
		n += tlvLen(len(p.LSAIDList))
	}
	if p.Alignment >= 0 {
		n += 2 + p.Alignment
	}
	return n
}

func tlvLen(n int) int {
	if n < 128 {
		return 2 + n
	}
	return 3 + n
}

// MarshalTo encodes p into b without allocating.
func (p *ULUnitdata) MarshalTo(b []byte) (int, error) {
	if len(b) < p.MarshalLen() {
		return 0, ErrShortBuffer
	}
	b[0] = byte(PDUULUnitdata)
	e := enc{b: b, n: 1}
	p.encode(&e)
	return e.n, nil
}

// Unmarshal decodes b into p; slices alias b.
func (p *ULUnitdata) Unmarshal(b []byte) error {
	var d dec
	if err := prep(b, PDUULUnitdata, &d, true); err != nil {
		return err
	}
	p.decode(&d)
	return d.err
}

// RACapability is RA-CAPABILITY (TS 48.018 §10.2.3), SGSN -> BSS, PTP.
type RACapability struct {
	TLLI  uint32
	MSRAC []byte
}

func (p *RACapability) Type() PDUType { return PDURACapability }
func (p *RACapability) encode(e *enc) {
	e.tlvU32(IETLLI, p.TLLI)
	e.tlv(IEMSRadioAccessCap, p.MSRAC)
}
func (p *RACapability) decode(d *dec) {
	p.TLLI, _ = d.u32(IETLLI, mand)
	p.MSRAC, _ = d.get(IEMSRadioAccessCap, mand, 1, -1)
}

// ---- GMM SAP (TS 48.018 §10.3) ----

// PagingArea is the area part of PAGING-PS/CS: exactly one of BVCI, Location
// Area, Routeing Area or BSS Area Indication (TS 48.018 §10.3.1 note).
type PagingArea struct {
	BVCI    uint16
	HasBVCI bool
	LA      []byte // Location Area (5 octets)
	RA      []byte // Routeing Area (6 octets)
	BSSArea []byte // BSS Area Indication (1 octet)
}

func (a *PagingArea) encode(e *enc) {
	switch {
	case a.HasBVCI:
		e.tlvU16(IEBVCI, a.BVCI)
	case a.LA != nil:
		e.tlv(IELocationArea, a.LA)
	case a.RA != nil:
		e.tlv(IERoutingArea, a.RA)
	case a.BSSArea != nil:
		e.tlv(IEBSSAreaIndication, a.BSSArea)
	}
}

func (a *PagingArea) decode(d *dec) {
	a.BVCI, a.HasBVCI = d.u16(IEBVCI, opt)
	a.LA, _ = d.get(IELocationArea, opt, 5, 5)
	a.RA, _ = d.get(IERoutingArea, opt, 6, 6)
	a.BSSArea, _ = d.get(IEBSSAreaIndication, opt, 1, 1)
	if d.err == nil && !a.HasBVCI && a.LA == nil && a.RA == nil && a.BSSArea == nil {
		d.fail(CauseMissingConditionalIE, IEBVCI, len(d.b), "no paging area")
	}
}

// PagingPS is PAGING-PS (TS 48.018 §10.3.1), SGSN -> BSS.
type PagingPS struct {
	IMSI    []byte
	DRX     uint16
	HasDRX  bool
	Area    PagingArea
	PFI     uint8
	HasPFI  bool
	ABQP    []byte
	QoS     [3]byte // QoS Profile IE (mandatory)
	PTMSI   uint32  // TMSI IE
	HasTMSI bool
}

func (p *PagingPS) Type() PDUType { return PDUPagingPS }
func (p *PagingPS) encode(e *enc) {
	e.tlv(IEIMSI, p.IMSI)
	if p.HasDRX {
		e.tlvU16(IEDRXParameters, p.DRX)
	}
	p.Area.encode(e)
	if p.HasPFI {
		e.tlvU8(IEPFI, p.PFI)
	}
	if p.ABQP != nil {
		e.tlv(IEABQP, p.ABQP)
	}
	e.tlv(IEQoSProfile, p.QoS[:])
	if p.HasTMSI {
		e.tlvU32(IETMSI, p.PTMSI)
	}
}
func (p *PagingPS) decode(d *dec) {
	p.IMSI = d.imsi(mand)
	p.DRX, p.HasDRX = d.u16(IEDRXParameters, opt)
	p.Area.decode(d)
	p.PFI, p.HasPFI = d.u8(IEPFI, opt)
	p.ABQP = d.bytes(IEABQP, opt)
	if v, ok := d.get(IEQoSProfile, mand, 3, 3); ok {
		copy(p.QoS[:], v)
	}
	p.PTMSI, p.HasTMSI = d.u32(IETMSI, opt)
}

// PagingCS is PAGING-CS (TS 48.018 §10.3.2), SGSN -> BSS.
type PagingCS struct {
	IMSI          []byte
	DRX           uint16
	Area          PagingArea
	TLLI          uint32
	HasTLLI       bool
	ChannelNeeded uint8
	HasChanNeeded bool
	EMLPP         []byte
	TMSI          uint32
	HasTMSI       bool
	GlobalCNID    []byte
}

func (p *PagingCS) Type() PDUType { return PDUPagingCS }
func (p *PagingCS) encode(e *enc) {
	e.tlv(IEIMSI, p.IMSI)
	e.tlvU16(IEDRXParameters, p.DRX)
	p.Area.encode(e)
	if p.HasTLLI {
		e.tlvU32(IETLLI, p.TLLI)
	}
	if p.HasChanNeeded {
		e.tlvU8(IEChannelNeeded, p.ChannelNeeded)
	}
	if p.EMLPP != nil {
		e.tlv(IEeMLPPPriority, p.EMLPP)
	}
	if p.HasTMSI {
		e.tlvU32(IETMSI, p.TMSI)
	}
	if p.GlobalCNID != nil {
		e.tlv(IEGlobalCNID, p.GlobalCNID)
	}
}
func (p *PagingCS) decode(d *dec) {
	p.IMSI = d.imsi(mand)
	p.DRX, _ = d.u16(IEDRXParameters, mand)
	p.Area.decode(d)
	p.TLLI, p.HasTLLI = d.u32(IETLLI, opt)
	p.ChannelNeeded, p.HasChanNeeded = d.u8(IEChannelNeeded, opt)
	p.EMLPP, _ = d.get(IEeMLPPPriority, opt, 1, 1)
	p.TMSI, p.HasTMSI = d.u32(IETMSI, opt)
	p.GlobalCNID, _ = d.get(IEGlobalCNID, opt, 5, 5)
}

// RACapabilityUpdate is RA-CAPABILITY-UPDATE (TS 48.018 §10.3.3), BSS -> SGSN.
type RACapabilityUpdate struct {
	TLLI uint32
	Tag  uint8
}

func (p *RACapabilityUpdate) Type() PDUType { return PDURACapabilityUpdate }
func (p *RACapabilityUpdate) encode(e *enc) {
	e.tlvU32(IETLLI, p.TLLI)
	e.tlvU8(IETag, p.Tag)
}
func (p *RACapabilityUpdate) decode(d *dec) {
	p.TLLI, _ = d.u32(IETLLI, mand)
	p.Tag, _ = d.u8(IETag, mand)
}

// RACapabilityUpdateAck is RA-CAPABILITY-UPDATE-ACK (§10.3.4), SGSN -> BSS.
type RACapabilityUpdateAck struct {
	TLLI  uint32
	Tag   uint8
	IMSI  []byte
	Cause uint8 // RA-Cap-UPD-Cause (§11.3.30)
	MSRAC []byte
}

func (p *RACapabilityUpdateAck) Type() PDUType { return PDURACapabilityUpdAck }
func (p *RACapabilityUpdateAck) encode(e *enc) {
	e.tlvU32(IETLLI, p.TLLI)
	e.tlvU8(IETag, p.Tag)
	if p.IMSI != nil {
		e.tlv(IEIMSI, p.IMSI)
	}
	e.tlvU8(IERACapUpdCause, p.Cause)
	if p.MSRAC != nil {
		e.tlv(IEMSRadioAccessCap, p.MSRAC)
	}
}
func (p *RACapabilityUpdateAck) decode(d *dec) {
	p.TLLI, _ = d.u32(IETLLI, mand)
	p.Tag, _ = d.u8(IETag, mand)
	p.IMSI = d.imsi(opt)
	p.Cause, _ = d.u8(IERACapUpdCause, mand)
	p.MSRAC = d.bytes(IEMSRadioAccessCap, opt)
}

// RadioStatus is RADIO-STATUS (TS 48.018 §10.3.5), BSS -> SGSN: one of
// TLLI, TMSI or IMSI plus the Radio Cause.
type RadioStatus struct {
	TLLI       uint32
	HasTLLI    bool
	TMSI       uint32
	HasTMSI    bool
	IMSI       []byte
	RadioCause uint8 // §11.3.29: 0 no contact, 1 radio contact lost, 2 cell reselection ordered...
}

func (p *RadioStatus) Type() PDUType { return PDURadioStatus }
func (p *RadioStatus) encode(e *enc) {
	if p.HasTLLI {
		e.tlvU32(IETLLI, p.TLLI)
	}
	if p.HasTMSI {
		e.tlvU32(IETMSI, p.TMSI)
	}
	if p.IMSI != nil {
		e.tlv(IEIMSI, p.IMSI)
	}
	e.tlvU8(IERadioCause, p.RadioCause)
}
func (p *RadioStatus) decode(d *dec) {
	p.TLLI, p.HasTLLI = d.u32(IETLLI, opt)
	p.TMSI, p.HasTMSI = d.u32(IETMSI, opt)
	p.IMSI = d.imsi(opt)
	p.RadioCause, _ = d.u8(IERadioCause, mand)
	if d.err == nil && !p.HasTLLI && !p.HasTMSI && p.IMSI == nil {
		d.fail(CauseMissingConditionalIE, IETLLI, len(d.b), "no MS identity")
	}
}

// Suspend is SUSPEND (TS 48.018 §10.3.6), BSS -> SGSN, signalling BVC.
type Suspend struct {
	TLLI uint32
	RAI  RAI
}

func (p *Suspend) Type() PDUType { return PDUSuspend }
func (p *Suspend) encode(e *enc) { e.tlvU32(IETLLI, p.TLLI); e.rai(IERoutingArea, p.RAI) }
func (p *Suspend) decode(d *dec) {
	p.TLLI, _ = d.u32(IETLLI, mand)
	p.RAI, _ = d.rai(IERoutingArea, mand)
}

// SuspendAck is SUSPEND-ACK (§10.3.7).
type SuspendAck struct {
	TLLI uint32
	RAI  RAI
	SRN  uint8 // Suspend Reference Number
}

func (p *SuspendAck) Type() PDUType { return PDUSuspendAck }
func (p *SuspendAck) encode(e *enc) {
	e.tlvU32(IETLLI, p.TLLI)
	e.rai(IERoutingArea, p.RAI)
	e.tlvU8(IESuspendRefNum, p.SRN)
}
func (p *SuspendAck) decode(d *dec) {
	p.TLLI, _ = d.u32(IETLLI, mand)
	p.RAI, _ = d.rai(IERoutingArea, mand)
	p.SRN, _ = d.u8(IESuspendRefNum, mand)
}

// SuspendNack is SUSPEND-NACK (§10.3.8).
type SuspendNack struct {
	TLLI     uint32
	RAI      RAI
	Cause    Cause
	HasCause bool
}

func (p *SuspendNack) Type() PDUType { return PDUSuspendNack }
func (p *SuspendNack) encode(e *enc) {
	e.tlvU32(IETLLI, p.TLLI)
	e.rai(IERoutingArea, p.RAI)
	if p.HasCause {
		e.tlvU8(IECause, uint8(p.Cause))
	}
}
func (p *SuspendNack) decode(d *dec) {
	p.TLLI, _ = d.u32(IETLLI, mand)
	p.RAI, _ = d.rai(IERoutingArea, mand)
	var c uint8
	c, p.HasCause = d.u8(IECause, opt)
	p.Cause = Cause(c)
}

// Resume is RESUME (§10.3.9), BSS -> SGSN.
type Resume struct {
	TLLI uint32
	RAI  RAI
	SRN  uint8
}

func (p *Resume) Type() PDUType { return PDUResume }
func (p *Resume) encode(e *enc) {
	e.tlvU32(IETLLI, p.TLLI)
	e.rai(IERoutingArea, p.RAI)
	e.tlvU8(IESuspendRefNum, p.SRN)
}
func (p *Resume) decode(d *dec) {
	p.TLLI, _ = d.u32(IETLLI, mand)
	p.RAI, _ = d.rai(IERoutingArea, mand)
	p.SRN, _ = d.u8(IESuspendRefNum, mand)
}

// ResumeAck is RESUME-ACK (§10.3.10).
type ResumeAck struct {
	TLLI uint32
	RAI  RAI
}

func (p *ResumeAck) Type() PDUType { return PDUResumeAck }
func (p *ResumeAck) encode(e *enc) { e.tlvU32(IETLLI, p.TLLI); e.rai(IERoutingArea, p.RAI) }
func (p *ResumeAck) decode(d *dec) {
	p.TLLI, _ = d.u32(IETLLI, mand)
	p.RAI, _ = d.rai(IERoutingArea, mand)
}

// ResumeNack is RESUME-NACK (§10.3.11).
type ResumeNack struct {
	TLLI     uint32
	RAI      RAI
	Cause    Cause
	HasCause bool
}

func (p *ResumeNack) Type() PDUType { return PDUResumeNack }
func (p *ResumeNack) encode(e *enc) {
	e.tlvU32(IETLLI, p.TLLI)
	e.rai(IERoutingArea, p.RAI)
	if p.HasCause {
		e.tlvU8(IECause, uint8(p.Cause))
	}
}
func (p *ResumeNack) decode(d *dec) {
	p.TLLI, _ = d.u32(IETLLI, mand)
	p.RAI, _ = d.rai(IERoutingArea, mand)
	var c uint8
	c, p.HasCause = d.u8(IECause, opt)
	p.Cause = Cause(c)
}

// ---- NM SAP (TS 48.018 §10.4) ----

// BVCBlock is BVC-BLOCK (§10.4.8).
type BVCBlock struct {
	BVCI  uint16
	Cause Cause
}

func (p *BVCBlock) Type() PDUType { return PDUBVCBlock }
func (p *BVCBlock) encode(e *enc) { e.tlvU16(IEBVCI, p.BVCI); e.tlvU8(IECause, uint8(p.Cause)) }
func (p *BVCBlock) decode(d *dec) {
	p.BVCI, _ = d.u16(IEBVCI, mand)
	c, _ := d.u8(IECause, mand)
	p.Cause = Cause(c)
}

// BVCBlockAck is BVC-BLOCK-ACK (§10.4.9).
type BVCBlockAck struct{ BVCI uint16 }

func (p *BVCBlockAck) Type() PDUType { return PDUBVCBlockAck }
func (p *BVCBlockAck) encode(e *enc) { e.tlvU16(IEBVCI, p.BVCI) }
func (p *BVCBlockAck) decode(d *dec) { p.BVCI, _ = d.u16(IEBVCI, mand) }

// BVCUnblock is BVC-UNBLOCK (§10.4.10).
type BVCUnblock struct{ BVCI uint16 }

func (p *BVCUnblock) Type() PDUType { return PDUBVCUnblock }
func (p *BVCUnblock) encode(e *enc) { e.tlvU16(IEBVCI, p.BVCI) }
func (p *BVCUnblock) decode(d *dec) { p.BVCI, _ = d.u16(IEBVCI, mand) }

// BVCUnblockAck is BVC-UNBLOCK-ACK (§10.4.11).
type BVCUnblockAck struct{ BVCI uint16 }

func (p *BVCUnblockAck) Type() PDUType { return PDUBVCUnblockAck }
func (p *BVCUnblockAck) encode(e *enc) { e.tlvU16(IEBVCI, p.BVCI) }
func (p *BVCUnblockAck) decode(d *dec) { p.BVCI, _ = d.u16(IEBVCI, mand) }

// BVCReset is BVC-RESET (§10.4.12). The Cell Identifier is present when a
// PTP BVC is reset by the BSS (§8.4).
type BVCReset struct {
	BVCI           uint16
	Cause          Cause
	CellID         CellID
	HasCellID      bool
	FeatureBitmap  uint8
	HasFeatures    bool
	ExtFeatures    uint8
	HasExtFeatures bool
}

func (p *BVCReset) Type() PDUType { return PDUBVCReset }
func (p *BVCReset) encode(e *enc) {
	e.tlvU16(IEBVCI, p.BVCI)
	e.tlvU8(IECause, uint8(p.Cause))
	if p.HasCellID {
		e.cellID(p.CellID)
	}
	if p.HasFeatures {
		e.tlvU8(IEFeatureBitmap, p.FeatureBitmap)
	}
	if p.HasExtFeatures {
		e.tlvU8(IEExtFeatureBitmap, p.ExtFeatures)
	}
}
func (p *BVCReset) decode(d *dec) {
	p.BVCI, _ = d.u16(IEBVCI, mand)
	c, _ := d.u8(IECause, mand)
	p.Cause = Cause(c)
	p.CellID, p.HasCellID = d.cellID(opt)
	p.FeatureBitmap, p.HasFeatures = d.u8(IEFeatureBitmap, opt)
	p.ExtFeatures, p.HasExtFeatures = d.u8(IEExtFeatureBitmap, opt)
}

// BVCResetAck is BVC-RESET-ACK (§10.4.13).
type BVCResetAck struct {
	BVCI           uint16
	CellID         CellID
	HasCellID      bool
	FeatureBitmap  uint8
	HasFeatures    bool
	ExtFeatures    uint8
	HasExtFeatures bool
}

func (p *BVCResetAck) Type() PDUType { return PDUBVCResetAck }
func (p *BVCResetAck) encode(e *enc) {
	e.tlvU16(IEBVCI, p.BVCI)
	if p.HasCellID {
		e.cellID(p.CellID)
	}
	if p.HasFeatures {
		e.tlvU8(IEFeatureBitmap, p.FeatureBitmap)
	}
	if p.HasExtFeatures {
		e.tlvU8(IEExtFeatureBitmap, p.ExtFeatures)
	}
}
func (p *BVCResetAck) decode(d *dec) {
	p.BVCI, _ = d.u16(IEBVCI, mand)
	p.CellID, p.HasCellID = d.cellID(opt)
	p.FeatureBitmap, p.HasFeatures = d.u8(IEFeatureBitmap, opt)
	p.ExtFeatures, p.HasExtFeatures = d.u8(IEExtFeatureBitmap, opt)
}

// FlowControlBVC is FLOW-CONTROL-BVC (§10.4.4), BSS -> SGSN, PTP. Bucket
// sizes are in units of 100 octets, leak rates in units of 100 bit/s
// (§11.3.5, §11.3.4, §11.3.2, §11.3.32); Measurement is the average queuing
// delay in centiseconds (§11.3.7).
type FlowControlBVC struct {
	Tag                uint8
	BucketSize         uint16
	LeakRate           uint16
	BmaxMS             uint16
	RMS                uint16
	BucketFullRatio    uint8
	HasBucketFullRatio bool
	Measurement        uint16
	HasMeasurement     bool
	Granularity        uint8
	HasGranularity     bool
}

func (p *FlowControlBVC) Type() PDUType { return PDUFlowControlBVC }
func (p *FlowControlBVC) encode(e *enc) {
	e.tlvU8(IETag, p.Tag)
	e.tlvU16(IEBVCBucketSize, p.BucketSize)
	e.tlvU16(IEBucketLeakRate, p.LeakRate)
	e.tlvU16(IEBmaxDefaultMS, p.BmaxMS)
	e.tlvU16(IERDefaultMS, p.RMS)
	if p.HasBucketFullRatio {
		e.tlvU8(IEBucketFullRatio, p.BucketFullRatio)
	}
	if p.HasMeasurement {
		e.tlvU16(IEBVCMeasurement, p.Measurement)
	}
	if p.HasGranularity {
		e.tlvU8(IEFlowCtrlGranul, p.Granularity)
	}
}
func (p *FlowControlBVC) decode(d *dec) {
	p.Tag, _ = d.u8(IETag, mand)
	p.BucketSize, _ = d.u16(IEBVCBucketSize, mand)
	p.LeakRate, _ = d.u16(IEBucketLeakRate, mand)
	p.BmaxMS, _ = d.u16(IEBmaxDefaultMS, mand)
	p.RMS, _ = d.u16(IERDefaultMS, mand)
	p.BucketFullRatio, p.HasBucketFullRatio = d.u8(IEBucketFullRatio, opt)
	p.Measurement, p.HasMeasurement = d.u16(IEBVCMeasurement, opt)
	p.Granularity, p.HasGranularity = d.u8(IEFlowCtrlGranul, opt)
}

// FlowControlBVCAck is FLOW-CONTROL-BVC-ACK (§10.4.5).
type FlowControlBVCAck struct{ Tag uint8 }

func (p *FlowControlBVCAck) Type() PDUType { return PDUFlowControlBVCAck }
func (p *FlowControlBVCAck) encode(e *enc) { e.tlvU8(IETag, p.Tag) }
func (p *FlowControlBVCAck) decode(d *dec) { p.Tag, _ = d.u8(IETag, mand) }

// FlowControlMS is FLOW-CONTROL-MS (§10.4.6), BSS -> SGSN, PTP. Units as
// FlowControlBVC.
type FlowControlMS struct {
	TLLI               uint32
	Tag                uint8
	BucketSize         uint16 // MS Bucket Size
	LeakRate           uint16
	BucketFullRatio    uint8
	HasBucketFullRatio bool
	Granularity        uint8
	HasGranularity     bool
}

func (p *FlowControlMS) Type() PDUType { return PDUFlowControlMS }
func (p *FlowControlMS) encode(e *enc) {
	e.tlvU32(IETLLI, p.TLLI)
	e.tlvU8(IETag, p.Tag)
	e.tlvU16(IEMSBucketSize, p.BucketSize)
	e.tlvU16(IEBucketLeakRate, p.LeakRate)
	if p.HasBucketFullRatio {
		e.tlvU8(IEBucketFullRatio, p.BucketFullRatio)
	}
	if p.HasGranularity {
		e.tlvU8(IEFlowCtrlGranul, p.Granularity)
	}
}
func (p *FlowControlMS) decode(d *dec) {
	p.TLLI, _ = d.u32(IETLLI, mand)
	p.Tag, _ = d.u8(IETag, mand)
	p.BucketSize, _ = d.u16(IEMSBucketSize, mand)
	p.LeakRate, _ = d.u16(IEBucketLeakRate, mand)
	p.BucketFullRatio, p.HasBucketFullRatio = d.u8(IEBucketFullRatio, opt)
	p.Granularity, p.HasGranularity = d.u8(IEFlowCtrlGranul, opt)
}

// FlowControlMSAck is FLOW-CONTROL-MS-ACK (§10.4.7).
type FlowControlMSAck struct {
	TLLI uint32
	Tag  uint8
}

func (p *FlowControlMSAck) Type() PDUType { return PDUFlowControlMSAck }
func (p *FlowControlMSAck) encode(e *enc) { e.tlvU32(IETLLI, p.TLLI); e.tlvU8(IETag, p.Tag) }
func (p *FlowControlMSAck) decode(d *dec) {
	p.TLLI, _ = d.u32(IETLLI, mand)
	p.Tag, _ = d.u8(IETag, mand)
}

// FlushLL is FLUSH-LL (§10.4.1), SGSN -> BSS, signalling BVC.
type FlushLL struct {
	TLLI       uint32
	BVCIOld    uint16
	BVCINew    uint16
	HasBVCINew bool
	NSEI       uint16
	HasNSEI    bool
}

func (p *FlushLL) Type() PDUType { return PDUFlushLL }
func (p *FlushLL) encode(e *enc) {
	e.tlvU32(IETLLI, p.TLLI)
	e.tlvU16(IEBVCI, p.BVCIOld)
	if p.HasBVCINew {
		e.tlvU16(IEBVCI, p.BVCINew)
	}
	if p.HasNSEI {
		e.tlvU16(IENSEI, p.NSEI)
	}
}
func (p *FlushLL) decode(d *dec) {
	p.TLLI, _ = d.u32(IETLLI, mand)
	p.BVCIOld, _ = d.u16(IEBVCI, mand)
	// The second BVCI IE is "BVCI (new)".
	seen := 0
	for i := 0; i < d.n; i++ {
		if d.ies[i].iei == IEBVCI {
			seen++
			if seen == 2 {
				if len(d.ies[i].v) != 2 {
					d.fail(CauseConditionalIEError, IEBVCI, d.ies[i].off, "bad IE length")
				} else {
					p.BVCINew, p.HasBVCINew = binary.BigEndian.Uint16(d.ies[i].v), true
				}
			}
		}
	}
	p.NSEI, p.HasNSEI = d.u16(IENSEI, opt)
}

// FlushLLAck is FLUSH-LL-ACK (§10.4.2), BSS -> SGSN. FlushAction: 0 LLC
// PDU(s) deleted, 1 transferred (§11.3.13).
type FlushLLAck struct {
	TLLI        uint32
	FlushAction uint8
	BVCINew     uint16
	HasBVCINew  bool
	NumOctets   uint32 // Number of octets affected (24 bit)
	NSEI        uint16
	HasNSEI     bool
}

func (p *FlushLLAck) Type() PDUType { return PDUFlushLLAck }
func (p *FlushLLAck) encode(e *enc) {
	e.tlvU32(IETLLI, p.TLLI)
	e.tlvU8(IEFlushAction, p.FlushAction)
	if p.HasBVCINew {
		e.tlvU16(IEBVCI, p.BVCINew)
	}
	e.tlvU24(IENumOctetsAffected, p.NumOctets)
	if p.HasNSEI {
		e.tlvU16(IENSEI, p.NSEI)
	}
}
func (p *FlushLLAck) decode(d *dec) {
	p.TLLI, _ = d.u32(IETLLI, mand)
	p.FlushAction, _ = d.u8(IEFlushAction, mand)
	p.BVCINew, p.HasBVCINew = d.u16(IEBVCI, opt)
	p.NumOctets, _ = d.u24(IENumOctetsAffected, mand)
	p.NSEI, p.HasNSEI = d.u16(IENSEI, opt)
}

// LLCDiscarded is LLC-DISCARDED (§10.4.3), BSS -> SGSN, signalling BVC.
type LLCDiscarded struct {
	TLLI      uint32
	Frames    uint8 // LLC Frames Discarded
	BVCI      uint16
	NumOctets uint32 // 24 bit
}

func (p *LLCDiscarded) Type() PDUType { return PDULLCDiscarded }
func (p *LLCDiscarded) encode(e *enc) {
	e.tlvU32(IETLLI, p.TLLI)
	e.tlvU8(IELLCFramesDiscarded, p.Frames)
	e.tlvU16(IEBVCI, p.BVCI)
	e.tlvU24(IENumOctetsAffected, p.NumOctets)
}
func (p *LLCDiscarded) decode(d *dec) {
	p.TLLI, _ = d.u32(IETLLI, mand)
	p.Frames, _ = d.u8(IELLCFramesDiscarded, mand)
	p.BVCI, _ = d.u16(IEBVCI, mand)
	p.NumOctets, _ = d.u24(IENumOctetsAffected, mand)
}

// Status is STATUS (§10.4.14): Cause, BVCI (conditional: cause BVCI
// blocked/unknown), PDU In Error (conditional: protocol errors).
type Status struct {
	Cause      Cause
	BVCI       uint16
	HasBVCI    bool
	PDUInError []byte
}

func (p *Status) Type() PDUType { return PDUStatus }
func (p *Status) encode(e *enc) {
	e.tlvU8(IECause, uint8(p.Cause))
	if p.HasBVCI {
		e.tlvU16(IEBVCI, p.BVCI)
	}
	if p.PDUInError != nil {
		e.tlv(IEPDUInError, p.PDUInError)
	}
}
func (p *Status) decode(d *dec) {
	c, _ := d.u8(IECause, mand)
	p.Cause = Cause(c)
	p.BVCI, p.HasBVCI = d.u16(IEBVCI, opt)
	p.PDUInError = d.bytes(IEPDUInError, opt)
}
