package bssgp

import "encoding/binary"

// PDUs of the NM SAP (TS 48.018 §10.4): BVC block, unblock and reset,
// flow control, FLUSH-LL, LLC-DISCARDED and STATUS.

// BVCBlock is BVC-BLOCK (§10.4.8).
type BVCBlock struct {
	BVCI  uint16
	Cause Cause
}

func (p *BVCBlock) Type() PDUType { return PDUBVCBlock }
func (p *BVCBlock) encode(e *enc) { e.tlvU16(IEBVCI, p.BVCI); e.tlvU8(IECause, uint8(p.Cause)) }
func (p *BVCBlock) decode(d *dec) {
	p.BVCI, _ = d.u16(IEBVCI, mand)
	c, _ := d.u8(IECause, mand)
	p.Cause = Cause(c)
}

// BVCBlockAck is BVC-BLOCK-ACK (§10.4.9).
type BVCBlockAck struct{ BVCI uint16 }

func (p *BVCBlockAck) Type() PDUType { return PDUBVCBlockAck }
func (p *BVCBlockAck) encode(e *enc) { e.tlvU16(IEBVCI, p.BVCI) }
func (p *BVCBlockAck) decode(d *dec) { p.BVCI, _ = d.u16(IEBVCI, mand) }

// BVCUnblock is BVC-UNBLOCK (§10.4.10).
type BVCUnblock struct{ BVCI uint16 }

func (p *BVCUnblock) Type() PDUType { return PDUBVCUnblock }
func (p *BVCUnblock) encode(e *enc) { e.tlvU16(IEBVCI, p.BVCI) }
func (p *BVCUnblock) decode(d *dec) { p.BVCI, _ = d.u16(IEBVCI, mand) }

// BVCUnblockAck is BVC-UNBLOCK-ACK (§10.4.11).
type BVCUnblockAck struct{ BVCI uint16 }

