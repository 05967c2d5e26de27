package bssgp

import "github.com/gopcu/gopcu/bssgp/internal/tlv"

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

// ies walks the paging area: conditional IEs of which exactly one is
// encoded, the first of BVCI, Location Area, Routeing Area, BSS Area
// Indication that is set; decoding takes each that is there and wants one.
func (a *PagingArea) ies(c *codec) {
	if !c.decoding() {
		x := *a
		switch {
		case x.HasBVCI:
			x.LA, x.RA, x.BSSArea = nil, nil, nil
		case x.LA != nil:
			x.RA, x.BSSArea = nil, nil
		case x.RA != nil:
			x.BSSArea = nil
		}
		a = &x
	}
	c.u16(IEBVCI, C, &a.BVCI, &a.HasBVCI)
	c.bytes(IELocationArea, C, tlv.TLV, 5, 5, &a.LA)
	c.bytes(IERoutingArea, C, tlv.TLV, 6, 6, &a.RA)
	c.bytes(IEBSSAreaIndication, C, tlv.TLV, 1, 1, &a.BSSArea)
	if c.decoding() && c.d.err == nil && !a.HasBVCI && a.LA == nil && a.RA == nil && a.BSSArea == nil {
		c.d.fail(CauseMissingConditionalIE, IEBVCI, len(c.d.b), "no paging area")
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
func (p *PagingPS) ies(c *codec) {
	c.imsi(M, &p.IMSI)
	c.u16(IEDRXParameters, O, &p.DRX, &p.HasDRX)
	p.Area.ies(c)
	c.u8(IEPFI, O, &p.PFI, &p.HasPFI)
	c.bytes(IEABQP, O, tlv.TLV, 0, -1, &p.ABQP)
	c.fixed(IEQoSProfile, p.QoS[:])
	c.u32(IETMSI, O, &p.PTMSI, &p.HasTMSI)
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
func (p *PagingCS) ies(c *codec) {
	c.imsi(M, &p.IMSI)
	c.u16(IEDRXParameters, M, &p.DRX, nil)
	p.Area.ies(c)
	c.u32(IETLLI, O, &p.TLLI, &p.HasTLLI)
	c.u8(IEChannelNeeded, O, &p.ChannelNeeded, &p.HasChanNeeded)
	c.bytes(IEeMLPPPriority, O, tlv.TLV, 1, 1, &p.EMLPP)
	c.u32(IETMSI, O, &p.TMSI, &p.HasTMSI)
	c.bytes(IEGlobalCNID, O, tlv.TLV, 5, 5, &p.GlobalCNID)
}

// RACapabilityUpdate is RA-CAPABILITY-UPDATE (TS 48.018 §10.3.3), BSS -> SGSN.
type RACapabilityUpdate struct {
	TLLI uint32
	Tag  uint8
}

func (p *RACapabilityUpdate) Type() PDUType { return PDURACapabilityUpdate }
func (p *RACapabilityUpdate) ies(c *codec) {
	c.u32(IETLLI, M, &p.TLLI, nil)
	c.u8(IETag, M, &p.Tag, nil)
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
func (p *RACapabilityUpdateAck) ies(c *codec) {
	c.u32(IETLLI, M, &p.TLLI, nil)
	c.u8(IETag, M, &p.Tag, nil)
	c.imsi(O, &p.IMSI)
	c.u8(IERACapUpdCause, M, &p.Cause, nil)
	c.bytes(IEMSRadioAccessCap, O, tlv.TLV, 0, -1, &p.MSRAC)
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
func (p *RadioStatus) ies(c *codec) {
	c.u32(IETLLI, C, &p.TLLI, &p.HasTLLI)
	c.u32(IETMSI, C, &p.TMSI, &p.HasTMSI)
	c.imsi(C, &p.IMSI)
	c.u8(IERadioCause, M, &p.RadioCause, nil)
	if c.decoding() && c.d.err == nil && !p.HasTLLI && !p.HasTMSI && p.IMSI == nil {
		c.d.fail(CauseMissingConditionalIE, IETLLI, len(c.d.b), "no MS identity")
	}
}

// Suspend is SUSPEND (TS 48.018 §10.3.6), BSS -> SGSN, signalling BVC.
type Suspend struct {
	TLLI uint32
	RAI  RAI
}

func (p *Suspend) Type() PDUType { return PDUSuspend }
func (p *Suspend) ies(c *codec) {
	c.u32(IETLLI, M, &p.TLLI, nil)
	c.rai(IERoutingArea, M, &p.RAI)
}

// SuspendAck is SUSPEND-ACK (§10.3.7).
type SuspendAck struct {
	TLLI uint32
	RAI  RAI
	SRN  uint8 // Suspend Reference Number
}

func (p *SuspendAck) Type() PDUType { return PDUSuspendAck }
func (p *SuspendAck) ies(c *codec) {
	c.u32(IETLLI, M, &p.TLLI, nil)
	c.rai(IERoutingArea, M, &p.RAI)
	c.u8(IESuspendRefNum, M, &p.SRN, nil)
}

// SuspendNack is SUSPEND-NACK (§10.3.8).
type SuspendNack struct {
	TLLI     uint32
	RAI      RAI
	Cause    Cause
	HasCause bool
}

func (p *SuspendNack) Type() PDUType { return PDUSuspendNack }
func (p *SuspendNack) ies(c *codec) {
	c.u32(IETLLI, M, &p.TLLI, nil)
	c.rai(IERoutingArea, M, &p.RAI)
	c.cause(IECause, O, &p.Cause, &p.HasCause)
}

// Resume is RESUME (§10.3.9), BSS -> SGSN: the IEs of SUSPEND-ACK.
type Resume SuspendAck

func (p *Resume) Type() PDUType { return PDUResume }
func (p *Resume) ies(c *codec)  { (*SuspendAck)(p).ies(c) }

// ResumeAck is RESUME-ACK (§10.3.10): the IEs of SUSPEND.
type ResumeAck Suspend

func (p *ResumeAck) Type() PDUType { return PDUResumeAck }
func (p *ResumeAck) ies(c *codec)  { (*Suspend)(p).ies(c) }

// ResumeNack is RESUME-NACK (§10.3.11): the IEs of SUSPEND-NACK.
type ResumeNack SuspendNack

func (p *ResumeNack) Type() PDUType { return PDUResumeNack }
func (p *ResumeNack) ies(c *codec)  { (*SuspendNack)(p).ies(c) }
