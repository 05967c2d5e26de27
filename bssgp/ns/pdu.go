package ns

import (
	"encoding/binary"
	"net/netip"

	"github.com/gopcu/gopcu/bssgp/internal/tlv"
)

// IPElement is one entry of the List of IP4 Elements (TS 48.016 §10.3.2c,
// 8 octets: address, UDP port, signalling weight, data weight) or of the List
// of IP6 Elements (§10.3.2d, 20 octets).
type IPElement struct {
	Addr       netip.Addr
	Port       uint16
	SigWeight  uint8
	DataWeight uint8
}

// AddrPort returns the element's UDP endpoint.
func (e IPElement) AddrPort() netip.AddrPort { return netip.AddrPortFrom(e.Addr, e.Port) }

const (
	ip4ElemLen = 8
	ip6ElemLen = 20
	// IP Address IE (TS 48.016 §10.3.2b) address types.
	ipAddrTypeV4 = 0x01
	ipAddrTypeV6 = 0x02
)

// PDU is any NS or SNS PDU. Which fields are meaningful depends on Type; the
// Has* flags tell optional/conditional IEs apart from zero values. Decoding
// aliases SDU and ErrPDU into the input buffer.
//
//	  8   7   6   5   4   3   2   1
//	+-------------------------------+
//	|          PDU type             |  octet 1
//	+-------------------------------+
//	|  IEs (TLV, TV) / UNITDATA hdr |  octets 2..n
//	+-------------------------------+
type PDU struct {
	Type PDUType

	// NS-UNITDATA (TS 48.016 §9.2.10): NS SDU control bits, BVCI and the SDU.
	// BVCI is also NS-STATUS's conditional BVCI IE (HasBVCI).
	SDUControl uint8
	BVCI       uint16
	SDU        []byte

	Cause    Cause
	HasCause bool
	NSVCI    uint16
	HasNSVCI bool
	NSEI     uint16
	HasNSEI  bool
	HasBVCI  bool
	// ErrPDU is NS-STATUS's "NS PDU" IE (§10.3.4): the PDU in error.
	ErrPDU    []byte
	HasErrPDU bool

	// IP-SNS (TS 48.016 §9.3).
	TransactionID uint8
	EndFlag       bool // SNS-CONFIG
	ResetFlag     bool // SNS-SIZE
	MaxNSVCs      uint16
	NumIP4EP      uint16
	HasNumIP4EP   bool
	NumIP6EP      uint16
	HasNumIP6EP   bool
	IPAddr        netip.Addr // IP Address IE (SNS-ACK, SNS-DELETE); valid when set
	IP4           []IPElement
	HasIP4        bool
	IP6           []IPElement
	HasIP6        bool
}

// HeaderLen is the NS-UNITDATA header length (PDU type, NS SDU control
// bits, BVCI; TS 48.016 §9.2.10): the headroom nse.NSE.SendUnitdataInPlace
// expects in front of the SDU.
const HeaderLen = 4

// Convenience constructors for the fixed-form PDUs.

// NewUnitdata returns an NS-UNITDATA carrying sdu on bvci.
func NewUnitdata(bvci uint16, sdu []byte) PDU { return PDU{Type: PDUUnitdata, BVCI: bvci, SDU: sdu} }

// NewReset returns an NS-RESET (TS 48.016 §9.2.6).
func NewReset(cause Cause, nsvci, nsei uint16) PDU {
	return PDU{Type: PDUReset, Cause: cause, HasCause: true, NSVCI: nsvci, HasNSVCI: true, NSEI: nsei, HasNSEI: true}
}

// NewResetAck returns an NS-RESET-ACK (§9.2.7).
func NewResetAck(nsvci, nsei uint16) PDU {
	return PDU{Type: PDUResetAck, NSVCI: nsvci, HasNSVCI: true, NSEI: nsei, HasNSEI: true}
}

// NewBlock returns an NS-BLOCK (§9.2.2).
func NewBlock(cause Cause, nsvci uint16) PDU {
	return PDU{Type: PDUBlock, Cause: cause, HasCause: true, NSVCI: nsvci, HasNSVCI: true}
}

// NewBlockAck returns an NS-BLOCK-ACK (§9.2.3).
func NewBlockAck(nsvci uint16) PDU { return PDU{Type: PDUBlockAck, NSVCI: nsvci, HasNSVCI: true} }

// NewSimple returns a PDU without IEs (UNBLOCK, UNBLOCK-ACK, ALIVE, ALIVE-ACK).
func NewSimple(t PDUType) PDU { return PDU{Type: t} }

