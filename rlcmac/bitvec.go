package rlcmac

import (
	"encoding/binary"
	"errors"
	"fmt"
)

// PadOctet is the spare padding octet of TS 44.060 §11 / TS 44.018 §10.5.2 ("2B" pattern).
// L/H bits are relative to this pattern: L is the bit value the pattern has at that
// position, H its complement (TS 24.007 §11.2.2 / TS 44.018 §10.5.1.3 note).
const PadOctet = 0x2B

// Sentinel errors; *BitError wraps them with the bit offset and field.
var (
	ErrShort    = errors.New("rlcmac: not enough bits")
	ErrOverflow = errors.New("rlcmac: value does not fit the block")
	ErrInvalid  = errors.New("rlcmac: invalid value")
	ErrMsgType  = errors.New("rlcmac: unexpected message type")
	ErrUnknown  = errors.New("rlcmac: unknown message type")
)

// BitError reports where in a block coding failed.
type BitError struct {
	Off   int    // bit offset from the start of the block
	Field string // field being coded
	Err   error  // ErrShort, ErrOverflow, ErrInvalid...
}

func (e *BitError) Error() string {
	return fmt.Sprintf("%v at bit %d (%s)", e.Err, e.Off, e.Field)
}

func (e *BitError) Unwrap() error { return e.Err }

// lhBit returns the L value of the 0x2B pattern at absolute bit position pos.
func lhBit(pos int) uint8 { return (PadOctet >> (7 - uint(pos&7))) & 1 }

// BitVec is an MSB-first bit cursor over a fixed byte slice. It is used both
// for reading and for writing; it never grows the slice (writing past the end
// is ErrOverflow, reading past the end ErrShort). The zero value is unusable;
// use NewBitVec or Reset.
type BitVec struct {
	buf []byte
	pos int // current bit position
	end int // bit limit (len(buf)*8 or a sub-limit)
}

// NewBitVec returns a cursor over b positioned at bit 0.
func NewBitVec(b []byte) BitVec { return BitVec{buf: b, end: len(b) * 8} }

// Reset repositions the cursor over b at bit 0.
func (v *BitVec) Reset(b []byte) { v.buf, v.pos, v.end = b, 0, len(b)*8 }

// Pos returns the current bit position.
func (v *BitVec) Pos() int { return v.pos }

// SetPos moves the cursor (clamped to the limit).
func (v *BitVec) SetPos(p int) {
	if p < 0 {
		p = 0
	}
	if p > v.end {
		p = v.end
	}
	v.pos = p
}

// Len returns the bit limit.
func (v *BitVec) Len() int { return v.end }

// Remaining returns the number of bits between the cursor and the limit.
func (v *BitVec) Remaining() int { return v.end - v.pos }

// AtEnd reports whether no bit remains.
func (v *BitVec) AtEnd() bool { return v.pos >= v.end }

// Bytes returns the underlying buffer.
func (v *BitVec) Bytes() []byte { return v.buf }

// Peek returns the next n (<=64) bits without moving.
func (v *BitVec) Peek(n int) (uint64, error) {
	if n < 0 || n > 64 {
		return 0, ErrInvalid
	}
	if v.pos+n > v.end {
		return 0, ErrShort
	}
	if i := v.pos >> 3; n <= 56 && i+8 <= len(v.buf) && n > 0 {
		// Fast path: one 64-bit big-endian load.
		w := binary.BigEndian.Uint64(v.buf[i:])
		return w << uint(v.pos&7) >> uint(64-n), nil
	}
	var x uint64
	p := v.pos
	for n > 0 {
		bi := p & 7
		take := 8 - bi
		if take > n {
			take = n
		}
		b := uint64(v.buf[p>>3]>>(8-bi-take)) & (1<<uint(take) - 1)
		x = x<<uint(take) | b
		p += take
		n -= take
	}
	return x, nil
}

// Read reads n (<=64) bits MSB first.
func (v *BitVec) Read(n int) (uint64, error) {
	x, err := v.Peek(n)
	if err == nil {
		v.pos += n
	}
	return x, err
}

// ReadBit reads one bit.
func (v *BitVec) ReadBit() (uint8, error) {
	if v.pos >= v.end {
		return 0, ErrShort
	}
	b := (v.buf[v.pos>>3] >> (7 - uint(v.pos&7))) & 1
	v.pos++
	return b, nil
}

// ReadLH reads one L/H bit: 0 for L, 1 for H (relative to 0x2B at the absolute position).
func (v *BitVec) ReadLH() (uint8, error) {
	p := v.pos
	b, err := v.ReadBit()
	return b ^ lhBit(p), err
}

// Write writes the low n (<=64) bits of x MSB first.
func (v *BitVec) Write(x uint64, n int) error {
	if n < 0 || n > 64 {
		return ErrInvalid
	}
	if v.pos+n > v.end {
		return ErrOverflow
	}
	if i := v.pos >> 3; n <= 56 && i+8 <= len(v.buf) && n > 0 {
		// Fast path: one 64-bit read-modify-write.
		w := binary.BigEndian.Uint64(v.buf[i:])
		sh := uint(64 - n - v.pos&7)
		mask := (uint64(1)<<uint(n) - 1) << sh
		w = w&^mask | x<<sh&mask
		binary.BigEndian.PutUint64(v.buf[i:], w)
		v.pos += n
		return nil
	}
	for n > 0 {
		bi := v.pos & 7
		take := 8 - bi
		if take > n {
			take = n
		}
		shift := uint(8 - bi - take)
		mask := byte((1<<uint(take) - 1) << shift)
		bits := byte(x>>uint(n-take)) << shift
		i := v.pos >> 3
		v.buf[i] = v.buf[i]&^mask | bits&mask
		v.pos += take
		n -= take
	}
	return nil
}

// WriteBit writes one bit (any non-zero b is 1).
func (v *BitVec) WriteBit(b uint8) error {
	if v.pos >= v.end {
		return ErrOverflow
	}
	i, s := v.pos>>3, 7-uint(v.pos&7)
	if b != 0 {
		v.buf[i] |= 1 << s
	} else {
		v.buf[i] &^= 1 << s
	}
	v.pos++
	return nil
}

// WriteLH writes H when h != 0, else L.
func (v *BitVec) WriteLH(h uint8) error {
	var b uint8
	if h != 0 {
		b = 1
	}
	return v.WriteBit(b ^ lhBit(v.pos))
}

// PadSpare fills from the cursor to the limit with the 0x2B spare padding
// pattern (TS 44.060 §11 "spare padding"): the remainder of the current octet
// gets the pattern bits of that position, the following octets 0x2B.
func (v *BitVec) PadSpare() {
	for v.pos < v.end && v.pos&7 != 0 {
		_ = v.WriteBit(lhBit(v.pos))
	}
	for i := v.pos >> 3; i < v.end>>3; i++ {
		v.buf[i] = PadOctet
	}
	v.pos = v.end
}

// PadZero fills from the cursor to the limit with zero bits.
func (v *BitVec) PadZero() {
	for v.pos < v.end && v.pos&7 != 0 {
		_ = v.WriteBit(0)
	}
	for i := v.pos >> 3; i < v.end>>3; i++ {
		v.buf[i] = 0
	}
	v.pos = v.end
}
