package llc

import (
	"encoding/binary"
	"testing"
	"time"

	"github.com/gopcu/gopcu/llc/llctest"
)

// ipFrame: llctest.IPFrame (an IPv4 packet in SNDCP in a UI frame).
func ipFrame(proto byte, sport, dport uint16, size int) []byte {
	return llctest.IPFrame(proto, sport, dport, size)
}

func TestFlowKey(t *testing.T) {
	tcp1 := ipFrame(6, 80, 40000, 300)
	tcp1b := ipFrame(6, 80, 40000, 1400)
	tcp2 := ipFrame(6, 80, 40001, 300)
	ping := ipFrame(1, 77, 0, 84)
	k1, ns, kind := FlowKey(tcp1)
	if kind != KeyIP || ns != 5 {
		t.Fatalf("kind %d nsapi %d", kind, ns)
	}
	if k, _, _ := FlowKey(tcp1b); k != k1 {
		t.Fatal("same connection, different key")
	}
	if k, _, _ := FlowKey(tcp2); k == k1 {
		t.Fatal("different ports, same key")
	}
	if k, _, _ := FlowKey(ping); k == k1 {
		t.Fatal("ping and TCP share a key")
	}
	bad := append([]byte(nil), tcp1...)
	bad[3+4+10] ^= 0xff // header checksum broken
	if _, _, kind := FlowKey(bad); kind != KeyNone {
		t.Fatal("bad IPv4 checksum classified")
	}
	enc := append([]byte(nil), tcp1...)
	enc[2] |= 0x02 // E bit: encrypted
	if _, _, kind := FlowKey(enc); kind != KeyNone {
		t.Fatal("encrypted frame classified")
	}
}

// TestPingNotBehindBulk: a ping arriving behind a standing bulk queue of
// the same SAPI is dequeued next (its flow is new and sparse, RFC 8290
// §4.1), not after the whole queue as in osmo-pcu's FIFO.
func TestPingNotBehindBulk(t *testing.T) {
	for _, v := range []Variant{VariantRFC, VariantOsmo} {
		cfg := DefaultConfig()
		cfg.Variant = v
		cfg.CoDel = false
		s := mustShared(t, cfg)
		q := s.NewQueue(nil)
		for i := 0; i < 20; i++ {
			if err := q.Enqueue(0, ipFrame(6, 80, 40000, 1400), LifetimeInfinite); err != nil {
				t.Fatal(err)
			}
		}
		q.Dequeue(time.Millisecond) // the bulk flow is being served
		if err := q.Enqueue(2*time.Millisecond, ipFrame(1, 7, 0, 84), LifetimeInfinite); err != nil {
			t.Fatal(err)
		}
		pos := -1
		for i := 0; q.Len() > 0; i++ {
			fr, _, _ := q.Dequeue(3 * time.Millisecond)
			if len(fr.Data) == 84 {
				pos = i
			}
		}
		if v == VariantRFC && pos > 1 || v == VariantOsmo && pos != 19 {
			t.Fatalf("%s: ping dequeued at position %d", v, pos)
		}
	}
}

// segment builds an LLC UI frame (SAPI 3) with SN-UNITDATA segment seg of
// N-PDU npdu (NSAPI 5, TS 44.065 §7.2): a continuation segment of size
// octets, M set when more follow.
func segment(npdu uint16, seg uint8, more bool, size int) []byte {
	h := byte(0x20 | 5)
	if more {
		h |= 0x10
	}
	b := []byte{0x03, 0xc0, 0x01, h, seg<<4 | byte(npdu>>8), byte(npdu)}
	for len(b) < size {
		b = append(b, 0xee)
	}
	return b
}

// TestNPDUSegmentsStayTogether: the segments of an SNDCP N-PDU leave the
// queue one after the other: a ping of another flow of the same NSAPI
// that arrives meanwhile goes before the N-PDU's first segment or after
// its last, never between (a phone reassembles one N-PDU at a time per
// NSAPI and would lose the bulk packet; seen in the real-network lab).
func TestNPDUSegmentsStayTogether(t *testing.T) {
	cfg := DefaultConfig()
	cfg.CoDel = false
	s := mustShared(t, cfg)
	q := s.NewQueue(nil)
	first := ipFrame(6, 80, 40000, 1000)
	first[3] |= 0x10 // M: more segments follow
	first[6] = 7     // N-PDU 7
	for _, f := range [][]byte{first, segment(7, 1, true, 1000), segment(7, 2, false, 1000)} {
		if err := q.Enqueue(0, f, LifetimeInfinite); err != nil {
			t.Fatal(err)
		}
	}
	if fr, _, _ := q.Dequeue(time.Millisecond); len(fr.Data) != 1000 {
		t.Fatal("first segment not first")
	}
	if err := q.Enqueue(2*time.Millisecond, ipFrame(1, 7, 0, 84), LifetimeInfinite); err != nil {
		t.Fatal(err)
	}
	var order []int
	for q.Len() > 0 {
		fr, _, _ := q.Dequeue(3 * time.Millisecond)
		order = append(order, len(fr.Data))
	}
	if len(order) != 3 || order[0] != 1000 || order[1] != 1000 || order[2] != 84 {
		t.Fatalf("after the first segment: %v, want both segments, then the ping", order)
	}
}

