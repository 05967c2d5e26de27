package bssgp

import (
	"encoding/binary"

	"github.com/gopcu/gopcu/bssgp/internal/tlv"
)

// PDUs of the NM SAP (TS 48.018 §10.4): BVC block, unblock and reset,
// flow control, FLUSH-LL, LLC-DISCARDED and STATUS.

// BVCBlock is BVC-BLOCK (§10.4.8).
type BVCBlock struct {
	BVCI  uint16
	Cause Cause
}

func (p *BVCBlock) Type() PDUType { return PDUBVCBlock }
func (p *BVCBlock) ies(c *codec) {
	c.u16(IEBVCI, M, &p.BVCI, nil)
	c.cause(IECause, M, &p.Cause, nil)
}

// BVCBlockAck is BVC-BLOCK-ACK (§10.4.9).
type BVCBlockAck struct{ BVCI uint16 }

func (p *BVCBlockAck) Type() PDUType { return PDUBVCBlockAck }
func (p *BVCBlockAck) ies(c *codec) {
	c.u16(IEBVCI, M, &p.BVCI, nil)
}

// BVCUnblock is BVC-UNBLOCK (§10.4.10).
type BVCUnblock struct{ BVCI uint16 }

func (p *BVCUnblock) Type() PDUType { return PDUBVCUnblock }
func (p *BVCUnblock) ies(c *codec) {
	c.u16(IEBVCI, M, &p.BVCI, nil)
}

// BVCUnblockAck is BVC-UNBLOCK-ACK (§10.4.11).
type BVCUnblockAck struct{ BVCI uint16 }

func (p *BVCUnblockAck) Type() PDUType { return PDUBVCUnblockAck }
func (p *BVCUnblockAck) ies(c *codec) {
	c.u16(IEBVCI, M, &p.BVCI, nil)
}

// BVCReset is BVC-RESET (§10.4.12). The Cell Identifier is present when a
// PTP BVC is reset by the BSS (§8.4).
type BVCReset struct {
	BVCI           uint16
	Cause          Cause
	CellID         CellID
	HasCellID      bool
	FeatureBitmap  uint8
	HasFeatures    bool
	ExtFeatures    uint8
	HasExtFeatures bool
}

func (p *BVCReset) Type() PDUType { return PDUBVCReset }
func (p *BVCReset) ies(c *codec) {
	c.u16(IEBVCI, M, &p.BVCI, nil)
	c.cause(IECause, M, &p.Cause, nil)
	c.cellID(C, &p.CellID, &p.HasCellID)
	c.u8(IEFeatureBitmap, O, &p.FeatureBitmap, &p.HasFeatures)
	c.u8(IEExtFeatureBitmap, O, &p.ExtFeatures, &p.HasExtFeatures)
}

// BVCResetAck is BVC-RESET-ACK (§10.4.13).
type BVCResetAck struct {
	BVCI           uint16
	CellID         CellID
	HasCellID      bool
	FeatureBitmap  uint8
	HasFeatures    bool
	ExtFeatures    uint8
	HasExtFeatures bool
}

func (p *BVCResetAck) Type() PDUType { return PDUBVCResetAck }
func (p *BVCResetAck) ies(c *codec) {
	c.u16(IEBVCI, M, &p.BVCI, nil)
	c.cellID(C, &p.CellID, &p.HasCellID)
	c.u8(IEFeatureBitmap, O, &p.FeatureBitmap, &p.HasFeatures)
	c.u8(IEExtFeatureBitmap, O, &p.ExtFeatures, &p.HasExtFeatures)
}

// FlowControlBVC is FLOW-CONTROL-BVC (§10.4.4), BSS -> SGSN, PTP. Bucket
// sizes are in units of 100 octets, leak rates in units of 100 bit/s
// (§11.3.5, §11.3.4, §11.3.2, §11.3.32); Measurement is the average queuing
// delay in centiseconds (§11.3.7).
type FlowControlBVC struct {
	Tag                uint8
	BucketSize         uint16
	LeakRate           uint16
	BmaxMS             uint16
	RMS                uint16
	BucketFullRatio    uint8
	HasBucketFullRatio bool
	Measurement        uint16
	HasMeasurement     bool
	Granularity        uint8
	HasGranularity     bool
}

func (p *FlowControlBVC) Type() PDUType { return PDUFlowControlBVC }
func (p *FlowControlBVC) ies(c *codec) {
	c.u8(IETag, M, &p.Tag, nil)
	c.u16(IEBVCBucketSize, M, &p.BucketSize, nil)
	c.u16(IEBucketLeakRate, M, &p.LeakRate, nil)
	c.u16(IEBmaxDefaultMS, M, &p.BmaxMS, nil)
	c.u16(IERDefaultMS, M, &p.RMS, nil)
	c.u8(IEBucketFullRatio, C, &p.BucketFullRatio, &p.HasBucketFullRatio)
	c.u16(IEBVCMeasurement, O, &p.Measurement, &p.HasMeasurement)
	c.u8(IEFlowCtrlGranul, O, &p.Granularity, &p.HasGranularity)
}

// FlowControlBVCAck is FLOW-CONTROL-BVC-ACK (§10.4.5).
type FlowControlBVCAck struct{ Tag uint8 }

func (p *FlowControlBVCAck) Type() PDUType { return PDUFlowControlBVCAck }
func (p *FlowControlBVCAck) ies(c *codec) {
	c.u8(IETag, M, &p.Tag, nil)
}

// FlowControlMS is FLOW-CONTROL-MS (§10.4.6), BSS -> SGSN, PTP. Units as
// FlowControlBVC.
type FlowControlMS struct {
	TLLI               uint32
	Tag                uint8
	BucketSize         uint16 // MS Bucket Size
	LeakRate           uint16
	BucketFullRatio    uint8
	HasBucketFullRatio bool
	Granularity        uint8
	HasGranularity     bool
}

