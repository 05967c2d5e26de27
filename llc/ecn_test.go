package llc

import (
	"bytes"
	"encoding/binary"
	"encoding/hex"
	"math/rand/v2"
	"testing"

	"github.com/gopcu/gopcu/internal/pcapw"
	"github.com/gopcu/gopcu/internal/testutil"
)

// sgsnFrames are four LLC UI frames osmo-sgsn 1.9 sent in the lab: the
// SN-UNITDATA segments of one 1500-octet IPv4/TCP packet (N-PDU 16, NSAPI
// 5, SAPI 3, PM 1), with osmo-sgsn's FCS (testdata/dl-npdu16.hex).
func sgsnFrames(t *testing.T) [][]byte {
	t.Helper()
	frames := testutil.HexLines(t, "testdata/dl-npdu16.hex")
	if len(frames) != 4 {
		t.Fatalf("%d frames", len(frames))
	}
	return frames
}

// ipv4Sum is the IPv4 header checksum computed from scratch (RFC 791),
// with the one Internet checksum of the tree (internal/pcapw, RFC 1071),
// not llc's own: the header less its checksum field.
func ipv4Sum(h []byte) uint16 {
	return pcapw.Fold(pcapw.Sum(pcapw.Sum(0, h[:10]), h[12:]))
}

func TestFCSAgainstSGSN(t *testing.T) {
	for i, b := range sgsnFrames(t) {
		if !fcsOK(b) {
			t.Errorf("frame %d: FCS %06x does not match osmo-sgsn's %x", i, FCS(b[:len(b)-3]), b[len(b)-3:])
		}
	}
	// osmo-sgsn's Identity Request, PM 1 (41 c0 01 | 08 15 02 | FCS de 8e 9a)
	if b, _ := hex.DecodeString("41c001081502de8e9a"); !fcsOK(b) {
		t.Error("identity request FCS")
	}
}

// TestMarkCEGolden marks osmo-sgsn's first segment after setting ECT(0)
// and ECT(1): TOS ends 0b11, the checksum equals a full recomputation, the
// FCS is valid, and nothing else changed.
func TestMarkCEGolden(t *testing.T) {
	fr := sgsnFrames(t)
	if r := ECNOf(fr[0]); r != NoMarkNotECT {
		t.Fatalf("osmo-sgsn's Not-ECT frame: %v", r)
	}
	for _, r := range fr[1:] {
		if got := ECNOf(r); got != NoMarkOther { // continuation segments: no IP header
			t.Errorf("continuation segment: %v", got)
		}
	}
	const ipOff = 7 // 3 LLC header octets, 4 SNDCP octets
	for _, ecn := range []byte{0x02, 0x01, 0x03} {
		b := bytes.Clone(fr[0])
		ip := b[ipOff:]
		ip[1] = 0xb8 | ecn // DSCP EF, to see that the DSCP stays
		binary.BigEndian.PutUint16(ip[10:], ipv4Sum(ip[:20]))
		putFCS(b)
		before := bytes.Clone(b)
		if r := MarkCE(b); r != Marked {
			t.Fatalf("ECN %02b: %v", ecn, r)
		}
		if ip[1] != 0xbb {
			t.Errorf("ECN %02b: TOS %02x, want bb", ecn, ip[1])
		}
		if got, want := binary.BigEndian.Uint16(ip[10:]), ipv4Sum(ip[:20]); got != want {
			t.Errorf("ECN %02b: checksum %04x, want %04x", ecn, got, want)
		}
		if !fcsOK(b) {
			t.Errorf("ECN %02b: FCS not valid after marking", ecn)
		}
		for i := range b {
			if i != ipOff+1 && i != ipOff+10 && i != ipOff+11 && i < len(b)-3 && b[i] != before[i] {
				t.Errorf("ECN %02b: octet %d changed", ecn, i)
			}
		}
	}
	// A 20-octet golden: SAPI 3 UI N(U) 5 PM 1, SN-UNITDATA NSAPI 5,
	// IPv4 UDP 10.0.0.1 -> 10.0.0.2, TOS ECT(0).
	b := []byte{0x03, 0xc0, 0x15, 0x65, 0x00, 0x00, 0x01,
		0x45, 0x02, 0x00, 0x1c, 0x00, 0x01, 0x00, 0x00, 0x40, 0x11, 0x00, 0x00,
		10, 0, 0, 1, 10, 0, 0, 2, 0, 1, 0, 2, 0, 8, 0, 0, 0, 0, 0}
	binary.BigEndian.PutUint16(b[17:], ipv4Sum(b[7:27]))
	putFCS(b)
	if got := hex.EncodeToString(b[7:27]); got != "4502001c00010000401166cc0a0000010a000002" {
		t.Fatalf("golden input %s", got)
	}
	if MarkCE(b) != Marked {
		t.Fatal("golden not marked")
	}
	// TOS 0x02 -> 0x03: the first word goes 4502 -> 4503 and the checksum
	// 66cc -> 66cb (RFC 1624: ~(~66cc + ~4502 + 4503)).
	if got := hex.EncodeToString(b[7:27]); got != "4503001c00010000401166cb0a0000010a000002" {
		t.Errorf("marked header %s", got)
	}
}

