package msemu

import "github.com/gopcu/gopcu/internal/emu/msnet"

// LLC UI frames as an MS builds them (TS 44.064 §6.3, §5.5): address octet,
// two control octets with N(U), information, and the 24-bit FCS. The PCU
// relays LLC frames unchanged; the SGSN checks the FCS, so the emulator
// must get it right to talk to a real SGSN.

// FCS computes the LLC frame check sequence over b (msnet.FCS, TS 44.064
// §5.5), sent least significant octet first.
func FCS(b []byte) uint32 { return msnet.FCS(b) }

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
