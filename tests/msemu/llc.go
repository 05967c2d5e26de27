package msemu

// LLC UI frames as an MS builds them (TS 44.064 §6.3, §5.5): address octet,
// two control octets with N(U), information, and the 24-bit FCS. The PCU
// relays LLC frames unchanged; the SGSN checks the FCS, so the emulator
// must get it right to talk to a real SGSN.

// fcsTable is the reflected CRC-24 of TS 44.064 §5.5 (generator
// x^24+x^23+x^21+x^20+x^19+x^17+x^16+x^15+x^13+x^8+x^7+x^5+x^4+x^2+1,
// 0xBBA1B5, reflected 0xAD85DD).
var fcsTable = func() (t [256]uint32) {
	for i := range t {
		c := uint32(i)
		for k := 0; k < 8; k++ {
			if c&1 != 0 {
				c = c>>1 ^ 0xAD85DD
			} else {
				c >>= 1
			}
		}
		t[i] = c
	}
	return
}()

// FCS computes the LLC frame check sequence over b (initial value all
// ones, result complemented), sent least significant octet first.
func FCS(b []byte) uint32 {
	c := uint32(0xffffff)
	for _, x := range b {
		c = c>>8 ^ fcsTable[byte(c)^x]
	}
	return ^c & 0xffffff
}

// UIFrame builds an unprotected-mode-off (PM=1: FCS over the whole frame)
// LLC UI frame for SAPI sapi with sequence number nu.
func UIFrame(sapi uint8, nu uint16, info []byte) []byte {
	nu &= 0x1ff
	b := make([]byte, 0, 3+len(info)+3)
	b = append(b, sapi&0x0f, 0xc0|byte(nu>>6), byte(nu<<2)|1)
	b = append(b, info...)
	f := FCS(b)
	return append(b, byte(f), byte(f>>8), byte(f>>16))
}

// CheckFCS reports whether a received frame's FCS is right.
func CheckFCS(frame []byte) bool {
	if len(frame) < 6 {
		return false
	}
	n := len(frame) - 3
	f := FCS(frame[:n])
	return frame[n] == byte(f) && frame[n+1] == byte(f>>8) && frame[n+2] == byte(f>>16)
}
