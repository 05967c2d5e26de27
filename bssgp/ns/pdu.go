package ns

import "github.com/gopcu/gopcu/bssgp/internal/tlv"

// PDU is any NS or SNS PDU. The concrete types are pointers to the structs
// of this file (the NS PDUs, TS 48.016 §9.2) and of pdu_sns.go (the IP-SNS
// PDUs, §9.3), one per PDU type. A mandatory IE is a plain field; an
// optional or conditional one has a Has flag beside it (the IP Address
// IE: a valid netip.Addr). Decoding aliases byte-slice fields into the
// input buffer.
//
//	  8   7   6   5   4   3   2   1
//	+-------------------------------+
//	|          PDU type             |  octet 1
//	+-------------------------------+
//	|  IEs (TLV, TV) / UNITDATA hdr |  octets 2..n
//	+-------------------------------+
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
	c := codec{e: tlv.Enc{N: 1}} // one codec counts, then writes
	p.ies(&c)
	if len(b) < c.e.N {
		return 0, ErrShortBuffer
	}
	b[0] = byte(p.Type())
	c.e = tlv.Enc{B: b, N: 1}
	p.ies(&c)
	return c.e.N, nil
}

// Marshal encodes p into a new slice.
func Marshal(p PDU) ([]byte, error) {
	b := make([]byte, MarshalLen(p))
	n, err := MarshalTo(p, b)
	return b[:n], err
}

// Unmarshal decodes b into p, a pointer to the struct of b's PDU type.
// Every field is set (the capacity of IP element lists is reused); byte
// slices alias b. Errors are *Error carrying the NS cause (TS 48.016 §7.5)
// for the NS-STATUS to send back.
func Unmarshal(b []byte, p PDU) error {
	d := dec{t: p.Type(), b: b}
	if err := d.prep(); err != nil {
		return err
	}
	p.ies(&codec{d: &d})
	return d.err
}

// NewPDU returns an empty PDU struct for type t, nil for a type TS 48.016
// does not define.
func NewPDU(t PDUType) PDU {
	switch t {
	case PDUUnitdata:
		return new(Unitdata)
	case PDUReset:
		return new(Reset)
	case PDUResetAck:
		return new(ResetAck)
	case PDUBlock:
		return new(Block)
	case PDUBlockAck:
		return new(BlockAck)
	case PDUUnblock:
		return new(Unblock)
	case PDUUnblockAck:
		return new(UnblockAck)
	case PDUStatus:
		return new(Status)
	case PDUAlive:
		return new(Alive)
	case PDUAliveAck:
		return new(AliveAck)
	case PDUSNSAck:
		return new(SNSAck)
	case PDUSNSAdd:
		return new(SNSAdd)
	case PDUSNSChangeWeight:
		return new(SNSChangeWeight)
	case PDUSNSConfig:
		return new(SNSConfig)
	case PDUSNSConfigAck:
		return new(SNSConfigAck)
	case PDUSNSDelete:
		return new(SNSDelete)
	case PDUSNSSize:
		return new(SNSSize)
	case PDUSNSSizeAck:
		return new(SNSSizeAck)
	}
	return nil
}

// Parse decodes one NS PDU into a new struct of its type. An unknown PDU
// type is an error with cause "Protocol error, unspecified".
func Parse(b []byte) (PDU, error) {
	if len(b) < 1 {
		return nil, &Error{Cause: CauseProtocolErrorUnspec, Reason: "empty PDU"}
	}
	p := NewPDU(PDUType(b[0]))
	if p == nil {
		return nil, &Error{Cause: CauseProtocolErrorUnspec, Type: PDUType(b[0]), Reason: "unknown PDU type"}
	}
	if err := Unmarshal(b, p); err != nil {
		return nil, err
	}
	return p, nil
}

// ---- NS PDUs (TS 48.016 §9.2) ----

// Unitdata is NS-UNITDATA (§9.2.10): a BSSGP PDU (the NS SDU) on a BVC.
//
//	PDU type | NS SDU control bits | BVCI (2) | NS SDU
type Unitdata struct {
	SDUControl uint8 // NS SDU Control Bits (§10.3.9)
	BVCI       uint16
	SDU        []byte
}

func (p *Unitdata) Type() PDUType { return PDUUnitdata }
func (p *Unitdata) ies(c *codec)  { c.unitdata(&p.SDUControl, &p.BVCI, &p.SDU) }

// MarshalLen, MarshalTo and Unmarshal are the allocation-free hot-path
// methods (the generic functions work too): they walk the IE table on the
// concrete type, so that the codec stays on the stack.
func (p *Unitdata) MarshalLen() int {
	c := codec{e: tlv.Enc{N: 1}}
	p.ies(&c)
	return c.e.N
}

// MarshalTo encodes p into b.
func (p *Unitdata) MarshalTo(b []byte) (int, error) {
	if len(b) < p.MarshalLen() {
		return 0, ErrShortBuffer
	}
	b[0] = byte(PDUUnitdata)
	c := codec{e: tlv.Enc{B: b, N: 1}}
	p.ies(&c)
	return c.e.N, nil
}

