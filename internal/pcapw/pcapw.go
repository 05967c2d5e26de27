// Package pcapw is gopcu's one pcap writer: the classic pcap file format
// (the tcpdump/libpcap "pcap-savefile" format, little-endian, microsecond
// time stamps, version 2.4) with LINKTYPE_RAW (101: every packet a raw
// IPv4 or IPv6 packet), and the IPv4/IPv6 + UDP framing with the one
// implementation of the Internet checksum (RFC 1071) in the module.
//
// Every writer of pcaps uses it: the GSMTAP pcap writer (gsmtap), the
// process capture (stats/capture) and the test helpers
// (internal/testutil). It is written by hand rather than on gopacket's
// pcapgo because pcapgo imports gopacket/layers, whose initialisation
// costs about 9 MB of resident memory in every gopcu process
// (docs/performance.md); tests read the files back with pcapgo.
package pcapw

import (
	"encoding/binary"
	"io"
	"net/netip"
	"time"
)

// File format constants.
const (
	// Magic is the file header's magic number (microsecond resolution).
	Magic = 0xa1b2c3d4
	// LinkTypeRaw is LINKTYPE_RAW: raw IPv4 or IPv6, per packet.
	LinkTypeRaw = 101
	// FileHeaderLen and RecordHeaderLen are the sizes of the file and
	// per-packet record headers.
	FileHeaderLen   = 24
	RecordHeaderLen = 16
	// DefaultSnaplen is the snapshot length used when none is given.
	DefaultSnaplen = 65535
)

// AppendFileHeader appends the 24-octet file header (version 2.4, time
// zone and accuracy 0, snaplen, LINKTYPE_RAW).
func AppendFileHeader(b []byte, snaplen uint32) []byte {
	b = binary.LittleEndian.AppendUint32(b, Magic)
	b = binary.LittleEndian.AppendUint16(b, 2)
	b = binary.LittleEndian.AppendUint16(b, 4)
	b = append(b, 0, 0, 0, 0, 0, 0, 0, 0) // thiszone, sigfigs
	b = binary.LittleEndian.AppendUint32(b, snaplen)
	return binary.LittleEndian.AppendUint32(b, LinkTypeRaw)
}

// AppendRecordHeader appends the 16-octet record header of a packet of
// origLen octets of which capLen are in the file.
func AppendRecordHeader(b []byte, ts time.Time, capLen, origLen int) []byte {
	b = binary.LittleEndian.AppendUint32(b, uint32(ts.Unix()))
	b = binary.LittleEndian.AppendUint32(b, uint32(ts.Nanosecond()/1000))
	b = binary.LittleEndian.AppendUint32(b, uint32(capLen))
	return binary.LittleEndian.AppendUint32(b, uint32(origLen))
}

