package bssgp

import (
	"encoding/binary"

	"github.com/gopcu/gopcu/bssgp/internal/tlv"
)

// The IE tables. Each PDU type lists its IEs once, in its ies method, in
// the order of its TS 48.018 §10 table: IEI, presence (M, O, C), format
// (TLV, or TL16 for the LLC-PDU) and value length, and the field that
// holds the value, e.g.
//
//	func (p *BVCBlock) ies(c *codec) {
//		c.u16(IEBVCI, M, &p.BVCI, nil)
//		c.cause(IECause, M, &p.Cause, nil)
//	}
//
// One walker, codec, runs that list in three modes: counting the encoded
// length (MarshalLen), encoding (MarshalTo) and decoding (Unmarshal).
// Encoding writes a mandatory IE always and an optional or conditional one
// when it is there (its Has flag set, its slice not nil). Decoding looks
// each IE up in the PDU's IE list (dec) and maps what is wrong to the
// cause of the STATUS that answers the PDU (TS 48.018 §8.7, osmo-pcu
// gprs_bssgp_pcu_rcvmsg): a garbled IE list is "Invalid mandatory
// information", a missing mandatory IE "Missing mandatory IE", a mandatory
// IE of the wrong length "Invalid mandatory information", an optional or
// conditional one "Conditional IE error". The first error wins.

// Presences, as the PDU tables write them.
const (
	M = tlv.M
	O = tlv.O
	C = tlv.C
)

// codec walks one PDU's IE table: counting when e.B is nil, encoding into
// e.B (tlv.Enc), or decoding from d when d is set.
type codec struct {
	e tlv.Enc
	d *dec
}

func (c *codec) decoding() bool { return c.d != nil }

// unsigned is the field type of an IE holding a big-endian number.
type unsigned interface {
	~uint8 | ~uint16 | ~uint32
}

// number is a TLV IE with an n-octet big-endian number (n 1..4). has,
// when not nil, is the field's Has flag: the IE is encoded when it is set,
// and decoding sets it.
func number[T unsigned](c *codec, iei IEI, p tlv.Pres, n int, v *T, has *bool) {
	if c.d == nil {
		if has == nil || *has {
			c.e.Hdr(byte(iei), tlv.TLV, n)
			c.e.BE(uint32(*v), n)
		}
		return
	}
	*v = 0
	b, ok := c.d.get(iei, p, n, n)
	if ok {
		*v = T(tlv.ReadBE(b))
	}
	tlv.SetHas(has, ok)
}

func (c *codec) u8(iei IEI, p tlv.Pres, v *uint8, has *bool)   { number(c, iei, p, 1, v, has) }
func (c *codec) u16(iei IEI, p tlv.Pres, v *uint16, has *bool) { number(c, iei, p, 2, v, has) }
func (c *codec) u32(iei IEI, p tlv.Pres, v *uint32, has *bool) { number(c, iei, p, 4, v, has) }

// u24 is the 3-octet Number of octets affected (TS 48.018 §11.3.41).
func (c *codec) u24(iei IEI, p tlv.Pres, v *uint32) { number(c, iei, p, 3, v, nil) }

// cause is a 1-octet IE holding a Cause.
func (c *codec) cause(iei IEI, p tlv.Pres, v *Cause, has *bool) { number(c, iei, p, 1, v, has) }

// bytes is an IE of form f (TLV or TL16) whose value is a slice of
// minL..maxL octets (maxL < 0: unbounded). A mandatory one is always
// encoded, an optional or conditional one when the slice is not nil;
// decoding aliases the PDU buffer and leaves nil when the IE is absent.
func (c *codec) bytes(iei IEI, p tlv.Pres, f tlv.Form, minL, maxL int, v *[]byte) {
	if c.d == nil {
		if p == M || *v != nil {
			c.e.Hdr(byte(iei), f, len(*v))
			c.e.Raw(*v...)
		}
		return
	}
	*v, _ = c.d.get(iei, p, minL, maxL)
}

