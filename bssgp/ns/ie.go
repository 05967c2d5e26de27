package ns

import (
	"encoding/binary"
	"net/netip"

	"github.com/gopcu/gopcu/bssgp/internal/tlv"
)

// The IE tables. PDU is one struct for every NS PDU type, so each IE has
// one field whatever the PDU: ieSpecs says, per IEI, how the IE is coded
// (TS 48.016 §10.3) and which field holds it; pduSpecs lists, per PDU
// type, its IEs in the order of its §9 table with their presence (M, O,
// C). One encoder (MarshalTo) walks a PDU type's list; one decoder
// (Unmarshal) reads the IEs in wire order through ieSpecs, then checks the
// list's mandatory IEs and the PDU's conditions. What is wrong maps to the
// cause of the NS-STATUS that answers the PDU (§7.5): an IE that does not
// fit or has a wrong length is "Invalid essential IE", a missing one
// "Missing essential IE", an IP Address of an unknown type "Unknown IP
// address".

// ieSpec codes one IE.
type ieSpec struct {
	name string   // for the "<name> missing" error
	form tlv.Form // TLV, or TV (value of fixed length, the IP Address IE's given by its type)
	// TLV value lengths: exactly fixLen octets (fixLen > 0) or a multiple
	// of mult octets (mult > 0); badLen is the reason when not.
	fixLen, mult int
	badLen       string
	has          func(p *PDU) bool      // an O/C IE is encoded when has says so (nil: always)
	size         func(p *PDU) int       // value length to encode
	put          func(p *PDU, b []byte) // writes the value, len(b) == size(p)
	get          func(p *PDU, v []byte) // stores a value of a valid length
}

