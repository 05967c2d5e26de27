package bssgp

import (
	"encoding/binary"
	"fmt"

	"github.com/gopcu/gopcu/bssgp/internal/tlv"
)

// RIM (RAN Information Management, TS 48.018 §8c, §10.6) IEIs.
const (
	IERIMAppIdentity      IEI = 0x4b // §11.3.61
	IERIMSeqNum           IEI = 0x4c // §11.3.62
	IERANInfoReqAppCont   IEI = 0x4d // §11.3.63.1
	IERANInfoAppCont      IEI = 0x4e // §11.3.63.2
	IERIMPDUIndications   IEI = 0x4f // §11.3.65
	IERIMRoutingInfo      IEI = 0x54 // §11.3.70
	IERIMProtocolVersion  IEI = 0x55 // §11.3.67
	IEAppErrorContainer   IEI = 0x56 // §11.3.64
	IERANInfoReqRIMCont   IEI = 0x57 // §11.3.62a.1
	IERANInfoRIMCont      IEI = 0x58 // §11.3.62a.2
	IERANInfoAppErrRIM    IEI = 0x59 // §11.3.62a.5
	IERANInfoAckRIMCont   IEI = 0x5a // §11.3.62a.3
	IERANInfoErrorRIMCont IEI = 0x5b // §11.3.62a.4
	IESONTransferAppID    IEI = 0x84 // §11.3.108
)

// RIM Routing Address discriminators (TS 48.018 §11.3.70).
const (
	RIMRoutingGERAN  uint8 = 0 // Cell Identifier (RAI + CI)
	RIMRoutingUTRAN  uint8 = 1 // RAI + RNC-ID
	RIMRoutingEUTRAN uint8 = 2 // TAI + global eNB ID
)

// RIM Application Identities (TS 48.018 §11.3.61, Table 11.3.61.b).
const (
	RIMAppNACC   uint8 = 1
	RIMAppSI3    uint8 = 2
	RIMAppMBMS   uint8 = 3
	RIMAppSON    uint8 = 4
	RIMAppUTRASI uint8 = 5
)

// RIM PDU Type Extension values of the RIM PDU Indications IE
// (TS 48.018 §11.3.65): RAN-INFORMATION-REQUEST and RAN-INFORMATION.
const (
	RIMReqStop     uint8 = 0
	RIMReqSingle   uint8 = 1
	RIMReqMultiple uint8 = 2

	RIMInfoStop      uint8 = 0
	RIMInfoSingle    uint8 = 1
	RIMInfoInitMulti uint8 = 2
	RIMInfoMulti     uint8 = 3
	RIMInfoEnd       uint8 = 4
)

// NACC causes of the Application Error Container (TS 48.018 §11.3.64.1,
// Table 11.3.64.1.b).
const (
	NACCCauseUnspecified    uint8 = 0
	NACCCauseSyntaxError    uint8 = 1
	NACCCauseReportingCell  uint8 = 2 // reporting cell identifier mismatch
	NACCCauseSIPSIType      uint8 = 3
	NACCCauseSIPSILength    uint8 = 4
	NACCCauseInconsistentSI uint8 = 5
)

// Lengths of one SI / PSI message in the NACC RAN-INFORMATION Application
// Container (TS 48.018 §11.3.63.2.1: the SI without its L2 pseudo length and
// protocol discriminator octets, the PSI without its header).
const (
	RIMSILen  = 21
	RIMPSILen = 22
)

// RIMRoutingInfo is the RIM Routing Information IE (TS 48.018 §11.3.70).
// GERAN: Cell is the RAI + CI of the cell. UTRAN: Cell.RAI + RNC-ID in
// Cell.CI. E-UTRAN: Addr holds TAI (5 octets) + global eNB ID.
type RIMRoutingInfo struct {
	Discr uint8
	Cell  CellID
	Addr  []byte
}

func (r *RIMRoutingInfo) len() int {
	if r.Discr == RIMRoutingEUTRAN {
		return 1 + len(r.Addr)
	}
	return 9
}

func (r *RIMRoutingInfo) put(b []byte) {
	b[0] = r.Discr & 0x0f
	if r.Discr == RIMRoutingEUTRAN {
		copy(b[1:], r.Addr)
		return
	}
	r.Cell.RAI.put(b[1:])
	binary.BigEndian.PutUint16(b[7:], r.Cell.CI)
}

