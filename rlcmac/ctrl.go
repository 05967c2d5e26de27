package rlcmac

import (
	"errors"
	"fmt"
)

// ControlBlockLen is the length of an RLC/MAC control block (CS-1, TS 44.060 §10.1).
const ControlBlockLen = 23

// ErrUnsupported is returned for CSN.1 branches the codec does not implement
// (fixed allocation, COMPACT, Iu mode...).
var ErrUnsupported = errors.New("rlcmac: unsupported CSN.1 branch")

// DL message types (TS 44.060 §11.2.0.1, Table 11.2.0.1).
const (
	MTPacketCellChangeOrder      = 0x01
	MTPacketDownlinkAssignment   = 0x02
	MTPacketMeasurementOrder     = 0x03
	MTPacketPollingRequest       = 0x04
	MTPacketPowerControlTA       = 0x05
	MTPacketQueueingNotification = 0x06
	MTPacketTimeslotReconfigure  = 0x07
	MTPacketTBFRelease           = 0x08
	MTPacketUplinkAckNack        = 0x09
	MTPacketUplinkAssignment     = 0x0A
	MTPacketCellChangeContinue   = 0x0B
	MTPacketNeighbourCellData    = 0x0C
	MTPacketServingCellData      = 0x0D
	MTPacketAccessReject         = 0x21
	MTPacketPagingRequest        = 0x22
	MTPacketPDCHRelease          = 0x23
	MTPacketDownlinkDummyControl = 0x25
	MTPacketSystemInformation13  = 0x37
)

// UL message types (TS 44.060 §11.2.0.2, Table 11.2.0.2).
const (
	MTPacketCellChangeFailure       = 0x00
	MTPacketControlAck              = 0x01
	MTPacketDownlinkAckNack         = 0x02
	MTPacketUplinkDummyControl      = 0x03
	MTPacketMeasurementReport       = 0x04
	MTPacketResourceRequest         = 0x05
	MTPacketMobileTBFStatus         = 0x06
	MTPacketPSIStatus               = 0x07
	MTEGPRSPacketDownlinkAckNack    = 0x08
	MTPacketPause                   = 0x09
	MTPacketEnhancedMeasurementRept = 0x0A
	MTAdditionalMSRAC               = 0x0B
	MTPacketCellChangeNotification  = 0x0C
	MTPacketSIStatus                = 0x0D
)

// Message is an RLC/MAC control message body (TS 44.060 §11.2). The message
// type (6 bits) is coded by the block functions; csn codes what follows.
type Message interface {
	MsgType() uint8
	Uplink() bool // true for MS -> network messages
	Name() string
	csn(c *Coder)
}

// DLCtrlHeader is the downlink RLC/MAC control block header (TS 44.060 §10.3.1):
//
//	  7   6   5   4   3   2   1   0
//	+-------+-------+---+-----------+
//	|  PT   | RRBP  |S/P|    USF    |  octet 1
//	+---+---+-------+---+---+---+---+
//	|RBS|       RTI         |FS |AC |  octet 2 (PT = 10 only)
//	+---+-------------------+---+---+
//	|  PR   |        TFI        | D |  octet 3 (AC = 1 only)
//	+-------+-------------------+---+
type DLCtrlHeader struct {
	RRBP uint8
	SP   bool
	USF  uint8
	// Optional octets (PayloadType 10, "with optional octets").
	Opt  bool
	RBSN bool
	RTI  uint8
	FS   bool
	AC   bool
	PR   uint8
	TFI  uint8
	D    bool
}

// ULCtrlHeader is the uplink RLC/MAC control block header (TS 44.060 §10.3.2).
type ULCtrlHeader struct {
	R bool // retry
}

func (h *DLCtrlHeader) csn(c *Coder) {
	pt := uint8(PTControl)
	if h.Opt {
		pt = PTControlOpt
	}
	c.U8(&pt, 2, "PT")
	if c.dec && c.err == nil && pt != PTControl && pt != PTControlOpt {
		c.v.pos -= 2
		c.Fail(ErrNotControl, "PT")
		return
	}
	h.Opt = pt == PTControlOpt
	c.U8(&h.RRBP, 2, "RRBP")
	c.Bool(&h.SP, "S/P")
	c.U8(&h.USF, 3, "USF")
	if h.Opt {
		c.Bool(&h.RBSN, "RBSN")
		c.U8(&h.RTI, 5, "RTI")
		c.Bool(&h.FS, "FS")
		c.Bool(&h.AC, "AC")
		if h.AC {
			c.U8(&h.PR, 2, "PR")
			c.U8(&h.TFI, 5, "TFI")
			c.Bool(&h.D, "D")
		}
	}
}