// ieSpecs is indexed by IEI.
var ieSpecs = [...]ieSpec{
	IECause: {name: "Cause", form: tlv.TLV, fixLen: 1, badLen: "length != 1",
		has:  func(p *PDU) bool { return p.HasCause },
		size: func(*PDU) int { return 1 }, put: func(p *PDU, b []byte) { b[0] = byte(p.Cause) },
		get: func(p *PDU, v []byte) { p.Cause, p.HasCause = Cause(v[0]), true }},
	IENSVCI: {name: "NS-VCI", form: tlv.TLV, fixLen: 2, badLen: "length != 2",
		has:  func(p *PDU) bool { return p.HasNSVCI },
		size: func(*PDU) int { return 2 }, put: func(p *PDU, b []byte) { binary.BigEndian.PutUint16(b, p.NSVCI) },
		get: func(p *PDU, v []byte) { p.NSVCI, p.HasNSVCI = binary.BigEndian.Uint16(v), true }},
	IENSPDU: {name: "NS PDU", form: tlv.TLV,
		has:  func(p *PDU) bool { return p.HasErrPDU },
		size: func(p *PDU) int { return len(p.ErrPDU) }, put: func(p *PDU, b []byte) { copy(b, p.ErrPDU) },
		get: func(p *PDU, v []byte) { p.ErrPDU, p.HasErrPDU = v, true }},
	IEBVCI: {name: "BVCI", form: tlv.TLV, fixLen: 2, badLen: "length != 2",
		has:  func(p *PDU) bool { return p.HasBVCI },
		size: func(*PDU) int { return 2 }, put: func(p *PDU, b []byte) { binary.BigEndian.PutUint16(b, p.BVCI) },
		get: func(p *PDU, v []byte) { p.BVCI, p.HasBVCI = binary.BigEndian.Uint16(v), true }},
	IENSEI: {name: "NSEI", form: tlv.TLV, fixLen: 2, badLen: "length != 2",
		has:  func(p *PDU) bool { return p.HasNSEI },
		size: func(*PDU) int { return 2 }, put: func(p *PDU, b []byte) { binary.BigEndian.PutUint16(b, p.NSEI) },
		get: func(p *PDU, v []byte) { p.NSEI, p.HasNSEI = binary.BigEndian.Uint16(v), true }},
	IEIP4List: {name: "IP list", form: tlv.TLV, mult: ip4ElemLen, badLen: "length not a multiple of 8",
		has:  func(p *PDU) bool { return p.HasIP4 },
		size: func(p *PDU) int { return len(p.IP4) * ip4ElemLen }, put: func(p *PDU, b []byte) { putIPList(b, p.IP4, false) },
		get: func(p *PDU, v []byte) { p.IP4, p.HasIP4 = appendIPList(p.IP4, v, false), true }},
	IEIP6List: {name: "IP list", form: tlv.TLV, mult: ip6ElemLen, badLen: "length not a multiple of 20",
		has:  func(p *PDU) bool { return p.HasIP6 },
		size: func(p *PDU) int { return len(p.IP6) * ip6ElemLen }, put: func(p *PDU, b []byte) { putIPList(b, p.IP6, true) },
		get: func(p *PDU, v []byte) { p.IP6, p.HasIP6 = appendIPList(p.IP6, v, true), true }},
	IEMaxNSVCs: {name: "Maximum number of NS-VCs", form: tlv.TV, fixLen: 2,
		size: func(*PDU) int { return 2 }, put: func(p *PDU, b []byte) { binary.BigEndian.PutUint16(b, p.MaxNSVCs) },
		get: func(p *PDU, v []byte) { p.MaxNSVCs = binary.BigEndian.Uint16(v) }},
	IENumIP4EP: {name: "Number of IP endpoints", form: tlv.TV, fixLen: 2,
		has:  func(p *PDU) bool { return p.HasNumIP4EP },
		size: func(*PDU) int { return 2 }, put: func(p *PDU, b []byte) { binary.BigEndian.PutUint16(b, p.NumIP4EP) },
		get: func(p *PDU, v []byte) { p.NumIP4EP, p.HasNumIP4EP = binary.BigEndian.Uint16(v), true }},
	IENumIP6EP: {name: "Number of IP endpoints", form: tlv.TV, fixLen: 2,
		has:  func(p *PDU) bool { return p.HasNumIP6EP },
		size: func(*PDU) int { return 2 }, put: func(p *PDU, b []byte) { binary.BigEndian.PutUint16(b, p.NumIP6EP) },
		get: func(p *PDU, v []byte) { p.NumIP6EP, p.HasNumIP6EP = binary.BigEndian.Uint16(v), true }},
	IEResetFlag: {name: "Reset Flag", form: tlv.TV, fixLen: 1, // §10.3.2f
		size: func(*PDU) int { return 1 }, put: func(p *PDU, b []byte) { b[0] = b2u8(p.ResetFlag) },
		get: func(p *PDU, v []byte) { p.ResetFlag = v[0]&1 != 0 }},
	IEIPAddress: {name: "IP Address", form: tlv.TV, // type octet + 4 or 16 octets (§10.3.2b); fixLen 0: ipAddrLen
		has:  func(p *PDU) bool { return p.IPAddr.IsValid() },
		size: func(p *PDU) int { return ipAddrLen(p.IPAddr) }, put: func(p *PDU, b []byte) { putIPAddr(b, p.IPAddr) },
		get: func(p *PDU, v []byte) { p.IPAddr = parseIPAddr(v) }},
}

func b2u8(b bool) uint8 {
	if b {
		return 1
	}
	return 0
}

// ieUse is one row of a PDU type's IE list: an IE with its presence, or
// (val set) a value-only field without IEI (TS 48.016 §10.3.x: the SNS
// End Flag and Transaction ID).
type ieUse struct {
	iei  IEI
	pres tlv.Pres
	val  *valueField
}

// valueField is a one-octet value-only field.
type valueField struct {
	put func(p *PDU) uint8
}

var (
	endFlag = &valueField{put: func(p *PDU) uint8 { return b2u8(p.EndFlag) }}
	tid     = &valueField{put: func(p *PDU) uint8 { return p.TransactionID }}
)

// pduSpec is a PDU type's IE list and its conditions beyond the M rows.
type pduSpec struct {
	ies   []ieUse
	check func(p *PDU, miss func(IEI, string) error) error
}

// anyIPList is the condition of SNS-ADD and SNS-CHANGEWEIGHT: a List of
// IP4 or of IP6 Elements.
func anyIPList(p *PDU, miss func(IEI, string) error) error {
	if !p.HasIP4 && !p.HasIP6 {
		return miss(IEIP4List, "IP list")
	}
	return nil
}

var ipLists = []ieUse{{iei: IEIP4List, pres: tlv.C}, {iei: IEIP6List, pres: tlv.C}}