// fixed is a mandatory TLV IE whose value is exactly len(v) octets (QoS
// Profile).
func (c *codec) fixed(iei IEI, v []byte) {
	if c.d == nil {
		c.e.Hdr(byte(iei), tlv.TLV, len(v))
		c.e.Raw(v...)
		return
	}
	b, _ := c.d.get(iei, M, len(v), len(v))
	copy(v, b)
}

// rai is a Routeing Area IE (TS 48.018 §11.3.31, 6 octets).
func (c *codec) rai(iei IEI, p tlv.Pres, v *RAI) {
	if c.d == nil {
		c.e.Hdr(byte(iei), tlv.TLV, 6)
		if c.e.B != nil {
			v.put(c.e.B[c.e.N:])
		}
		c.e.N += 6
		return
	}
	*v = RAI{}
	if b, ok := c.d.get(iei, p, 6, 6); ok {
		*v = parseRAI(b)
	}
}

// cellID is a Cell Identifier IE (TS 48.018 §11.3.9: RAI + CI, 8 octets).
func (c *codec) cellID(p tlv.Pres, v *CellID, has *bool) {
	if c.d == nil {
		if has == nil || *has {
			c.e.Hdr(byte(IECellIdentifier), tlv.TLV, 8)
			if c.e.B != nil {
				v.RAI.put(c.e.B[c.e.N:])
				binary.BigEndian.PutUint16(c.e.B[c.e.N+6:], v.CI)
			}
			c.e.N += 8
		}
		return
	}
	*v = CellID{}
	b, ok := c.d.get(IECellIdentifier, p, 8, 8)
	if ok {
		*v = CellID{RAI: parseRAI(b), CI: binary.BigEndian.Uint16(b[6:])}
	}
	tlv.SetHas(has, ok)
}

// imsi is an IMSI IE (TS 48.018 §11.3.14), checked by dec.imsi.
func (c *codec) imsi(p tlv.Pres, v *[]byte) {
	if c.d == nil {
		c.bytes(IEIMSI, p, tlv.TLV, 0, -1, v)
		return
	}
	*v = c.d.imsi(p)
}

// alignment is the Alignment Octets IE (TS 48.018 §11.3.1): n zero octets,
// n in 0..3; -1 when absent.
func (c *codec) alignment(n *int) {
	if c.d == nil {
		if *n >= 0 {
			c.e.Hdr(byte(IEAlignment), tlv.TLV, *n)
			for i := 0; i < *n; i++ {
				c.e.BE(0, 1)
			}
		}
		return
	}
	*n = -1
	if v, ok := c.d.get(IEAlignment, O, 0, 3); ok {
		*n = len(v)
	}
}

// unitdataHdr is the fixed part of UL/DL-UNITDATA after the PDU type:
// TLLI (4 octets) and QoS Profile (3 octets, TS 48.018 §10.2.1, §10.2.2).
func (c *codec) unitdataHdr(tlli *uint32, qos *[3]byte) {
	if c.d == nil {
		c.e.BE(*tlli, 4)
		c.e.Raw(qos[:]...)
		return
	}
	*tlli = binary.BigEndian.Uint32(c.d.b[1:])
	copy(qos[:], c.d.b[5:8])
}

type ieRef struct {
	iei IEI
	off int // offset of the IEI octet in the PDU
	v   []byte
}

const maxIEs = 24

// dec holds the parsed IE list of one PDU. Lookups report the first
// occurrence; the first error is sticky and returned by the decode method.
type dec struct {
	t   PDUType
	b   []byte
	ies [maxIEs]ieRef
	n   int
	err error
}

func (d *dec) fail(c Cause, iei IEI, off int, reason string) {
	if d.err == nil {
		d.err = &Error{Cause: c, Type: d.t, IE: iei, HasIE: true, Offset: off, Reason: reason}
	}
}