func (h *ULCtrlHeader) csn(c *Coder) {
	c.Fixed(PTControl, 2, "PT")
	if c.err != nil {
		c.err.(*BitError).Err = ErrNotControl
	}
	c.Spare(5)
	c.Bool(&h.R, "R")
}

// ErrNotControl: the block's payload type is not a control block.
var ErrNotControl = errors.New("rlcmac: not a control block")

// EncodeDL writes a downlink control block (header + message + 0x2B padding)
// into b (len >= 23) and returns 23.
func EncodeDL(b []byte, h *DLCtrlHeader, m Message) (int, error) {
	if m.Uplink() {
		return 0, fmt.Errorf("%w: %s is an uplink message", ErrMsgType, m.Name())
	}
	return encodeBlock(b, h, nil, m)
}

// EncodeUL writes an uplink control block (the MS side) into b (len >= 23).
func EncodeUL(b []byte, h *ULCtrlHeader, m Message) (int, error) {
	if !m.Uplink() {
		return 0, fmt.Errorf("%w: %s is a downlink message", ErrMsgType, m.Name())
	}
	return encodeBlock(b, nil, h, m)
}

func encodeBlock(b []byte, dh *DLCtrlHeader, uh *ULCtrlHeader, m Message) (int, error) {
	if len(b) < ControlBlockLen {
		return 0, &BitError{Off: len(b) * 8, Field: "block", Err: ErrOverflow}
	}
	c := NewEncoder(b[:ControlBlockLen])
	if dh != nil {
		dh.csn(&c)
	} else {
		uh.csn(&c)
	}
	c.Fixed(uint64(m.MsgType()), 6, "MESSAGE_TYPE")
	codeMessage(&c, m)
	c.PadSpare()
	if c.err != nil {
		return 0, c.err
	}
	return ControlBlockLen, nil
}

// DecodeDLInto decodes a downlink control block into a caller-owned message
// whose type must match (no allocation).
func DecodeDLInto(b []byte, h *DLCtrlHeader, m Message) error {
	_, err := decodeBlock(b, h, nil, m)
	return err
}

// DecodeULInto decodes an uplink control block into a caller-owned message
// whose type must match (no allocation).
func DecodeULInto(b []byte, h *ULCtrlHeader, m Message) error {
	_, err := decodeBlock(b, nil, h, m)
	return err
}

// decodeBlock decodes the header of the control block b into dh or uh
// (the other nil) and its message into m, or, with m nil, into a new
// message of the type MESSAGE_TYPE gives.
func decodeBlock(b []byte, dh *DLCtrlHeader, uh *ULCtrlHeader, m Message) (Message, error) {
	c := NewDecoder(b)
	if dh != nil {
		dh.csn(&c)
	} else {
		uh.csn(&c)
	}
	if m == nil {
		return decodeAny(&c, uh != nil)
	}
	return m, decodeBody(&c, m)
}

func decodeBody(c *Coder, m Message) error {
	if c.err != nil {
		return c.err
	}
	var mt uint8
	c.U8(&mt, 6, "MESSAGE_TYPE")
	if c.err == nil && mt != m.MsgType() {
		return &BitError{Off: c.Pos() - 6, Field: "MESSAGE_TYPE", Err: ErrMsgType}
	}
	codeMessage(c, m)
	return c.err
}

// PeekMsgType returns the message type of a control block (after a 1-octet
// MAC header; for DL blocks with optional octets the caller passes the header length).
func PeekMsgType(b []byte, hdrOctets int) (uint8, error) {
	if len(b) <= hdrOctets {
		return 0, &BitError{Off: len(b) * 8, Field: "MESSAGE_TYPE", Err: ErrShort}
	}
	return b[hdrOctets] >> 2, nil
}

