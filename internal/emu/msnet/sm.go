package msnet

import (
	"net/netip"
	"strings"
)

// ActivatePDPRequest is an MS-originated Activate PDP Context Request
// (TS 24.008 §9.5.1) for a dynamic IPv4 address.
type ActivatePDPRequest struct {
	TI      uint8 // transaction identifier value 0..6 (TI flag 0: the MS allocated it)
	NSAPI   uint8 // 5..15
	LLCSAPI uint8 // 3, 5, 9 or 11
	QoS     []byte
	APN     string
}

// DefaultQoS asks for the subscribed QoS (TS 24.008 §10.5.6.5: 0 in the
// delay, reliability, peak and mean throughput and precedence fields).
var DefaultQoS = []byte{0x00, 0x00, 0x00}

// EncodeAPN encodes an APN as DNS labels (TS 23.003 §9.1).
func EncodeAPN(apn string) []byte {
	var b []byte
	for _, l := range strings.Split(apn, ".") {
		b = append(b, byte(len(l)))
		b = append(b, l...)
	}
	return b
}

// Marshal encodes the message.
func (r *ActivatePDPRequest) Marshal() []byte {
	b := []byte{r.TI&7<<4 | PDSM, SMActivatePDPRequest, r.NSAPI, r.LLCSAPI, byte(len(r.QoS))}
	b = append(b, r.QoS...)
	b = append(b, 2, 0xf1, 0x21) // PDP address: IETF, IPv4, none (dynamic)
	if r.APN != "" {
		apn := EncodeAPN(r.APN)
		b = append(b, 0x28, byte(len(apn)))
		b = append(b, apn...)
	}
	return b
}

// ActivatePDPAccept is the part of an Activate PDP Context Accept
// (§9.5.2) the MS uses.
type ActivatePDPAccept struct {
	LLCSAPI uint8
	QoS     []byte
	Addr    netip.Addr
}

// ParseActivatePDPAccept decodes the message from the octet after the
// message type: LLC SAPI, QoS (LV), radio priority, then optional IEs; the
// PDP address IE (0x2B) has the PDP type organisation (1: IETF), the type
// number (0x21: IPv4) and the address.
func ParseActivatePDPAccept(b []byte) (ActivatePDPAccept, error) {
	var a ActivatePDPAccept
	if len(b) < 2 || len(b) < 3+int(b[1]) {
		return a, ErrShortMsg
	}
	a.LLCSAPI = b[0] & 0x0f
	a.QoS = b[2 : 2+int(b[1])]
	rest := b[3+int(b[1]):]
	err := parseOptional(rest, func(iei byte, v []byte) {
		if iei == 0x2b && len(v) == 6 && v[0]&0x0f == 1 && v[1] == 0x21 {
			a.Addr = netip.AddrFrom4([4]byte(v[2:6]))
		}
	})
	return a, err
}

// DeactivatePDPAccept (§9.5.15) for the transaction ti (the network's TI
// flag inverted).
func DeactivatePDPAccept(tiOctet byte) []byte {
	return []byte{tiOctet ^ 0x80, SMDeactivatePDPAccept}
}

// DeactivatePDPRequest from the MS (§9.5.14): cause 36, regular deactivation.
func DeactivatePDPRequest(ti uint8) []byte {
	return []byte{ti&7<<4 | PDSM, SMDeactivatePDPRequest, 36}
}
