package rlcmac

// Small CSN.1 building blocks (TS 24.007 §11) that recur in the TS 44.060
// and TS 44.018 messages: options with one value, P0, the extended timing
// advance, the COMPACT reduced MA escape and the BEP link quality pairs.

// optU8 codes "{ 0 | 1 < name : bit(n) > }": the presence bit and the value
// carry the same field name.
func (c *Coder) optU8(has *bool, p *uint8, n int, name string) {
	if c.Opt(has, name) {
		c.U8(p, n, name)
	}
}

// optU32 is optU8 for a value of up to 32 bits.
func (c *Coder) optU32(has *bool, p *uint32, n int, name string) {
	if c.Opt(has, name) {
		c.U32(p, n, name)
	}
}

// codeP0 codes "P0 : bit(4) { BTS_PWR_CTRL_MODE : bit(1) } PR_MODE : bit(1)"
// (TS 44.060 §12.9a); btsMode is nil where the message has no
// BTS_PWR_CTRL_MODE (the Dynamic Allocation struct, §11.2.29).
func codeP0(c *Coder, p0 *uint8, btsMode, prMode *bool) {
	c.U8(p0, 4, "P0")
	if btsMode != nil {
		c.Bool(btsMode, "BTS_PWR_CTRL_MODE")
	}
	c.Bool(prMode, "PR_MODE")
}

// optP0 codes "{ 0 | 1 < P0 ... > }" (see codeP0).
func optP0(c *Coder, has *bool, p0 *uint8, btsMode, prMode *bool) {
	if c.Opt(has, "P0") {
		codeP0(c, p0, btsMode, prMode)
	}
}

// optExtTA codes "{ 0 | 1 < Packet Extended Timing Advance : bit(2) > }"
// (TS 44.060 §12.12b).
func optExtTA(c *Coder, has *bool, ta *uint8) {
	c.optU8(has, ta, 2, "Packet Extended Timing Advance")
}

// noCompactMA codes the "{ 0 | 1 < COMPACT reduced MA > }" of the EGPRS
// assignments (TS 44.060 §12.29) as absent: a present one is decoded as
// ErrUnsupported. It reports whether coding may go on.
func noCompactMA(c *Coder) bool {
	var compact bool
	if c.Opt(&compact, "COMPACT reduced MA") {
		c.Fail(ErrUnsupported, "COMPACT reduced MA")
		return false
	}
	return true
}

// codeLen1 codes a length field of n bits that carries the length minus
// one (the extension length of §12.26, MA_LENGTH of §12.10a); an encoder
// fails with ErrInvalid on length 0. It reports whether coding may go on.
func codeLen1(c *Coder, p *uint8, n int, name string) bool {
	l := *p - 1
	if !c.dec && *p == 0 {
		c.Fail(ErrInvalid, name)
		return false
	}
	c.U8(&l, n, name)
	*p = l + 1
	return true
}

// optMeanBEP codes "{ 0 | 1 < MEAN_BEP_x : bit(5) > < CV_BEP_x : bit(3) > }"
// of the EGPRS BEP link quality measurements (TS 44.060 §12.5.3).
func optMeanBEP(c *Coder, has *bool, mean, cv *uint8, meanName, cvName string) {
	if c.Opt(has, meanName) {
		c.U8(mean, 5, meanName)
		c.U8(cv, 3, cvName)
	}
}