// DecodeDL decodes any supported downlink control block.
func DecodeDL(b []byte) (DLCtrlHeader, Message, error) {
	var h DLCtrlHeader
	m, err := decodeBlock(b, &h, nil, nil)
	return h, m, err
}

// DecodeUL decodes any supported uplink control block.
func DecodeUL(b []byte) (ULCtrlHeader, Message, error) {
	var h ULCtrlHeader
	m, err := decodeBlock(b, nil, &h, nil)
	return h, m, err
}

// decodeAny decodes the message after a decoded header, its type chosen
// by the MESSAGE_TYPE field.
func decodeAny(c *Coder, uplink bool) (Message, error) {
	if c.err != nil {
		return nil, c.err
	}
	mt, err := c.v.Peek(6)
	if err != nil {
		return nil, &BitError{Off: c.Pos(), Field: "MESSAGE_TYPE", Err: err}
	}
	var m Message
	dir := "DL"
	if uplink {
		m, dir = newULMessage(uint8(mt)), "UL"
	} else {
		m = newDLMessage(uint8(mt))
	}
	if m == nil {
		return nil, &BitError{Off: c.Pos(), Field: "MESSAGE_TYPE", Err: fmt.Errorf("%w: %s 0x%02x", ErrUnknown, dir, mt)}
	}
	return m, decodeBody(c, m)
}

func newDLMessage(mt uint8) Message {
	switch mt {
	case MTPacketDownlinkAssignment:
		return &PacketDownlinkAssignment{}
	case MTPacketPollingRequest:
		return &PacketPollingRequest{}
	case MTPacketPowerControlTA:
		return &PacketPowerControlTA{}
	case MTPacketTimeslotReconfigure:
		return &PacketTimeslotReconfigure{}
	case MTPacketTBFRelease:
		return &PacketTBFRelease{}
	case MTPacketUplinkAckNack:
		return &PacketUplinkAckNack{}
	case MTPacketUplinkAssignment:
		return &PacketUplinkAssignment{}
	case MTPacketCellChangeContinue:
		return &PacketCellChangeContinue{}
	case MTPacketNeighbourCellData:
		return &PacketNeighbourCellData{}
	case MTPacketServingCellData:
		return &PacketServingCellData{}
	case MTPacketAccessReject:
		return &PacketAccessReject{}
	case MTPacketPagingRequest:
		return &PacketPagingRequest{}
	case MTPacketDownlinkDummyControl:
		return &PacketDownlinkDummyControlBlock{}
	}
	return nil
}

func newULMessage(mt uint8) Message {
	switch mt {
	case MTPacketControlAck:
		return &PacketControlAck{}
	case MTPacketDownlinkAckNack:
		return &PacketDownlinkAckNack{}
	case MTPacketUplinkDummyControl:
		return &PacketUplinkDummyControlBlock{}
	case MTPacketMeasurementReport:
		return &PacketMeasurementReport{}
	case MTPacketResourceRequest:
		return &PacketResourceRequest{}
	case MTPacketMobileTBFStatus:
		return &PacketMobileTBFStatus{}
	case MTEGPRSPacketDownlinkAckNack:
		return &EGPRSPacketDownlinkAckNack{}
	case MTAdditionalMSRAC:
		return &AdditionalMSRAC{}
	case MTPacketCellChangeNotification:
		return &PacketCellChangeNotification{}
	}
	return nil
}

// MessageBits returns the number of bits header + message occupy before the
// spare padding (useful to size bitmaps that fill the rest of a block).
func MessageBits(m Message) (int, error) {
	var b [ControlBlockLen]byte
	c := NewEncoder(b[:])
	messageBits(&c, m)
	return c.Pos(), c.err
}

func messageBits(c *Coder, m Message) {
	if m.Uplink() {
		var h ULCtrlHeader
		h.csn(c)
	} else {
		var h DLCtrlHeader
		h.csn(c)
	}
	c.Fixed(uint64(m.MsgType()), 6, "MESSAGE_TYPE")
	codeMessage(c, m)
}

