package ns

import (
	"net/netip"

	"github.com/gopcu/gopcu/bssgp/internal/tlv"
)

// The IE walk. Each PDU type lists its IEs once, in its ies method, in the
// order of its TS 48.016 §9 table, with their presence (M, O, C) and the
// field that holds each, e.g.
//
//	func (p *Block) ies(c *codec) {
//		c.cause(M, &p.Cause, nil)
//		num(c, IENSVCI, M, &p.NSVCI, nil)
//	}
//
// How each IE is coded (TLV or TV, its value length) is ieSpecs' (ie.go).
// One walker, codec, runs that list in three modes: counting the encoded
// length (MarshalLen), encoding (MarshalTo) and decoding (Unmarshal).
// Encoding writes a mandatory IE always and an optional or conditional one
// when its Has flag is set (an IE without Has flag: always). Decoding
// first reads the PDU's header (dec.prep) and checks every IE in wire
// order (dec.scan), then the walk looks each IE of the table up; a
// repeated IE counts once, the last one (lists of IP elements: all of
// them, in order). What is wrong maps to the cause of the NS-STATUS that
// answers the PDU (TS 48.016 §7.5): an IE that does not fit or has a wrong
// length is "Invalid essential IE", a missing one "Missing essential IE",
// an IP Address of an unknown type "Unknown IP address". The first error
// wins.

// Presences, as the PDU tables write them.
const (
	M = tlv.M
	O = tlv.O
	C = tlv.C
)

// codec walks one PDU's IE table: counting when e.B is nil, encoding into
// e.B, or decoding from d when d is set.
type codec struct {
	e tlv.Enc
	d *dec
}

func (c *codec) decoding() bool { return c.d != nil }

// hdr writes the IEI of an IE with an l-octet value and, for a TLV IE, its
// length indicator.
func (c *codec) hdr(iei IEI, l int) { c.e.Hdr(byte(iei), ieSpecs[iei].form, l) }

// num is an IE holding a big-endian number of ieSpecs' fixed length (1 or
// 2 octets): NS-VCI, NSEI, BVCI, Maximum Number of NS-VCs, Number of IP
// endpoints, Cause. has, when not nil, is the field's Has flag: the IE is
// encoded when it is set, and decoding sets it.
func num[T ~uint8 | ~uint16](c *codec, iei IEI, p tlv.Pres, v *T, has *bool) {
	n := ieSpecs[iei].fixLen
	if c.d == nil {
		if has == nil || *has {
			c.hdr(iei, n)
			c.e.BE(uint32(*v), n)
		}
		return
	}
	b, ok := c.d.get(iei, p)
	*v = T(tlv.ReadBE(b))
	tlv.SetHas(has, ok)
}

// cause is the Cause IE (TS 48.016 §10.3.2).
func (c *codec) cause(p tlv.Pres, v *Cause, has *bool) { num(c, IECause, p, v, has) }

// flag is a one-octet TV IE whose bit 1 is the value (Reset Flag,
// §10.3.2f); always encoded.
func (c *codec) flag(iei IEI, p tlv.Pres, v *bool) {
	if c.d == nil {
		c.hdr(iei, 1)
		c.e.Raw(b2u8(*v))
		return
	}
	b, ok := c.d.get(iei, p)
	*v = ok && b[0]&1 != 0
}

// bytes is an IE whose value is a slice (the NS PDU IE, §10.3.4); decoding
// aliases the PDU buffer.
func (c *codec) bytes(iei IEI, p tlv.Pres, v *[]byte, has *bool) {
	if c.d == nil {
		if has == nil || *has {
			c.hdr(iei, len(*v))
			c.e.Raw(*v...)
		}
		return
	}
	var ok bool
	*v, ok = c.d.get(iei, p)
	tlv.SetHas(has, ok)
}

// ipList is a List of IP4 or IP6 Elements (§10.3.2c, §10.3.2d), always
// conditional. Decoding reuses the capacity of *v and appends the elements
// of every such IE of the PDU.
func (c *codec) ipList(iei IEI, v *[]IPElement, has *bool) {
	v6 := iei == IEIP6List
	if c.d == nil {
		if *has {
			l := len(*v) * ieSpecs[iei].mult
			c.hdr(iei, l)
			if c.e.B != nil {
				putIPList(c.e.B[c.e.N:c.e.N+l], *v, v6)
			}
			c.e.N += l
		}
		return
	}
	*v, *has = (*v)[:0], false
	for off := c.d.off; ; {
		b, next, ok := c.d.find(iei, off)
		if !ok {
			return
		}
		*v, *has, off = appendIPList(*v, b, v6), true, next
	}
}

