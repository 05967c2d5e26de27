package msnet

import (
	"encoding/binary"
	"errors"
	"fmt"
)

// Protocol discriminators (TS 24.007 §11.2.3.1.1).
const (
	PDGMM = 0x08
	PDSM  = 0x0a
)

// GMM message types (TS 24.008 §10.4, Table 10.4).
const (
	GMMAttachRequest      = 0x01
	GMMAttachAccept       = 0x02
	GMMAttachComplete     = 0x03
	GMMAttachReject       = 0x04
	GMMDetachRequest      = 0x05
	GMMDetachAccept       = 0x06
	GMMRAURequest         = 0x08
	GMMRAUAccept          = 0x09
	GMMRAUComplete        = 0x0a
	GMMRAUReject          = 0x0b
	GMMPTMSIReallocCmd    = 0x10
	GMMPTMSIReallocCompl  = 0x11
	GMMAuthCipherRequest  = 0x12
	GMMAuthCipherResponse = 0x13
	GMMAuthCipherReject   = 0x14
	GMMIdentityRequest    = 0x15
	GMMIdentityResponse   = 0x16
	GMMStatus             = 0x20
	GMMInformation        = 0x21
)

// SM message types (TS 24.008 §10.4, Table 10.4a).
const (
	SMActivatePDPRequest   = 0x41
	SMActivatePDPAccept    = 0x42
	SMActivatePDPReject    = 0x43
	SMDeactivatePDPRequest = 0x46
	SMDeactivatePDPAccept  = 0x47
	SMStatus               = 0x55
)

// Mobile identity types (TS 24.008 §10.5.1.4, Table 10.5.4).
const (
	IDIMSI   = 1
	IDIMEI   = 2
	IDIMEISV = 3
	IDTMSI   = 4
)

// RAI is a routing area identification (TS 24.008 §10.5.5.15).
type RAI struct {
	MCC, MNC uint16
	MNC3     bool // three-digit MNC
	LAC      uint16
	RAC      uint8
}

// Append encodes the 6 octets: MCC2 MCC1 | MNC3 MCC3 | MNC2 MNC1 | LAC | RAC.
func (r RAI) Append(b []byte) []byte {
	m1, m2, m3 := r.MCC/100%10, r.MCC/10%10, r.MCC%10
	var n1, n2, n3 uint16
	if r.MNC3 {
		n1, n2, n3 = r.MNC/100%10, r.MNC/10%10, r.MNC%10
	} else {
		n1, n2, n3 = r.MNC/10%10, r.MNC%10, 0xf
	}
	return append(b, byte(m2<<4|m1), byte(n3<<4|m3), byte(n2<<4|n1), byte(r.LAC>>8), byte(r.LAC), r.RAC)
}

// ParseRAI decodes 6 octets.
func ParseRAI(b []byte) (RAI, error) {
	if len(b) < 6 {
		return RAI{}, ErrShortMsg
	}
	var r RAI
	r.MCC = uint16(b[0]&0xf)*100 + uint16(b[0]>>4)*10 + uint16(b[1]&0xf)
	if b[1]>>4 == 0xf {
		r.MNC = uint16(b[2]&0xf)*10 + uint16(b[2]>>4)
	} else {
		r.MNC3 = true
		r.MNC = uint16(b[2]&0xf)*100 + uint16(b[2]>>4)*10 + uint16(b[1]>>4)
	}
	r.LAC = binary.BigEndian.Uint16(b[3:])
	r.RAC = b[5]
	return r, nil
}

// ErrShortMsg: a message ends inside a mandatory part.
var ErrShortMsg = errors.New("msnet: message too short")

// DigitsIdentity encodes an IMSI, IMEI or IMEISV mobile identity value
// (without the length octet): the first digit with the odd/even flag and
// the type, then two digits an octet, low nibble first, 0xF fill.
func DigitsIdentity(typ uint8, digits string) []byte {
	odd := len(digits)%2 == 1
	d := func(i int) byte {
		if i >= len(digits) {
			return 0xf
		}
		return digits[i] - '0'
	}
	b := []byte{d(0)<<4 | typ}
	if odd {
		b[0] |= 8
	}
	for i := 1; i < len(digits); i += 2 {
		b = append(b, d(i+1)<<4|d(i))
	}
	return b
}

