package msnet

import "errors"

// SNDCP in unacknowledged mode (TS 44.065 §7.2, Figure 10): an
// SN-UNITDATA PDU is
//
//	octet 1: X(0) F T(1) M NSAPI(4)   F first segment, M more segments
//	octet 2: DCOMP(4) PCOMP(4)        first segment only
//	octet 3: segment number(4) N-PDU number bits 11..8
//	octet 4: N-PDU number bits 7..0
//
// An N-PDU longer than N201-U minus the header is segmented (§6.9), all
// segments with the same N-PDU number, at most 16.

// Errors of the SNDCP receive side.
var (
	ErrNotUnitdata = errors.New("msnet: not an SN-UNITDATA PDU")
	ErrCompressed  = errors.New("msnet: compressed N-PDU (DCOMP/PCOMP) not negotiated")
	ErrTooLong     = errors.New("msnet: N-PDU needs more than 16 SNDCP segments")
)

// SNDCPTx segments N-PDUs of one NSAPI.
type SNDCPTx struct {
	NSAPI uint8
	N201U int // LLC information field size (500 for SAPI 3 by default, TS 44.064 Table 9)
	npdu  uint16
}

// Segment returns the SN-UNITDATA PDUs carrying one N-PDU. An N-PDU that
// needs more than 16 segments is ErrTooLong and uses no N-PDU number.
func (s *SNDCPTx) Segment(pdu []byte) ([][]byte, error) {
	n201 := s.N201U
	if n201 == 0 {
		n201 = 500
	}
	n := s.npdu & 0xfff
	var out [][]byte
	for seg := 0; ; seg++ {
		if seg == 16 {
			return nil, ErrTooLong
		}
		var h []byte
		if seg == 0 {
			h = []byte{0x40 | 0x20 | s.NSAPI&0x0f, 0x00, byte(n >> 8 & 0x0f), byte(n)}
		} else {
			h = []byte{0x20 | s.NSAPI&0x0f, byte(seg<<4) | byte(n>>8&0x0f), byte(n)}
		}
		room := n201 - len(h)
		take := min(room, len(pdu))
		more := take < len(pdu)
		if more {
			h[0] |= 0x10
		}
		out = append(out, append(h, pdu[:take]...))
		pdu = pdu[take:]
		if !more {
			s.npdu++
			return out, nil
		}
	}
}

// SNDCPRx reassembles N-PDUs of one NSAPI. Segments of several N-PDUs may
// be in progress at once and arrive in any order (LLC UI frames are
// numbered, not ordered: TS 44.064 §8.4.2 takes overtaken frames, and a
// PCU that queues per flow interleaves the N-PDUs of one NSAPI); an N-PDU
// is delivered once its last segment (M = 0) and every one before it are
// there, and given up when its number falls 128 behind the newest
// (unacknowledged mode, TS 44.065 §6.9.2: the N-PDU is lost).
type SNDCPRx struct {
	parts  map[int]*partial
	newest int
	seen   bool
	// Lost counts N-PDUs given up for a missing segment.
	Lost int
}

type partial struct {
	segs  [16][]byte
	have  uint16
	last  int // segment number with M = 0, -1 until seen
	nsapi uint8
}

// Unitdata is one SN-UNITDATA PDU as ParseUnitdata reads it.
type Unitdata struct {
	NSAPI       uint8
	First, More bool   // F and M
	Seg, NPDU   int    // segment number (4 bits), N-PDU number (12 bits)
	Data        []byte // the segment's part of the N-PDU (aliases the PDU)
}

// ParseUnitdata reads the SN-UNITDATA header (TS 44.065 §7.2, Figure 10)
// of b: ErrNotUnitdata when b is not one or is cut short, ErrCompressed
// when a first segment has DCOMP or PCOMP set. It does not check that a
// first segment is segment 0.
func ParseUnitdata(b []byte) (Unitdata, error) {
	if len(b) < 3 || b[0]&0x80 != 0 || b[0]&0x20 == 0 {
		return Unitdata{}, ErrNotUnitdata
	}
	u := Unitdata{NSAPI: b[0] & 0x0f, First: b[0]&0x40 != 0, More: b[0]&0x10 != 0}
	h := b[1:]
	if u.First {
		if len(b) < 4 {
			return Unitdata{}, ErrNotUnitdata
		}
		if b[1] != 0 {
			return Unitdata{}, ErrCompressed
		}
		h = b[2:]
	}
	u.Seg, u.NPDU, u.Data = int(h[0]>>4), int(h[0]&0x0f)<<8|int(h[1]), h[2:]
	return u, nil
}

// Receive takes one SN-UNITDATA PDU and returns a complete N-PDU, if any.
func (r *SNDCPRx) Receive(b []byte) (nsapi uint8, pdu []byte, err error) {
	u, err := ParseUnitdata(b)
	if err != nil {
		return 0, nil, err
	}
	if u.First != (u.Seg == 0) {
		return u.NSAPI, nil, ErrNotUnitdata
	}
	if u.First && !u.More {
		r.advance(u.NPDU)
		return u.NSAPI, append([]byte(nil), u.Data...), nil // the common case: one segment
	}
	if r.parts == nil {
		r.parts = map[int]*partial{}
	}
	p := r.parts[u.NPDU]
	if p == nil {
		p = &partial{last: -1, nsapi: u.NSAPI}
		r.parts[u.NPDU] = p
	}
	p.segs[u.Seg] = append([]byte(nil), u.Data...)
	p.have |= 1 << u.Seg
	if !u.More {
		p.last = u.Seg
	}
	r.advance(u.NPDU)
	if p.last < 0 || p.have != 1<<(p.last+1)-1 {
		return u.NSAPI, nil, nil
	}
	delete(r.parts, u.NPDU)
	for i := 0; i <= p.last; i++ {
		pdu = append(pdu, p.segs[i]...)
	}
	return u.NSAPI, pdu, nil
}

// advance notes N-PDU number n and gives up the N-PDUs rxGiveUp or more behind
// the newest (12-bit numbers, modulo 4096).
func (r *SNDCPRx) advance(n int) {
	if !r.seen || (n-r.newest)&0xfff < 0x800 {
		r.newest, r.seen = n, true
	}
	for k := range r.parts {
		if d := (r.newest - k) & 0xfff; d >= rxGiveUp && d < 0x800 {
			delete(r.parts, k)
			r.Lost++
		}
	}
}

// rxGiveUp is how far (in N-PDU numbers) an incomplete N-PDU may fall
// behind the newest before it is given up: a PCU that queues per flow lets
// a sparse flow's N-PDUs overtake a bulk flow's by seconds of queue.
const rxGiveUp = 128