func TestMarkCEIPv6(t *testing.T) {
	ip := make([]byte, 40+8)
	ip[0], ip[1] = 0x6b, 0x80|0x10 // traffic class 0xb8 | ECT(1) = 0xb9 split over octets 0-1
	binary.BigEndian.PutUint16(ip[4:], 8)
	ip[6], ip[7] = 17, 64
	b := append([]byte{0x0b, 0xc0, 0x01, 0x66, 0x00, 0x00, 0x07}, ip...) // SAPI 11, NSAPI 6
	b = append(b, 0, 0, 0)
	putFCS(b)
	if r := MarkCE(b); r != Marked {
		t.Fatalf("IPv6: %v", r)
	}
	if tc := (b[7]&0x0f)<<4 | b[8]>>4; tc != 0xbb {
		t.Errorf("traffic class %02x, want bb", tc)
	}
	if b[7]>>4 != 6 || b[8]&0x0f != 0 {
		t.Errorf("version or flow label touched: %x", b[7:9])
	}
	if !fcsOK(b) {
		t.Error("FCS")
	}
}

// TestMarkCERefusals: every frame that must not be marked is left
// unchanged, with the reason the AQM counts.
func TestMarkCERefusals(t *testing.T) {
	ect := func(mut func(b []byte)) []byte {
		b := []byte{0x03, 0xc0, 0x01, 0x65, 0x00, 0x00, 0x01,
			0x45, 0x02, 0x00, 0x1c, 0x00, 0x01, 0x00, 0x00, 0x40, 0x11, 0x00, 0x00,
			10, 0, 0, 1, 10, 0, 0, 2, 0, 1, 0, 2, 0, 8, 0, 0, 0, 0, 0}
		binary.BigEndian.PutUint16(b[17:], ipv4Sum(b[7:27]))
		mut(b)
		putFCS(b)
		return b
	}
	cases := []struct {
		name string
		b    []byte
		want MarkResult
	}{
		{"ECT(0)", ect(func([]byte) {}), Marked},
		{"not ECT", ect(func(b []byte) {
			b[8] = 0
			binary.BigEndian.PutUint16(b[17:], ipv4Sum(b[7:27]))
		}), NoMarkNotECT},
		{"ciphered (E bit)", ect(func(b []byte) { b[2] |= 0x02 }), NoMarkCiphered},
		{"PCOMP", ect(func(b []byte) { b[4] = 0x01 }), NoMarkCompressed},
		{"DCOMP", ect(func(b []byte) { b[4] = 0x10 }), NoMarkCompressed},
		{"continuation segment", ect(func(b []byte) { b[3] = 0x25 }), NoMarkOther},
		{"reserved NSAPI", ect(func(b []byte) { b[3] = 0x62 }), NoMarkOther},
		{"GMM SAPI", ect(func(b []byte) { b[0] = 0x01 }), NoMarkOther},
		{"SMS SAPI", ect(func(b []byte) { b[0] = 0x07 }), NoMarkOther},
		{"I frame", ect(func(b []byte) { b[1] = 0x00 }), NoMarkOther},
		{"bad IPv4 checksum", ect(func(b []byte) { b[17] ^= 0xff }), NoMarkOther},
		{"not IP", ect(func(b []byte) { b[7] = 0x55 }), NoMarkOther},
	}
	for _, c := range cases {
		before := bytes.Clone(c.b)
		if got := ECNOf(c.b); got != c.want {
			t.Errorf("%s: ECNOf %v, want %v", c.name, got, c.want)
		}
		got := MarkCE(c.b)
		if got != c.want {
			t.Errorf("%s: MarkCE %v, want %v", c.name, got, c.want)
		}
		if got != Marked && !bytes.Equal(c.b, before) {
			t.Errorf("%s: refused but changed", c.name)
		}
	}
	// A corrupt FCS is not repaired by a mark: the MS still discards it.
	b := ect(func([]byte) {})
	b[len(b)-1] ^= 1
	if got := MarkCE(b); got != Marked || fcsOK(b) {
		t.Errorf("bad FCS: %v, FCS valid after marking: %v", got, fcsOK(b))
	}
	// Truncated frames never panic.
	full := ect(func([]byte) {})
	for n := 0; n < len(full); n++ {
		MarkCE(bytes.Clone(full[:n]))
	}
}