func (p *FlowControlMS) Type() PDUType { return PDUFlowControlMS }
func (p *FlowControlMS) ies(c *codec) {
	c.u32(IETLLI, M, &p.TLLI, nil)
	c.u8(IETag, M, &p.Tag, nil)
	c.u16(IEMSBucketSize, M, &p.BucketSize, nil)
	c.u16(IEBucketLeakRate, M, &p.LeakRate, nil)
	c.u8(IEBucketFullRatio, C, &p.BucketFullRatio, &p.HasBucketFullRatio)
	c.u8(IEFlowCtrlGranul, O, &p.Granularity, &p.HasGranularity)
}

// FlowControlMSAck is FLOW-CONTROL-MS-ACK (§10.4.7).
type FlowControlMSAck struct {
	TLLI uint32
	Tag  uint8
}

func (p *FlowControlMSAck) Type() PDUType { return PDUFlowControlMSAck }
func (p *FlowControlMSAck) ies(c *codec) {
	c.u32(IETLLI, M, &p.TLLI, nil)
	c.u8(IETag, M, &p.Tag, nil)
}

// FlushLL is FLUSH-LL (§10.4.1), SGSN -> BSS, signalling BVC.
type FlushLL struct {
	TLLI       uint32
	BVCIOld    uint16
	BVCINew    uint16
	HasBVCINew bool
	NSEI       uint16
	HasNSEI    bool
}

func (p *FlushLL) Type() PDUType { return PDUFlushLL }
func (p *FlushLL) ies(c *codec) {
	c.u32(IETLLI, M, &p.TLLI, nil)
	c.u16(IEBVCI, M, &p.BVCIOld, nil)
	if c.decoding() {
		p.BVCINew, p.HasBVCINew = c.d.second(IEBVCI)
	} else {
		c.u16(IEBVCI, C, &p.BVCINew, &p.HasBVCINew)
	}
	c.u16(IENSEI, C, &p.NSEI, &p.HasNSEI)
}

// second decodes the second IE iei of 2 octets (FLUSH-LL's "BVCI (new)",
// conditional).
func (d *dec) second(iei IEI) (uint16, bool) {
	seen := 0
	for i := 0; i < d.n; i++ {
		if d.ies[i].iei != iei {
			continue
		}
		if seen++; seen < 2 {
			continue
		}
		if len(d.ies[i].v) != 2 {
			d.invalid(iei, C, d.ies[i].off, "bad IE length")
			return 0, false
		}
		return binary.BigEndian.Uint16(d.ies[i].v), true
	}
	return 0, false
}

// FlushLLAck is FLUSH-LL-ACK (§10.4.2), BSS -> SGSN. FlushAction: 0 LLC
// PDU(s) deleted, 1 transferred (§11.3.13).
type FlushLLAck struct {
	TLLI        uint32
	FlushAction uint8
	BVCINew     uint16
	HasBVCINew  bool
	NumOctets   uint32 // Number of octets affected (24 bit)
	NSEI        uint16
	HasNSEI     bool
}

func (p *FlushLLAck) Type() PDUType { return PDUFlushLLAck }
func (p *FlushLLAck) ies(c *codec) {
	c.u32(IETLLI, M, &p.TLLI, nil)
	c.u8(IEFlushAction, M, &p.FlushAction, nil)
	c.u16(IEBVCI, C, &p.BVCINew, &p.HasBVCINew)
	c.u24(IENumOctetsAffected, M, &p.NumOctets)
	c.u16(IENSEI, C, &p.NSEI, &p.HasNSEI)
}

// LLCDiscarded is LLC-DISCARDED (§10.4.3), BSS -> SGSN, signalling BVC.
type LLCDiscarded struct {
	TLLI      uint32
	Frames    uint8 // LLC Frames Discarded
	BVCI      uint16
	NumOctets uint32 // 24 bit
}

func (p *LLCDiscarded) Type() PDUType { return PDULLCDiscarded }
func (p *LLCDiscarded) ies(c *codec) {
	c.u32(IETLLI, M, &p.TLLI, nil)
	c.u8(IELLCFramesDiscarded, M, &p.Frames, nil)
	c.u16(IEBVCI, M, &p.BVCI, nil)
	c.u24(IENumOctetsAffected, M, &p.NumOctets)
}

// MarshalLen returns the encoded length of p.
func (p *LLCDiscarded) MarshalLen() int {
	c := codec{e: tlv.Enc{N: 1}}
	p.ies(&c)
	return c.e.N
}

// MarshalTo encodes p into b without allocating (the engine sends one for
// every MS whose frames are dropped; MarshalTo of the PDU interface moves
// the codec to the heap).
func (p *LLCDiscarded) MarshalTo(b []byte) (int, error) {
	if len(b) < p.MarshalLen() {
		return 0, ErrShortBuffer
	}
	b[0] = byte(PDULLCDiscarded)
	c := codec{e: tlv.Enc{B: b, N: 1}}
	p.ies(&c)
	return c.e.N, nil
}

// Status is STATUS (§10.4.14): Cause, BVCI (conditional: cause BVCI
// blocked/unknown), PDU In Error (conditional: protocol errors).
type Status struct {
	Cause      Cause
	BVCI       uint16
	HasBVCI    bool
	PDUInError []byte
}

func (p *Status) Type() PDUType { return PDUStatus }
func (p *Status) ies(c *codec) {
	c.cause(IECause, M, &p.Cause, nil)
	c.u16(IEBVCI, C, &p.BVCI, &p.HasBVCI)
	c.bytes(IEPDUInError, C, tlv.TLV, 0, -1, &p.PDUInError)
}