// TMSIIdentity encodes a (P-)TMSI mobile identity value.
func TMSIIdentity(tmsi uint32) []byte {
	return []byte{0xf4, byte(tmsi >> 24), byte(tmsi >> 16), byte(tmsi >> 8), byte(tmsi)}
}

// Identity is a decoded mobile identity.
type Identity struct {
	Type   uint8
	Digits string
	TMSI   uint32
}

// ParseIdentity decodes a mobile identity value.
func ParseIdentity(b []byte) (Identity, error) {
	if len(b) < 1 {
		return Identity{}, ErrShortMsg
	}
	id := Identity{Type: b[0] & 7}
	if id.Type == IDTMSI {
		if len(b) < 5 {
			return id, ErrShortMsg
		}
		id.TMSI = binary.BigEndian.Uint32(b[1:])
		return id, nil
	}
	add := func(n byte) {
		if n <= 9 {
			id.Digits += string('0' + n)
		}
	}
	add(b[0] >> 4)
	for i, x := range b[1:] {
		add(x & 0xf)
		if i == len(b)-2 && b[0]&8 == 0 {
			break // even count: the last high nibble is the fill
		}
		add(x >> 4)
	}
	return id, nil
}

// LocalTLLI is the local TLLI of a P-TMSI (TS 23.003 §2.6: top bits 11).
func LocalTLLI(ptmsi uint32) uint32 { return 0xc0000000 | ptmsi&0x3fffffff }

// ForeignTLLI is the foreign TLLI of a P-TMSI (top bits 10).
func ForeignTLLI(ptmsi uint32) uint32 { return 0x80000000 | ptmsi&0x3fffffff }

// RandomTLLI is a random TLLI (top bits 01111) from 27 random bits.
func RandomTLLI(r uint32) uint32 { return 0x78000000 | r&0x07ffffff }

// AttachRequest holds what the MS puts in an Attach Request.
type AttachRequest struct {
	NetCap   []byte // MS network capability value (TS 24.008 §10.5.5.12)
	Type     uint8  // attach type: 1 GPRS attach, 3 combined
	CKSN     uint8  // 7: no key
	DRX      [2]byte
	ID       []byte // mobile identity value (IMSI or P-TMSI)
	OldRAI   RAI
	RadioCap []byte // MS Radio Access Capability value (§10.5.5.12a)
}

// DefaultNetCap: GEA/1 off, SM over dedicated and GPRS channels, UCS2
// default alphabet preferred, SS screening phase 2, no SoLSA, R99 and
// later; no GEA/2..7 (so the network leaves ciphering off).
var DefaultNetCap = []byte{0x60, 0x00}

// Marshal encodes the message (TS 24.008 §9.4.1).
func (a *AttachRequest) Marshal() []byte {
	b := []byte{PDGMM, GMMAttachRequest, byte(len(a.NetCap))}
	b = append(b, a.NetCap...)
	b = append(b, a.CKSN<<4|a.Type&7)
	b = append(b, a.DRX[:]...)
	b = append(b, byte(len(a.ID)))
	b = append(b, a.ID...)
	b = a.OldRAI.Append(b)
	b = append(b, byte(len(a.RadioCap)))
	return append(b, a.RadioCap...)
}

// Accept is the part of an Attach Accept (§9.4.2) or a Routing Area
// Update Accept (§9.4.15) the MS uses.
type Accept struct {
	Result      uint8 // attach or update result
	PeriodicRAU uint8 // GPRS timer value
	RAI         RAI
	HasPTMSI    bool
	PTMSI       uint32
	HasReady    bool
	ReadyTimer  uint8
}

// ParseAttachAccept decodes an Attach Accept from the octet after the
// message type (its RAI follows the radio priorities).
func ParseAttachAccept(b []byte) (Accept, error) { return parseAccept(b, 3) }

// ParseRAUAccept decodes a RAU Accept from the octet after the message type.
func ParseRAUAccept(b []byte) (Accept, error) { return parseAccept(b, 2) }

