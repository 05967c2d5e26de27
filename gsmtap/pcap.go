package gsmtap

import (
	"encoding/binary"
	"io"
	"net/netip"
	"time"
)

// PcapWriter writes GSMTAP packets as IPv4/UDP datagrams to port 4729 in a
// classic pcap file (LINKTYPE_IPV4 = 228). It is a small pure-Go writer:
// gopacket's pcapgo needs golang.org/x/net in go.sum, which the module does
// not list yet (see the package report).
type PcapWriter struct {
	w       io.Writer
	Src     netip.Addr
	Dst     netip.Addr
	SrcPort uint16
	id      uint16
	buf     []byte
}

// LinkTypeIPv4 is the pcap link type of raw IPv4 packets.
const LinkTypeIPv4 = 228

// NewPcapWriter writes the pcap file header to w.
func NewPcapWriter(w io.Writer) (*PcapWriter, error) {
	var h [24]byte
	binary.LittleEndian.PutUint32(h[0:], 0xa1b2c3d4) // microsecond resolution
	binary.LittleEndian.PutUint16(h[4:], 2)
	binary.LittleEndian.PutUint16(h[6:], 4)
	binary.LittleEndian.PutUint32(h[16:], 65535) // snaplen
	binary.LittleEndian.PutUint32(h[20:], LinkTypeIPv4)
	if _, err := w.Write(h[:]); err != nil {
		return nil, err
	}
	lo := netip.AddrFrom4([4]byte{127, 0, 0, 1})
	return &PcapWriter{w: w, Src: lo, Dst: lo, SrcPort: UDPPort}, nil
}

func csumAdd(sum uint32, b []byte) uint32 {
	for i := 0; i+1 < len(b); i += 2 {
		sum += uint32(b[i])<<8 | uint32(b[i+1])
	}
	if len(b)%2 == 1 {
		sum += uint32(b[len(b)-1]) << 8
	}
	return sum
}

func csumFold(sum uint32) uint16 {
	for sum>>16 != 0 {
		sum = sum&0xffff + sum>>16
	}
	return ^uint16(sum)
}

// Write writes one GSMTAP packet (header + payload) with timestamp ts.
func (p *PcapWriter) Write(ts time.Time, h *Header, payload []byte) error {
	udpLen := 8 + HdrLen + len(payload)
	total := 20 + udpLen
	b := append(p.buf[:0], make([]byte, 16+28)...)
	// Record header.
	us := ts.UnixMicro()
	binary.LittleEndian.PutUint32(b[0:], uint32(us/1e6))
	binary.LittleEndian.PutUint32(b[4:], uint32(us%1e6))
	binary.LittleEndian.PutUint32(b[8:], uint32(total))
	binary.LittleEndian.PutUint32(b[12:], uint32(total))
	// IPv4 header (RFC 791).
	ip := b[16:36]
	ip[0] = 0x45
	binary.BigEndian.PutUint16(ip[2:], uint16(total))
	p.id++
	binary.BigEndian.PutUint16(ip[4:], p.id)
	ip[8] = 64
	ip[9] = 17
	s4, d4 := p.Src.As4(), p.Dst.As4()
	copy(ip[12:], s4[:])
	copy(ip[16:], d4[:])
	binary.BigEndian.PutUint16(ip[10:], csumFold(csumAdd(0, ip)))
	// UDP header (RFC 768) with checksum over the pseudo header.
	udp := b[36:44]
	binary.BigEndian.PutUint16(udp[0:], p.SrcPort)
	binary.BigEndian.PutUint16(udp[2:], UDPPort)
	binary.BigEndian.PutUint16(udp[4:], uint16(udpLen))
	b = h.Append(b, payload)
	sum := csumAdd(0, s4[:])
	sum = csumAdd(sum, d4[:])
	sum += 17 + uint32(udpLen)
	sum = csumAdd(sum, b[36:])
	c := csumFold(sum)
	if c == 0 {
		c = 0xffff
	}
	binary.BigEndian.PutUint16(b[42:], c)
	p.buf = b
	_, err := p.w.Write(b)
	return err
}
