package llc

import "github.com/gopcu/gopcu/internal/pcapw"

// Flow keys: inside one user-data SAPI, gopcu separates the traffic of
// different connections the way FQ-CoDel does (RFC 8290 §4.1.1), as far as
// a PCU can see it: an unencrypted LLC UI frame carries an SNDCP PDU
// (TS 44.065 §7.2) whose first segment holds the IP header; its NSAPI,
// addresses, protocol and ports identify the flow. Frames that do not show
// an uncompressed IPv4 (valid header checksum) or IPv6 header stay in the
// flow of their SAPI.

// Flow key kinds returned by FlowKey.
const (
	KeyNone         = iota // no IP flow visible: use the SAPI's flow
	KeyIP                  // first SNDCP segment with an IP header: key is valid
	KeyContinuation        // later segment of an N-PDU of NSAPI nsapi
)

// FlowKey classifies an LLC frame (with FCS).
func FlowKey(b []byte) (key uint32, nsapi uint8, kind int) {
	if len(b) < 3+1+FCSLen || b[1]&0xe0 != 0xc0 || b[2]&0x02 != 0 { // not UI, or E bit set
		return 0, 0, KeyNone
	}
	s := b[3 : len(b)-FCSLen]
	nsapi = s[0] & 0x0f
	if s[0]&0x80 != 0 || nsapi < 5 { // X bit spare; NSAPI 0..4 reserved (TS 24.008 §10.5.6.2)
		return 0, 0, KeyNone
	}
	if s[0]&0x40 == 0 {
		return 0, nsapi, KeyContinuation
	}
	hl := 3 // SN-DATA: NSAPI, DCOMP/PCOMP, N-PDU number
	if s[0]&0x20 != 0 {
		hl = 4 // SN-UNITDATA: segment number / N-PDU number
	}
	if len(s) < hl || s[1]&0x0f != 0 { // PCOMP: compressed header
		return 0, nsapi, KeyNone
	}
	ip := s[hl:]
	h := uint32(2166136261)
	mix := func(x []byte) {
		for _, c := range x {
			h ^= uint32(c)
			h *= 16777619
		}
	}
	mix([]byte{b[0] & 0x0f, nsapi})
	switch {
	case len(ip) >= 20 && ip[0]>>4 == 4 && ip[0]&0x0f >= 5 && ipv4ChecksumOK(ip[:int(ip[0]&0x0f)*4]):
		ihl := int(ip[0]&0x0f) * 4
		proto := ip[9]
		mix([]byte{proto})
		mix(ip[12:20])
		if len(ip) >= ihl+4 && (proto == 6 || proto == 17) {
			mix(ip[ihl : ihl+4])
		} else if len(ip) >= ihl+6 && proto == 1 { // ICMP echo identifier
			mix(ip[ihl+4 : ihl+6])
		}
	case len(ip) >= 40 && ip[0]>>4 == 6 && int(ip[4])<<8|int(ip[5]) == len(ip)-40:
		next := ip[6]
		mix([]byte{next})
		mix(ip[8:40])
		if len(ip) >= 44 && (next == 6 || next == 17) {
			mix(ip[40:44])
		}
	default:
		return 0, nsapi, KeyNone
	}
	return h, nsapi, KeyIP
}

// ipv4ChecksumOK reports whether IPv4 header h carries a valid header
// checksum (RFC 791 §3.1, RFC 1071: the checksum over it is 0).
func ipv4ChecksumOK(h []byte) bool {
	return len(h) >= 20 && pcapw.Fold(pcapw.Sum(0, h)) == 0
}

// sndcpSegment reads the SN-UNITDATA header (TS 44.065 §7.2) of an
// unencrypted LLC UI frame (with FCS): NSAPI, N-PDU number, whether it is
// the first segment (F) and whether more segments follow (M).
func sndcpSegment(b []byte) (nsapi uint8, npdu uint16, first, more, ok bool) {
	if len(b) < 3+1+FCSLen || b[1]&0xe0 != 0xc0 || b[2]&0x02 != 0 {
		return 0, 0, false, false, false
	}
	s := b[3 : len(b)-FCSLen]
	if s[0]&0x80 != 0 || s[0]&0x20 == 0 || s[0]&0x0f < 5 { // X set, SN-DATA, reserved NSAPI
		return 0, 0, false, false, false
	}
	first, more = s[0]&0x40 != 0, s[0]&0x10 != 0
	off := 1
	if first {
		off = 2 // DCOMP/PCOMP
	}
	if len(s) < off+2 {
		return 0, 0, false, false, false
	}
	return s[0] & 0x0f, uint16(s[off]&0x0f)<<8 | uint16(s[off+1]), first, more, true
}