// Unmarshal decodes b into p without allocating; SDU aliases b.
func (p *Unitdata) Unmarshal(b []byte) error {
	d := dec{t: PDUUnitdata, b: b}
	if err := d.prep(); err != nil {
		return err
	}
	p.ies(&codec{d: &d})
	return d.err
}

// Reset is NS-RESET (§9.2.5).
type Reset struct {
	Cause Cause
	NSVCI uint16
	NSEI  uint16
}

func (p *Reset) Type() PDUType { return PDUReset }
func (p *Reset) ies(c *codec) {
	c.cause(M, &p.Cause, nil)
	num(c, IENSVCI, M, &p.NSVCI, nil)
	num(c, IENSEI, M, &p.NSEI, nil)
}

// ResetAck is NS-RESET-ACK (§9.2.6).
type ResetAck struct {
	NSVCI uint16
	NSEI  uint16
}

func (p *ResetAck) Type() PDUType { return PDUResetAck }
func (p *ResetAck) ies(c *codec) {
	num(c, IENSVCI, M, &p.NSVCI, nil)
	num(c, IENSEI, M, &p.NSEI, nil)
}

// Block is NS-BLOCK (§9.2.3).
type Block struct {
	Cause Cause
	NSVCI uint16
}

func (p *Block) Type() PDUType { return PDUBlock }
func (p *Block) ies(c *codec) {
	c.cause(M, &p.Cause, nil)
	num(c, IENSVCI, M, &p.NSVCI, nil)
}

// BlockAck is NS-BLOCK-ACK (§9.2.4).
type BlockAck struct {
	NSVCI uint16
}

func (p *BlockAck) Type() PDUType { return PDUBlockAck }
func (p *BlockAck) ies(c *codec)  { num(c, IENSVCI, M, &p.NSVCI, nil) }

// Unblock is NS-UNBLOCK (§9.2.8): the PDU type alone.
type Unblock struct{}

func (*Unblock) Type() PDUType { return PDUUnblock }
func (*Unblock) ies(*codec)    {}

// UnblockAck is NS-UNBLOCK-ACK (§9.2.9).
type UnblockAck struct{}

func (*UnblockAck) Type() PDUType { return PDUUnblockAck }
func (*UnblockAck) ies(*codec)    {}

// Alive is NS-ALIVE (§9.2.1).
type Alive struct{}

func (*Alive) Type() PDUType { return PDUAlive }
func (*Alive) ies(*codec)    {}

// AliveAck is NS-ALIVE-ACK (§9.2.2).
type AliveAck struct{}

func (*AliveAck) Type() PDUType { return PDUAliveAck }
func (*AliveAck) ies(*codec)    {}

// Status is NS-STATUS (§9.2.7). Which conditional IEs it needs depends on
// its cause (missing).
type Status struct {
	Cause    Cause
	NSVCI    uint16
	HasNSVCI bool
	// ErrPDU is the "NS PDU" IE (§10.3.4): the PDU in error.
	ErrPDU    []byte
	HasErrPDU bool
	BVCI      uint16
	HasBVCI   bool
	IP4       []IPElement // List of IP4 Elements (cause "IP test failed")
	HasIP4    bool
	IP6       []IPElement
	HasIP6    bool
}

func (p *Status) Type() PDUType { return PDUStatus }
func (p *Status) ies(c *codec) {
	c.cause(M, &p.Cause, nil)
	num(c, IENSVCI, C, &p.NSVCI, &p.HasNSVCI)
	c.bytes(IENSPDU, C, &p.ErrPDU, &p.HasErrPDU)
	num(c, IEBVCI, C, &p.BVCI, &p.HasBVCI)
	c.ipLists(&p.IP4, &p.HasIP4, &p.IP6, &p.HasIP6)
	if c.decoding() {
		c.need(p.missing())
	}
}

// missing is the conditional IE an NS-STATUS of p's cause lacks (§9.2.7).
func (p *Status) missing() (IEI, string) {
	switch p.Cause {
	case CauseNSVCBlocked, CauseNSVCUnknown:
		if !p.HasNSVCI {
			return IENSVCI, "NS-VCI"
		}
	case CauseSemanticallyIncorrect, CausePDUNotCompatible, CauseProtocolErrorUnspec,
		CauseInvalidEssentialIE, CauseMissingEssentialIE:
		if !p.HasErrPDU {
			return IENSPDU, "NS PDU"
		}
	case CauseBVCIUnknown:
		if !p.HasBVCI {
			return IEBVCI, "BVCI"
		}
	case CauseIPTestFailed:
		return anyIPList(p.HasIP4, p.HasIP6)
	}
	return 0, ""
}

// anyIPList: a List of IP4 or of IP6 Elements is there (NS-STATUS "IP
// test failed", SNS-ADD, SNS-CHANGEWEIGHT).
func anyIPList(has4, has6 bool) (IEI, string) {
	if !has4 && !has6 {
		return IEIP4List, "IP list"
	}
	return 0, ""
}
