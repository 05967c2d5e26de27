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

// TestAQMDropsWholeNPDUs: the RFC variant's AQMs (CoDel, PIE, RED) drop
// whole SNDCP N-PDUs: a decision on a first segment takes the segments
// behind it along, and a decision on a later segment (its first segment
// sent already) falls on the next N-PDU instead (aqmDrop), so every N-PDU
// arrives whole or not at all and no airtime goes to orphaned segments.
// The osmo variant drops single frames, as osmo-pcu.
func TestAQMDropsWholeNPDUs(t *testing.T) {
	for _, c := range []struct {
		v   Variant
		aqm AQM
	}{{VariantRFC, AQMCoDel}, {VariantRFC, AQMPIE}, {VariantRFC, AQMRED}, {VariantOsmo, AQMCoDel}} {
		cfg := DefaultConfig()
		cfg.Variant, cfg.AQM, cfg.NoECN = c.v, c.aqm, true
		switch {
		case c.v == VariantOsmo:
			cfg.Interval = 100 * time.Millisecond
		case c.aqm == AQMCoDel:
			cfg.Target, cfg.Interval = 5*time.Millisecond, 100*time.Millisecond
		case c.aqm == AQMPIE:
			cfg.PIE.Target = 20 * time.Millisecond
		case c.aqm == AQMRED:
			cfg.RED.Min, cfg.RED.Max, cfg.RED.MaxP = 2000, 40000, 50
		}
		s, err := NewShared(cfg)
		if err != nil {
			t.Fatal(err)
		}
		s.Seed(3, 4)
		q := s.NewQueue(nil)
		q.SetDrainRate(10000)
		const n = 60
		for p := uint16(0); p < n; p++ {
			for _, seg := range npduSegments(p, 500) {
				if err := q.Enqueue(0, seg, LifetimeInfinite); err != nil {
					t.Fatal(err)
				}
			}
		}
		got := map[uint16]int{} // per N-PDU: segments delivered
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
			seg := int(fr.Data[4+boolInt(fr.Data[3]&0x40 != 0)] >> 4)
			if seg != got[npdu] && c.v == VariantRFC {
				t.Fatalf("%s %s: N-PDU %d: segment %d delivered after a hole", c.v, c.aqm, npdu, seg)
			}
			got[npdu]++
		}
		partial := 0
		for _, k := range got {
			if k != 3 {
				partial++
			}
		}
		t.Logf("%s %s: %d drops, %d N-PDUs delivered, %d partial", c.v, c.aqm, dropped, len(got), partial)
		if dropped == 0 {
			t.Fatalf("%s %s: the AQM never dropped", c.v, c.aqm)
		}
		if c.v == VariantRFC && (partial != 0 || dropped%3 != 0 || len(got)*3+dropped != 3*n) {
			t.Fatalf("%s %s: %d drops, %d N-PDUs partial: not whole N-PDUs", c.v, c.aqm, dropped, partial)
		}
		if c.v == VariantOsmo && partial == 0 {
			t.Fatalf("osmo: every N-PDU whole; osmo-pcu drops single frames")
		}
	}
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

// TestDeferredDropSparesTheLastNPDU: a drop deferred from a later segment
// (aqmDrop) falls on the next N-PDU only when another N-PDU is queued
// behind that one, so the sender can tell the loss from the packets after
// it; a flow's last N-PDU is delivered, and the pending drop ends when
// the flow runs empty.
func TestDeferredDropSparesTheLastNPDU(t *testing.T) {
	for _, c := range []struct {
		npdus     int
		wantDrops int
		lost      uint16 // N-PDU expected dropped (with wantDrops 3)
	}{{2, 0, 0}, {3, 3, 1}} {
		cfg := DefaultConfig()
		cfg.CoDel = false // no AQM decisions of its own: only the pending drop
		s, err := NewShared(cfg)
		if err != nil {
			t.Fatal(err)
		}
		q := s.NewQueue(nil)
		for p := 0; p < c.npdus; p++ {
			for _, seg := range npduSegments(uint16(p), 500) {
				if err := q.Enqueue(0, seg, LifetimeInfinite); err != nil {
					t.Fatal(err)
				}
			}
		}
		if _, ok, _ := q.Dequeue(0); !ok { // N-PDU 0's first segment leaves
			t.Fatal("nothing delivered")
		}
		for f := range q.a.dropNext { // as aqmDrop after a hit on N-PDU 0's second segment
			q.a.dropNext[f] = true
		}
		got := map[uint16]int{0: 1}
		drops := 0
		for q.Len() > 0 {
			fr, ok, d := q.Dequeue(0)
			drops += d.CoDel
			if ok {
				_, npdu, _, _, _ := sndcpSegment(fr.Data)
				got[npdu]++
			}
		}
		if drops != c.wantDrops {
			t.Fatalf("%d N-PDUs: %d frames dropped, want %d (delivered %v)", c.npdus, drops, c.wantDrops, got)
		}
		for p := 0; p < c.npdus; p++ {
			want := 3
			if c.wantDrops > 0 && uint16(p) == c.lost {
				want = 0
			}
			if got[uint16(p)] != want {
				t.Fatalf("%d N-PDUs: N-PDU %d: %d segments delivered, want %d", c.npdus, p, got[uint16(p)], want)
			}
		}
		if q.a != nil {
			for f, v := range q.a.dropNext {
				if v {
					t.Fatalf("flow %d: drop still pending after the flow ran empty", f)
				}
			}
		}
	}
}

// TestDeferredDropLastsOneNPDU: a deferred drop that its next N-PDU could
// not take (the flow's last queued one) is forgotten: N-PDUs queued later,
// a sender's retransmission among them, are not hit by it.
func TestDeferredDropLastsOneNPDU(t *testing.T) {
	cfg := DefaultConfig()
	cfg.CoDel = false
	s, err := NewShared(cfg)
	if err != nil {
		t.Fatal(err)
	}
	q := s.NewQueue(nil)
	enq := func(from, to int) {
		for p := from; p < to; p++ {
			for _, seg := range npduSegments(uint16(p), 500) {
				if err := q.Enqueue(0, seg, LifetimeInfinite); err != nil {
					t.Fatal(err)
				}
			}
		}
	}
	enq(0, 2)
	q.Dequeue(0) // N-PDU 0's first segment
	for f := range q.a.dropNext {
		q.a.dropNext[f] = true
	}
	for i := 0; i < 3; i++ { // N-PDU 0's second and third, N-PDU 1's first
		if _, ok, d := q.Dequeue(0); !ok || d.CoDel != 0 {
			t.Fatalf("frame %d: delivered %v, %d dropped", i, ok, d.CoDel)
		}
	}
	enq(2, 5) // the sender's next packets arrive behind N-PDU 1's rest
	n := 0
	for q.Len() > 0 {
		_, ok, d := q.Dequeue(0)
		if d.CoDel != 0 {
			t.Fatalf("a forgotten deferred drop hit %d frames", d.CoDel)
		}
		if ok {
			n++
		}
	}
	if n != 2+9 {
		t.Fatalf("%d frames delivered after N-PDU 1's first, want 11", n)
	}
}
