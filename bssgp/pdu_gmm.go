package bssgp

// PDUs of the GMM SAP (TS 48.018 §10.3): paging, radio access
// capability updates, radio status, suspend and resume.

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
