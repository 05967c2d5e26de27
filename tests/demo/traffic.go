package demo

import (
	"encoding/binary"
	"time"

	"github.com/gopcu/gopcu/tests/msemu"
)

// The demo's traffic is IP over SNDCP over LLC UI frames on SAPI 3, as a
// phone's would be: SN-UNITDATA (TS 44.065 §7.2) on NSAPI 5, an IPv4
// header, then TCP (bulk data and acks) or ICMP echo (ping), then a small
// application header:
//
//	kind(1) seq(4) stamp(8, ns) [payload]
//
// kind: 'D' data segment, 'A' cumulative ack (seq = next expected),
// 'P' ping request, 'R' ping reply (stamp echoed). The PCU sees ordinary
// unencrypted user data; its flow isolation keys on the IP 5-tuple.
const (
	kindData  = 'D'
	kindAck   = 'A'
	kindPing  = 'P'
	kindReply = 'R'
	appHdr    = 13
	sapiUser  = 3
	nsapi     = 5
	sndcpLen  = 4
	ipLen     = 20
)

func appFrame(kind byte, seq uint32, stamp time.Duration, payload int) []byte {
	l4 := 20 // TCP
	proto := byte(6)
	if kind == kindPing || kind == kindReply {
		l4, proto = 8, 1 // ICMP echo
	}
	b := make([]byte, sndcpLen+ipLen+l4+appHdr+payload)
	b[0] = 0x60 | nsapi // F=1 (first segment), T=1 (SN-UNITDATA)
	b[3] = byte(seq)
	ip := b[sndcpLen:]
	binary.BigEndian.PutUint16(ip[2:], uint16(ipLen+l4+appHdr+payload))
	ip[0], ip[8], ip[9] = 0x45, 64, proto
	src, dst := []byte{10, 0, 0, 1}, []byte{10, 1, 0, 1}
	if kind == kindAck || kind == kindReply {
		src, dst = dst, src
	}
	copy(ip[12:], src)
	copy(ip[16:], dst)
	binary.BigEndian.PutUint16(ip[10:], ^ipSum(ip[:ipLen]))
	l := ip[ipLen:]
	switch kind {
	case kindData:
		binary.BigEndian.PutUint16(l[0:], 80)
		binary.BigEndian.PutUint16(l[2:], 40000)
	case kindAck:
		binary.BigEndian.PutUint16(l[0:], 40000)
		binary.BigEndian.PutUint16(l[2:], 80)
	case kindPing:
		l[0] = 8
		binary.BigEndian.PutUint16(l[4:], 1)
	case kindReply:
		binary.BigEndian.PutUint16(l[4:], 1)
	}
	a := l[l4:]
	a[0] = kind
	binary.BigEndian.PutUint32(a[1:], seq)
	binary.BigEndian.PutUint64(a[5:], uint64(stamp))
	for i := appHdr; i < len(a); i++ {
		a[i] = byte(seq + uint32(i))
	}
	return msemu.UIFrame(sapiUser, uint16(seq), b)
}

func ipSum(h []byte) uint16 {
	var sum uint32
	for i := 0; i+1 < len(h); i += 2 {
		sum += uint32(h[i])<<8 | uint32(h[i+1])
	}
	for sum > 0xffff {
		sum = sum&0xffff + sum>>16
	}
	return uint16(sum)
}

func parseApp(frame []byte) (kind byte, seq uint32, stamp time.Duration, payload int, ok bool) {
	if len(frame) < 3+sndcpLen+ipLen+8+appHdr+3 || frame[0]&0x0f != sapiUser {
		return 0, 0, 0, 0, false
	}
	ip := frame[3+sndcpLen : len(frame)-3]
	l4 := 20
	if ip[9] == 1 {
		l4 = 8
	}
	if len(ip) < ipLen+l4+appHdr {
		return 0, 0, 0, 0, false
	}
	a := ip[ipLen+l4:]
	return a[0], binary.BigEndian.Uint32(a[1:]), time.Duration(binary.BigEndian.Uint64(a[5:])), len(a) - appHdr, true
}

// tcpSender is a bulk sender that reacts to loss like TCP Reno (RFC 5681):
// slow start, congestion avoidance, fast retransmit on three duplicate
// acks with multiplicative decrease, and a retransmission timeout
// (RFC 6298) that restarts from one segment. Sequence numbers count
// segments.
type tcpSender struct {
	mss      int
	total    int // segments to send
	rwnd     int // receiver window (segments)
	cwnd     float64
	ssthresh float64
	una      int // oldest unacked segment
	next     int // next new segment
	dupacks  int
	recover  int
	srtt     time.Duration
	rttvar   time.Duration
	rto      time.Duration
	timerAt  time.Duration
	sentAt   map[int]time.Duration
	done     bool
	doneAt   time.Duration
	start    time.Duration
	retx     int
	timeouts int
	fastRetx int
}

