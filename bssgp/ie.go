package bssgp

import (
	"encoding/binary"
	"errors"
	"fmt"
)

// enc writes IEs. With b == nil it only counts (MarshalLen); the two modes
// share each PDU's single encode method so length and bytes cannot disagree.
type enc struct {
	b []byte
	n int
}

func (e *enc) raw(v ...byte) {
	if e.b != nil {
		copy(e.b[e.n:], v)
	}
	e.n += len(v)
}

func (e *enc) u8(v uint8) {
	if e.b != nil {
		e.b[e.n] = v
	}
	e.n++
}

func (e *enc) u32(v uint32) {
	if e.b != nil {
		binary.BigEndian.PutUint32(e.b[e.n:], v)
	}
	e.n += 4
}

// hdr writes the length indicator of TS 48.018 §11.1.
func (e *enc) hdr(iei IEI, l int, long bool) {
	if l < 128 && !long {
		if e.b != nil {
			e.b[e.n], e.b[e.n+1] = byte(iei), 0x80|byte(l)
		}
		e.n += 2
		return
	}
	if e.b != nil {
		e.b[e.n], e.b[e.n+1], e.b[e.n+2] = byte(iei), byte(l>>8&0x7f), byte(l)
	}
	e.n += 3
}

func (e *enc) tlv(iei IEI, v []byte) {
	e.hdr(iei, len(v), false)
	if e.b != nil {
		copy(e.b[e.n:], v)
	}
	e.n += len(v)
}

// tlv16 always uses the two-octet length form (osmo-pcu's TL16V for LLC-PDU).
func (e *enc) tlv16(iei IEI, v []byte) {
	e.hdr(iei, len(v), true)
	if e.b != nil {
		copy(e.b[e.n:], v)
	}
	e.n += len(v)
}

func (e *enc) tlvU8(iei IEI, v uint8) {
	e.hdr(iei, 1, false)
	e.u8(v)
}

func (e *enc) tlvU16(iei IEI, v uint16) {
	e.hdr(iei, 2, false)
	if e.b != nil {
		binary.BigEndian.PutUint16(e.b[e.n:], v)
	}
	e.n += 2
}

func (e *enc) tlvU24(iei IEI, v uint32) {
	e.hdr(iei, 3, false)
	if e.b != nil {
		e.b[e.n], e.b[e.n+1], e.b[e.n+2] = byte(v>>16), byte(v>>8), byte(v)
	}
	e.n += 3
}

func (e *enc) tlvU32(iei IEI, v uint32) {
	e.hdr(iei, 4, false)
	e.u32(v)
}

func (e *enc) rai(iei IEI, r RAI) {
	e.hdr(iei, 6, false)
	if e.b != nil {
		r.put(e.b[e.n:])
	}
	e.n += 6
}

func (e *enc) cellID(c CellID) {
	e.hdr(IECellIdentifier, 8, false)
	if e.b != nil {
		c.RAI.put(e.b[e.n:])
		binary.BigEndian.PutUint16(e.b[e.n+6:], c.CI)
	}
	e.n += 8
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
		off++
		if off >= len(b) {
			d.fail(CauseInvalidMandatoryInfo, iei, start, "IE length missing")
			return
		}
		var l int
		if b[off]&0x80 != 0 {
			l = int(b[off] & 0x7f)
			off++
		} else {
			if off+2 > len(b) {
				d.fail(CauseInvalidMandatoryInfo, iei, start, "IE length truncated")
				return
			}
			l = int(b[off]&0x7f)<<8 | int(b[off+1])
			off += 2
		}
		if off+l > len(b) {
			d.fail(CauseInvalidMandatoryInfo, iei, start, "IE value truncated")
			return
		}
		if d.n < maxIEs {
			d.ies[d.n] = ieRef{iei: iei, off: start, v: b[off : off+l : off+l]}
			d.n++
		}
		off += l
	}
}

