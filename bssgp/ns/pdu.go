package ns

import (
	"encoding/binary"
	"net/netip"
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

func tlvLen(n int) int {
	if n < 128 {
		return 2 + n
	}
	return 3 + n
}

func putTLV(b []byte, iei IEI, v []byte) int {
	b[0] = byte(iei)
	n := len(v)
	if n < 128 {
		b[1] = 0x80 | byte(n)
		return 2 + copy(b[2:], v)
	}
	b[1] = byte(n >> 8 & 0x7f)
	b[2] = byte(n)
	return 3 + copy(b[3:], v)
}

func putTLV8(b []byte, iei IEI, v uint8) int {
	b[0], b[1], b[2] = byte(iei), 0x81, v
	return 3
}

func putTLV16(b []byte, iei IEI, v uint16) int {
	b[0], b[1] = byte(iei), 0x82
	binary.BigEndian.PutUint16(b[2:], v)
	return 4
}

func ipListLen(l []IPElement, v6 bool) int {
	if v6 {
		return tlvLen(len(l) * ip6ElemLen)
	}
	return tlvLen(len(l) * ip4ElemLen)
}

func putIPList(b []byte, iei IEI, l []IPElement, v6 bool) int {
	el := ip4ElemLen
	if v6 {
		el = ip6ElemLen
	}
	n := len(l) * el
	b[0] = byte(iei)
	off := 2
	if n < 128 {
		b[1] = 0x80 | byte(n)
	} else {
		b[1], b[2] = byte(n>>8&0x7f), byte(n)
		off = 3
	}
	for _, e := range l {
		if v6 {
			a := e.Addr.As16()
			copy(b[off:], a[:])
			off += 16
		} else {
			a := e.Addr.Unmap().As4()
			copy(b[off:], a[:])
			off += 4
		}
		binary.BigEndian.PutUint16(b[off:], e.Port)
		b[off+2], b[off+3] = e.SigWeight, e.DataWeight
		off += 4
	}
	return off
}

func ipAddrIELen(a netip.Addr) int {
	if a.Is4() || a.Is4In6() {
		return 2 + 4
	}
	return 2 + 16
}

func putIPAddrIE(b []byte, a netip.Addr) int {
	b[0] = byte(IEIPAddress)
	if a.Is4() || a.Is4In6() {
		b[1] = ipAddrTypeV4
		x := a.Unmap().As4()
		return 2 + copy(b[2:], x[:])
	}
	b[1] = ipAddrTypeV6
	x := a.As16()
	return 2 + copy(b[2:], x[:])
}

// MarshalLen returns the encoded length of p.
func (p *PDU) MarshalLen() int {
	n := 1
	switch p.Type {
	case PDUUnitdata:
		return 4 + len(p.SDU)
	case PDUReset:
		n += 3 + 4 + 4
	case PDUResetAck:
		n += 4 + 4
	case PDUBlock:
		n += 3 + 4
	case PDUBlockAck:
		n += 4
	case PDUStatus:
		n += 3
		if p.HasNSVCI {
			n += 4
		}
		if p.HasErrPDU {
			n += tlvLen(len(p.ErrPDU))
		}
		if p.HasBVCI {
			n += 4
		}
		n += p.ipListsLen()
	case PDUSNSAck:
		n += 4 + 1
		if p.HasCause {
			n += 3
		}
		if p.IPAddr.IsValid() {
			n += ipAddrIELen(p.IPAddr)
		}
		n += p.ipListsLen()
	case PDUSNSAdd, PDUSNSChangeWeight:
		n += 4 + 1 + p.ipListsLen()
	case PDUSNSDelete:
		n += 4 + 1
		if p.IPAddr.IsValid() {
			n += ipAddrIELen(p.IPAddr)
		}
		n += p.ipListsLen()
	case PDUSNSConfig:
		n += 1 + 4 + p.ipListsLen()
	case PDUSNSConfigAck, PDUSNSSizeAck:
		n += 4
		if p.HasCause {
			n += 3
		}
	case PDUSNSSize:
		n += 4 + 2 + 3
		if p.HasNumIP4EP {
			n += 3
		}
		if p.HasNumIP6EP {
			n += 3
		}
	}
	return n
}

func (p *PDU) ipListsLen() int {
	n := 0
	if p.HasIP4 {
		n += ipListLen(p.IP4, false)
	}
	if p.HasIP6 {
		n += ipListLen(p.IP6, true)
	}
	return n
}

func (p *PDU) putIPLists(b []byte) int {
	n := 0
	if p.HasIP4 {
		n += putIPList(b[n:], IEIP4List, p.IP4, false)
	}
	if p.HasIP6 {
		n += putIPList(b[n:], IEIP6List, p.IP6, true)
	}
	return n
}

// MarshalTo encodes p into b and returns the number of bytes written. It does
// not allocate.
func (p *PDU) MarshalTo(b []byte) (int, error) {
	l := p.MarshalLen()
	if len(b) < l {
		return 0, ErrShortBuffer
	}
	b[0] = byte(p.Type)
	n := 1
	switch p.Type {
	case PDUUnitdata:
		b[1] = p.SDUControl
		binary.BigEndian.PutUint16(b[2:], p.BVCI)
		return 4 + copy(b[4:], p.SDU), nil
	case PDUReset:
		n += putTLV8(b[n:], IECause, uint8(p.Cause))
		n += putTLV16(b[n:], IENSVCI, p.NSVCI)
		n += putTLV16(b[n:], IENSEI, p.NSEI)
	case PDUResetAck:
		n += putTLV16(b[n:], IENSVCI, p.NSVCI)
		n += putTLV16(b[n:], IENSEI, p.NSEI)
	case PDUBlock:
		n += putTLV8(b[n:], IECause, uint8(p.Cause))
		n += putTLV16(b[n:], IENSVCI, p.NSVCI)
	case PDUBlockAck:
		n += putTLV16(b[n:], IENSVCI, p.NSVCI)
	case PDUStatus:
		n += putTLV8(b[n:], IECause, uint8(p.Cause))
		if p.HasNSVCI {
			n += putTLV16(b[n:], IENSVCI, p.NSVCI)
		}
		if p.HasErrPDU {
			n += putTLV(b[n:], IENSPDU, p.ErrPDU)
		}
		if p.HasBVCI {
			n += putTLV16(b[n:], IEBVCI, p.BVCI)
		}
		n += p.putIPLists(b[n:])
	case PDUSNSAck:
		n += putTLV16(b[n:], IENSEI, p.NSEI)
		b[n] = p.TransactionID
		n++
		if p.HasCause {
			n += putTLV8(b[n:], IECause, uint8(p.Cause))
		}
		if p.IPAddr.IsValid() {
			n += putIPAddrIE(b[n:], p.IPAddr)
		}
		n += p.putIPLists(b[n:])
	case PDUSNSAdd, PDUSNSChangeWeight:
		n += putTLV16(b[n:], IENSEI, p.NSEI)
		b[n] = p.TransactionID
		n++
		n += p.putIPLists(b[n:])
	case PDUSNSDelete:
		n += putTLV16(b[n:], IENSEI, p.NSEI)
		b[n] = p.TransactionID
		n++
		if p.IPAddr.IsValid() {
			n += putIPAddrIE(b[n:], p.IPAddr)
		}
		n += p.putIPLists(b[n:])
	case PDUSNSConfig:
		b[n] = 0
		if p.EndFlag {
			b[n] = 1
		}
		n++
		n += putTLV16(b[n:], IENSEI, p.NSEI)
		n += p.putIPLists(b[n:])
	case PDUSNSConfigAck, PDUSNSSizeAck:
		n += putTLV16(b[n:], IENSEI, p.NSEI)
		if p.HasCause {
			n += putTLV8(b[n:], IECause, uint8(p.Cause))
		}
	case PDUSNSSize:
		n += putTLV16(b[n:], IENSEI, p.NSEI)
		b[n] = byte(IEResetFlag)
		b[n+1] = 0
		if p.ResetFlag {
			b[n+1] = 1
		}
		n += 2
		b[n] = byte(IEMaxNSVCs)
		binary.BigEndian.PutUint16(b[n+1:], p.MaxNSVCs)
		n += 3
		if p.HasNumIP4EP {
			b[n] = byte(IENumIP4EP)
			binary.BigEndian.PutUint16(b[n+1:], p.NumIP4EP)
			n += 3
		}
		if p.HasNumIP6EP {
			b[n] = byte(IENumIP6EP)
			binary.BigEndian.PutUint16(b[n+1:], p.NumIP6EP)
			n += 3
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
		end := 3 + int(b[2]&0x7f)
		if b[2]&0x80 == 0 {
			if len(b) < 4 {
				return p.failIE(CauseInvalidEssentialIE, IENSEI, 1, "length truncated")
			}
			end = 4 + (int(b[2]&0x7f)<<8 | int(b[3]))
		}
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

func (p *PDU) parseIEs(b []byte, off int) error {
	for off < len(b) {
		iei := IEI(b[off])
		start := off
		off++
		var v []byte
		switch iei {
		case IEResetFlag: // TV, 1 octet (§10.3.2f)
			if off+1 > len(b) {
				return p.failIE(CauseInvalidEssentialIE, iei, start, "truncated")
			}
			p.ResetFlag = b[off]&1 != 0
			off++
			continue
		case IEMaxNSVCs, IENumIP4EP, IENumIP6EP: // TV, 2 octets
			if off+2 > len(b) {
				return p.failIE(CauseInvalidEssentialIE, iei, start, "truncated")
			}
			x := binary.BigEndian.Uint16(b[off:])
			off += 2
			switch iei {
			case IEMaxNSVCs:
				p.MaxNSVCs = x
			case IENumIP4EP:
				p.NumIP4EP, p.HasNumIP4EP = x, true
			default:
				p.NumIP6EP, p.HasNumIP6EP = x, true
			}
			continue
		case IEIPAddress: // type + address, no length (§10.3.2b)
			if off+1 > len(b) {
				return p.failIE(CauseInvalidEssentialIE, iei, start, "truncated")
			}
			switch b[off] {
			case ipAddrTypeV4:
				if off+5 > len(b) {
					return p.failIE(CauseInvalidEssentialIE, iei, start, "truncated")
				}
				p.IPAddr = netip.AddrFrom4([4]byte(b[off+1 : off+5]))
				off += 5
			case ipAddrTypeV6:
				if off+17 > len(b) {
					return p.failIE(CauseInvalidEssentialIE, iei, start, "truncated")
				}
				p.IPAddr = netip.AddrFrom16([16]byte(b[off+1 : off+17]))
				off += 17
			default:
				return p.failIE(CauseUnknownIPAddress, iei, start, "bad address type")
			}
			continue
		}
		// TLV with the §10.1.2 length indicator.
		if off >= len(b) {
			return p.failIE(CauseInvalidEssentialIE, iei, start, "length missing")
		}
		var l int
		if b[off]&0x80 != 0 {
			l = int(b[off] & 0x7f)
			off++
		} else {
			if off+2 > len(b) {
				return p.failIE(CauseInvalidEssentialIE, iei, start, "length truncated")
			}
			l = int(b[off]&0x7f)<<8 | int(b[off+1])
			off += 2
		}
		if off+l > len(b) {
			return p.failIE(CauseInvalidEssentialIE, iei, start, "value truncated")
		}
		v = b[off : off+l]
		off += l
		switch iei {
		case IECause:
			if l != 1 {
				return p.failIE(CauseInvalidEssentialIE, iei, start, "length != 1")
			}
			p.Cause, p.HasCause = Cause(v[0]), true
		case IENSVCI:
			if l != 2 {
				return p.failIE(CauseInvalidEssentialIE, iei, start, "length != 2")
			}
			p.NSVCI, p.HasNSVCI = binary.BigEndian.Uint16(v), true
		case IENSEI:
			if l != 2 {
				return p.failIE(CauseInvalidEssentialIE, iei, start, "length != 2")
			}
			p.NSEI, p.HasNSEI = binary.BigEndian.Uint16(v), true
		case IEBVCI:
			if l != 2 {
				return p.failIE(CauseInvalidEssentialIE, iei, start, "length != 2")
			}
			p.BVCI, p.HasBVCI = binary.BigEndian.Uint16(v), true
		case IENSPDU:
			p.ErrPDU, p.HasErrPDU = v, true
		case IEIP4List:
			if l%ip4ElemLen != 0 {
				return p.failIE(CauseInvalidEssentialIE, iei, start, "length not a multiple of 8")
			}
			for i := 0; i < l; i += ip4ElemLen {
				p.IP4 = append(p.IP4, IPElement{
					Addr: netip.AddrFrom4([4]byte(v[i : i+4])), Port: binary.BigEndian.Uint16(v[i+4:]),
					SigWeight: v[i+6], DataWeight: v[i+7],
				})
			}
			p.HasIP4 = true
		case IEIP6List:
			if l%ip6ElemLen != 0 {
				return p.failIE(CauseInvalidEssentialIE, iei, start, "length not a multiple of 20")
			}
			for i := 0; i < l; i += ip6ElemLen {
				p.IP6 = append(p.IP6, IPElement{
					Addr: netip.AddrFrom16([16]byte(v[i : i+16])), Port: binary.BigEndian.Uint16(v[i+16:]),
					SigWeight: v[i+18], DataWeight: v[i+19],
				})
			}
			p.HasIP6 = true
		default:
			// Unknown IEs are skipped (TS 48.016 §8.? general rule: ignore).
		}
	}
	return nil
}

// validate checks the presence of the essential IEs of each PDU
// (TS 48.016 §9.2, §9.3 tables; conditions of NS-STATUS per §9.2.9).
func (p *PDU) validate(n int) error {
	miss := func(iei IEI, what string) error {
		return p.failIE(CauseMissingEssentialIE, iei, n, what+" missing")
	}
	switch p.Type {
	case PDUReset:
		if !p.HasCause {
			return miss(IECause, "Cause")
		}
		if !p.HasNSVCI {
			return miss(IENSVCI, "NS-VCI")
		}
		if !p.HasNSEI {
			return miss(IENSEI, "NSEI")
		}
	case PDUResetAck:
		if !p.HasNSVCI {
			return miss(IENSVCI, "NS-VCI")
		}
		if !p.HasNSEI {
			return miss(IENSEI, "NSEI")
		}
	case PDUBlock:
		if !p.HasCause {
			return miss(IECause, "Cause")
		}
		if !p.HasNSVCI {
			return miss(IENSVCI, "NS-VCI")
		}
	case PDUBlockAck:
		if !p.HasNSVCI {
			return miss(IENSVCI, "NS-VCI")
		}
	case PDUUnblock, PDUUnblockAck, PDUAlive, PDUAliveAck:
		if n != 1 {
			return p.fail(CauseProtocolErrorUnspec, 1, "unexpected payload")
		}
	case PDUStatus:
		if !p.HasCause {
			return miss(IECause, "Cause")
		}
		switch p.Cause {
		case CauseNSVCBlocked, CauseNSVCUnknown:
			if !p.HasNSVCI {
				return miss(IENSVCI, "NS-VCI")
			}
		case CauseSemanticallyIncorrect, CausePDUNotCompatible, CauseProtocolErrorUnspec,
			CauseInvalidEssentialIE, CauseMissingEssentialIE:
			if !p.HasErrPDU {
				return miss(IENSPDU, "NS PDU")
			}
		case CauseBVCIUnknown:
			if !p.HasBVCI {
				return miss(IEBVCI, "BVCI")
			}
		case CauseIPTestFailed:
			if !p.HasIP4 && !p.HasIP6 {
				return miss(IEIP4List, "IP list")
			}
		}
	case PDUSNSAck, PDUSNSConfigAck, PDUSNSSizeAck:
		if !p.HasNSEI {
			return miss(IENSEI, "NSEI")
		}
	case PDUSNSAdd, PDUSNSChangeWeight:
		if !p.HasIP4 && !p.HasIP6 {
			return miss(IEIP4List, "IP list")
		}
	case PDUSNSDelete:
		if !p.HasIP4 && !p.HasIP6 && !p.IPAddr.IsValid() {
			return miss(IEIPAddress, "IP Address or IP list")
		}
	case PDUSNSConfig:
		if !p.HasNSEI {
			return miss(IENSEI, "NSEI")
		}
	case PDUSNSSize:
		if !p.HasNSEI {
			return miss(IENSEI, "NSEI")
		}
		if !p.HasNumIP4EP && !p.HasNumIP6EP {
			return miss(IENumIP4EP, "Number of IP endpoints")
		}
	}
	return nil
}