// ParseRIMRoutingInfo decodes the value part of a RIM Routing Information
// IE. GERAN and UTRAN need 9 octets, E-UTRAN 7..14 (libosmogb's checks).
func ParseRIMRoutingInfo(v []byte) (RIMRoutingInfo, error) {
	if len(v) < 2 {
		return RIMRoutingInfo{}, fmt.Errorf("bssgp: RIM routing info: %d octets", len(v))
	}
	r := RIMRoutingInfo{Discr: v[0] & 0x0f}
	switch r.Discr {
	case RIMRoutingGERAN, RIMRoutingUTRAN:
		if len(v) < 9 {
			return r, fmt.Errorf("bssgp: RIM routing info: %d octets for GERAN/UTRAN", len(v))
		}
		r.Cell = CellID{RAI: parseRAI(v[1:7]), CI: binary.BigEndian.Uint16(v[7:9])}
	case RIMRoutingEUTRAN:
		if len(v) < 7 || len(v) > 14 {
			return r, fmt.Errorf("bssgp: RIM routing info: %d octets for E-UTRAN", len(v))
		}
		r.Addr = v[1:]
	default:
		return r, fmt.Errorf("bssgp: RIM routing address discriminator %d", r.Discr)
	}
	return r, nil
}

// String names the routing address as libosmogb does (GERAN-cell-MCC-MNC-LAC-RAC-CI).
func (r RIMRoutingInfo) String() string {
	switch r.Discr {
	case RIMRoutingGERAN:
		return "GERAN-cell-" + r.Cell.String()
	case RIMRoutingUTRAN:
		return "UTRAN-RNC-" + r.Cell.String()
	case RIMRoutingEUTRAN:
		return fmt.Sprintf("E-UTRAN-eNodeB/HeNB-%x", r.Addr)
	}
	return "invalid"
}

// String renders a CGI-PS as osmo_cgi_ps_name does: MCC-MNC-LAC-RAC-CI.
func (c CellID) String() string { return fmt.Sprintf("%s-%d", c.RAI, c.CI) }

// Equal compares two CGI-PS as osmo_cgi_ps_cmp does (an MNC above 99 is
// always three digits).
func (c CellID) Equal(o CellID) bool {
	n := func(r RAI) RAI {
		r.MNC3Digits = r.MNC3Digits || r.MNC > 99
		return r
	}
	return n(c.RAI) == n(o.RAI) && c.CI == o.CI
}

// RIM is one of the five RIM PDUs (TS 48.018 §10.6.1-§10.6.5), all sent on
// the signalling BVC:
//
//	PDU type | Destination Cell Identifier (RIM Routing Information) |
//	Source Cell Identifier (RIM Routing Information) | RIM Container
//
// PDUType selects the PDU and ContainerIEI its RIM container (0x57..0x5b,
// see RIMContainerIEI). Container is the raw value of that IE; decode it with
// ParseRIMContainer.
type RIM struct {
	PDUType   PDUType
	Dest, Src RIMRoutingInfo
	Container []byte
}

// RIMContainerIEI is the RIM container IE each RIM PDU type carries.
func RIMContainerIEI(t PDUType) IEI {
	switch t {
	case PDURANInformation:
		return IERANInfoRIMCont
	case PDURANInformationReq:
		return IERANInfoReqRIMCont
	case PDURANInformationAck:
		return IERANInfoAckRIMCont
	case PDURANInformationError:
		return IERANInfoErrorRIMCont
	case PDURANInfoAppError:
		return IERANInfoAppErrRIM
	}
	return 0
}

func (p *RIM) Type() PDUType { return p.PDUType }

// ies walks the RIM PDU: both RIM Routing Information IEs (destination
// first) and the PDU's RIM container, all mandatory. Decoding follows
// libosmogb's bssgp_parse_rim_pdu: any of them missing or undecodable is
// "Missing mandatory IE" (the cause libosmogb answers with).
func (p *RIM) ies(c *codec) {
	if c.decoding() {
		p.decode(c.d)
		return
	}
	for _, r := range []*RIMRoutingInfo{&p.Dest, &p.Src} {
		n := r.len()
		c.e.Hdr(byte(IERIMRoutingInfo), tlv.TLV, n)
		if c.e.B != nil {
			r.put(c.e.B[c.e.N : c.e.N+n])
		}
		c.e.N += n
	}
	c.bytes(RIMContainerIEI(p.PDUType), M, tlv.TLV, 0, -1, &p.Container)
}

