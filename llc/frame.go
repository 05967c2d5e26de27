package llc

import (
	"errors"

	"github.com/gopcu/gopcu/internal/enumname"
)

// MaxFrameLen is the largest LLC frame the PCU accepts from the SGSN
// (osmo-pcu LLC_MAX_LEN; TS 44.064 §8.9.9 N201-U/I maximum 1520 octets of
// information plus header, MAC and FCS). Larger DL-UNITDATA PDUs are
// rejected by BSSGP with STATUS "Invalid mandatory information".
const MaxFrameLen = 1543

// FCSLen is the length of the LLC frame check sequence (TS 44.064 §5.5).
const FCSLen = 3

// LLC SAPIs (TS 44.064 §6.2.3, Table 2).
const (
	SAPIGMM    = 1  // GPRS mobility management
	SAPITOM2   = 2  // tunnelling of messages, high priority
	SAPIUser3  = 3  // SNDCP, QoS class 1
	SAPIUser5  = 5  // SNDCP, QoS class 2
	SAPISMS    = 7  // SMS
	SAPITOM8   = 8  // tunnelling of messages, low priority
	SAPIUser9  = 9  // SNDCP, QoS class 3
	SAPIUser11 = 11 // SNDCP, QoS class 4
)

// Format is the control field format of an LLC frame (TS 44.064 §6.3).
type Format uint8

// Control field formats (TS 44.064 §6.3.0).
const (
	FormatI  Format = iota // §6.3.1 information transfer (ABM, acknowledged)
	FormatS                // §6.3.2 supervisory (ABM)
	FormatUI               // §6.3.3 unconfirmed information
	FormatU                // §6.3.4 unnumbered (SABM, DISC, UA, DM, FRMR, XID, NULL)
)

var formatNames = map[Format]string{FormatI: "I", FormatS: "S", FormatUI: "UI", FormatU: "U"}

func (f Format) String() string { return enumname.String(formatNames, f, "Format(%d)") }

// Errors returned by Inspect.
var (
	ErrEmpty    = errors.New("llc: empty frame")
	ErrTooShort = errors.New("llc: frame too short for its control field")
	ErrTooLong  = errors.New("llc: frame longer than 1543 octets")
	ErrPD       = errors.New("llc: protocol discriminator bit set")
)

// Header is what the PCU can see of an LLC frame: the address field
// (TS 44.064 §6.2) and the control field (§6.3). LLC information is normally
// ciphered (GEA), so nothing beyond the control field is interpreted.
type Header struct {
	SAPI   uint8  // §6.2.3, low nibble of octet 1
	CR     bool   // §6.2.2 command/response bit
	Format Format // §6.3.0
	// HeaderLen is the length of address + control field (including a SACK
	// bitmap), i.e. the offset of the information field.
	HeaderLen int
	// NS is N(S) of an I frame (9 bits), NR is N(R) of I and S frames,
	// NU is N(U) of a UI frame (9 bits).
	NS, NR, NU uint16
	// A is the acknowledgement request bit of I and S frames.
	A bool
	// Supervisory function bits S1 S2 of I and S frames (0 RR, 1 ACK, 2 RNR,
	// 3 SACK), M bits of U frames (M4..M1) with P/F in PF.
	Func uint8
	PF   bool
	// UI frame flags: E (encrypted), PM (protected mode: FCS covers the
	// whole frame), IP (integrity protection, bit 5 of octet 2, spare
	// before Rel-14).
	E, PM, IP bool
}

// UI reports whether the frame is an unconfirmed information frame.
func (h Header) UI() bool { return h.Format == FormatUI }