// TestFlowKeyShortFramesInOneSAPI replays a sequence the property test
// (TestQueueProperties) found when flow isolation came in: with a DRR
// quantum of 64, a 64-octet SAPI 3 frame, then two 8-octet SAPI 11
// frames, one UI and one not, in one queue. Every frame comes out once,
// intact, and the accounting returns to zero.
func TestFlowKeyShortFramesInOneSAPI(t *testing.T) {
	s := mustShared(t, Config{Lifetime: LifetimeFromSGSN, Quantum: 64})
	q := s.NewQueue(nil)
	mk := func(sapi byte, n int, ui bool, id int) []byte {
		b := make([]byte, n)
		b[0] = sapi
		if ui {
			b[1] = 0xc0
		}
		b[3], b[4], b[5] = byte(id>>16), byte(id>>8), byte(id)
		for i := 6; i < n; i++ {
			b[i] = byte(id*7 + i)
		}
		return b
	}
	in := [][]byte{mk(3, 64, true, 1), mk(11, 8, true, 2), mk(11, 8, false, 3)}
	for _, b := range in {
		if err := q.Enqueue(0, b, LifetimeInfinite); err != nil {
			t.Fatal(err)
		}
	}
	if q.Len() != 3 || q.Octets() != 80 {
		t.Fatalf("queued %d frames, %d octets; want 3, 80", q.Len(), q.Octets())
	}
	seen := map[int]bool{}
	for range 3 {
		fr, ok, _ := q.Dequeue(0)
		if !ok {
			t.Fatalf("dequeue %d: nothing", len(seen)+1)
		}
		id := int(fr.Data[3])<<16 | int(fr.Data[4])<<8 | int(fr.Data[5])
		if seen[id] || id < 1 || id > 3 || len(fr.Data) != len(in[id-1]) {
			t.Fatalf("frame %d (%d octets) again or unknown", id, len(fr.Data))
		}
		seen[id] = true
	}
	if _, ok, _ := q.Dequeue(0); ok || q.Len() != 0 || q.Octets() != 0 {
		t.Fatalf("after all: %d frames, %d octets left", q.Len(), q.Octets())
	}
	if mem, frames, octets := s.Usage(); mem != 0 || frames != 0 || octets != 0 {
		t.Fatalf("shared usage %d/%d/%d after all frames left", mem, frames, octets)
	}
}

// TestPingNotBehindBulkSameBucket: a ping whose flow key falls into the
// bulk flow's bucket (key mod NumBuckets) still gets a bucket of its own
// and goes first; before, 1 connection in 16 put the ping behind the whole
// download. Every ICMP id of a range is tried against one TCP flow, so the
// colliding ones are among them.
func TestPingNotBehindBulkSameBucket(t *testing.T) {
	bulk := ipFrame(6, 80, 40000, 1400)
	kb, _, _ := FlowKey(bulk)
	collided := 0
	for id := uint16(1); id < 400; id++ {
		ping := ipFrame(1, id, 0, 84)
		if kp, _, _ := FlowKey(ping); kp%NumBuckets != kb%NumBuckets {
			continue
		}
		collided++
		cfg := DefaultConfig()
		cfg.CoDel = false
		s := mustShared(t, cfg)
		q := s.NewQueue(nil)
		for i := 0; i < 20; i++ {
			q.Enqueue(0, bulk, LifetimeInfinite)
		}
		q.Dequeue(time.Millisecond)
		q.Enqueue(2*time.Millisecond, ping, LifetimeInfinite)
		pos := -1
		for i := 0; q.Len() > 0; i++ {
			fr, _, _ := q.Dequeue(3 * time.Millisecond)
			if len(fr.Data) == 84 {
				pos = i
			}
		}
		if pos > 1 {
			t.Fatalf("ICMP id %d (same bucket as the TCP flow): ping dequeued at position %d", id, pos)
		}
	}
	if collided == 0 {
		t.Fatal("no ICMP id collided with the TCP flow's bucket: the test proves nothing")
	}
}

// TestBucketsKeepFlowOrder: with more flows than buckets, frames of one
// flow still leave in their order (a flow stays in the bucket that holds
// its frames).
func TestBucketsKeepFlowOrder(t *testing.T) {
	cfg := DefaultConfig()
	cfg.CoDel = false
	s := mustShared(t, cfg)
	q := s.NewQueue(nil)
	const flows, per = 40, 5
	for i := 0; i < per; i++ {
		for f := 0; f < flows; f++ {
			b := ipFrame(17, uint16(1000+f), 53, 100+i) // the length tells the frame's place
			q.Enqueue(0, b, LifetimeInfinite)
		}
	}
	last := map[uint16]int{}
	for q.Len() > 0 {
		fr, _, _ := q.Dequeue(time.Millisecond)
		sport := binary.BigEndian.Uint16(fr.Data[7+20:])
		if l, ok := last[sport]; ok && len(fr.Data) <= l {
			t.Fatalf("flow %d: frame of %d octets after one of %d", sport, len(fr.Data), l)
		}
		last[sport] = len(fr.Data)
	}
	if len(last) != flows {
		t.Fatalf("%d flows came out, want %d", len(last), flows)
	}
}
