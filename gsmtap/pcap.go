package gsmtap

import (
	"io"
	"net/netip"
	"time"

	"github.com/gopcu/gopcu/internal/pcapw"
)

// PcapWriter writes GSMTAP packets as UDP datagrams to port 4729 in a
// classic pcap file (LINKTYPE_RAW), through the module's one pcap writer
// (internal/pcapw). The datagrams go from Src:SrcPort to Dst:4729
// (default 127.0.0.1:4729 at both ends).
type PcapWriter struct {
	w       *pcapw.Writer
	Src     netip.Addr
	Dst     netip.Addr
	SrcPort uint16
	buf     []byte
}

// NewPcapWriter writes the pcap file header to w.
func NewPcapWriter(w io.Writer) (*PcapWriter, error) {
	pw, err := pcapw.NewWriter(w, 0)
	if err != nil {
		return nil, err
	}
	lo := netip.AddrFrom4([4]byte{127, 0, 0, 1})
	return &PcapWriter{w: pw, Src: lo, Dst: lo, SrcPort: UDPPort}, nil
}

// Write writes one GSMTAP packet (header + payload) with timestamp ts.
func (p *PcapWriter) Write(ts time.Time, h *Header, payload []byte) error {
	p.buf = h.Append(p.buf[:0], payload)
	return p.w.WriteUDP(ts, netip.AddrPortFrom(p.Src, p.SrcPort), netip.AddrPortFrom(p.Dst, UDPPort), p.buf)
}
