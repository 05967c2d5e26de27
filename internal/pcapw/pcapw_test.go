package pcapw

import (
	"bytes"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"net/netip"
	"testing"
	"time"

	"github.com/google/gopacket"
	"github.com/google/gopacket/layers"
	"github.com/google/gopacket/pcapgo"
)

var (
	pcu  = netip.MustParseAddrPort("127.0.0.1:23001")
	sgsn = netip.MustParseAddrPort("127.0.0.1:23000")
	pcu6 = netip.MustParseAddrPort("[2001:db8::1]:23001")
	sg6  = netip.MustParseAddrPort("[2001:db8::2]:23000")
	t0   = time.Unix(1700000000, 123456789)
)

func unhex(t *testing.T, s string) []byte {
	t.Helper()
	b, err := hex.DecodeString(s)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestChecksumRFC1071 is the worked example of RFC 1071 §3: the octets
// 00 01 f2 03 f4 f5 f6 f7 sum to 0xddf2, the checksum is its complement.
func TestChecksumRFC1071(t *testing.T) {
	b := []byte{0x00, 0x01, 0xf2, 0x03, 0xf4, 0xf5, 0xf6, 0xf7}
	if got := Fold(Sum(0, b)); got != ^uint16(0xddf2) {
		t.Fatalf("checksum %#04x, want %#04x", got, ^uint16(0xddf2))
	}
	// an odd length pads with a zero octet
	if got, want := Sum(0, []byte{0x12, 0x34, 0x56}), uint32(0x1234+0x5600); got != want {
		t.Fatalf("odd sum %#x, want %#x", got, want)
	}
}

// TestAppendIPUDPGolden pins the IPv4/UDP framing and checksums (RFC 1071
// sums worked by hand).
func TestAppendIPUDPGolden(t *testing.T) {
	got := AppendIPUDP(nil, pcu, sgsn, []byte{0x0a})
	// IPv4 (DF, TTL 64, header checksum 0x3cce), UDP 23001 -> 23000,
	// length 9, checksum 0x4428, payload NS-ALIVE.
	want := unhex(t, "4500001d000040004011"+"3cce"+"7f000001"+"7f000001"+"59d959d80009"+"4428"+"0a")
	if !bytes.Equal(got, want) {
		t.Fatalf("got  % x\nwant % x", got, want)
	}
	// appending keeps what was there
	if got := AppendIPUDP([]byte{0xee}, pcu, sgsn, []byte{0x0a}); !bytes.Equal(got[1:], want) || got[0] != 0xee {
		t.Fatalf("append: % x", got)
	}
	// IPv4-mapped ends are IPv4
	m := netip.AddrPortFrom(netip.AddrFrom16(pcu.Addr().As16()), pcu.Port())
	if got := AppendIPUDP(nil, m, sgsn, []byte{0x0a}); !bytes.Equal(got, want) {
		t.Fatalf("mapped: % x", got)
	}
	// IPv6: no header checksum, the UDP checksum covers the pseudo header.
	got = AppendIPUDP(nil, pcu6, sg6, []byte{0x0a})
	if len(got) != 40+9 || got[0] != 0x60 || got[6] != 17 || got[7] != 64 || binary.BigEndian.Uint16(got[4:]) != 9 {
		t.Fatalf("IPv6 % x", got)
	}
	ps := Sum(Sum(0, got[8:24]), got[24:40]) + 17 + 9
	if Fold(Sum(ps, got[40:])) != 0 {
		t.Errorf("IPv6 UDP checksum does not verify")
	}
}

// bufWriter is a Writer of the snaplen into a buffer.
func bufWriter(t *testing.T, snaplen uint32) (*Writer, *bytes.Buffer) {
	t.Helper()
	buf := new(bytes.Buffer)
	w, err := NewWriter(buf, snaplen)
	if err != nil {
		t.Fatal(err)
	}
	return w, buf
}

// TestWriterGolden pins a whole file: header, then one record.
func TestWriterGolden(t *testing.T) {
	w, buf := bufWriter(t, 0)
	if err := w.WriteUDP(t0, pcu, sgsn, []byte{0x0a}); err != nil {
		t.Fatal(err)
	}
	want := unhex(t, ""+
		"d4c3b2a1"+"0200"+"0400"+"00000000"+"00000000"+"ffff0000"+"65000000"+ // file header, snaplen 65535, LINKTYPE_RAW
		"00f15365"+"40e20100"+"1d000000"+"1d000000"+ // 1700000000 s, 123456 µs, 29/29 octets
		"4500001d0000400040113cce7f0000017f00000159d959d8000944280a")
	if !bytes.Equal(buf.Bytes(), want) {
		t.Fatalf("got  % x\nwant % x", buf.Bytes(), want)
	}
	// WritePacket of the same packet writes the same record
	w2, buf2 := bufWriter(t, 0)
	if err := w2.WritePacket(t0, AppendIPUDP(nil, pcu, sgsn, []byte{0x0a})); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(buf2.Bytes(), want) {
		t.Fatalf("WritePacket: % x", buf2.Bytes())
	}
}

// TestSnaplen: packets are cut to the snaplen, the original length kept.
func TestSnaplen(t *testing.T) {
	w, buf := bufWriter(t, 30)
	if w.RecordLen(100) != 16+30 || w.RecordLen(10) != 16+10 {
		t.Fatalf("RecordLen %d %d", w.RecordLen(100), w.RecordLen(10))
	}
	if err := w.WriteUDP(t0, pcu, sgsn, make([]byte, 72)); err != nil {
		t.Fatal(err)
	}
	b := buf.Bytes()
	if len(b) != 24+16+30 || binary.LittleEndian.Uint32(b[16:]) != 30 ||
		binary.LittleEndian.Uint32(b[24+8:]) != 30 || binary.LittleEndian.Uint32(b[24+12:]) != 100 {
		t.Fatalf("% x", b)
	}
}

type failWriter struct{ n int }

func (f *failWriter) Write(b []byte) (int, error) {
	if f.n == 0 {
		return 0, errors.New("disk full")
	}
	f.n--
	return len(b), nil
}

// TestWriteErrors: the underlying writer's errors are returned.
func TestWriteErrors(t *testing.T) {
	if _, err := NewWriter(&failWriter{}, 0); err == nil {
		t.Fatal("header error lost")
	}
	w, err := NewWriter(&failWriter{n: 1}, 0)
	if err != nil {
		t.Fatal(err)
	}
	if w.WriteUDP(t0, pcu, sgsn, nil) == nil || w.WritePacket(t0, []byte{0x45}) == nil {
		t.Fatal("record error lost")
	}
}

// TestPcapgoReads: gopacket reads the file back and decodes IPv4 and IPv6
// packets with valid checksums.
func TestPcapgoReads(t *testing.T) {
	w, buf := bufWriter(t, 0)
	pay := []byte("hello gsmtap")
	if err := w.WriteUDP(t0, pcu, sgsn, pay); err != nil {
		t.Fatal(err)
	}
	if err := w.WriteUDP(t0.Add(time.Second), sg6, pcu6, pay[:5]); err != nil {
		t.Fatal(err)
	}
	r, err := pcapgo.NewReader(buf)
	if err != nil {
		t.Fatal(err)
	}
	if r.LinkType() != layers.LinkTypeRaw {
		t.Fatalf("link type %v", r.LinkType())
	}
	for i, want := range []struct {
		src, dst netip.AddrPort
		pay      []byte
		ts       time.Time
	}{{pcu, sgsn, pay, t0}, {sg6, pcu6, pay[:5], t0.Add(time.Second)}} {
		data, ci, err := r.ReadPacketData()
		if err != nil {
			t.Fatal(err)
		}
		if !ci.Timestamp.Equal(want.ts.Truncate(time.Microsecond)) || ci.Length != len(data) {
			t.Errorf("packet %d: %+v", i, ci)
		}
		p := gopacket.NewPacket(data, layers.LayerTypeIPv4, gopacket.Default)
		if data[0]>>4 == 6 {
			p = gopacket.NewPacket(data, layers.LayerTypeIPv6, gopacket.Default)
		}
		udp, _ := p.Layer(layers.LayerTypeUDP).(*layers.UDP)
		if udp == nil || p.ErrorLayer() != nil {
			t.Fatalf("packet %d: %v", i, p)
		}
		if netip.AddrPortFrom(want.src.Addr(), uint16(udp.SrcPort)) != want.src || uint16(udp.DstPort) != want.dst.Port() ||
			!bytes.Equal(udp.Payload, want.pay) {
			t.Errorf("packet %d: %v", i, p)
		}
		if ip, ok := p.Layer(layers.LayerTypeIPv4).(*layers.IPv4); ok {
			if Fold(Sum(0, data[:20])) != 0 {
				t.Errorf("IPv4 header checksum does not verify")
			}
			ps := Sum(Sum(0, ip.SrcIP.To4()), ip.DstIP.To4()) + 17 + uint32(udp.Length)
			if Fold(Sum(ps, data[20:])) != 0 {
				t.Errorf("UDP checksum does not verify")
			}
		}
	}
}
