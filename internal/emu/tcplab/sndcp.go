package tcplab

import (
	"cmp"
	"errors"

	"github.com/gopcu/gopcu/internal/emu/msemu"
	"github.com/gopcu/gopcu/internal/emu/msnet"
)

// IP packets travel between the lab's TUN devices and gopcu as a phone's
// user data does with an unencrypted PDP context and no compression:
// SNDCP SN-UNITDATA PDUs (TS 44.065 §7.2, Figure 10; segmented by
// msnet.SNDCPTx, read by msnet.ParseUnitdata) in LLC UI frames on SAPI 3
// (TS 44.064 §6.3.1.5).
const (
	// SAPIUser is the LLC SAPI of the lab's user data (QoS class 1).
	SAPIUser = msnet.SAPIQoS1
	// NSAPI of the lab's PDP context (TS 24.008 §10.5.6.2: 5..15).
	NSAPI = 5
	// DefaultN201U is the LLC information field the lab uses (TS 44.064
	// §8.9.9 allows up to 1520; the default for SAPI 3 is 500, phones
	// negotiate more with XID).
	DefaultN201U = 1503
)

// Errors of the SNDCP/LLC wrapping and unwrapping.
var (
	ErrNotUserData = errors.New("tcplab: not an SN-UNITDATA PDU in an LLC UI frame on SAPI 3")
	ErrFCS         = errors.New("tcplab: LLC FCS mismatch")
	ErrTooLong     = msnet.ErrTooLong    // more than 16 SNDCP segments
	ErrCompressed  = msnet.ErrCompressed // PCOMP or DCOMP set
)

// Encoder wraps IP packets for one direction of one MS: it owns the LLC
// N(U) and, in its msnet.SNDCPTx, the SNDCP N-PDU number.
type Encoder struct {
	N201U int    // LLC information field size; DefaultN201U if 0
	nu    uint16 // LLC UI sequence number N(U), 9 bits
	sn    msnet.SNDCPTx
}

// Encode returns the LLC UI frames (with FCS) carrying one IP packet.
func (e *Encoder) Encode(ip []byte) ([][]byte, error) {
	e.sn.NSAPI, e.sn.N201U = NSAPI, cmp.Or(e.N201U, DefaultN201U)
	segs, err := e.sn.Segment(ip)
	if err != nil {
		return nil, err
	}
	frames := make([][]byte, len(segs))
	for i, seg := range segs {
		frames[i] = msemu.UIFrame(SAPIUser, e.nu, seg)
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
	u, err := msnet.ParseUnitdata(frame[3 : len(frame)-3])
	switch {
	case errors.Is(err, ErrCompressed):
		d.Stats.Dropped++
		return nil, err
	case err != nil:
		return nil, ErrNotUserData
	}
	if u.First {
		if d.active {
			d.Stats.Dropped++ // the previous N-PDU lost its last segment
		}
		d.active, d.buf, d.npdu, d.next = u.Seg == 0, nil, u.NPDU, 0
		if !d.active {
			d.Stats.Dropped++
			return nil, nil
		}
	} else if !d.active || u.NPDU != d.npdu || u.Seg != d.next {
		if d.active {
			d.Stats.Dropped++
		}
		d.active, d.buf = false, nil
		return nil, nil
	}
	d.buf = append(d.buf, u.Data...)
	d.next++
	if u.More {
		return nil, nil
	}
	ip := d.buf
	d.active, d.buf = false, nil
	d.Stats.Packets++
	return ip, nil
}
