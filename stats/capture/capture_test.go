package capture

import (
	"bytes"
	"encoding/binary"
	"encoding/hex"
	"io"
	"net/netip"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/gopacket/layers"
	"github.com/google/gopacket/pcapgo"

	"github.com/gopcu/gopcu/bssgp"
	"github.com/gopcu/gopcu/bssgp/ns"
	"github.com/gopcu/gopcu/bssgp/ns/nse"
	"github.com/gopcu/gopcu/bssgp/ns/nsudp"
	"github.com/gopcu/gopcu/gsmtap"
	"github.com/gopcu/gopcu/internal/pcapw"
	"github.com/gopcu/gopcu/internal/testutil"
)

var (
	pcuAddr  = netip.MustParseAddrPort("127.0.0.1:23001")
	sgsnAddr = netip.MustParseAddrPort("127.0.0.1:23000")
	pcuAddr6 = netip.MustParseAddrPort("[fd00::1]:23001")
	sgsn6    = netip.MustParseAddrPort("[fd00::2]:23000")
	t0       = time.Unix(1700000000, 0)
)

func nsPDU(t *testing.T, p ns.PDU) []byte {
	b, err := ns.Marshal(p)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func unitdata(t *testing.T, bvci uint16, p bssgp.PDU) []byte {
	b, err := bssgp.Marshal(p)
	if err != nil {
		t.Fatal(err)
	}
	return nsPDU(t, &ns.Unitdata{BVCI: bvci, SDU: b})
}

// session is a short Gb bring-up plus radio blocks, in order.
type pkt struct {
	src, dst netip.AddrPort
	data     []byte
	gsmtap   *gsmtap.Header
}

func session(t *testing.T) []pkt {
	dummy, _ := hex.DecodeString("40942b2b2b2b2b2b2b2b2b2b2b2b2b2b2b2b2b2b2b2b2b")
	return []pkt{
		{src: pcuAddr, dst: sgsnAddr, data: nsPDU(t, &ns.Reset{Cause: ns.CauseOMIntervention, NSVCI: 101, NSEI: 101})},
		{src: sgsnAddr, dst: pcuAddr, data: nsPDU(t, &ns.ResetAck{NSVCI: 101, NSEI: 101})},
		{src: pcuAddr, dst: sgsnAddr, data: nsPDU(t, &ns.Unblock{})},
		{src: sgsnAddr, dst: pcuAddr, data: nsPDU(t, &ns.UnblockAck{})},
		{src: pcuAddr, dst: sgsnAddr, data: unitdata(t, 0, &bssgp.BVCReset{BVCI: 0, Cause: bssgp.CauseOMIntervention})},
		{src: sgsnAddr, dst: pcuAddr, data: unitdata(t, 0, &bssgp.BVCResetAck{BVCI: 0})},
		{src: sgsnAddr, dst: pcuAddr, data: unitdata(t, 0, &bssgp.BVCUnblockAck{BVCI: 1800})},
		{src: pcuAddr6, dst: sgsn6, data: nsPDU(t, &ns.Alive{})},
		{src: sgsn6, dst: pcuAddr6, data: nsPDU(t, &ns.AliveAck{})},
		{gsmtap: &gsmtap.Header{Type: gsmtap.TypeUM, Timeslot: 7, ARFCN: 871, Uplink: true, FrameNumber: 1000, SubType: gsmtap.ChannelRACH},
			data: gsmtap.RACHPayload(0x78, false)},
		{gsmtap: &gsmtap.Header{Type: gsmtap.TypeUM, Timeslot: 6, ARFCN: 871, FrameNumber: 1234, SubType: gsmtap.ChannelPACCH},
			data: dummy},
	}
}

func rec(c *Capture, i int, p pkt) bool {
	ts := t0.Add(time.Duration(i) * time.Millisecond)
	if p.gsmtap != nil {
		return c.GSMTAP(ts, p.gsmtap, p.data)
	}
	return c.UDP(ts, p.src, p.dst, p.data)
}

// TestTshark writes a session and lets tshark decode it: NS and BSSGP on
// the Osmocom port (IPv4 and IPv6), GSMTAP radio blocks, no malformed
// packet, no bad checksum.
func TestTshark(t *testing.T) {
	f := filepath.Join(t.TempDir(), "session.pcap")
	c, err := Create(f, Options{})
	if err != nil {
		t.Fatal(err)
	}
	s := session(t)
	for i, p := range s {
		if !rec(c, i, p) {
			t.Fatalf("packet %d dropped", i)
		}
	}
	if err := c.Close(); err != nil {
		t.Fatal(err)
	}
	if c.Written() != uint64(len(s)) || c.Dropped() != 0 {
		t.Fatalf("written %d dropped %d", c.Written(), c.Dropped())
	}
	if rec(c, 0, s[0]) || c.Dropped() != 1 {
		t.Fatal("recording after Close was not dropped")
	}

	// pcapgo reads back what was written, byte for byte.
	r := testutil.OpenPcap(t, f)
	if r.LinkType() != layers.LinkTypeRaw {
		t.Fatalf("link type %v", r.LinkType())
	}
	for i, p := range s {
		data, ci, err := r.ReadPacketData()
		if err != nil {
			t.Fatalf("packet %d: %v", i, err)
		}
		if !ci.Timestamp.Equal(t0.Add(time.Duration(i) * time.Millisecond)) {
			t.Errorf("packet %d at %v", i, ci.Timestamp)
		}
		want := p.data
		if p.gsmtap != nil {
			want = p.gsmtap.Append(nil, p.data)
		}
		if !bytes.HasSuffix(data, want) {
			t.Errorf("packet %d payload % x", i, data)
		}
	}
	if _, _, err := r.ReadPacketData(); err != io.EOF {
		t.Fatalf("extra packet: %v", err)
	}

	tshark := testutil.NeedBinary(t, "tshark")
	lines, all := tsharkRead(t, tshark, f, "Malformed", "[incorrect", "Bad checksum", "Checksum Status: Bad", "Expert Info (Error")
	if len(lines) != len(s) {
		t.Fatalf("tshark shows %d packets, want %d:\n%s", len(lines), len(s), strings.Join(lines, "\n"))
	}
	want := []string{"ip:udp:gprs-ns", "ip:udp:gprs-ns", "ip:udp:gprs-ns", "ip:udp:gprs-ns",
		"ip:udp:gprs-ns:bssgp", "ip:udp:gprs-ns:bssgp", "ip:udp:gprs-ns:bssgp",
		"ipv6:udp:gprs-ns", "ipv6:udp:gprs-ns", "ip:udp:gsmtap", "ip:udp:gsmtap:gsm_rlcmac"}
	// (tshark shows a RACH burst's payload as data.)
	for i, l := range lines {
		if !strings.Contains(l, want[i]) {
			t.Errorf("packet %d: %q, want protocols %q", i, l, want[i])
		}
	}
	for _, want := range []string{"NS_RESET", "BVC-RESET", "RACH", "PACKET_DOWNLINK_DUMMY_CONTROL_BLOCK", "[Checksum Status: Good]"} {
		if !strings.Contains(all, want) {
			t.Errorf("tshark -V lacks %q", want)
		}
	}
}

// blockingWriter blocks every write after the file header until released.
type blockingWriter struct {
	entered chan struct{}
	release chan struct{}
	buf     bytes.Buffer
	n       int
}

func (w *blockingWriter) Write(b []byte) (int, error) {
	w.n++
	if w.n > 1 {
		w.entered <- struct{}{}
		<-w.release
	}
	return w.buf.Write(b)
}

func TestDropWhenFull(t *testing.T) {
	w := &blockingWriter{entered: make(chan struct{}, 1), release: make(chan struct{})}
	c, err := New(w, Options{Queue: 1})
	if err != nil {
		t.Fatal(err)
	}
	p := []byte{1, 2, 3}
	if !c.UDP(t0, pcuAddr, sgsnAddr, p) { // taken by the writer, which blocks
		t.Fatal("first dropped")
	}
	<-w.entered
	if !c.UDP(t0, pcuAddr, sgsnAddr, p) { // waits in the queue
		t.Fatal("second dropped")
	}
	start := time.Now()
	for range 3 {
		if c.UDP(t0, pcuAddr, sgsnAddr, p) {
			t.Fatal("queue full but accepted")
		}
	}
	if d := time.Since(start); d > 100*time.Millisecond {
		t.Fatalf("dropping took %v", d)
	}
	if c.Dropped() != 3 {
		t.Fatalf("dropped %d", c.Dropped())
	}
	close(w.release)
	if err := c.Close(); err != nil {
		t.Fatal(err)
	}
	if c.Written() != 2 {
		t.Fatalf("written %d", c.Written())
	}
}

func TestConcurrentWriters(t *testing.T) {
	var buf bytes.Buffer
	c, err := New(&buf, Options{Queue: 100000})
	if err != nil {
		t.Fatal(err)
	}
	const G, N = 8, 500
	var wg sync.WaitGroup
	for g := range G {
		wg.Go(func() {
			for i := range N {
				var b [4]byte
				binary.BigEndian.PutUint16(b[:], uint16(g))
				binary.BigEndian.PutUint16(b[2:], uint16(i))
				c.UDP(t0, pcuAddr, sgsnAddr, b[:])
			}
		})
	}
	// Close may race with writers still sending: they must drop, not panic.
	wg.Wait()
	if err := c.Close(); err != nil {
		t.Fatal(err)
	}
	if c.Written()+c.Dropped() != G*N || c.Dropped() != 0 {
		t.Fatalf("written %d dropped %d", c.Written(), c.Dropped())
	}
	r, err := pcapgo.NewReader(&buf)
	if err != nil {
		t.Fatal(err)
	}
	next := make([]int, G)
	for {
		data, _, err := r.ReadPacketData()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		pl := data[28:]
		g, i := binary.BigEndian.Uint16(pl), binary.BigEndian.Uint16(pl[2:])
		if int(i) != next[g] { // per-writer order is kept
			t.Fatalf("writer %d: packet %d after %d", g, i, next[g])
		}
		next[g]++
	}
}

func TestCloseRace(t *testing.T) {
	c, err := New(io.Discard, Options{Queue: 16})
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	for range 4 {
		wg.Go(func() {
			for range 1000 {
				c.UDP(t0, pcuAddr, sgsnAddr, []byte{1})
			}
		})
	}
	c.Close()
	wg.Wait()
	if err := c.Close(); err != nil {
		t.Fatal(err)
	}
	if c.Written()+c.Dropped() != 4000 {
		t.Fatalf("written %d + dropped %d", c.Written(), c.Dropped())
	}
}

// TestTransportHooks checks the NS wrappers capture both directions with
// the bind's address.
func TestTransportHooks(t *testing.T) {
	var buf bytes.Buffer
	c, err := New(&buf, Options{})
	if err != nil {
		t.Fatal(err)
	}
	local := func(int) netip.AddrPort { return pcuAddr }
	now := func() time.Time { return t0 }
	var sent, got int
	tx := c.Transport(nse.TransportFunc(func(int, netip.AddrPort, []byte) error { sent++; return nil }), local, now)
	rx := c.Deliver(func(nsudp.Datagram) { got++ }, local, now)
	tx.Send(0, sgsnAddr, []byte{0x0a})
	rx(nsudp.Datagram{From: sgsnAddr, Data: []byte{0x0b}})
	c.Close()
	if sent != 1 || got != 1 {
		t.Fatalf("sent %d got %d", sent, got)
	}
	r, _ := pcapgo.NewReader(&buf)
	for i, w := range []struct {
		src, dst netip.AddrPort
		b        byte
	}{{pcuAddr, sgsnAddr, 0x0a}, {sgsnAddr, pcuAddr, 0x0b}} {
		d, _, err := r.ReadPacketData()
		if err != nil {
			t.Fatal(err)
		}
		src := netip.AddrPortFrom(netip.AddrFrom4([4]byte(d[12:16])), binary.BigEndian.Uint16(d[20:]))
		dst := netip.AddrPortFrom(netip.AddrFrom4([4]byte(d[16:20])), binary.BigEndian.Uint16(d[22:]))
		if src != w.src || dst != w.dst || d[28] != w.b {
			t.Errorf("packet %d: %v -> %v % x", i, src, dst, d[28:])
		}
	}
}

// TestAppendIPUDPGolden pins the IPv4/UDP framing and checksums (computed
// by hand: RFC 1071 one's complement sums).
func TestAppendIPUDPGolden(t *testing.T) {
	got := AppendIPUDP(nil, pcuAddr, sgsnAddr, []byte{0x0a})
	// IPv4 (DF, TTL 64, header checksum 0x3cce), UDP 23001 -> 23000, length
	// 9, checksum 0x4428 (RFC 1071 sums worked by hand), payload NS-ALIVE.
	want, _ := hex.DecodeString("4500001d000040004011" + "3cce" + "7f000001" + "7f000001" + "59d959d80009" + "4428" + "0a")
	if !bytes.Equal(got, want) {
		t.Fatalf("got  % x\nwant % x", got, want)
	}
	// IPv6: no header checksum, the UDP checksum covers the pseudo header.
	got = AppendIPUDP(nil, pcuAddr6, sgsn6, []byte{0x0a})
	if len(got) != 40+9 || got[0] != 0x60 || got[6] != 17 || binary.BigEndian.Uint16(got[4:]) != 9 {
		t.Fatalf("IPv6 % x", got)
	}
	ps := pcapw.Sum(pcapw.Sum(0, got[8:24]), got[24:40]) + 17 + 9
	if pcapw.Fold(pcapw.Sum(ps, got[40:])) != 0 {
		t.Errorf("IPv6 UDP checksum does not verify")
	}
}

// TestFileGolden pins a whole capture file of one datagram, the bytes the
// capture wrote before it used internal/pcapw: the file header (snaplen
// 65535, LINKTYPE_RAW), the record header, the packet of
// TestAppendIPUDPGolden.
func TestFileGolden(t *testing.T) {
	var buf bytes.Buffer
	c, err := New(&buf, Options{})
	if err != nil {
		t.Fatal(err)
	}
	c.UDP(t0.Add(123456789), pcuAddr, sgsnAddr, []byte{0x0a})
	if err := c.Close(); err != nil {
		t.Fatal(err)
	}
	want, _ := hex.DecodeString("d4c3b2a1020004000000000000000000ffff000065000000" +
		"00f1536540e201001d0000001d000000" +
		"4500001d0000400040113cce7f0000017f00000159d959d8000944280a")
	if !bytes.Equal(buf.Bytes(), want) {
		t.Fatalf("got  % x\nwant % x", buf.Bytes(), want)
	}
}

func BenchmarkUDP(b *testing.B) {
	c, err := New(io.Discard, Options{Queue: 1 << 16})
	if err != nil {
		b.Fatal(err)
	}
	defer c.Close()
	p := make([]byte, 60)
	b.ReportAllocs()
	for b.Loop() {
		c.UDP(t0, pcuAddr, sgsnAddr, p)
	}
}
