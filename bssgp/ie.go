package bssgp

import (
	"encoding/binary"
	"errors"
	"fmt"
)

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
	d, err := AppendIMSI(make([]byte, 0, 2*len(v)), v)
	if err != nil {
		return "", err
	}
	return string(d), nil
}

// AppendIMSI is DecodeIMSI appending the digits to dst (no allocation
// when dst has room for 2*len(v) digits).
func AppendIMSI(dst, v []byte) ([]byte, error) {
	if len(v) < 1 || v[0]&0x07 != 1 {
		return dst, errNotIMSI
	}
	odd := v[0]&0x08 != 0
	n := len(dst)
	digits := append(dst, '0'+v[0]>>4)
	for i := 1; i < len(v); i++ {
		lo, hi := v[i]&0x0f, v[i]>>4
		digits = append(digits, '0'+lo)
		if i == len(v)-1 && !odd {
			if hi != 0x0f {
				return dst, errEvenIMSI
			}
			break
		}
		digits = append(digits, '0'+hi)
	}
	for _, c := range digits[n:] {
		if c > '9' {
			return dst, errIMSIDigit
		}
	}
	return digits, nil
}

var (
	errNotIMSI   = errors.New("bssgp: not an IMSI mobile identity")
	errEvenIMSI  = errors.New("bssgp: even IMSI without filler")
	errIMSIDigit = errors.New("bssgp: IMSI digit out of range")
)