func (p *BVCUnblockAck) Type() PDUType { return PDUBVCUnblockAck }
func (p *BVCUnblockAck) encode(e *enc) { e.tlvU16(IEBVCI, p.BVCI) }
func (p *BVCUnblockAck) decode(d *dec) { p.BVCI, _ = d.u16(IEBVCI, mand) }

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
func (p *BVCReset) encode(e *enc) {
	e.tlvU16(IEBVCI, p.BVCI)
	e.tlvU8(IECause, uint8(p.Cause))
	if p.HasCellID {
		e.cellID(p.CellID)
	}
	if p.HasFeatures {
		e.tlvU8(IEFeatureBitmap, p.FeatureBitmap)
	}
	if p.HasExtFeatures {
		e.tlvU8(IEExtFeatureBitmap, p.ExtFeatures)
	}
}
func (p *BVCReset) decode(d *dec) {
	p.BVCI, _ = d.u16(IEBVCI, mand)
	c, _ := d.u8(IECause, mand)
	p.Cause = Cause(c)
	p.CellID, p.HasCellID = d.cellID(opt)
	p.FeatureBitmap, p.HasFeatures = d.u8(IEFeatureBitmap, opt)
	p.ExtFeatures, p.HasExtFeatures = d.u8(IEExtFeatureBitmap, opt)
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
func (p *BVCResetAck) encode(e *enc) {
	e.tlvU16(IEBVCI, p.BVCI)
	if p.HasCellID {
		e.cellID(p.CellID)
	}
	if p.HasFeatures {
		e.tlvU8(IEFeatureBitmap, p.FeatureBitmap)
	}
	if p.HasExtFeatures {
		e.tlvU8(IEExtFeatureBitmap, p.ExtFeatures)
	}
}
func (p *BVCResetAck) decode(d *dec) {
	p.BVCI, _ = d.u16(IEBVCI, mand)
	p.CellID, p.HasCellID = d.cellID(opt)
	p.FeatureBitmap, p.HasFeatures = d.u8(IEFeatureBitmap, opt)
	p.ExtFeatures, p.HasExtFeatures = d.u8(IEExtFeatureBitmap, opt)
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
func (p *FlowControlBVC) encode(e *enc) {
	e.tlvU8(IETag, p.Tag)
	e.tlvU16(IEBVCBucketSize, p.BucketSize)
	e.tlvU16(IEBucketLeakRate, p.LeakRate)
	e.tlvU16(IEBmaxDefaultMS, p.BmaxMS)
	e.tlvU16(IERDefaultMS, p.RMS)
	if p.HasBucketFullRatio {
		e.tlvU8(IEBucketFullRatio, p.BucketFullRatio)
	}
	if p.HasMeasurement {
		e.tlvU16(IEBVCMeasurement, p.Measurement)
	}
	if p.HasGranularity {
		e.tlvU8(IEFlowCtrlGranul, p.Granularity)
	}
}
func (p *FlowControlBVC) decode(d *dec) {
	p.Tag, _ = d.u8(IETag, mand)
	p.BucketSize, _ = d.u16(IEBVCBucketSize, mand)
	p.LeakRate, _ = d.u16(IEBucketLeakRate, mand)
	p.BmaxMS, _ = d.u16(IEBmaxDefaultMS, mand)
	p.RMS, _ = d.u16(IERDefaultMS, mand)
	p.BucketFullRatio, p.HasBucketFullRatio = d.u8(IEBucketFullRatio, opt)
	p.Measurement, p.HasMeasurement = d.u16(IEBVCMeasurement, opt)
	p.Granularity, p.HasGranularity = d.u8(IEFlowCtrlGranul, opt)
}

// FlowControlBVCAck is FLOW-CONTROL-BVC-ACK (§10.4.5).
type FlowControlBVCAck struct{ Tag uint8 }

func (p *FlowControlBVCAck) Type() PDUType { return PDUFlowControlBVCAck }
func (p *FlowControlBVCAck) encode(e *enc) { e.tlvU8(IETag, p.Tag) }
func (p *FlowControlBVCAck) decode(d *dec) { p.Tag, _ = d.u8(IETag, mand) }

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
func (p *FlowControlMS) encode(e *enc) {
	e.tlvU32(IETLLI, p.TLLI)
	e.tlvU8(IETag, p.Tag)
	e.tlvU16(IEMSBucketSize, p.BucketSize)
	e.tlvU16(IEBucketLeakRate, p.LeakRate)
	if p.HasBucketFullRatio {
		e.tlvU8(IEBucketFullRatio, p.BucketFullRatio)
	}
	if p.HasGranularity {
		e.tlvU8(IEFlowCtrlGranul, p.Granularity)
	}
}
func (p *FlowControlMS) decode(d *dec) {
	p.TLLI, _ = d.u32(IETLLI, mand)
	p.Tag, _ = d.u8(IETag, mand)
	p.BucketSize, _ = d.u16(IEMSBucketSize, mand)
	p.LeakRate, _ = d.u16(IEBucketLeakRate, mand)
	p.BucketFullRatio, p.HasBucketFullRatio = d.u8(IEBucketFullRatio, opt)
	p.Granularity, p.HasGranularity = d.u8(IEFlowCtrlGranul, opt)
}

// FlowControlMSAck is FLOW-CONTROL-MS-ACK (§10.4.7).
type FlowControlMSAck struct {
	TLLI uint32
	Tag  uint8
}

func (p *FlowControlMSAck) Type() PDUType { return PDUFlowControlMSAck }
func (p *FlowControlMSAck) encode(e *enc) { e.tlvU32(IETLLI, p.TLLI); e.tlvU8(IETag, p.Tag) }
func (p *FlowControlMSAck) decode(d *dec) {
	p.TLLI, _ = d.u32(IETLLI, mand)
	p.Tag, _ = d.u8(IETag, mand)
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
func (p *FlushLL) encode(e *enc) {
	e.tlvU32(IETLLI, p.TLLI)
	e.tlvU16(IEBVCI, p.BVCIOld)
	if p.HasBVCINew {
		e.tlvU16(IEBVCI, p.BVCINew)
	}
	if p.HasNSEI {
		e.tlvU16(IENSEI, p.NSEI)
	}
}
func (p *FlushLL) decode(d *dec) {
	p.TLLI, _ = d.u32(IETLLI, mand)
	p.BVCIOld, _ = d.u16(IEBVCI, mand)
	// The second BVCI IE is "BVCI (new)".
	seen := 0
	for i := 0; i < d.n; i++ {
		if d.ies[i].iei == IEBVCI {
			seen++
			if seen == 2 {
				if len(d.ies[i].v) != 2 {
					d.fail(CauseConditionalIEError, IEBVCI, d.ies[i].off, "bad IE length")
				} else {
					p.BVCINew, p.HasBVCINew = binary.BigEndian.Uint16(d.ies[i].v), true
				}
			}
		}
	}
	p.NSEI, p.HasNSEI = d.u16(IENSEI, opt)
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
func (p *FlushLLAck) encode(e *enc) {
	e.tlvU32(IETLLI, p.TLLI)
	e.tlvU8(IEFlushAction, p.FlushAction)
	if p.HasBVCINew {
		e.tlvU16(IEBVCI, p.BVCINew)
	}
	e.tlvU24(IENumOctetsAffected, p.NumOctets)
	if p.HasNSEI {
		e.tlvU16(IENSEI, p.NSEI)
	}
}
func (p *FlushLLAck) decode(d *dec) {
	p.TLLI, _ = d.u32(IETLLI, mand)
	p.FlushAction, _ = d.u8(IEFlushAction, mand)
	p.BVCINew, p.HasBVCINew = d.u16(IEBVCI, opt)
	p.NumOctets, _ = d.u24(IENumOctetsAffected, mand)
	p.NSEI, p.HasNSEI = d.u16(IENSEI, opt)
}

// LLCDiscarded is LLC-DISCARDED (§10.4.3), BSS -> SGSN, signalling BVC.
type LLCDiscarded struct {
	TLLI      uint32
	Frames    uint8 // LLC Frames Discarded
	BVCI      uint16
	NumOctets uint32 // 24 bit
}

func (p *LLCDiscarded) Type() PDUType { return PDULLCDiscarded }
func (p *LLCDiscarded) encode(e *enc) {
	e.tlvU32(IETLLI, p.TLLI)
	e.tlvU8(IELLCFramesDiscarded, p.Frames)
	e.tlvU16(IEBVCI, p.BVCI)
	e.tlvU24(IENumOctetsAffected, p.NumOctets)
}
func (p *LLCDiscarded) decode(d *dec) {
	p.TLLI, _ = d.u32(IETLLI, mand)
	p.Frames, _ = d.u8(IELLCFramesDiscarded, mand)
	p.BVCI, _ = d.u16(IEBVCI, mand)
	p.NumOctets, _ = d.u24(IENumOctetsAffected, mand)
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
func (p *Status) encode(e *enc) {
	e.tlvU8(IECause, uint8(p.Cause))
	if p.HasBVCI {
		e.tlvU16(IEBVCI, p.BVCI)
	}
	if p.PDUInError != nil {
		e.tlv(IEPDUInError, p.PDUInError)
	}
}
func (p *Status) decode(d *dec) {
	c, _ := d.u8(IECause, mand)
	p.Cause = Cause(c)
	p.BVCI, p.HasBVCI = d.u16(IEBVCI, opt)
	p.PDUInError = d.bytes(IEPDUInError, opt)
}
