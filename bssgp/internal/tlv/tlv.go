// Package tlv is the IE framing the NS and BSSGP codecs share, and the
// vocabulary of their IE tables. Both protocols code an IE's length
// indicator alike (TS 48.016 §10.1.2, TS 48.018 §11.1): one octet with bit
// 8 ("ext") set for lengths 0..127, else two octets carrying a 15-bit
// length.
package tlv

// Pres is the presence of an IE in a PDU (the M/O/C column of the PDU
// tables, TS 48.016 §9, TS 48.018 §10).
type Pres uint8

// Presences.
const (
	M Pres = iota // mandatory
	O             // optional
	C             // conditional
)

// Form is how an IE is framed.
type Form uint8

// Forms.
const (
	TLV  Form = iota // IEI, the shortest length indicator, value
	TL16             // IEI, always the two-octet length indicator, value (osmo's TL16V, LLC-PDU)
	TV               // IEI and a value of fixed length, no length indicator (TS 48.016 §10.3)
)

// HdrLen is the length of the IEI and length indicator of an IE of form f
// with an n-octet value.
func HdrLen(f Form, n int) int {
	switch {
	case f == TV:
		return 1
	case f == TLV && n < 128:
		return 2
	}
	return 3
}

// PutHdr writes the IEI and the length indicator of an IE of form f with
// an n-octet value into b and returns how many octets it wrote.
func PutHdr(b []byte, iei uint8, f Form, n int) int {
	b[0] = iei
	switch {
	case f == TV:
		return 1
	case f == TLV && n < 128:
		b[1] = 0x80 | byte(n)
		return 2
	}
	b[1], b[2] = byte(n>>8&0x7f), byte(n)
	return 3
}

// Reasons ReadLen gives for an IE list that does not parse.
const (
	LenMissing   = "length missing"
	LenTruncated = "length truncated"
)

// ReadLen reads the length indicator at b[off]: the value's length l and
// the offset of the value. why is "" or the reason the indicator does not
// fit into b (LenMissing, LenTruncated); a value running past b is the
// caller's to find.
func ReadLen(b []byte, off int) (l, val int, why string) {
	if off >= len(b) {
		return 0, 0, LenMissing
	}
	if b[off]&0x80 != 0 {
		return int(b[off] & 0x7f), off + 1, ""
	}
	if off+2 > len(b) {
		return 0, 0, LenTruncated
	}
	return int(b[off]&0x7f)<<8 | int(b[off+1]), off + 2, ""
}

// ReadBE is the big-endian number in b (0 to 4 octets), the value of an
// IE that Enc.BE wrote.
func ReadBE(b []byte) uint32 {
	var x uint32
	for _, o := range b {
		x = x<<8 | uint32(o)
	}
	return x
}

// SetHas sets the Has flag of an optional or conditional IE to v; has is
// nil for an IE without one.
func SetHas(has *bool, v bool) {
	if has != nil {
		*has = v
	}
}

// Enc writes the octets of a PDU's IEs into B from offset N on. With B nil
// it only counts, so that a PDU's encoded length (MarshalLen) and its
// bytes (MarshalTo) come from the same walk of its IE table.
type Enc struct {
	B []byte
	N int
}

// Raw writes v.
func (e *Enc) Raw(v ...byte) {
	if e.B != nil {
		copy(e.B[e.N:], v)
	}
	e.N += len(v)
}

// BE writes the n low octets of v (n 1..4), big-endian.
func (e *Enc) BE(v uint32, n int) {
	if e.B != nil {
		for i := n - 1; i >= 0; i-- {
			e.B[e.N+i] = byte(v)
			v >>= 8
		}
	}
	e.N += n
}

// Hdr writes the IEI and the length indicator of an IE of form f with an
// l-octet value.
func (e *Enc) Hdr(iei uint8, f Form, l int) {
	if e.B != nil {
		e.N += PutHdr(e.B[e.N:], iei, f, l)
		return
	}
	e.N += HdrLen(f, l)
}
