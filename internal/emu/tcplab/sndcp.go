package tcplab

import (
	"errors"

	"github.com/gopcu/gopcu/internal/emu/msemu"
)

// IP packets travel between the lab's TUN devices and gopcu as a phone's
// user data does with an unencrypted PDP context and no compression:
// SNDCP SN-UNITDATA PDUs (TS 44.065 §7.2, Figure 10) in LLC UI frames on
// SAPI 3 (TS 44.064 §6.3.1.5). SN-UNITDATA header:
//
//	octet 1: X(0) F T(1) M NSAPI(4)   F first segment, M more segments
//	octet 2: DCOMP(4) PCOMP(4)        first segment only
//	octet 3: segment number(4) N-PDU number bits 11..8
//	octet 4: N-PDU number bits 7..0
//
// An N-PDU longer than N201-U minus the header is segmented (TS 44.065
// §6.9): up to 16 segments, all with the same N-PDU number.
const (
	// SAPIUser is the LLC SAPI of the lab's user data (QoS class 1).
	SAPIUser = 3
	// NSAPI of the lab's PDP context (TS 24.008 §10.5.6.2: 5..15).
	NSAPI = 5
	// DefaultN201U is the LLC information field the lab uses (TS 44.064
	// §8.9.9 allows up to 1520; the default for SAPI 3 is 500, phones
	// negotiate more with XID).
	DefaultN201U = 1503

	maxSegments = 16
)

// Errors of the SNDCP/LLC unwrapping.
var (
	ErrNotUserData = errors.New("tcplab: not an SN-UNITDATA PDU in an LLC UI frame on SAPI 3")
	ErrFCS         = errors.New("tcplab: LLC FCS mismatch")
	ErrTooLong     = errors.New("tcplab: N-PDU needs more than 16 SNDCP segments")
	ErrCompressed  = errors.New("tcplab: compressed N-PDU (PCOMP/DCOMP) not supported")
)

// Encoder wraps IP packets for one direction of one MS: it owns the LLC
// N(U) and SNDCP N-PDU counters.
type Encoder struct {
	N201U int    // LLC information field size; DefaultN201U if 0
	nu    uint16 // LLC UI sequence number N(U), 9 bits
	npdu  uint16 // SNDCP N-PDU number, 12 bits
}

// Encode returns the LLC UI frames (with FCS) carrying one IP packet.
func (e *Encoder) Encode(ip []byte) ([][]byte, error) {
	n201 := e.N201U
	if n201 == 0 {
		n201 = DefaultN201U
	}
	first, later := n201-4, n201-3
	nseg := 1
	if len(ip) > first {
		nseg += (len(ip) - first + later - 1) / later
	}
	if nseg > maxSegments {
		return nil, ErrTooLong
	}
	npdu := e.npdu & 0xfff
	e.npdu++
	frames := make([][]byte, 0, nseg)
	for seg := 0; seg < nseg; seg++ {
		var hdr []byte
		room := later
		b1 := byte(0x20 | NSAPI) // T=1: SN-UNITDATA
		if seg == 0 {
			b1 |= 0x40 // F
			room = first
		}
		if seg < nseg-1 {
			b1 |= 0x10 // M
		}
		hdr = append(hdr, b1)
		if seg == 0 {
			hdr = append(hdr, 0) // DCOMP 0, PCOMP 0
		}
		hdr = append(hdr, byte(seg)<<4|byte(npdu>>8), byte(npdu))
		n := min(room, len(ip))
		info := append(hdr, ip[:n]...)
		ip = ip[n:]
		frames = append(frames, msemu.UIFrame(SAPIUser, e.nu, info))
		e.nu = (e.nu + 1) & 0x1ff
	}
	return frames, nil
}

// Decoder reassembles N-PDUs from LLC UI frames of one MS and direction.
type Decoder struct {
	active bool // an N-PDU is being reassembled
	npdu   int  // its N-PDU number
	next   int  // expected segment number
	buf    []byte
	Stats  struct{ Frames, Packets, Dropped int }
}

// Decode takes one LLC frame (with FCS) and returns a complete IP packet
// when the frame ends an N-PDU (nil otherwise). Frames of other SAPIs are
// reported with ErrNotUserData. A missing segment discards the N-PDU (in
// unacknowledged mode there is no retransmission, TS 44.065 §6.9.2).
func (d *Decoder) Decode(frame []byte) ([]byte, error) {
	d.Stats.Frames++
	if len(frame) < 3+3+3 || frame[0]&0x0f != SAPIUser || frame[1]&0xe0 != 0xc0 {
		return nil, ErrNotUserData
	}
	if !msemu.CheckFCS(frame) {
		d.Stats.Dropped++
		return nil, ErrFCS
	}
	s := frame[3 : len(frame)-3]
	if s[0]&0x20 == 0 || s[0]&0x80 != 0 {
		return nil, ErrNotUserData
	}
	firstSeg, more := s[0]&0x40 != 0, s[0]&0x10 != 0
	hl := 3
	if firstSeg {
		hl = 4
		if len(s) < hl {
			return nil, ErrNotUserData
		}
		if s[1] != 0 {
			d.Stats.Dropped++
			return nil, ErrCompressed
		}
	}
	if len(s) < hl {
		return nil, ErrNotUserData
	}
	segNr := int(s[hl-2] >> 4)
	npdu := int(s[hl-2]&0x0f)<<8 | int(s[hl-1])
	if firstSeg {
		if d.active {
			d.Stats.Dropped++ // the previous N-PDU lost its last segment
		}
		d.active, d.buf, d.npdu, d.next = segNr == 0, nil, npdu, 0
		if !d.active {
			d.Stats.Dropped++
			return nil, nil
		}
	} else if !d.active || npdu != d.npdu || segNr != d.next {
		if d.active {
			d.Stats.Dropped++
		}
		d.active, d.buf = false, nil
		return nil, nil
	}
	d.buf = append(d.buf, s[hl:]...)
	d.next++
	if more {
		return nil, nil
	}
	ip := d.buf
	d.active, d.buf = false, nil
	d.Stats.Packets++
	return ip, nil
}