func (p *RIM) decode(d *dec) {
	p.PDUType = d.t
	var ri [2]ieRef
	n := 0
	for i := 0; i < d.n && n < 2; i++ {
		if d.ies[i].iei == IERIMRoutingInfo {
			ri[n] = d.ies[i]
			n++
		}
	}
	if n < 2 {
		d.fail(CauseMissingMandatoryIE, IERIMRoutingInfo, len(d.b), "RIM routing information missing")
		return
	}
	var err error
	if p.Dest, err = ParseRIMRoutingInfo(ri[0].v); err != nil {
		d.fail(CauseMissingMandatoryIE, IERIMRoutingInfo, ri[0].off, "bad destination cell identifier")
		return
	}
	if p.Src, err = ParseRIMRoutingInfo(ri[1].v); err != nil {
		d.fail(CauseMissingMandatoryIE, IERIMRoutingInfo, ri[1].off, "bad source cell identifier")
		return
	}
	iei := RIMContainerIEI(d.t)
	c, ok := d.find(iei)
	if !ok || len(c.v) == 0 {
		d.fail(CauseMissingMandatoryIE, iei, len(d.b), "RIM container missing")
		return
	}
	p.Container = c.v
}

// Mirror returns the routing of an answer: source and destination swapped
// (TS 48.018 §8c.1.4.3).
func (p *RIM) Mirror(t PDUType, container []byte) *RIM {
	return &RIM{PDUType: t, Dest: p.Src, Src: p.Dest, Container: container}
}

// RIMContainer is the content of any RIM container (TS 48.018 §11.3.62a):
// the IEs each kind carries (Has* tell which were present).
//
//	RAN-INFORMATION-REQUEST RIM Container: App Identity, Sequence Number,
//	  PDU Indications, [Protocol Version], [Req. Application Container],
//	  [SON Transfer Application Identity]
//	RAN-INFORMATION RIM Container: App Identity, Sequence Number, PDU
//	  Indications, [Protocol Version], [Application Container |
//	  Application Error Container], [SON ...]
//	RAN-INFORMATION-ACK RIM Container: App Identity, Sequence Number,
//	  [Protocol Version], [SON ...]
//	RAN-INFORMATION-ERROR RIM Container: App Identity, Cause, [Protocol
//	  Version], PDU in Error, [SON ...]
//	RAN-INFORMATION-APPLICATION ERROR RIM Container: App Identity,
//	  Sequence Number, PDU Indications, [Protocol Version], Application
//	  Error Container, [SON ...]
type RIMContainer struct {
	AppID     uint8
	Cause     Cause
	HasCause  bool
	SeqNum    uint32
	HasSeqNum bool
	// PDUInd is the RIM PDU Indications octet: ACK requested in bit 0,
	// the PDU Type Extension in bits 1..3 (TS 48.018 §11.3.65).
	PDUInd      uint8
	HasPDUInd   bool
	ProtVer     uint8 // 1 when absent (libosmogb)
	HasProtVer  bool
	AppCont     []byte // Req. / RAN-INFORMATION Application Container value
	AppError    []byte // Application Error Container value
	PDUInError  []byte
	SONTransfer []byte
}

// PDUTypeExt returns the PDU Type Extension of the PDU Indications.
func (c *RIMContainer) PDUTypeExt() uint8 { return c.PDUInd >> 1 & 7 }

// AckRequested reports the ACK bit of the PDU Indications.
func (c *RIMContainer) AckRequested() bool { return c.PDUInd&1 != 0 }

// SetPDUInd sets the PDU Indications octet.
func (c *RIMContainer) SetPDUInd(typeExt uint8, ack bool) {
	c.PDUInd, c.HasPDUInd = typeExt&7<<1, true
	if ack {
		c.PDUInd |= 1
	}
}

// MarshalRIMContainer encodes c as the value of the RIM container IE kind
// (one of the RIM container IEIs), in the IE order of TS 48.018
// §11.3.62a (and libosmogb's).
func MarshalRIMContainer(kind IEI, c *RIMContainer) []byte {
	w := codec{}
	c.encode(&w, kind)
	w.e = tlv.Enc{B: make([]byte, w.e.N)}
	c.encode(&w, kind)
	return w.e.B
}

func (c *RIMContainer) encode(w *codec, kind IEI) {
	w.u8(IERIMAppIdentity, M, &c.AppID, nil)
	w.cause(IECause, C, &c.Cause, &c.HasCause)
	w.u32(IERIMSeqNum, C, &c.SeqNum, &c.HasSeqNum)
	w.u8(IERIMPDUIndications, C, &c.PDUInd, &c.HasPDUInd)
	w.u8(IERIMProtocolVersion, O, &c.ProtVer, &c.HasProtVer)
	app := IERANInfoAppCont
	if kind == IERANInfoReqRIMCont {
		app = IERANInfoReqAppCont
	}
	w.bytes(app, C, tlv.TLV, 0, -1, &c.AppCont)
	w.bytes(IEAppErrorContainer, C, tlv.TLV, 0, -1, &c.AppError)
	w.bytes(IEPDUInError, C, tlv.TLV, 0, -1, &c.PDUInError)
	w.bytes(IESONTransferAppID, O, tlv.TLV, 0, -1, &c.SONTransfer)
}