// Inspect decodes the address and control field of an LLC frame. It never
// panics; frames whose control field is cut short return ErrTooShort with
// the fields decoded so far. The FCS is not checked (the PCU relays frames).
func Inspect(b []byte) (Header, error) {
	var h Header
	if len(b) == 0 {
		return h, ErrEmpty
	}
	if len(b) > MaxFrameLen {
		return h, ErrTooLong
	}
	a := b[0]
	h.SAPI = a & 0x0f
	h.CR = a&0x40 != 0
	if len(b) < 2 {
		return h, ErrTooShort
	}
	c := b[1:]
	switch {
	case c[0]&0x80 == 0: // §6.3.1: 0 A X N(S)
		h.Format = FormatI
		h.A = c[0]&0x40 != 0
		if len(c) < 3 {
			return h, ErrTooShort
		}
		h.NS = uint16(c[0]&0x1f)<<4 | uint16(c[1]>>4)
		h.NR = uint16(c[1]&0x07)<<6 | uint16(c[2]>>2)
		h.Func = c[2] & 0x03
		h.HeaderLen = 4
		if h.Func == 3 { // SACK: K octet then K+1 bitmap octets
			if len(c) < 4 {
				return h, ErrTooShort
			}
			k := int(c[3]&0x1f) + 1
			if len(c) < 4+k {
				return h, ErrTooShort
			}
			h.HeaderLen += 1 + k
		}
	case c[0]&0xc0 == 0x80: // §6.3.2: 1 0 A X X N(R)
		h.Format = FormatS
		h.A = c[0]&0x20 != 0
		if len(c) < 2 {
			return h, ErrTooShort
		}
		h.NR = uint16(c[0]&0x07)<<6 | uint16(c[1]>>2)
		h.Func = c[1] & 0x03
		h.HeaderLen = 3
	case c[0]&0xe0 == 0xc0: // §6.3.3: 1 1 0 X IP N(U) ... E PM
		h.Format = FormatUI
		h.IP = c[0]&0x10 != 0
		if len(c) < 2 {
			return h, ErrTooShort
		}
		h.NU = uint16(c[0]&0x07)<<6 | uint16(c[1]>>2)
		h.E = c[1]&0x02 != 0
		h.PM = c[1]&0x01 != 0
		h.HeaderLen = 3
	default: // §6.3.4: 1 1 1 P/F M4 M3 M2 M1
		h.Format = FormatU
		h.PF = c[0]&0x10 != 0
		h.Func = c[0] & 0x0f
		h.HeaderLen = 2
	}
	if a&0x80 != 0 {
		return h, ErrPD
	}
	return h, nil
}

// SAPI returns the SAPI of a frame (low nibble of the address octet), 0 for
// an empty frame.
func SAPI(b []byte) uint8 {
	if len(b) == 0 {
		return 0
	}
	return b[0] & 0x0f
}

// IsUI reports whether b is an LLC UI frame (TS 44.064 §6.3.3: control octet
// 1 starts with 110). This is osmo-pcu's test (first control octet & 0xE0 ==
// 0xC0).
func IsUI(b []byte) bool { return len(b) >= 2 && b[1]&0xe0 == 0xc0 }

// Protected reports whether the AQM must never drop the frame: GMM (SAPI 1),
// TOM (SAPI 2, 8), SMS (SAPI 7) and every frame that is not UI (I/S frames of
// acknowledged mode are retransmitted by the SGSN, U frames carry link
// control). PDU lifetime still applies to protected frames.
func Protected(b []byte) bool {
	switch SAPI(b) {
	case SAPIGMM, SAPITOM2, SAPISMS, SAPITOM8:
		return true
	}
	return !IsUI(b)
}

// Discardable is osmo-pcu's "can be discarded" test used by the lifetime
// hysteresis (TS 44.064 §6.3; osmo-pcu llc.c): frames longer than 60 octets
// that are UI frames of a SAPI other than GMM. Short frames are likely TCP
// ACKs and kept.
func Discardable(b []byte) bool {
	if len(b) <= 60 {
		return false
	}
	if SAPI(b) == SAPIGMM {
		return false
	}
	return IsUI(b)
}

// Dummy frame sizes (TS 44.060 §9.3.1a; osmo-pcu tbf_dl): the shortest LLC UI
// dummy command is 6 octets, the PCU never makes one longer than 79.
const (
	DummyMinLen = 6
	DummyMaxLen = 79
	// DummyFill is the fill octet of the dummy command (TS 44.064 §6.4.2.2).
	DummyFill = 0x2b
)

// AppendDummy appends an LLC UI dummy command of n octets to dst:
// 0x43 (SAPI 3, C/R 1) 0xC0 0x01 (UI, N(U) 0, PM 1) followed by 0x2B fill.
// n is clamped to [DummyMinLen, DummyMaxLen]. It is used to keep a DL TBF
// open when the queue is empty (delayed release, TS 44.060 §9.3.1a).
func AppendDummy(dst []byte, n int) []byte {
	if n < DummyMinLen {
		n = DummyMinLen
	}
	if n > DummyMaxLen {
		n = DummyMaxLen
	}
	dst = append(dst, 0x43, 0xc0, 0x01)
	for i := 3; i < n; i++ {
		dst = append(dst, DummyFill)
	}
	return dst
}

// IsDummy reports whether b is an LLC UI dummy command as made by
// AppendDummy (3 header octets, then only fill).
func IsDummy(b []byte) bool {
	if len(b) < DummyMinLen || len(b) > DummyMaxLen || b[0] != 0x43 || b[1] != 0xc0 || b[2] != 0x01 {
		return false
	}
	for _, x := range b[3:] {
		if x != DummyFill {
			return false
		}
	}
	return true
}