// bitsLeft returns the bits left in a control block after m (ok false on an
// encoding error). It does not return the error so that nothing escapes.
func bitsLeft(m Message) (int, bool) {
	var b [ControlBlockLen]byte
	c := NewEncoder(b[:])
	messageBits(&c, m)
	return ControlBlockLen*8 - c.Pos(), c.err == nil
}

// FillEGPRSAckNack sets the EGPRS Ack/Nack Description of an EGPRS Packet
// Uplink Ack/Nack from the receive window, using all bits left in the block.
func (m *PacketUplinkAckNack) FillEGPRSAckNack(w *ReceiveWindow, final bool) error {
	m.EGPRS = true
	return fillEGPRSAckNack(m, &m.EGPRSAckNack, w, final)
}

// FillEGPRSAckNack sets the bitmap of an EGPRS Packet Downlink Ack/Nack (MS side).
func (m *EGPRSPacketDownlinkAckNack) FillEGPRSAckNack(w *ReceiveWindow, final bool) error {
	return fillEGPRSAckNack(m, &m.AckNack, w, final)
}

// fillEGPRSAckNack sets d, the EGPRS Ack/Nack Description of m, from the
// receive window with as many bits as the block has left after m with an
// empty description that has its length field.
func fillEGPRSAckNack(m Message, d *EGPRSAckNack, w *ReceiveWindow, final bool) error {
	*d = EGPRSAckNack{HasLength: true}
	left, ok := bitsLeft(m)
	if !ok {
		_, err := MessageBits(m)
		return err
	}
	*d = w.EGPRSAckNack(final, left)
	return nil
}

// codeMessage runs m's description (clearing m first when decoding). The type
// switch devirtualises the call so that the Coder stays on the caller's stack
// (no allocation per block).
func codeMessage(c *Coder, m Message) {
	switch v := m.(type) {
	case *AdditionalMSRAC:
		zeroOnDecode(c, v)
		v.csn(c)
	case *EGPRSPacketDownlinkAckNack:
		zeroOnDecode(c, v)
		v.csn(c)
	case *PacketAccessReject:
		zeroOnDecode(c, v)
		v.csn(c)
	case *PacketCellChangeContinue:
		zeroOnDecode(c, v)
		v.csn(c)
	case *PacketCellChangeNotification:
		zeroOnDecode(c, v)
		v.csn(c)
	case *PacketControlAck:
		zeroOnDecode(c, v)
		v.csn(c)
	case *PacketDownlinkAckNack:
		zeroOnDecode(c, v)
		v.csn(c)
	case *PacketDownlinkAssignment:
		zeroOnDecode(c, v)
		v.csn(c)
	case *PacketDownlinkDummyControlBlock:
		zeroOnDecode(c, v)
		v.csn(c)
	case *PacketMeasurementReport:
		zeroOnDecode(c, v)
		v.csn(c)
	case *PacketMobileTBFStatus:
		zeroOnDecode(c, v)
		v.csn(c)
	case *PacketNeighbourCellData:
		zeroOnDecode(c, v)
		v.csn(c)
	case *PacketPagingRequest:
		zeroOnDecode(c, v)
		v.csn(c)
	case *PacketPollingRequest:
		zeroOnDecode(c, v)
		v.csn(c)
	case *PacketPowerControlTA:
		zeroOnDecode(c, v)
		v.csn(c)
	case *PacketResourceRequest:
		zeroOnDecode(c, v)
		v.csn(c)
	case *PacketServingCellData:
		zeroOnDecode(c, v)
		v.csn(c)
	case *PacketTBFRelease:
		zeroOnDecode(c, v)
		v.csn(c)
	case *PacketTimeslotReconfigure:
		zeroOnDecode(c, v)
		v.csn(c)
	case *PacketUplinkAckNack:
		zeroOnDecode(c, v)
		v.csn(c)
	case *PacketUplinkAssignment:
		zeroOnDecode(c, v)
		v.csn(c)
	case *PacketUplinkDummyControlBlock:
		zeroOnDecode(c, v)
		v.csn(c)
	default:
		c.Fail(ErrUnknown, "message")
	}
}

// zeroOnDecode clears *v before it is decoded, so that a decoded message
// holds only what the block carries.
func zeroOnDecode[T any](c *Coder, v *T) {
	if c.dec {
		var zero T
		*v = zero
	}
}