// Presence of an IE in a PDU (TS 48.018 §10 tables): mandatory, optional or
// conditional. Wrong length of a mandatory IE is "Invalid mandatory
// information"; of an optional/conditional one "Conditional IE error".
type pres uint8

const (
	mand pres = iota
	opt
)

func (d *dec) find(iei IEI) (ieRef, bool) {
	for i := 0; i < d.n; i++ {
		if d.ies[i].iei == iei {
			return d.ies[i], true
		}
	}
	return ieRef{}, false
}

// get returns the value of iei if present with a length in [min, max]
// (max < 0: unbounded).
func (d *dec) get(iei IEI, p pres, minL, maxL int) ([]byte, bool) {
	r, ok := d.find(iei)
	if !ok {
		if p == mand {
			d.fail(CauseMissingMandatoryIE, iei, len(d.b), "mandatory IE missing")
		}
		return nil, false
	}
	if len(r.v) < minL || (maxL >= 0 && len(r.v) > maxL) {
		if p == mand {
			d.fail(CauseInvalidMandatoryInfo, iei, r.off, "bad IE length")
		} else {
			d.fail(CauseConditionalIEError, iei, r.off, "bad IE length")
		}
		return nil, false
	}
	return r.v, true
}

func (d *dec) bytes(iei IEI, p pres) []byte {
	v, _ := d.get(iei, p, 0, -1)
	return v
}

func (d *dec) u8(iei IEI, p pres) (uint8, bool) {
	v, ok := d.get(iei, p, 1, 1)
	if !ok {
		return 0, false
	}
	return v[0], true
}

func (d *dec) u16(iei IEI, p pres) (uint16, bool) {
	v, ok := d.get(iei, p, 2, 2)
	if !ok {
		return 0, false
	}
	return binary.BigEndian.Uint16(v), true
}

func (d *dec) u24(iei IEI, p pres) (uint32, bool) {
	v, ok := d.get(iei, p, 3, 3)
	if !ok {
		return 0, false
	}
	return uint32(v[0])<<16 | uint32(v[1])<<8 | uint32(v[2]), true
}

func (d *dec) u32(iei IEI, p pres) (uint32, bool) {
	v, ok := d.get(iei, p, 4, 4)
	if !ok {
		return 0, false
	}
	return binary.BigEndian.Uint32(v), true
}

func (d *dec) rai(iei IEI, p pres) (RAI, bool) {
	v, ok := d.get(iei, p, 6, 6)
	if !ok {
		return RAI{}, false
	}
	return parseRAI(v), true
}

func (d *dec) cellID(p pres) (CellID, bool) {
	v, ok := d.get(IECellIdentifier, p, 8, 8)
	if !ok {
		return CellID{}, false
	}
	return CellID{RAI: parseRAI(v), CI: binary.BigEndian.Uint16(v[6:])}, true
}

// imsi checks that an IMSI IE holds a Mobile Identity of type IMSI with 6
// to 15 digits and, for an even number of digits, the filler nibble
// (TS 48.018 §11.3.14, TS 24.008 §10.5.1.4, TS 23.003 §2.2; the checks of
// libosmocore's osmo_mobile_identity_decode, which osmo-pcu applies with
// hex digits allowed). A bad mandatory IMSI is "Invalid mandatory
// information", a bad optional one (DL-UNITDATA) "Conditional IE error",
// as osmo-pcu answers (gprs_bssgp_pcu_rx_dl_ud, the paging handlers).
func (d *dec) imsi(p pres) []byte {
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
		if p == mand {
			d.fail(CauseInvalidMandatoryInfo, IEIMSI, r.off, why)
		} else {
			d.fail(CauseConditionalIEError, IEIMSI, r.off, why)
		}
		return nil
	}
	return v
}

// RAI is a Routeing Area Identification (TS 24.008 §10.5.5.15), as carried
// in the Routeing Area IE and the Cell Identifier IE.
type RAI struct {
	MCC        uint16
	MNC        uint16
	MNC3Digits bool
	LAC        uint16
	RAC        uint8
}