// ipLists are the conditional List of IP4 Elements and List of IP6
// Elements that end the SNS PDUs and NS-STATUS.
func (c *codec) ipLists(ip4 *[]IPElement, has4 *bool, ip6 *[]IPElement, has6 *bool) {
	c.ipList(IEIP4List, ip4, has4)
	c.ipList(IEIP6List, ip6, has6)
}

// ipAddr is the IP Address IE (§10.3.2b), encoded when *v is valid.
func (c *codec) ipAddr(p tlv.Pres, v *netip.Addr) {
	if c.d == nil {
		if v.IsValid() {
			l := ipAddrLen(*v)
			c.hdr(IEIPAddress, l)
			if c.e.B != nil {
				putIPAddr(c.e.B[c.e.N:], *v)
			}
			c.e.N += l
		}
		return
	}
	*v = netip.Addr{}
	if b, ok := c.d.get(IEIPAddress, p); ok {
		*v = parseIPAddr(b)
	}
}

// tid is the Transaction ID octet after the NSEI of SNS-ACK, SNS-ADD,
// SNS-DELETE and SNS-CHANGEWEIGHT (TS 48.016 §9.3, a value without IEI);
// dec.prep found it.
func (c *codec) tid(v *uint8) {
	if c.d == nil {
		c.e.Raw(*v)
		return
	}
	*v = c.d.b[c.d.tid]
}

// endFlag is the End Flag octet that opens SNS-CONFIG (TS 48.016 §9.3.4,
// a value without IEI).
func (c *codec) endFlag(v *bool) {
	if c.d == nil {
		c.e.Raw(b2u8(*v))
		return
	}
	*v = c.d.b[1]&1 != 0
}

// unitdata is NS-UNITDATA after the PDU type (§9.2.10): the NS SDU control
// bits, the BVCI and the SDU; decoding aliases the SDU.
func (c *codec) unitdata(ctl *uint8, bvci *uint16, sdu *[]byte) {
	if c.d == nil {
		if b := c.e.B; b != nil {
			n := c.e.N
			b[n], b[n+1], b[n+2] = *ctl, byte(*bvci>>8), byte(*bvci)
			copy(b[n+3:], *sdu)
		}
		c.e.N += HeaderLen - 1 + len(*sdu)
		return
	}
	b := c.d.b
	*ctl, *bvci, *sdu = b[1], uint16(b[2])<<8|uint16(b[3]), b[HeaderLen:]
}

// need fails a decoded PDU that lacks a conditional IE its other IEs call
// for (what names it, "" when none is missing).
func (c *codec) need(iei IEI, what string) {
	if c.d != nil && what != "" {
		c.d.missing(iei, what)
	}
}

func b2u8(b bool) uint8 {
	if b {
		return 1
	}
	return 0
}

// dec is the decoder of one PDU: the buffer, where its IEs start, the
// offset of a value-only Transaction ID to step over (0: none) and the
// first error, which is sticky.
type dec struct {
	t   PDUType
	b   []byte
	off int
	tid int
	err error
}

func (d *dec) fail(c Cause, off int, reason string) error {
	return &Error{Cause: c, Type: d.t, Offset: off, Reason: reason}
}

func (d *dec) failIE(c Cause, iei IEI, off int, reason string) error {
	return &Error{Cause: c, Type: d.t, IE: iei, HasIE: true, Offset: off, Reason: reason}
}

func (d *dec) missing(iei IEI, what string) {
	if d.err == nil {
		d.err = d.failIE(CauseMissingEssentialIE, iei, len(d.b), what+" missing")
	}
}

// prep checks the PDU type octet and the header of d.t's PDUs (the fixed
// part before the IEs), then every IE.
func (d *dec) prep() error {
	b := d.b
	if len(b) < 1 {
		return d.fail(CauseProtocolErrorUnspec, 0, "empty PDU")
	}
	if PDUType(b[0]) != d.t {
		return &Error{Cause: CauseProtocolErrorUnspec, Type: PDUType(b[0]), Reason: "unexpected PDU type"}
	}
	d.off = 1
	switch d.t {
	case PDUUnitdata:
		if len(b) < HeaderLen {
			return d.fail(CauseProtocolErrorUnspec, len(b), "NS-UNITDATA header truncated")
		}
		return nil
	case PDUUnblock, PDUUnblockAck, PDUAlive, PDUAliveAck:
		if len(b) != 1 {
			return d.fail(CauseProtocolErrorUnspec, 1, "unexpected payload")
		}
		return nil
	case PDUSNSConfig:
		if len(b) < 2 {
			return d.failIE(CauseMissingEssentialIE, 0, 1, "End Flag missing")
		}
		d.off = 2
	case PDUSNSAck, PDUSNSAdd, PDUSNSChangeWeight, PDUSNSDelete:
		// NSEI (TLV) then the value-only Transaction ID (§10.3.x).
		if len(b) < 3 {
			return d.failIE(CauseMissingEssentialIE, IENSEI, len(b), "NSEI missing")
		}
		if IEI(b[1]) != IENSEI {
			return d.failIE(CauseInvalidEssentialIE, IENSEI, 1, "NSEI expected first")
		}
		l, val, why := tlv.ReadLen(b, 2)
		if why != "" {
			return d.failIE(CauseInvalidEssentialIE, IENSEI, 1, why)
		}
		end := val + l
		if end > len(b) {
			return d.failIE(CauseInvalidEssentialIE, IENSEI, 1, "value truncated")
		}
		if _, _, _, err := d.ie(1); err != nil {
			return err
		}
		if end >= len(b) {
			return d.fail(CauseMissingEssentialIE, len(b), "Transaction ID missing")
		}
		d.tid = end
	}
	return d.scan()
}