// TestCsumUpdateMatchesRecompute: RFC 1624's incremental update equals a
// full recomputation on random headers for every TOS change to CE.
func TestCsumUpdateMatchesRecompute(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for i := 0; i < 20000; i++ {
		h := make([]byte, 20)
		for j := range h {
			h[j] = byte(r.Uint32())
		}
		h[0] = 0x45
		binary.BigEndian.PutUint16(h[10:], ipv4Sum(h))
		old := binary.BigEndian.Uint16(h[0:])
		h[1] |= 3
		got := csumUpdate(binary.BigEndian.Uint16(h[10:]), old, binary.BigEndian.Uint16(h[0:]))
		if want := ipv4Sum(h); got != want {
			t.Fatalf("header %x: incremental checksum %04x, recomputed %04x", h, got, want)
		}
	}
}

func FuzzMarkCE(f *testing.F) {
	f.Add([]byte{0x03, 0xc0, 0x01, 0x65, 0x00, 0x00, 0x01, 0x45, 0x02})
	f.Fuzz(func(t *testing.T, b []byte) {
		before := bytes.Clone(b)
		r := MarkCE(b)
		if r != Marked && !bytes.Equal(b, before) {
			t.Fatalf("%v but changed", r)
		}
		if r == Marked && fcsOK(before) != fcsOK(b) {
			t.Fatal("marking changed the FCS's validity")
		}
	})
}

// ectFrame is an LLC UI frame (SAPI 3, PM 1, valid FCS) with an SNDCP first
// segment (NSAPI 5) holding an IPv4/TCP packet with ECT(0) from port
// sport, size octets in all.
func ectFrame(sport uint16, size int) []byte {
	b := ipFrame(6, sport, 80, size)
	b[8] = 0x02
	binary.BigEndian.PutUint16(b[17:], ipv4Sum(b[7:27]))
	putFCS(b)
	return b
}

// TestMarkCEIncrementalFCS: the incremental FCS equals a full
// recomputation for every frame length and PM, IPv4 and IPv6.
func TestMarkCEIncrementalFCS(t *testing.T) {
	for _, v6 := range []bool{false, true} {
		for _, pm := range []byte{0, 1} {
			for n := 40 + 7 + 3; n <= MaxFrameLen; n += 37 {
				var b []byte
				if v6 {
					b = make([]byte, n)
					copy(b, []byte{0x03, 0xc0, 0x00, 0x65, 0x00, 0x00, 0x01, 0x60, 0x10})
				} else {
					b = ectFrame(1, n)
				}
				b[2] = b[2]&^1 | pm
				putFCS(b)
				if MarkCE(b) != Marked {
					t.Fatalf("v6 %v pm %d len %d: not marked", v6, pm, n)
				}
				if !fcsOK(b) {
					t.Fatalf("v6 %v pm %d len %d: FCS wrong after marking", v6, pm, n)
				}
			}
		}
	}
}

func BenchmarkMarkCE(b *testing.B) {
	orig := ectFrame(1, 1500)
	f := bytes.Clone(orig)
	for i := 0; i < b.N; i++ {
		f[8], f[17], f[18] = orig[8], orig[17], orig[18]
		f[len(f)-3], f[len(f)-2], f[len(f)-1] = orig[len(f)-3], orig[len(f)-2], orig[len(f)-1]
		MarkCE(f)
	}
}