func (r RAI) put(b []byte) {
	m1, m2, m3 := r.MCC/100%10, r.MCC/10%10, r.MCC%10
	var n1, n2, n3 uint16
	if r.MNC3Digits || r.MNC > 99 {
		n1, n2, n3 = r.MNC/100%10, r.MNC/10%10, r.MNC%10
	} else {
		n1, n2, n3 = r.MNC/10%10, r.MNC%10, 0xf
	}
	b[0] = byte(m2<<4 | m1)
	b[1] = byte(n3<<4 | m3)
	b[2] = byte(n2<<4 | n1)
	binary.BigEndian.PutUint16(b[3:], r.LAC)
	b[5] = r.RAC
}

// String formats the RAI as osmo_rai_name ("901-70-1-0").
func (r RAI) String() string {
	if r.MNC3Digits {
		return fmt.Sprintf("%03d-%03d-%d-%d", r.MCC, r.MNC, r.LAC, r.RAC)
	}
	return fmt.Sprintf("%03d-%02d-%d-%d", r.MCC, r.MNC, r.LAC, r.RAC)
}

func parseRAI(b []byte) RAI {
	d := func(x byte) uint16 { return uint16(x & 0x0f) }
	r := RAI{MCC: d(b[0])*100 + d(b[0]>>4)*10 + d(b[1]), LAC: binary.BigEndian.Uint16(b[3:]), RAC: b[5]}
	if b[1]>>4 == 0x0f {
		r.MNC = d(b[2])*10 + d(b[2]>>4)
	} else {
		r.MNC = d(b[2])*100 + d(b[2]>>4)*10 + d(b[1]>>4)
		r.MNC3Digits = true
	}
	return r
}

// CellID is the Cell Identifier IE (TS 48.018 §11.3.9): RAI + CI.
type CellID struct {
	RAI RAI
	CI  uint16
}

// EncodeIMSI encodes the digits of an IMSI as a TS 24.008 §10.5.1.4 Mobile
// Identity value (type IMSI), as carried by the BSSGP IMSI IE.
func EncodeIMSI(digits string) ([]byte, error) {
	if len(digits) < 1 || len(digits) > 15 {
		return nil, errors.New("bssgp: IMSI must have 1..15 digits")
	}
	for _, c := range digits {
		if c < '0' || c > '9' {
			return nil, errors.New("bssgp: IMSI has a non-digit")
		}
	}
	out := make([]byte, len(digits)/2+1)
	odd := len(digits)%2 == 1
	out[0] = 0x01 | byte(digits[0]-'0')<<4
	if odd {
		out[0] |= 0x08
	}
	for i := 1; i < len(digits); i++ {
		x := digits[i] - '0'
		if i%2 == 1 {
			out[(i+1)/2] = x
		} else {
			out[i/2] |= x << 4
		}
	}
	if !odd {
		out[len(out)-1] |= 0xf0
	}
	return out, nil
}

// DecodeIMSI returns the digits of a Mobile Identity value of type IMSI.
func DecodeIMSI(v []byte) (string, error) {
	if len(v) < 1 || v[0]&0x07 != 1 {
		return "", errors.New("bssgp: not an IMSI mobile identity")
	}
	odd := v[0]&0x08 != 0
	digits := make([]byte, 0, 2*len(v))
	digits = append(digits, '0'+v[0]>>4)
	for i := 1; i < len(v); i++ {
		lo, hi := v[i]&0x0f, v[i]>>4
		digits = append(digits, '0'+lo)
		if i == len(v)-1 && !odd {
			if hi != 0x0f {
				return "", errors.New("bssgp: even IMSI without filler")
			}
			break
		}
		digits = append(digits, '0'+hi)
	}
	for _, c := range digits {
		if c > '9' {
			return "", errors.New("bssgp: IMSI digit out of range")
		}
	}
	return string(digits), nil
}
