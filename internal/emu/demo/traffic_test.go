package demo

import (
	"slices"
	"testing"
	"time"
)

// tcpPkt is a data segment (seq) or an ack (ack, sack) on its way.
type tcpPkt struct {
	at   time.Duration
	seq  int
	ack  int
	sack uint32
}

// TestTCPSenderRTORecovery replays the demo download that stopped for good
// (`demo -fast -scenario sfq-red -loss 0.01` without queue idle-ack-delay):
// the first copies of segments 10, 12, 14, 16, 18 and 21 were lost and
// the MS's acks for 11..23 were held on the uplink until after the
// retransmission timeout. After an RTO a TCP sender (RFC 5681 §3.1, RFC
// 6675 §5.1; Linux's Loss state) starts over from one segment in slow
// start and resends every segment not SACKed: they are all lost, none in
// flight. The model took the unSACKed segments for in flight and kept
// cwnd at 1 until the recovery point: with segment 21 "in flight" it sent
// nothing after the first retransmission was acked and waited for the
// next RTO, each twice as long (13 s, 27 s, ...), so the download never
// finished within the demo's 5 minutes.
func TestTCPSenderRTORecovery(t *testing.T) {
	const total, owd = 40, 100 * time.Millisecond
	s := newTCPSender(total*1000, 1000, 64*1000, 0)
	drop := map[int]bool{10: true, 12: true, 14: true, 16: true, 18: true, 21: true}
	sent := map[int]int{}
	var segs, acks, held []tcpPkt
	now := time.Duration(0)
	send := func(seq int) {
		sent[seq]++
		if sent[seq] == 1 && drop[seq] {
			return
		}
		segs = append(segs, tcpPkt{at: now + owd, seq: seq})
	}
	rcv := map[int]bool{}
	rcvNext := 0
	s.sendable(now, send)
	for ; now < 30*time.Second && !s.done; now += 10 * time.Millisecond {
		for len(segs) > 0 && segs[0].at <= now {
			p := segs[0]
			segs = segs[1:]
			rcv[p.seq] = true
			for rcv[rcvNext] {
				rcvNext++
			}
			a := tcpPkt{at: now + owd, ack: rcvNext}
			for k := 0; k < 32; k++ {
				if rcv[rcvNext+1+k] {
					a.sack |= 1 << k
				}
			}
			if p.seq >= 11 && p.seq <= 23 && sent[p.seq] == 1 && s.timeouts == 0 {
				held = append(held, a) // the uplink is stalled
			} else {
				acks = append(acks, a)
			}
		}
		if s.timeouts > 0 && len(held) > 0 {
			for _, a := range held {
				a.at = now + owd
				acks = append(acks, a)
			}
			held = nil
		}
		slices.SortStableFunc(acks, func(x, y tcpPkt) int { return int(x.at - y.at) })
		for len(acks) > 0 && acks[0].at <= now {
			a := acks[0]
			acks = acks[1:]
			s.onAckECN(a.ack, a.sack, false, now, send)
		}
		s.tick(now, send)
	}
	if !s.done {
		t.Fatalf("not done after %v: una %d next %d cwnd %.1f pipe %d timeouts %d rto %v", now, s.una, s.next, s.cwnd, s.pipe(), s.timeouts, s.rto)
	}
	if s.timeouts != 1 {
		t.Errorf("%d retransmission timeouts, want 1: after it every lost segment goes in slow start", s.timeouts)
	}
	for seq := range drop {
		if sent[seq] != 2 {
			t.Errorf("segment %d sent %d times, want 2", seq, sent[seq])
		}
	}
	t.Logf("done at %v, %d retransmissions", s.doneAt, s.retx)
}