// parseAccept decodes the result and periodic RA update timer, the RAI
// at octet rai and the optional IEs after it: Allocated P-TMSI (0x18, a
// Mobile Identity of type TMSI) and Negotiated READY timer (0x17).
func parseAccept(b []byte, rai int) (Accept, error) {
	var a Accept
	if len(b) < rai+6 {
		return a, ErrShortMsg
	}
	a.Result, a.PeriodicRAU = b[0]&7, b[1]
	var err error
	if a.RAI, err = ParseRAI(b[rai : rai+6]); err != nil {
		return a, err
	}
	return a, parseOptional(b[rai+6:], func(iei byte, v []byte) {
		switch iei {
		case 0x18:
			if id, err := ParseIdentity(v); err == nil && id.Type == IDTMSI {
				a.HasPTMSI, a.PTMSI = true, id.TMSI
			}
		case 0x17:
			if len(v) > 0 {
				a.HasReady, a.ReadyTimer = true, v[0]
			}
		}
	})
}

// gmmTV are the GMM/SM IEIs of type TV with a fixed length (value octets),
// and type-1 IEIs (high nibble) that take one octet with their value.
var gmmTV = map[byte]int{
	0x19: 3, // P-TMSI signature
	0x17: 1, // negotiated READY timer
	0x25: 1, // GMM cause
}

// parseOptional walks TV/TLV/type-1 IEs (TS 24.007 §11.2.1.1): type-1 IEIs
// have the high bit set and carry their value in the low nibble; the TV
// IEIs in gmmTV have fixed lengths; everything else is TLV.
func parseOptional(b []byte, f func(iei byte, v []byte)) error {
	for len(b) > 0 {
		iei := b[0]
		if iei&0x80 != 0 {
			f(iei&0xf0, []byte{iei & 0x0f})
			b = b[1:]
			continue
		}
		if n, ok := gmmTV[iei]; ok {
			if len(b) < 1+n {
				return ErrShortMsg
			}
			f(iei, b[1:1+n])
			b = b[1+n:]
			continue
		}
		if len(b) < 2 || len(b) < 2+int(b[1]) {
			return fmt.Errorf("msnet: IE %#02x: %w", iei, ErrShortMsg)
		}
		f(iei, b[2:2+int(b[1])])
		b = b[2+int(b[1]):]
	}
	return nil
}

// AttachComplete (§9.4.3).
func AttachComplete() []byte { return []byte{PDGMM, GMMAttachComplete} }

// RAUComplete (§9.4.16).
func RAUComplete() []byte { return []byte{PDGMM, GMMRAUComplete} }

// PTMSIReallocComplete (§9.4.8).
func PTMSIReallocComplete() []byte { return []byte{PDGMM, GMMPTMSIReallocCompl} }

// IdentityResponse (§9.4.13) with a mobile identity value.
func IdentityResponse(id []byte) []byte {
	return append([]byte{PDGMM, GMMIdentityResponse, byte(len(id))}, id...)
}

// AuthCipherResponse (§9.4.10) without authentication: the A&C reference
// number echoed, no SRES (an auth-policy accept-all network does not
// authenticate; a network that does needs the SIM's keys).
func AuthCipherResponse(ref uint8, sres []byte) []byte {
	b := []byte{PDGMM, GMMAuthCipherResponse, ref & 0x0f}
	if sres != nil {
		b = append(b, 0x22)
		b = append(b, sres...)
	}
	return b
}

// RAURequest (§9.4.14): update type 0 (RA updating), no key, old RAI,
// radio capability; the P-TMSI goes in the optional P-TMSI IE (0x18).
func RAURequest(old RAI, radioCap []byte, ptmsi uint32, periodic bool) []byte {
	typ := byte(0)
	if periodic {
		typ = 3
	}
	b := []byte{PDGMM, GMMRAURequest, 0x70 | typ}
	b = old.Append(b)
	b = append(b, byte(len(radioCap)))
	b = append(b, radioCap...)
	id := TMSIIdentity(ptmsi)
	b = append(b, 0x18, byte(len(id)))
	return append(b, id...)
}

// DetachRequest from the MS (§9.4.5.2): detach type 1 (GPRS detach),
// normal detach (no power off), with its P-TMSI when it has one.
func DetachRequest(powerOff bool, ptmsi uint32, hasPTMSI bool) []byte {
	t := byte(1)
	if powerOff {
		t |= 8
	}
	b := []byte{PDGMM, GMMDetachRequest, t}
	if hasPTMSI {
		id := TMSIIdentity(ptmsi)
		b = append(b, 0x18, byte(len(id)))
		b = append(b, id...)
	}
	return b
}

// DetachAccept from the MS (§9.4.6.1), answering a network detach.
func DetachAccept() []byte { return []byte{PDGMM, GMMDetachAccept} }