// scan checks the IEs in wire order, each as ieSpecs codes it: the first
// that does not parse or has a wrong length fails the PDU.
func (d *dec) scan() error {
	for off := d.off; off < len(d.b); {
		if off == d.tid {
			off++
			continue
		}
		_, _, next, err := d.ie(off)
		if err != nil {
			return err
		}
		off = next
	}
	return nil
}

// ie reads the IE at d.b[off]: its IEI, its value and the offset after it.
// An unknown IEI is taken for TLV (TS 48.016 §7.5 does not refuse it).
func (d *dec) ie(off int) (IEI, []byte, int, error) {
	iei := IEI(d.b[off])
	var v []byte
	var next int
	var err error
	if int(iei) < len(ieSpecs) && ieSpecs[iei].form == tlv.TV {
		v, next, err = d.tvValue(off)
	} else {
		v, next, err = d.tlvValue(off)
	}
	return iei, v, next, err
}

// tvValue is the value of the TV IE at b[off] (its fixed length, or for
// the IP Address IE the length its address type gives) and the offset
// after it.
func (d *dec) tvValue(off int) ([]byte, int, error) {
	b := d.b
	iei := IEI(b[off])
	n := ieSpecs[iei].fixLen
	if iei == IEIPAddress {
		if off+2 > len(b) {
			return nil, 0, d.failIE(CauseInvalidEssentialIE, iei, off, "truncated")
		}
		if n = ipAddrValueLen(b[off+1]); n == 0 {
			return nil, 0, d.failIE(CauseUnknownIPAddress, iei, off, "bad address type")
		}
	}
	if off+1+n > len(b) {
		return nil, 0, d.failIE(CauseInvalidEssentialIE, iei, off, "truncated")
	}
	return b[off+1 : off+1+n], off + 1 + n, nil
}

// tlvValue is the value of the TLV IE at b[off], its length checked
// against the IE's spec, and the offset after it.
func (d *dec) tlvValue(off int) ([]byte, int, error) {
	b := d.b
	iei := IEI(b[off])
	l, val, why := tlv.ReadLen(b, off+1)
	if why != "" {
		return nil, 0, d.failIE(CauseInvalidEssentialIE, iei, off, why)
	}
	if val+l > len(b) {
		return nil, 0, d.failIE(CauseInvalidEssentialIE, iei, off, "value truncated")
	}
	if int(iei) < len(ieSpecs) {
		if s := &ieSpecs[iei]; (s.fixLen > 0 && l != s.fixLen) || (s.mult > 0 && l%s.mult != 0) {
			return nil, 0, d.failIE(CauseInvalidEssentialIE, iei, off, s.badLen)
		}
	}
	return b[val : val+l], val + l, nil
}

// find returns the value of the first IE iei at or after offset from (an
// IE boundary that scan checked) and the offset after it.
func (d *dec) find(iei IEI, from int) ([]byte, int, bool) {
	for off := from; off < len(d.b); {
		if off == d.tid {
			off++
			continue
		}
		id, v, next, _ := d.ie(off)
		if id == iei {
			return v, next, true
		}
		off = next
	}
	return nil, 0, false
}

// get returns the value of the last IE iei of the PDU; a missing
// mandatory one fails the PDU.
func (d *dec) get(iei IEI, p tlv.Pres) ([]byte, bool) {
	var v []byte
	found := false
	for off := d.off; ; {
		b, next, ok := d.find(iei, off)
		if !ok {
			break
		}
		v, found, off = b, true, next
	}
	if !found && p == M {
		d.missing(iei, ieSpecs[iei].name)
	}
	return v, found
}