func newTCPSender(totalBytes, mss, rwndBytes int, now time.Duration) *tcpSender {
	s := &tcpSender{mss: mss, total: (totalBytes + mss - 1) / mss, rwnd: max(rwndBytes/mss, 2), cwnd: 2, ssthresh: 1 << 20,
		rto: time.Second, sentAt: map[int]time.Duration{}, start: now}
	return s
}

// sendable returns the segments that may go out now.
func (s *tcpSender) sendable(now time.Duration, send func(seq int)) {
	if s.done {
		return
	}
	win := min(int(s.cwnd), s.rwnd)
	for s.next < s.total && s.next-s.una < win {
		s.sentAt[s.next] = now
		send(s.next)
		s.next++
		if s.timerAt == 0 {
			s.timerAt = now + s.rto
		}
	}
}

// onAck processes a cumulative ack (next expected segment).
func (s *tcpSender) onAck(ack int, now time.Duration, send func(seq int)) {
	if s.done {
		return
	}
	if ack > s.una {
		if t, ok := s.sentAt[ack-1]; ok && s.dupacks < 3 {
			s.rttSample(now - t)
		}
		for i := s.una; i < ack; i++ {
			delete(s.sentAt, i)
		}
		newly := ack - s.una
		s.una = ack
		if s.dupacks >= 3 && ack < s.recover {
			// RFC 6582 (NewReno) partial ack: the next hole is lost too,
			// retransmit it at once and stay in fast recovery.
			s.retx++
			s.sentAt[s.una] = now
			send(s.una)
			s.cwnd = max(s.cwnd-float64(newly)+1, 2)
			s.timerAt = now + s.rto
			s.sendable(now, send)
			return
		}
		if s.dupacks >= 3 {
			s.cwnd = s.ssthresh // leave fast recovery
		} else if s.cwnd < s.ssthresh {
			s.cwnd += float64(newly)
		} else {
			s.cwnd += float64(newly) / s.cwnd
		}
		s.dupacks = 0
		s.timerAt = now + s.rto
		if s.una >= s.total {
			s.done, s.doneAt = true, now
			return
		}
		if s.next < s.una {
			s.next = s.una
		}
	} else if ack == s.una && s.next > s.una {
		s.dupacks++
		outstanding := s.next - s.una
		// RFC 5827 early retransmit: with few segments in flight the
		// threshold is lowered so a loss does not wait for the RTO.
		thresh := 3
		if outstanding < 4 && (s.next >= s.total || s.next-s.una >= min(int(s.cwnd), s.rwnd)) {
			thresh = max(outstanding-1, 1)
		}
		switch {
		case s.dupacks == thresh && s.una >= s.recover:
			s.ssthresh = max(float64(outstanding)/2, 2)
			s.cwnd = s.ssthresh + float64(thresh)
			s.recover = s.next
			s.fastRetx++
			s.retx++
			s.sentAt[s.una] = now
			send(s.una)
			s.dupacks = 3 // in fast recovery
		case s.dupacks > thresh:
			s.cwnd++ // window inflation during fast recovery
		case s.dupacks < thresh && s.next < s.total && s.next-s.una < s.rwnd:
			// RFC 3042 limited transmit: one new segment per early dupack
			s.sentAt[s.next] = now
			send(s.next)
			s.next++
		}
	}
	s.sendable(now, send)
}

func (s *tcpSender) rttSample(r time.Duration) {
	if s.srtt == 0 {
		s.srtt, s.rttvar = r, r/2
	} else {
		d := s.srtt - r
		if d < 0 {
			d = -d
		}
		s.rttvar = (3*s.rttvar + d) / 4
		s.srtt = (7*s.srtt + r) / 8
	}
	s.rto = max(s.srtt+4*s.rttvar, 200*time.Millisecond) // Linux's minimum RTO
}

// tick handles the retransmission timeout.
func (s *tcpSender) tick(now time.Duration, send func(seq int)) {
	if s.done || s.timerAt == 0 || now < s.timerAt || s.next == s.una {
		return
	}
	s.timeouts++
	s.ssthresh = max(float64(s.next-s.una)/2, 2)
	s.cwnd = 1
	s.rto = min(2*s.rto, 60*time.Second)
	s.next = s.una // go back N
	s.retx++
	s.timerAt = now + s.rto
	s.sendable(now, send)
}
