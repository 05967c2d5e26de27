package capture

import (
	"bytes"
	"net/netip"
	"testing"

	"github.com/google/gopacket"
	"github.com/google/gopacket/layers"
	"github.com/gopcu/gopcu/internal/pcapw"
	"pgregory.net/rapid"
)

// TestAppendIPUDPDecodes: for any endpoints and payload, gopacket decodes
// the packet AppendIPUDP builds with the same addresses, ports, lengths and
// payload, and the checksums verify.
func TestAppendIPUDPDecodes(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		addr := func(label string) netip.Addr {
			if rapid.Bool().Draw(t, label+"v6") {
				return netip.AddrFrom16([16]byte(rapid.SliceOfN(rapid.Byte(), 16, 16).Draw(t, label)))
			}
			return netip.AddrFrom4([4]byte(rapid.SliceOfN(rapid.Byte(), 4, 4).Draw(t, label)))
		}
		src := netip.AddrPortFrom(addr("src"), rapid.Uint16().Draw(t, "sport"))
		dst := netip.AddrPortFrom(addr("dst"), rapid.Uint16().Draw(t, "dport"))
		payload := rapid.SliceOfN(rapid.Byte(), 0, 1600).Draw(t, "payload")
		b := AppendIPUDP([]byte{0xee}, src, dst, payload)[1:] // appends after existing bytes

		v4 := src.Addr().Unmap().Is4() && dst.Addr().Unmap().Is4()
		// Decode IP and UDP only (the payload would go to port-based
		// dissectors such as DHCP).
		var ip4 layers.IPv4
		var ip6 layers.IPv6
		var udp layers.UDP
		first := layers.LayerTypeIPv6
		if v4 {
			first = layers.LayerTypeIPv4
		}
		dp := gopacket.NewDecodingLayerParser(first, &ip4, &ip6, &udp)
		dp.IgnoreUnsupported = true
		var decoded []gopacket.LayerType
		if err := dp.DecodeLayers(b, &decoded); err != nil {
			t.Fatalf("decode: %v", err)
		}
		if len(decoded) != 2 || decoded[1] != layers.LayerTypeUDP {
			t.Fatalf("decoded %v", decoded)
		}
		if uint16(udp.SrcPort) != src.Port() || uint16(udp.DstPort) != dst.Port() || int(udp.Length) != 8+len(payload) {
			t.Fatalf("UDP %v", udp)
		}
		if !bytes.Equal(udp.Payload, payload) {
			t.Fatalf("payload differs")
		}
		var ps []byte // pseudo header source and destination
		if v4 {
			ip := &ip4
			if ip.SrcIP.String() != src.Addr().Unmap().String() || ip.DstIP.String() != dst.Addr().Unmap().String() || ip.TTL != 64 {
				t.Fatalf("IPv4 %v", ip)
			}
			if pcapw.Fold(pcapw.Sum(0, b[:20])) != 0 {
				t.Fatal("IPv4 header checksum")
			}
			ps = append(append(ps, ip.SrcIP.To4()...), ip.DstIP.To4()...)
		} else {
			ip := &ip6
			s16, d16 := src.Addr().As16(), dst.Addr().As16()
			if !bytes.Equal(ip.SrcIP, s16[:]) || !bytes.Equal(ip.DstIP, d16[:]) || int(ip.Length) != 8+len(payload) {
				t.Fatalf("IPv6 %v", ip)
			}
			ps = append(append(ps, ip.SrcIP...), ip.DstIP...)
		}
		off := len(b) - 8 - len(payload)
		if udp.Checksum == 0 || pcapw.Fold(pcapw.Sum(pcapw.Sum(0, ps)+17+uint32(8+len(payload)), b[off:])) != 0 {
			t.Fatalf("UDP checksum %04x does not verify", udp.Checksum)
		}
	})
}
