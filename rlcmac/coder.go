package rlcmac

// Coder drives one symmetric CSN.1 description (TS 24.007 §11, TS 44.060 §11)
// in either direction. A message type implements
//
//	func (m *T) csn(c *Coder)
//
// as a straight sequence of calls (c.U8(&m.TFI, 5, "TFI"), if c.Opt(&m.HasTA,
// "TA") {...}, ...). When decoding the calls read into the pointed fields, when
// encoding they write from them. The first error is sticky: later calls become
// no-ops and Err reports it with the bit offset and the field name.
type Coder struct {
	v   BitVec
	dec bool
	err error
}

// NewEncoder returns a Coder writing into b from bit 0.
func NewEncoder(b []byte) Coder { return Coder{v: NewBitVec(b)} }

// NewDecoder returns a Coder reading b from bit 0.
func NewDecoder(b []byte) Coder { return Coder{v: NewBitVec(b), dec: true} }

// Decoding reports whether the coder reads.
func (c *Coder) Decoding() bool { return c.dec }

// Err returns the first error.
func (c *Coder) Err() error { return c.err }

// Pos returns the bit position.
func (c *Coder) Pos() int { return c.v.pos }

// Vec gives access to the underlying bit vector.
func (c *Coder) Vec() *BitVec { return &c.v }

// AtEnd reports whether the input is exhausted (decode) or the block is full.
func (c *Coder) AtEnd() bool { return c.v.AtEnd() }

// Fail records err at the current position unless an error is already recorded.
func (c *Coder) Fail(err error, name string) {
	if c.err == nil {
		c.err = &BitError{Off: c.v.pos, Field: name, Err: err}
	}
}

func (c *Coder) bits(x *uint64, n int, name string) {
	if c.err != nil {
		if c.dec {
			*x = 0
		}
		return
	}
	var err error
	if c.dec {
		*x, err = c.v.Read(n)
	} else {
		if n < 64 && *x>>uint(n) != 0 {
			c.Fail(ErrOverflow, name)
			return
		}
		err = c.v.Write(*x, n)
	}
	if err != nil {
		c.Fail(err, name)
	}
}

// U8 codes an n-bit (<=8) unsigned field.
func (c *Coder) U8(p *uint8, n int, name string) {
	x := uint64(*p)
	c.bits(&x, n, name)
	if c.dec {
		*p = uint8(x)
	}
}

// U16 codes an n-bit (<=16) unsigned field.
func (c *Coder) U16(p *uint16, n int, name string) {
	x := uint64(*p)
	c.bits(&x, n, name)
	if c.dec {
		*p = uint16(x)
	}
}

// U32 codes an n-bit (<=32) unsigned field.
func (c *Coder) U32(p *uint32, n int, name string) {
	x := uint64(*p)
	c.bits(&x, n, name)
	if c.dec {
		*p = uint32(x)
	}
}

// U64 codes an n-bit (<=64) unsigned field.
func (c *Coder) U64(p *uint64, n int, name string) { c.bits(p, n, name) }

// Bool codes a one-bit flag.
func (c *Coder) Bool(p *bool, name string) {
	var x uint64
	if *p {
		x = 1
	}
	c.bits(&x, 1, name)
	if c.dec {
		*p = x == 1
	}
}

// Opt codes a "0 | 1 <x>" presence bit and reports whether x follows.
func (c *Coder) Opt(p *bool, name string) bool {
	c.Bool(p, name)
	return *p && c.err == nil
}

// Next codes one "1 <item>" / "0" step of a repetition ({1 <item>}** 0).
// Encoding writes more; decoding returns the bit read.
func (c *Coder) Next(more bool, name string) bool {
	c.Bool(&more, name)
	return more && c.err == nil
}

// repeat codes the items from.. of a repetition {1 <item>}** 0 (Next
// before each), the last one of max: encoding the *n items there are,
// decoding as many as the bits say, setting *n. An item beyond max fails
// with ErrOverflow at overflow. With toEnd the repetition also ends where
// the block does (its closing "0" falls into the padding).
func (c *Coder) repeat(n *uint8, from, max int, toEnd bool, name, overflow string, item func(i int)) {
	i := from
	for (!toEnd || c.v.Remaining() > 0) && c.Next(i < int(*n), name) {
		if i == max {
			c.Fail(ErrOverflow, overflow)
			return
		}
		item(i)
		i++
	}
	if c.dec {
		*n = uint8(i)
	}
}

// Fixed codes a constant n-bit field; decoding fails with ErrInvalid on mismatch.
func (c *Coder) Fixed(val uint64, n int, name string) {
	x := val
	c.bits(&x, n, name)
	if c.dec && c.err == nil && x != val {
		c.v.pos -= n
		c.Fail(ErrInvalid, name)
	}
}

// Spare codes n spare bits: written as 0, skipped when read.
func (c *Coder) Spare(n int) {
	var x uint64
	c.bits(&x, n, "spare")
}

// LH codes one L/H bit (H = true).
func (c *Coder) LH(p *bool, name string) {
	if c.err != nil {
		if c.dec {
			*p = false
		}
		return
	}
	if c.dec {
		b, err := c.v.ReadLH()
		if err != nil {
			c.Fail(err, name)
		}
		*p = b == 1
		return
	}
	var h uint8
	if *p {
		h = 1
	}
	if err := c.v.WriteLH(h); err != nil {
		c.Fail(err, name)
	}
}

// OptLH codes an "L | H <x>" presence bit and reports whether x follows.
func (c *Coder) OptLH(p *bool, name string) bool {
	c.LH(p, name)
	return *p && c.err == nil
}

// Ext codes a release-extension marker "{ null | 0 bit** | 1 <additions> }"
// (TS 44.060 §11, "Receiver backward compatible with earlier version"). When
// decoding, a message that ends here ("null") reads as absent.
func (c *Coder) Ext(p *bool, name string) bool {
	if c.dec && c.err == nil && c.v.AtEnd() {
		*p = false
		return false
	}
	return c.Opt(p, name)
}

// ExtLH is Ext with an L/H marker ("{ L | H <additions> }" with truncation).
func (c *Coder) ExtLH(p *bool, name string) bool {
	if c.dec && c.err == nil && c.v.AtEnd() {
		*p = false
		return false
	}
	return c.OptLH(p, name)
}

// BitString codes n bits held MSB-first in b (len(b) >= ceil(n/8)).
func (c *Coder) BitString(b []byte, n int, name string) {
	if len(b)*8 < n {
		c.Fail(ErrOverflow, name)
		return
	}
	for i := 0; i < n && c.err == nil; {
		k := n - i
		if k > 8 {
			k = 8
		}
		var x uint64
		if !c.dec {
			x = uint64(b[i/8] >> uint(8-k))
		}
		c.bits(&x, k, name)
		if c.dec {
			b[i/8] = byte(x) << uint(8-k)
		}
		i += k
	}
}

// PadSpare finishes an encoded block with the 0x2B spare padding.
func (c *Coder) PadSpare() {
	if !c.dec && c.err == nil {
		c.v.PadSpare()
	}
}