func rows(r ...[]ieUse) []ieUse {
	var out []ieUse
	for _, x := range r {
		out = append(out, x...)
	}
	return out
}

// pduSpecs are the PDU tables of TS 48.016 §9.2 (NS) and §9.3 (SNS).
// NS-UNITDATA (a fixed header and the SDU) and the PDUs without IEs
// (NS-UNBLOCK(-ACK), NS-ALIVE(-ACK)) have none.
var pduSpecs = map[PDUType]pduSpec{
	PDUReset:      {ies: []ieUse{{iei: IECause}, {iei: IENSVCI}, {iei: IENSEI}}},
	PDUResetAck:   {ies: []ieUse{{iei: IENSVCI}, {iei: IENSEI}}},
	PDUBlock:      {ies: []ieUse{{iei: IECause}, {iei: IENSVCI}}},
	PDUBlockAck:   {ies: []ieUse{{iei: IENSVCI}}},
	PDUStatus:     {ies: rows([]ieUse{{iei: IECause}, {iei: IENSVCI, pres: tlv.C}, {iei: IENSPDU, pres: tlv.C}, {iei: IEBVCI, pres: tlv.C}}, ipLists), check: statusCheck},
	PDUSNSAck:     {ies: rows([]ieUse{{iei: IENSEI}, {val: tid}, {iei: IECause, pres: tlv.O}, {iei: IEIPAddress, pres: tlv.C}}, ipLists)},
	PDUSNSAdd:     {ies: rows([]ieUse{{iei: IENSEI}, {val: tid}}, ipLists), check: anyIPList},
	PDUSNSDelete:  {ies: rows([]ieUse{{iei: IENSEI}, {val: tid}, {iei: IEIPAddress, pres: tlv.C}}, ipLists), check: deleteCheck},
	PDUSNSConfig:  {ies: rows([]ieUse{{val: endFlag}, {iei: IENSEI}}, ipLists)},
	PDUSNSSizeAck: {ies: []ieUse{{iei: IENSEI}, {iei: IECause, pres: tlv.O}}},
	// Reset Flag and Maximum Number of NS-VCs are mandatory (§9.3.3) and
	// always sent; a received SNS-SIZE is not refused without them.
	PDUSNSSize: {ies: []ieUse{{iei: IENSEI}, {iei: IEResetFlag, pres: tlv.O}, {iei: IEMaxNSVCs, pres: tlv.O},
		{iei: IENumIP4EP, pres: tlv.C}, {iei: IENumIP6EP, pres: tlv.C}}, check: sizeCheck},
}

func init() {
	pduSpecs[PDUSNSChangeWeight] = pduSpecs[PDUSNSAdd]
	pduSpecs[PDUSNSConfigAck] = pduSpecs[PDUSNSSizeAck]
}

// statusCheck: the conditional IEs of NS-STATUS by cause (§9.2.9).
func statusCheck(p *PDU, miss func(IEI, string) error) error {
	switch p.Cause {
	case CauseNSVCBlocked, CauseNSVCUnknown:
		if !p.HasNSVCI {
			return miss(IENSVCI, "NS-VCI")
		}
	case CauseSemanticallyIncorrect, CausePDUNotCompatible, CauseProtocolErrorUnspec,
		CauseInvalidEssentialIE, CauseMissingEssentialIE:
		if !p.HasErrPDU {
			return miss(IENSPDU, "NS PDU")
		}
	case CauseBVCIUnknown:
		if !p.HasBVCI {
			return miss(IEBVCI, "BVCI")
		}
	case CauseIPTestFailed:
		return anyIPList(p, miss)
	}
	return nil
}

// deleteCheck: SNS-DELETE names an IP Address or IP Elements (§9.3.6).
func deleteCheck(p *PDU, miss func(IEI, string) error) error {
	if !p.HasIP4 && !p.HasIP6 && !p.IPAddr.IsValid() {
		return miss(IEIPAddress, "IP Address or IP list")
	}
	return nil
}

// sizeCheck: SNS-SIZE announces IPv4 or IPv6 endpoints (§9.3.3).
func sizeCheck(p *PDU, miss func(IEI, string) error) error {
	if !p.HasNumIP4EP && !p.HasNumIP6EP {
		return miss(IENumIP4EP, "Number of IP endpoints")
	}
	return nil
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