// parse splits b[off:] into IEs. A garbled IE list is "Invalid mandatory
// information" (osmo-pcu and libosmogb answer TLV parse failures with 0x21).
func (d *dec) parse(off int) {
	b := d.b
	for off < len(b) {
		start := off
		iei := IEI(b[off])
		l, val, why := tlv.ReadLen(b, off+1)
		if why != "" {
			d.fail(CauseInvalidMandatoryInfo, iei, start, "IE "+why)
			return
		}
		if val+l > len(b) {
			d.fail(CauseInvalidMandatoryInfo, iei, start, "IE value truncated")
			return
		}
		if d.n < maxIEs {
			d.ies[d.n] = ieRef{iei: iei, off: start, v: b[val : val+l : val+l]}
			d.n++
		}
		off = val + l
	}
}

func (d *dec) find(iei IEI) (ieRef, bool) {
	for i := 0; i < d.n; i++ {
		if d.ies[i].iei == iei {
			return d.ies[i], true
		}
	}
	return ieRef{}, false
}

// invalid reports an IE present with a bad value: "Invalid mandatory
// information" for a mandatory IE, else "Conditional IE error".
func (d *dec) invalid(iei IEI, p tlv.Pres, off int, why string) {
	if p == M {
		d.fail(CauseInvalidMandatoryInfo, iei, off, why)
	} else {
		d.fail(CauseConditionalIEError, iei, off, why)
	}
}

// get returns the value of iei if present with a length in [min, max]
// (max < 0: unbounded).
func (d *dec) get(iei IEI, p tlv.Pres, minL, maxL int) ([]byte, bool) {
	r, ok := d.find(iei)
	if !ok {
		if p == M {
			d.fail(CauseMissingMandatoryIE, iei, len(d.b), "mandatory IE missing")
		}
		return nil, false
	}
	if len(r.v) < minL || (maxL >= 0 && len(r.v) > maxL) {
		d.invalid(iei, p, r.off, "bad IE length")
		return nil, false
	}
	return r.v, true
}

// The value decoders of the RIM containers: the value of iei (0 when
// absent or of a wrong length) and whether it was there and valid.

func (d *dec) bytes(iei IEI, p tlv.Pres) []byte {
	v, _ := d.get(iei, p, 0, -1)
	return v
}

func (d *dec) u8(iei IEI, p tlv.Pres) (uint8, bool) {
	v, ok := d.get(iei, p, 1, 1)
	return uint8(tlv.ReadBE(v)), ok
}

func (d *dec) u32(iei IEI, p tlv.Pres) (uint32, bool) {
	v, ok := d.get(iei, p, 4, 4)
	return tlv.ReadBE(v), ok
}

// imsi checks that an IMSI IE holds a Mobile Identity of type IMSI with 6
// to 15 digits and, for an even number of digits, the filler nibble
// (TS 48.018 §11.3.14, TS 24.008 §10.5.1.4, TS 23.003 §2.2; the checks of
// libosmocore's osmo_mobile_identity_decode, which osmo-pcu applies with
// hex digits allowed). A bad mandatory IMSI is "Invalid mandatory
// information", a bad optional one (DL-UNITDATA) "Conditional IE error",
// as osmo-pcu answers (gprs_bssgp_pcu_rx_dl_ud, the paging handlers).
func (d *dec) imsi(p tlv.Pres) []byte {
	v, ok := d.get(IEIMSI, p, 1, 8)
	if !ok {
		return nil
	}
	why := ""
	digits := 2*(len(v)-1) + int(v[0]>>3&1)
	switch {
	case v[0]&0x07 != 1:
		why = "identity type is not IMSI"
	case digits < 6 || digits > 15:
		why = "IMSI does not have 6 to 15 digits"
	case v[0]&0x08 == 0 && v[len(v)-1]>>4 != 0x0f:
		why = "even IMSI without filler"
	}
	if why != "" {
		r, _ := d.find(IEIMSI)
		d.invalid(IEIMSI, p, r.off, why)
		return nil
	}
	return v
}
