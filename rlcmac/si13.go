package rlcmac

import (
	"errors"
	"time"
)

// SI13 is what the PCU uses of a System Information Type 13 message (TS
// 44.018 §9.1.43a): its rest octets (§10.5.2.37b) with the GPRS Cell
// Options (TS 44.060 §12.24) and the GPRS power control parameters. A cell
// with PBCCH (not used by Osmocom) carries no cell options here.
type SI13 struct {
	BCCHChangeMark uint8
	SIChangeField  uint8
	HasMA          bool // a GPRS Mobile Allocation is present (skipped)
	SI13ChangeMark uint8
	PBCCH          bool // PBCCH present: the fields below are not set

	RAC               uint8
	SPGCCCCHSup       bool
	PriorityAccessThr uint8
	NCO               uint8 // NETWORK_CONTROL_ORDER

	// GPRS Cell Options.
	NMO             uint8
	T3168Code       uint8 // (code + 1) x 500 ms
	T3192Code       uint8 // see T3192
	DRXTimerMax     uint8
	AccessBurstType bool // 11-bit access bursts
	ControlAckType  bool // RLC/MAC control block (else access bursts)
	BSCVMax         uint8
	HasPAN          bool
	PANDec          uint8
	PANInc          uint8
	PANMax          uint8
	HasExt          bool
	EGPRS           bool // extension: EGPRS supported in the cell
	EGPRSPChReq     bool // EGPRS Packet Channel Request used (inverted bit)
	BEPPeriod       uint8

	// GPRS Power Control Parameters.
	Alpha      uint8
	TAvgW      uint8
	TAvgT      uint8
	PCMeasChan bool
	NAvgI      uint8
}

// ErrNotSI13 is returned for a block that is no System Information 13.
var ErrNotSI13 = errors.New("rlcmac: not a System Information 13 message")

// t3192ms is the T3192 coding of TS 44.060 §12.24.
var t3192ms = [8]int{500, 1000, 1500, 0, 80, 120, 160, 200}

// T3168 is the coded T3168: (code + 1) x 500 ms.
func (s *SI13) T3168() time.Duration {
	return time.Duration(int(s.T3168Code)+1) * 500 * time.Millisecond
}

// T3192 is the coded T3192 (500, 1000, 1500, 0, 80, 120, 160 or 200 ms).
func (s *SI13) T3192() time.Duration {
	return time.Duration(t3192ms[s.T3192Code&7]) * time.Millisecond
}

// DecodeSI13 decodes a 23-octet SI13 message as the BTS sends it on BCCH
// (L2 pseudo length, RR protocol discriminator, message type 0x00, rest
// octets). Malformed input gives an error, never a panic.
func DecodeSI13(b []byte) (SI13, error) {
	var s SI13
	if len(b) != MACBlockLen || b[1] != 0x06 || b[2] != 0x00 {
		return s, ErrNotSI13
	}
	v := NewBitVec(b)
	v.SetPos(3 * 8)
	var err error
	u := func(n int) uint8 {
		if err != nil {
			return 0
		}
		var x uint64
		x, err = v.Read(n)
		return uint8(x)
	}
	flag := func() bool { return u(1) == 1 }
	lh, e := v.ReadLH()
	if e != nil || lh == 0 {
		return s, &BitError{Off: v.Pos(), Field: "SI13 rest octets", Err: ErrInvalid}
	}
	s.BCCHChangeMark = u(3)
	s.SIChangeField = u(4)
	if s.HasMA = flag(); s.HasMA {
		s.SI13ChangeMark = u(2)
		skipGPRSMobileAllocation(&v, &err)
	}
	if s.PBCCH = flag(); s.PBCCH {
		return s, err
	}
	s.RAC = u(8)
	s.SPGCCCCHSup = flag()
	s.PriorityAccessThr = u(3)
	s.NCO = u(2)
	s.NMO = u(2)
	s.T3168Code = u(3)
	s.T3192Code = u(3)
	s.DRXTimerMax = u(3)
	s.AccessBurstType = flag()
	s.ControlAckType = flag()
	s.BSCVMax = u(4)
	if s.HasPAN = flag(); s.HasPAN {
		s.PANDec, s.PANInc, s.PANMax = u(3), u(3), u(3)
	}
	if s.HasExt = flag(); s.HasExt {
		n := int(u(6)) + 1
		end := v.Pos() + n
		// R99: EGPRS supported, then its two fields; what follows
		// (PFC, DTM, ... in later releases) is skipped by the length.
		if s.EGPRS = flag(); s.EGPRS && err == nil {
			s.EGPRSPChReq = !flag()
			s.BEPPeriod = u(4)
		}
		if err == nil {
			if end > v.Len() || v.Pos() > end {
				return s, &BitError{Off: v.Pos(), Field: "GPRS Cell Options extension", Err: ErrInvalid}
			}
			v.SetPos(end)
		}
	}
	s.Alpha = u(4)
	s.TAvgW = u(5)
	s.TAvgT = u(5)
	s.PCMeasChan = flag()
	s.NAvgI = u(4)
	if err != nil {
		return s, &BitError{Off: v.Pos(), Field: "SI13 rest octets", Err: err}
	}
	return s, nil
}

// skipGPRSMobileAllocation reads past a GPRS Mobile Allocation IE (TS
// 44.060 §12.10): HSN, an optional RFL number list, then an MA bitmap or
// an optional ARFCN index list.
func skipGPRSMobileAllocation(v *BitVec, err *error) {
	read := func(n int) uint64 {
		if *err != nil {
			return 0
		}
		x, e := v.Read(n)
		if e != nil {
			*err = e
		}
		return x
	}
	read(6) // HSN
	if read(1) == 1 {
		for { // RFL number list
			read(4)
			if read(1) == 0 || *err != nil {
				break
			}
		}
	}
	if read(1) == 0 {
		read(int(read(6)) + 1) // MA_LENGTH, MA_BITMAP (up to 64 bits)
		return
	}
	if read(1) == 1 {
		for { // ARFCN index list
			read(6)
			if read(1) == 0 || *err != nil {
				break
			}
		}
	}
}