// NewStatus returns an NS-STATUS (§9.2.9) with the PDU in error (may be nil).
func NewStatus(cause Cause, errPDU []byte) PDU {
	p := PDU{Type: PDUStatus, Cause: cause, HasCause: true}
	if errPDU != nil {
		p.ErrPDU, p.HasErrPDU = errPDU, true
	}
	return p
}

// MarshalLen returns the encoded length of p.
func (p *PDU) MarshalLen() int {
	if p.Type == PDUUnitdata {
		return HeaderLen + len(p.SDU)
	}
	n := 1
	for _, u := range pduSpecs[p.Type].ies {
		if s, ok := p.encodes(u); ok {
			l := s.size(p)
			n += tlv.HdrLen(s.form, l) + l
		} else if u.val != nil {
			n++
		}
	}
	return n
}

// encodes reports whether p carries the IE of row u (an M row always, an
// O or C row when the IE's field is set) and its spec.
func (p *PDU) encodes(u ieUse) (*ieSpec, bool) {
	if u.val != nil {
		return nil, false
	}
	s := &ieSpecs[u.iei]
	return s, u.pres == tlv.M || s.has == nil || s.has(p)
}

// MarshalTo encodes p into b and returns the number of bytes written. It does
// not allocate.
func (p *PDU) MarshalTo(b []byte) (int, error) {
	if len(b) < p.MarshalLen() {
		return 0, ErrShortBuffer
	}
	b[0] = byte(p.Type)
	if p.Type == PDUUnitdata {
		b[1] = p.SDUControl
		binary.BigEndian.PutUint16(b[2:], p.BVCI)
		return HeaderLen + copy(b[HeaderLen:], p.SDU), nil
	}
	n := 1
	for _, u := range pduSpecs[p.Type].ies {
		if s, ok := p.encodes(u); ok {
			l := s.size(p)
			n += tlv.PutHdr(b[n:], byte(u.iei), s.form, l)
			s.put(p, b[n:n+l])
			n += l
		} else if u.val != nil {
			b[n] = u.val.put(p)
			n++
		}
	}
	return n, nil
}

// Marshal encodes p into a new slice.
func (p *PDU) Marshal() ([]byte, error) {
	b := make([]byte, p.MarshalLen())
	n, err := p.MarshalTo(b)
	return b[:n], err
}

// Parse decodes one NS PDU.
func Parse(b []byte) (*PDU, error) {
	p := new(PDU)
	if err := p.Unmarshal(b); err != nil {
		return nil, err
	}
	return p, nil
}

func (p *PDU) fail(c Cause, off int, reason string) error {
	return &Error{Cause: c, Type: p.Type, Offset: off, Reason: reason}
}

func (p *PDU) failIE(c Cause, iei IEI, off int, reason string) error {
	return &Error{Cause: c, Type: p.Type, IE: iei, HasIE: true, Offset: off, Reason: reason}
}

// Unmarshal decodes b into p, which is reset first (the capacity of p.IP4 and
// p.IP6 is reused). SDU and ErrPDU alias b. Errors are *Error carrying the NS
// cause (TS 48.016 §7.5) for the NS-STATUS to send back.
func (p *PDU) Unmarshal(b []byte) error {
	ip4, ip6 := p.IP4[:0], p.IP6[:0]
	*p = PDU{IP4: ip4, IP6: ip6}
	if len(b) < 1 {
		return p.fail(CauseProtocolErrorUnspec, 0, "empty PDU")
	}
	p.Type = PDUType(b[0])
	if _, ok := pduNames[p.Type]; !ok {
		return p.fail(CauseProtocolErrorUnspec, 0, "unknown PDU type")
	}
	if p.Type == PDUUnitdata {
		if len(b) < 4 {
			return p.fail(CauseProtocolErrorUnspec, len(b), "NS-UNITDATA header truncated")
		}
		p.SDUControl = b[1]
		p.BVCI = binary.BigEndian.Uint16(b[2:])
		p.SDU = b[4:]
		return nil
	}
	off := 1
	switch p.Type {
	case PDUUnblock, PDUUnblockAck, PDUAlive, PDUAliveAck:
		if len(b) != 1 {
			return p.fail(CauseProtocolErrorUnspec, 1, "unexpected payload")
		}
		return nil
	case PDUSNSConfig:
		if len(b) < 2 {
			return p.failIE(CauseMissingEssentialIE, 0, 1, "End Flag missing")
		}
		p.EndFlag = b[1]&1 != 0
		off = 2
	case PDUSNSAck, PDUSNSAdd, PDUSNSChangeWeight, PDUSNSDelete:
		// NSEI (TLV) then the value-only Transaction ID (§10.3.x).
		if len(b) < 3 {
			return p.failIE(CauseMissingEssentialIE, IENSEI, len(b), "NSEI missing")
		}
		if IEI(b[1]) != IENSEI {
			return p.failIE(CauseInvalidEssentialIE, IENSEI, 1, "NSEI expected first")
		}
		l, val, why := tlv.ReadLen(b, 2)
		if why != "" {
			return p.failIE(CauseInvalidEssentialIE, IENSEI, 1, why)
		}
		end := val + l
		if end > len(b) {
			return p.failIE(CauseInvalidEssentialIE, IENSEI, 1, "value truncated")
		}
		if err := p.parseIEs(b[:end], 1); err != nil {
			return err
		}
		if end >= len(b) {
			return p.fail(CauseMissingEssentialIE, len(b), "Transaction ID missing")
		}
		p.TransactionID = b[end]
		off = end + 1
	}
	if err := p.parseIEs(b, off); err != nil {
		return err
	}
	return p.validate(len(b))
}