// ParseRIMContainer decodes the value of a RIM container IE of the given
// kind. The checks are libosmogb's (bssgp_dec_*_rim_cont): the IEs named
// mandatory above must be present with their length.
func ParseRIMContainer(kind IEI, v []byte) (RIMContainer, error) {
	var c RIMContainer
	d := dec{t: PDUType(0), b: v}
	d.parse(0)
	if d.err != nil {
		return c, d.err
	}
	c.AppID, _ = d.u8(IERIMAppIdentity, M)
	switch kind {
	case IERANInfoErrorRIMCont:
		var cause uint8
		cause, c.HasCause = d.u8(IECause, M)
		c.Cause = Cause(cause)
		c.PDUInError = d.bytes(IEPDUInError, M)
	case IERANInfoReqRIMCont, IERANInfoRIMCont, IERANInfoAppErrRIM, IERANInfoAckRIMCont:
		c.SeqNum, c.HasSeqNum = d.u32(IERIMSeqNum, M)
		if kind != IERANInfoAckRIMCont {
			c.PDUInd, c.HasPDUInd = d.u8(IERIMPDUIndications, M)
		}
	default:
		return c, fmt.Errorf("bssgp: IE 0x%02x is no RIM container", uint8(kind))
	}
	c.ProtVer, c.HasProtVer = d.u8(IERIMProtocolVersion, O)
	if !c.HasProtVer {
		c.ProtVer = 1
	}
	switch kind {
	case IERANInfoReqRIMCont:
		c.AppCont = d.bytes(IERANInfoReqAppCont, O)
	case IERANInfoRIMCont:
		c.AppCont = d.bytes(IERANInfoAppCont, O)
		c.AppError = d.bytes(IEAppErrorContainer, O)
	case IERANInfoAppErrRIM:
		c.AppError = d.bytes(IEAppErrorContainer, M)
	}
	c.SONTransfer = d.bytes(IESONTransferAppID, O)
	return c, d.err
}

// NACCInfo is the NACC RAN-INFORMATION Application Container (TS 48.018
// §11.3.63.2.1): the reporting cell and its SI (21 octets each) or PSI
// (22 octets each) messages.
type NACCInfo struct {
	ReportingCell CellID
	PSI           bool
	SI            [][]byte
}

// Marshal encodes the container value.
func (a *NACCInfo) Marshal() []byte {
	l := RIMSILen
	if a.PSI {
		l = RIMPSILen
	}
	b := make([]byte, 9, 9+l*len(a.SI))
	a.ReportingCell.RAI.put(b)
	binary.BigEndian.PutUint16(b[6:], a.ReportingCell.CI)
	b[8] = byte(len(a.SI)) << 1
	if a.PSI {
		b[8] |= 1
	}
	for _, s := range a.SI {
		var m [RIMPSILen]byte
		copy(m[:l], s)
		b = append(b, m[:l]...)
	}
	return b
}

// ParseNACCInfo decodes the container value; SI slices alias v.
func ParseNACCInfo(v []byte) (NACCInfo, error) {
	var a NACCInfo
	if len(v) < 9 {
		return a, fmt.Errorf("bssgp: NACC application container: %d octets", len(v))
	}
	a.ReportingCell = CellID{RAI: parseRAI(v[:6]), CI: binary.BigEndian.Uint16(v[6:8])}
	a.PSI = v[8]&1 != 0
	n := int(v[8] >> 1)
	l := RIMSILen
	if a.PSI {
		l = RIMPSILen
	}
	rest := v[9:]
	if len(rest) < n*l {
		return a, fmt.Errorf("bssgp: NACC application container: %d (P)SI need %d octets, have %d", n, n*l, len(rest))
	}
	for i := 0; i < n; i++ {
		a.SI = append(a.SI, rest[i*l:(i+1)*l:(i+1)*l])
	}
	return a, nil
}

// MarshalNACCRequest encodes the NACC RAN-INFORMATION-REQUEST Application
// Container (TS 48.018 §11.3.63.1.1): the reporting cell identifier.
func MarshalNACCRequest(reporting CellID) []byte {
	b := make([]byte, 8)
	reporting.RAI.put(b)
	binary.BigEndian.PutUint16(b[6:], reporting.CI)
	return b
}

// ParseNACCRequest decodes it.
func ParseNACCRequest(v []byte) (CellID, error) {
	if len(v) < 8 {
		return CellID{}, fmt.Errorf("bssgp: NACC request application container: %d octets", len(v))
	}
	return CellID{RAI: parseRAI(v[:6]), CI: binary.BigEndian.Uint16(v[6:8])}, nil
}
