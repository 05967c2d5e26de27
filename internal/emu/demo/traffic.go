package demo

import (
	"encoding/binary"
	"time"

	"github.com/gopcu/gopcu/internal/emu/msemu"
	"github.com/gopcu/gopcu/internal/pcapw"
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
	return appFrameDir(kind, kind == kindAck || kind == kindReply, seq, stamp, payload)
}

// appFrameDir is appFrame with the direction given: up is MS -> server.
func appFrameDir(kind byte, up bool, seq uint32, stamp time.Duration, payload int) []byte {
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
	if up {
		src, dst = dst, src
	}
	copy(ip[12:], src)
	copy(ip[16:], dst)
	binary.BigEndian.PutUint16(ip[10:], pcapw.Fold(pcapw.Sum(0, ip[:ipLen])))
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

// The SACK bitmap of an ack rides in the first 4 payload octets. The LLC
// FCS is recomputed after writing it.
func putSACK(frame []byte, sack uint32) {
	off := 3 + sndcpLen + ipLen + 20 + appHdr
	binary.BigEndian.PutUint32(frame[off:], sack)
	n := len(frame) - 3
	f := msemu.FCS(frame[:n])
	frame[n], frame[n+1], frame[n+2] = byte(f), byte(f>>8), byte(f>>16)
}

// ECN (RFC 3168) in the demo's TCP: the sender's data carries ECT(0); the
// receiver echoes a CE mark as ECE in the ack of the marked segment (a
// simplification of RFC 3168 §6.1.3's "until CWR"), and the sender
// halves its window at most once per window of data (§6.1.2), without
// retransmitting anything.
const (
	ipTOS    = 3 + sndcpLen + 1
	tcpFlags = 3 + sndcpLen + ipLen + 13
	flagECE  = 0x40
)

// setECN sets the IP ECN field of an app frame to ecn (0..3) and, with
// ece, the TCP ECE flag, then fixes the IP checksum and the LLC FCS.
func setECN(frame []byte, ecn byte, ece bool) {
	ip := frame[3+sndcpLen:]
	ip[1] = ip[1]&^3 | ecn
	if ece {
		frame[tcpFlags] |= flagECE
	}
	binary.BigEndian.PutUint16(ip[10:], 0)
	binary.BigEndian.PutUint16(ip[10:], pcapw.Fold(pcapw.Sum(0, ip[:ipLen])))
	n := len(frame) - 3
	f := msemu.FCS(frame[:n])
	frame[n], frame[n+1], frame[n+2] = byte(f), byte(f>>8), byte(f>>16)
}

func getSACK(frame []byte) uint32 {
	off := 3 + sndcpLen + ipLen + 20 + appHdr
	if len(frame) < off+4+3 {
		return 0
	}
	return binary.BigEndian.Uint32(frame[off:])
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

// tcpSender is a bulk sender that reacts to loss like today's TCP (Linux:
// Reno/NewReno congestion control with SACK loss recovery, RFC 5681,
// RFC 6675, RFC 6298): slow start, congestion avoidance, multiplicative
// decrease once per loss episode, retransmission of exactly the segments
// the receiver reports missing, and a retransmission timeout that restarts
// from one segment. Sequence numbers count segments; the receiver's ack
// carries the next expected segment and a bitmap of the 32 segments after
// it (its SACK blocks).
type tcpSender struct {
	mss      int
	total    int // segments to send
	rwnd     int // receiver window (segments)
	cwnd     float64
	ssthresh float64
	una      int // oldest unacked segment
	next     int // next new segment
	sacked   map[int]bool
	retxed   map[int]bool // retransmitted in the current recovery
	recover  int          // recovery ends when una passes this
	inRecov  bool
	rtoRecov bool // the recovery began with an RTO: every unSACKed segment below recover is lost
	dupacks  int
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
	ecnCuts  int // window reductions for ECE (RFC 3168 §6.1.2)
	ecnUntil int // no further ECE reduction until una reaches it
}

func newTCPSender(totalBytes, mss, rwndBytes int, now time.Duration) *tcpSender {
	return &tcpSender{mss: mss, total: (totalBytes + mss - 1) / mss, rwnd: max(rwndBytes/mss, 2), cwnd: 2, ssthresh: 1 << 20,
		rto: time.Second, sentAt: map[int]time.Duration{}, sacked: map[int]bool{}, retxed: map[int]bool{}, start: now}
}

// pipe estimates the segments in flight (RFC 6675 §4, simplified).
func (s *tcpSender) pipe() int {
	n := 0
	for i := s.una; i < s.next; i++ {
		if !s.sacked[i] && (!s.lost(i) || s.retxed[i]) {
			n++
		}
	}
	return n
}

// lost: three segments above i were SACKed (RFC 6675 IsLost with DupThresh
// 3), or i is the first hole during recovery, or i was sent before an RTO
// (RFC 5681 §3.1, RFC 6675 §5.1: after a timeout nothing sent before it
// counts as in flight; Linux marks those segments lost).
func (s *tcpSender) lost(i int) bool {
	if s.sacked[i] {
		return false
	}
	if s.rtoRecov && i < s.recover {
		return true
	}
	n := 0
	for j := i + 1; j < s.next && n < 3; j++ {
		if s.sacked[j] {
			n++
		}
	}
	return n >= 3 || s.inRecov && i == s.una
}

// sendable sends what the window allows: lost segments first, then new data.
func (s *tcpSender) sendable(now time.Duration, send func(seq int)) {
	if s.done {
		return
	}
	win := min(int(s.cwnd), s.rwnd)
	for s.pipe() < win {
		seq := -1
		for i := s.una; i < s.next; i++ {
			if s.lost(i) && !s.retxed[i] {
				seq = i
				break
			}
		}
		if seq >= 0 {
			s.retxed[seq] = true
			s.retx++
		} else if s.next < s.total && s.next-s.una < s.rwnd {
			seq = s.next
			s.next++
		} else {
			break
		}
		s.sentAt[seq] = now
		send(seq)
		if s.timerAt == 0 {
			s.timerAt = now + s.rto
		}
	}
}

// onAckECN processes a cumulative ack (next expected segment) with the SACK
// bitmap of the 32 segments after it and its ECE flag (RFC 3168 §6.1.2).
func (s *tcpSender) onAckECN(ack int, sack uint32, ece bool, now time.Duration, send func(seq int)) {
	if s.done {
		return
	}
	if ece && !s.inRecov && s.una >= s.ecnUntil {
		s.ssthresh = max(float64(s.pipe())/2, 2)
		s.cwnd = s.ssthresh
		s.ecnUntil = s.next
		s.ecnCuts++
	}
	for k := 0; k < 32; k++ {
		if sack&(1<<k) != 0 && ack+1+k < s.next {
			s.sacked[ack+1+k] = true
		}
	}
	if ack > s.una {
		if t, ok := s.sentAt[ack-1]; ok && !s.retxed[ack-1] {
			s.rttSample(now - t) // Karn: no samples from retransmissions
		}
		newly := ack - s.una
		for i := s.una; i < ack; i++ {
			delete(s.sentAt, i)
			delete(s.sacked, i)
			delete(s.retxed, i)
		}
		s.una = ack
		s.dupacks = 0
		if s.inRecov && s.una >= s.recover {
			s.inRecov = false
			if !s.rtoRecov {
				s.cwnd = s.ssthresh // fast recovery ends (RFC 6675 §5)
			}
			s.rtoRecov = false
		} else if s.rtoRecov && s.cwnd < s.ssthresh {
			// after an RTO the lost segments go in slow start (RFC
			// 5681 §3.1: cwnd restarts from one segment)
			s.cwnd += float64(newly)
		} else if !s.inRecov {
			if s.cwnd < s.ssthresh {
				s.cwnd += float64(newly)
			} else {
				s.cwnd += float64(newly) / s.cwnd
			}
		}
		s.timerAt = now + s.rto
		if s.una >= s.total {
			s.done, s.doneAt = true, now
			return
		}
		if s.next < s.una {
			s.next = s.una
		}
	} else if s.next > s.una {
		s.dupacks++
	}
	// Enter loss recovery once per window (multiplicative decrease).
	if !s.inRecov && (s.lost(s.una) || s.dupacks >= 3 || s.dupacks >= 1 && s.next-s.una <= 2 && s.next >= s.total) {
		s.inRecov = true
		s.recover = s.next
		s.ssthresh = max(float64(s.pipe())/2, 2)
		s.cwnd = s.ssthresh
		s.fastRetx++
		s.retxed = map[int]bool{}
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

// tick handles the retransmission timeout (RFC 6298 §5, RFC 6675 §5.1):
// one segment of window, the SACKed segments stay sent, the others are
// lost and go again as the window grows in slow start (rtoRecov).
func (s *tcpSender) tick(now time.Duration, send func(seq int)) {
	if s.done || s.timerAt == 0 || now < s.timerAt || s.next == s.una {
		return
	}
	s.timeouts++
	s.ssthresh = max(float64(s.pipe())/2, 2)
	s.cwnd = 1
	s.rto = min(2*s.rto, 60*time.Second)
	s.inRecov, s.rtoRecov = true, true
	s.recover = s.next
	s.retxed = map[int]bool{}
	for i := s.una; i < s.next; i++ {
		if !s.sacked[i] {
			s.retxed[i] = true // the first hole goes now, the others as holes
			s.retx++
			s.sentAt[i] = now
			send(i)
			break
		}
	}
	s.timerAt = now + s.rto
}
