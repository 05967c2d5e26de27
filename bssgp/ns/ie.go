package ns

import (
	"encoding/binary"
	"net/netip"

	"github.com/gopcu/gopcu/bssgp/internal/tlv"
)

// ieSpecs codes each IE, whatever the PDU that carries it (TS 48.016
// §10.3): its name (for the "<name> missing" error), its form (TLV, or TV:
// a value of fixed length, the IP Address IE's given by its address type)
// and the length its value must have. Which PDU carries which IE, in which
// order and with which presence is each PDU type's ies method (pdu.go,
// pdu_sns.go); codec.go walks it.
type ieSpec struct {
	name string
	form tlv.Form
	// Value lengths: exactly fixLen octets (fixLen > 0) or, for TLV, a
	// multiple of mult octets (mult > 0); badLen is the reason when not.
	fixLen, mult int
	badLen       string
}

// ieSpecs is indexed by IEI.
var ieSpecs = [...]ieSpec{
	IECause:     {name: "Cause", form: tlv.TLV, fixLen: 1, badLen: "length != 1"},
	IENSVCI:     {name: "NS-VCI", form: tlv.TLV, fixLen: 2, badLen: "length != 2"},
	IENSPDU:     {name: "NS PDU", form: tlv.TLV},
	IEBVCI:      {name: "BVCI", form: tlv.TLV, fixLen: 2, badLen: "length != 2"},
	IENSEI:      {name: "NSEI", form: tlv.TLV, fixLen: 2, badLen: "length != 2"},
	IEIP4List:   {name: "IP list", form: tlv.TLV, mult: ip4ElemLen, badLen: "length not a multiple of 8"},
	IEIP6List:   {name: "IP list", form: tlv.TLV, mult: ip6ElemLen, badLen: "length not a multiple of 20"},
	IEMaxNSVCs:  {name: "Maximum number of NS-VCs", form: tlv.TV, fixLen: 2},
	IENumIP4EP:  {name: "Number of IP endpoints", form: tlv.TV, fixLen: 2},
	IENumIP6EP:  {name: "Number of IP endpoints", form: tlv.TV, fixLen: 2},
	IEResetFlag: {name: "Reset Flag", form: tlv.TV, fixLen: 1}, // §10.3.2f
	IEIPAddress: {name: "IP Address", form: tlv.TV},            // type octet + 4 or 16 octets (§10.3.2b): ipAddrValueLen
}

// IP elements and addresses (TS 48.016 §10.3.2b-d).

func putIPList(b []byte, l []IPElement, v6 bool) {
	off := 0
	for _, e := range l {
		if v6 {
			a := e.Addr.As16()
			off += copy(b[off:], a[:])
		} else {
			a := e.Addr.Unmap().As4()
			off += copy(b[off:], a[:])
		}
		binary.BigEndian.PutUint16(b[off:], e.Port)
		b[off+2], b[off+3] = e.SigWeight, e.DataWeight
		off += 4
	}
}

func appendIPList(l []IPElement, v []byte, v6 bool) []IPElement {
	if v6 {
		for i := 0; i < len(v); i += ip6ElemLen {
			l = append(l, IPElement{Addr: netip.AddrFrom16([16]byte(v[i : i+16])), Port: binary.BigEndian.Uint16(v[i+16:]),
				SigWeight: v[i+18], DataWeight: v[i+19]})
		}
		return l
	}
	for i := 0; i < len(v); i += ip4ElemLen {
		l = append(l, IPElement{Addr: netip.AddrFrom4([4]byte(v[i : i+4])), Port: binary.BigEndian.Uint16(v[i+4:]),
			SigWeight: v[i+6], DataWeight: v[i+7]})
	}
	return l
}

func ipAddrLen(a netip.Addr) int {
	if a.Is4() || a.Is4In6() {
		return 1 + 4
	}
	return 1 + 16
}

func putIPAddr(b []byte, a netip.Addr) {
	if a.Is4() || a.Is4In6() {
		b[0] = ipAddrTypeV4
		x := a.Unmap().As4()
		copy(b[1:], x[:])
		return
	}
	b[0] = ipAddrTypeV6
	x := a.As16()
	copy(b[1:], x[:])
}

// ipAddrValueLen is the value length of an IP Address IE of the given
// address type (0: unknown type).
func ipAddrValueLen(typ byte) int {
	switch typ {
	case ipAddrTypeV4:
		return 1 + 4
	case ipAddrTypeV6:
		return 1 + 16
	}
	return 0
}

func parseIPAddr(v []byte) netip.Addr {
	if v[0] == ipAddrTypeV4 {
		return netip.AddrFrom4([4]byte(v[1:5]))
	}
	return netip.AddrFrom16([16]byte(v[1:17]))
}
