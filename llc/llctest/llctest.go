// Package llctest builds LLC frames for the tests of the packages that
// queue them (llc, pcu).
package llctest

import (
	"encoding/binary"

	"github.com/gopcu/gopcu/internal/pcapw"
)

// IPFrame is an LLC UI frame (SAPI 3, unciphered; TS 44.064 §6.3.5.2)
// carrying an SNDCP SN-UNITDATA first segment (NSAPI 5, TS 44.065 §7.2)
// with an IPv4 packet of protocol proto between the given ports (ICMP: an
// echo request with id = sport), padded to size octets including a zero
// FCS: what llc.FlowKey classifies by its 5-tuple.
func IPFrame(proto byte, sport, dport uint16, size int) []byte {
	ip := make([]byte, 28)
	ip[0] = 0x45
	binary.BigEndian.PutUint16(ip[2:], uint16(size))
	ip[8], ip[9] = 64, proto
	copy(ip[12:], []byte{10, 0, 0, 1, 10, 0, 0, 2})
	binary.BigEndian.PutUint16(ip[10:], pcapw.Fold(pcapw.Sum(pcapw.Sum(0, ip[:10]), ip[12:20])))
	if proto == 1 {
		ip[20] = 8
		binary.BigEndian.PutUint16(ip[24:], sport)
	} else {
		binary.BigEndian.PutUint16(ip[20:], sport)
		binary.BigEndian.PutUint16(ip[22:], dport)
	}
	b := []byte{0x03, 0xc0, 0x01, 0x60 | 5, 0x00, 0x00, 0x00}
	b = append(b, ip...)
	for len(b) < size-3 {
		b = append(b, 0)
	}
	return append(b, 0, 0, 0)
}