// AppendIPUDP appends an IPv4 (both ends IPv4 or IPv4-mapped) or IPv6
// packet carrying one UDP datagram with payload, checksums filled in.
// Mixed families are shown as IPv6 with IPv4-mapped addresses. The IPv4
// header has no options, DF set, identification 0 and TTL 64.
func AppendIPUDP(b []byte, src, dst netip.AddrPort, payload []byte) []byte {
	sa, da := src.Addr().Unmap(), dst.Addr().Unmap()
	udpLen := 8 + len(payload)
	var pseudo uint32
	if sa.Is4() && da.Is4() {
		// RFC 791 §3.1 header, no options.
		total := 20 + udpLen
		off := len(b)
		b = append(b, make([]byte, 20)...)
		ip := b[off:]
		ip[0] = 0x45
		binary.BigEndian.PutUint16(ip[2:], uint16(total))
		ip[6] = 0x40 // DF
		ip[8] = 64   // TTL
		ip[9] = 17   // UDP
		s4, d4 := sa.As4(), da.As4()
		copy(ip[12:16], s4[:])
		copy(ip[16:20], d4[:])
		binary.BigEndian.PutUint16(ip[10:], Fold(Sum(0, ip[:20])))
		pseudo = Sum(Sum(0, s4[:]), d4[:]) + 17 + uint32(udpLen)
	} else {
		// RFC 8200 §3 header; the UDP checksum is mandatory (§8.1).
		off := len(b)
		b = append(b, make([]byte, 40)...)
		ip := b[off:]
		ip[0] = 0x60
		binary.BigEndian.PutUint16(ip[4:], uint16(udpLen))
		ip[6] = 17
		ip[7] = 64
		s16, d16 := sa.As16(), da.As16()
		copy(ip[8:24], s16[:])
		copy(ip[24:40], d16[:])
		pseudo = Sum(Sum(0, s16[:]), d16[:]) + 17 + uint32(udpLen)
	}
	// RFC 768 header; the checksum covers the pseudo header.
	off := len(b)
	b = binary.BigEndian.AppendUint16(b, src.Port())
	b = binary.BigEndian.AppendUint16(b, dst.Port())
	b = binary.BigEndian.AppendUint16(b, uint16(udpLen))
	b = append(b, 0, 0)
	b = append(b, payload...)
	ck := Fold(Sum(pseudo, b[off:]))
	if ck == 0 {
		ck = 0xffff // RFC 768: a computed zero is sent as all ones
	}
	binary.BigEndian.PutUint16(b[off+6:], ck)
	return b
}

// Sum adds b to the running 32-bit one's complement sum s as 16-bit
// big-endian words, an odd last octet padded with zero (RFC 1071 §4.1).
func Sum(s uint32, b []byte) uint32 {
	n := len(b) &^ 1
	for i := 0; i < n; i += 2 {
		s += uint32(b[i])<<8 | uint32(b[i+1])
	}
	if n < len(b) {
		s += uint32(b[n]) << 8
	}
	return s
}

// Fold folds the carries of s into 16 bits and returns the complement:
// the Internet checksum (RFC 1071 §4.1). Over data that carries a valid
// checksum it is 0.
func Fold(s uint32) uint16 {
	for s>>16 != 0 {
		s = s&0xffff + s>>16
	}
	return ^uint16(s)
}

// Writer writes a pcap file: the file header when made, then one record
// per packet. It is not safe for concurrent use.
type Writer struct {
	w       io.Writer
	snaplen int
	buf     []byte
}

// NewWriter writes the file header to w (snaplen 0: DefaultSnaplen).
func NewWriter(w io.Writer, snaplen uint32) (*Writer, error) {
	if snaplen == 0 {
		snaplen = DefaultSnaplen
	}
	if _, err := w.Write(AppendFileHeader(nil, snaplen)); err != nil {
		return nil, err
	}
	return &Writer{w: w, snaplen: int(snaplen)}, nil
}

// RecordLen is the number of octets WritePacket writes for a packet of n
// octets (cut to the snaplen).
func (w *Writer) RecordLen(n int) int { return RecordHeaderLen + min(n, w.snaplen) }

// WritePacket writes one raw IP packet, cut to the snaplen, with one call
// of the underlying writer.
func (w *Writer) WritePacket(ts time.Time, pkt []byte) error {
	n := min(len(pkt), w.snaplen)
	b := AppendRecordHeader(w.buf[:0], ts, n, len(pkt))
	b = append(b, pkt[:n]...)
	w.buf = b
	_, err := w.w.Write(b)
	return err
}

// WriteUDP writes one UDP datagram from src to dst (AppendIPUDP) as one
// record.
func (w *Writer) WriteUDP(ts time.Time, src, dst netip.AddrPort, payload []byte) error {
	b := append(w.buf[:0], make([]byte, RecordHeaderLen)...)
	b = AppendIPUDP(b, src, dst, payload)
	pl := len(b) - RecordHeaderLen
	n := min(pl, w.snaplen)
	AppendRecordHeader(b[:0], ts, n, pl) // fills the room left in front
	w.buf = b
	_, err := w.w.Write(b[:RecordHeaderLen+n])
	return err
}