// parseIEs decodes the IEs of b[off:] in wire order into p, each as
// ieSpecs codes it; an unknown IEI is taken for TLV and skipped (TS
// 48.016 §7.5 does not refuse it).
func (p *PDU) parseIEs(b []byte, off int) error {
	for off < len(b) {
		iei := IEI(b[off])
		var v []byte
		var err error
		if int(iei) < len(ieSpecs) && ieSpecs[iei].form == tlv.TV {
			v, off, err = p.tvValue(b, off)
		} else {
			v, off, err = p.tlvValue(b, off)
		}
		if err != nil {
			return err
		}
		if int(iei) < len(ieSpecs) {
			ieSpecs[iei].get(p, v)
		}
	}
	return nil
}

// tvValue is the value of the TV IE at b[off] (its fixed length, or for
// the IP Address IE the length its address type gives) and the offset
// after it.
func (p *PDU) tvValue(b []byte, off int) ([]byte, int, error) {
	iei := IEI(b[off])
	s := &ieSpecs[iei]
	n := s.fixLen
	if iei == IEIPAddress {
		if off+2 > len(b) {
			return nil, 0, p.failIE(CauseInvalidEssentialIE, iei, off, "truncated")
		}
		if n = ipAddrValueLen(b[off+1]); n == 0 {
			return nil, 0, p.failIE(CauseUnknownIPAddress, iei, off, "bad address type")
		}
	}
	if off+1+n > len(b) {
		return nil, 0, p.failIE(CauseInvalidEssentialIE, iei, off, "truncated")
	}
	return b[off+1 : off+1+n], off + 1 + n, nil
}

// tlvValue is the value of the TLV IE at b[off], its length checked
// against the IE's spec, and the offset after it.
func (p *PDU) tlvValue(b []byte, off int) ([]byte, int, error) {
	iei := IEI(b[off])
	l, val, why := tlv.ReadLen(b, off+1)
	if why != "" {
		return nil, 0, p.failIE(CauseInvalidEssentialIE, iei, off, why)
	}
	if val+l > len(b) {
		return nil, 0, p.failIE(CauseInvalidEssentialIE, iei, off, "value truncated")
	}
	if int(iei) < len(ieSpecs) {
		if s := &ieSpecs[iei]; (s.fixLen > 0 && l != s.fixLen) || (s.mult > 0 && l%s.mult != 0) {
			return nil, 0, p.failIE(CauseInvalidEssentialIE, iei, off, s.badLen)
		}
	}
	return b[val : val+l], val + l, nil
}

// validate checks the mandatory IEs of p's type and its conditions
// (TS 48.016 §9.2, §9.3).
func (p *PDU) validate(n int) error {
	miss := func(iei IEI, what string) error {
		return p.failIE(CauseMissingEssentialIE, iei, n, what+" missing")
	}
	spec := pduSpecs[p.Type]
	for _, u := range spec.ies {
		if u.val == nil && u.pres == tlv.M && !ieSpecs[u.iei].has(p) {
			return miss(u.iei, ieSpecs[u.iei].name)
		}
	}
	if spec.check != nil {
		return spec.check(p, miss)
	}
	return nil
}
