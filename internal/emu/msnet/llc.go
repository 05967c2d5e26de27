// Package msnet is the GPRS protocol stack of an emulated MS above RLC/MAC:
// LLC (TS 44.064) in unacknowledged mode, ciphered with GEA3 when the
// network selects it (cipher.go) and in clear otherwise, GMM and
// SM (TS 24.008 §9.4, §9.5) for attach, routing area update, detach and
// PDP context activation, and SNDCP (TS 44.065) unacknowledged mode
// without compression. It is enough for Debian's osmo-sgsn 1.9 with
// osmo-ggsn; it is a test stack, not a conformance reference.
package msnet

import (
	"errors"
	"fmt"
	"github.com/gopcu/gopcu/llc"
)

// LLC SAPIs (TS 44.064 §6.2.3, Table 2).
const (
	SAPIGMM  = 1
	SAPITOM  = 2
	SAPIQoS1 = 3
	SAPIQoS2 = 5
	SAPISMS  = 7
	SAPIQoS3 = 9
	SAPIQoS4 = 11
)

// N202 is the octets of information the FCS covers in a UI frame with
// PM = 0 (TS 44.064 §5.5).
const N202 = llc.N202

// FCS is the LLC frame check sequence of b (TS 44.064 §5.5.1; llc.FCS).
func FCS(b []byte) uint32 { return llc.FCS(b) }

func appendFCS(b []byte, covered int) []byte {
	f := FCS(b[:covered])
	return append(b, byte(f), byte(f>>8), byte(f>>16))
}

// Frame kinds this stack knows.
const (
	KindUI = iota + 1
	KindXID
	KindOther // I, S and other U frames: ignored in unacknowledged mode
)

// Frame is a decoded LLC frame.
type Frame struct {
	SAPI uint8
	CR   bool // the C/R bit as sent
	Kind int
	NU   uint16 // UI: N(U)
	E    bool   // UI: encrypted
	PM   bool   // UI: FCS over the whole frame
	PF   bool   // U: P/F
	Info []byte
}

// Errors of ParseFrame.
var (
	ErrShortFrame = errors.New("msnet: LLC frame too short")
	ErrFCS        = errors.New("msnet: LLC FCS mismatch")
)

// ParseFrame decodes an LLC frame and checks its FCS (TS 44.064 §6.2-6.4).
func ParseFrame(b []byte) (Frame, error) {
	var f Frame
	if len(b) < 5 {
		return f, ErrShortFrame
	}
	f.SAPI = b[0] & 0x0f
	f.CR = b[0]&0x40 != 0
	body := b[:len(b)-3]
	fcs := uint32(b[len(b)-3]) | uint32(b[len(b)-2])<<8 | uint32(b[len(b)-1])<<16
	covered := len(body)
	switch {
	case b[1]&0xe0 == 0xc0: // UI: 110x xNNN NNNN NNEP
		if len(body) < 3 {
			return f, ErrShortFrame
		}
		f.Kind = KindUI
		f.NU = uint16(b[1]&7)<<6 | uint16(b[2]>>2)
		f.E = b[2]&2 != 0
		f.PM = b[2]&1 != 0
		f.Info = body[3:]
		if !f.PM && covered > 3+N202 {
			covered = 3 + N202
		}
	case b[1]&0xe0 == 0xe0: // U: 111P MMMM
		f.PF = b[1]&0x10 != 0
		f.Info = body[2:]
		if b[1]&0x0f == 0x0b {
			f.Kind = KindXID
		} else {
			f.Kind = KindOther
		}
	default:
		f.Kind = KindOther
	}
	if FCS(b[:covered]) != fcs {
		return f, ErrFCS
	}
	return f, nil
}

// UI builds an unciphered UI frame from the MS (a command: C/R = 0) with
// PM = 1 (TS 44.064 §6.3.5.2, §6.4.2.1).
func UI(sapi uint8, nu uint16, info []byte) []byte {
	nu &= 0x1ff
	b := make([]byte, 0, 3+len(info)+3)
	b = append(b, sapi&0x0f, 0xc0|byte(nu>>6), byte(nu<<2)|1)
	b = append(b, info...)
	return appendFCS(b, len(b))
}

// XIDResponse builds the MS's XID response (C/R = 1, F = the command's P)
// with the given XID information field.
func XIDResponse(sapi uint8, f bool, info []byte) []byte {
	ctl := byte(0xeb)
	if f {
		ctl |= 0x10
	}
	b := append([]byte{0x40 | sapi&0x0f, ctl}, info...)
	return appendFCS(b, len(b))
}

// XID parameter types (TS 44.064 §8.9, Table 6).
const (
	XIDVersion = 0
	XIDIOVUI   = 1
	XIDIOVI    = 2
	XIDT200    = 3
	XIDN200    = 4
	XIDN201U   = 5
	XIDN201I   = 6
	XIDmD      = 7
	XIDmU      = 8
	XIDkD      = 9
	XIDkU      = 10
	XIDL3      = 11
	XIDReset   = 12
)

// XIDParam is one XID parameter.
type XIDParam struct {
	Type  uint8
	Value []byte
}

// ParseXID splits an XID information field into its parameters (TS 44.064
// §6.4.1.6): octet 1 is XL, a 5-bit type and a 2-bit length; with XL = 1
// the length has 8 bits, the low 6 in octet 2's high bits.
func ParseXID(b []byte) ([]XIDParam, error) {
	var ps []XIDParam
	for len(b) > 0 {
		typ := b[0] >> 2 & 0x1f
		var n, h int
		if b[0]&0x80 != 0 {
			if len(b) < 2 {
				return ps, ErrShortFrame
			}
			n, h = int(b[0]&3)<<6|int(b[1]>>2), 2
		} else {
			n, h = int(b[0]&3), 1
		}
		if len(b) < h+n {
			return ps, fmt.Errorf("msnet: XID parameter %d: %w", typ, ErrShortFrame)
		}
		ps = append(ps, XIDParam{Type: typ, Value: b[h : h+n]})
		b = b[h+n:]
	}
	return ps, nil
}

// AppendXID encodes parameters (XL = 1 for lengths above 3 and for the
// Layer-3 parameters).
func AppendXID(b []byte, ps []XIDParam) []byte {
	for _, p := range ps {
		n := len(p.Value)
		if n > 3 || p.Type == XIDL3 {
			b = append(b, 0x80|p.Type<<2|byte(n>>6), byte(n<<2))
		} else {
			b = append(b, p.Type<<2|byte(n))
		}
		b = append(b, p.Value...)
	}
	return b
}
