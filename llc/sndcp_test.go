package llc

import (
	"testing"
	"time"
)

// npduSegments builds the three SN-UNITDATA segments (NSAPI 5, N-PDU
// number npdu) of one IPv4 packet, each an LLC UI frame of size octets.
func npduSegments(npdu uint16, size int) [3][]byte {
	var out [3][]byte
	ip := ipFrame(6, 80, 40000, size)[7 : size-3] // the IP part of a first segment
	for s := 0; s < 3; s++ {
		b := []byte{0x03, 0xc0, 0x01}
		hdr := byte(0x20 | 5) // T: SN-UNITDATA
		if s == 0 {
			hdr |= 0x40 // F
		}
		if s < 2 {
			hdr |= 0x10 // M
		}
		b = append(b, hdr)
		if s == 0 {
			b = append(b, 0x00) // DCOMP/PCOMP
		}
		b = append(b, byte(s)<<4|byte(npdu>>8), byte(npdu))
		b = append(b, ip...)
		b = b[:min(len(b), size-3)]
		for len(b) < size-3 {
			b = append(b, 0)
		}
		out[s] = append(b, 0, 0, 0)
	}
	return out
}

func TestSNDCPSegment(t *testing.T) {
	segs := npduSegments(0x123, 600)
	for i, want := range []struct{ first, more bool }{{true, true}, {false, true}, {false, false}} {
		ns, npdu, first, more, ok := sndcpSegment(segs[i])
		if !ok || ns != 5 || npdu != 0x123 || first != want.first || more != want.more {
			t.Fatalf("segment %d: %d %#x %v %v %v", i, ns, npdu, first, more, ok)
		}
	}
	if _, _, _, _, ok := sndcpSegment(uiFrame(3, 100, "x")); ok {
		t.Fatal("a frame without SN-UNITDATA header parsed")
	}
}

// TestCoDelDropsWholeNPDU: when CoDel (RFC variant) drops a segment of an
// SNDCP N-PDU, the segments behind it go too; no N-PDU is delivered with a
// hole. The osmo variant drops single frames, as osmo-pcu.
func TestCoDelDropsWholeNPDU(t *testing.T) {
	for _, v := range []Variant{VariantRFC, VariantOsmo} {
		cfg := DefaultConfig()
		cfg.Variant, cfg.AQM = v, AQMCoDel
		if v == VariantRFC {
			cfg.Target, cfg.Interval = 5*time.Millisecond, 100*time.Millisecond
		} else {
			cfg.Interval = 100 * time.Millisecond
		}
		s, err := NewShared(cfg)
		if err != nil {
			t.Fatal(err)
		}
		q := s.NewQueue(nil)
		const n = 60
		for p := uint16(0); p < n; p++ {
			for _, seg := range npduSegments(p, 500) {
				if err := q.Enqueue(0, seg, LifetimeInfinite); err != nil {
					t.Fatal(err)
				}
			}
		}
		got := map[uint16][]bool{} // per N-PDU: which segments arrived
		dropped := 0
		now := time.Duration(0)
		for q.Len() > 0 {
			now += 50 * time.Millisecond
			fr, ok, d := q.Dequeue(now)
			dropped += int(d.CoDel)
			if !ok {
				continue
			}
			_, npdu, _, _, _ := sndcpSegment(fr.Data)
			got[npdu] = append(got[npdu], true)
			seg := int(fr.Data[4+boolInt(fr.Data[3]&0x40 != 0)] >> 4)
			if seg != len(got[npdu])-1 && v == VariantRFC {
				t.Fatalf("N-PDU %d: segment %d delivered after a hole", npdu, seg)
			}
		}
		whole, partial := 0, 0
		for _, segs := range got {
			if len(segs) == 3 {
				whole++
			} else {
				partial++
			}
		}
		t.Logf("%s: %d CoDel drops, %d N-PDUs whole, %d partial, %d lost", v, dropped, whole, partial, n-len(got))
		if dropped == 0 {
			t.Fatalf("%s: CoDel never dropped", v)
		}
		if v == VariantRFC && dropped%3 != 0 && partial == 0 {
			t.Fatalf("drops %d are not whole N-PDUs and none was cut after a delivered segment", dropped)
		}
	}
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}
