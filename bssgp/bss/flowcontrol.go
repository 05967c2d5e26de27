package bss

import (
	"errors"
	"github.com/gopcu/gopcu/bssgp"
	"time"
)

// Limits of the 16-bit flow-control IEs (TS 48.018 §11.3.2, §11.3.4,
// §11.3.5, §11.3.22, §11.3.32): bucket sizes in 100-octet units, leak rates
// in 100 bit/s units.
const (
	MaxBucketOctets   = 0xffff * 100     // 6 553 500 octets
	MaxLeakOctetsPerS = 0xffff * 100 / 8 // 819 187 octets/s
	// MaxLLCPDU is the largest LLC PDU a BSS accepts in DL-UNITDATA
	// (TS 44.064 N201-U max 1520 + headers; osmo-pcu's limit).
	MaxLLCPDU = 1543
)

// FlowInput is what the engine knows about the cell for one
// FLOW-CONTROL-BVC computation (osmo-pcu gprs_bssgp_pcu.c gprs_bssgp_tx_fc_bvc()).
type FlowInput struct {
	NumPDCH         int // enabled PDCHs of the cell
	PeakRatePerPDCH int // octets/s of one PDCH at the current (M)CS: block octets x blocks x 50
	MaxSlotsPerMS   int // DL slots one MS can use (multislot class, algorithm); capped at 4
	// MeasuredRate is the drain rate seen over the last interval (octets/s);
	// 0 = unknown, the peak rate x NumPDCH is used.
	MeasuredRate int
	// Usage is the fraction (0..1000 permille) of radio blocks that carried
	// data in the last interval; blends measured and peak rate as osmo-pcu.
	UsagePermille int
	// VTY "flow-control force-*" values in octets and octets/s; 0 = unset.
	ForceBVCBucket, ForceBVCLeak, ForceMSBucket, ForceMSLeak int
	// VTY "flow-control bucket-time" in centiseconds (0 = unset, 0xffff = infinite).
	BucketTime int
	// LLC lifetime in centiseconds used when BucketTime is unset (0 = unset).
	LLCLifetime int
	// AvgQueueDelay is the mean sojourn time of LLC frames dequeued since the
	// last FLOW-CONTROL-BVC.
	AvgQueueDelay time.Duration
}

// FlowParams are flow-control values in natural units.
type FlowParams struct {
	BucketOctets   int
	LeakOctetsPerS int
	BmaxMSOctets   int
	RMSOctetsPerS  int
	QueueDelay     time.Duration
}

func clamp(v, hi int) int {
	if v < 0 {
		return 0
	}
	if v > hi {
		return hi
	}
	return v
}

func bucketFor(rate, bucketTime, lifetime, fallback int) int {
	bt := bucketTime
	if bt == 0 {
		bt = lifetime
	}
	switch {
	case bt == 0xffff:
		return MaxBucketOctets
	case bt > 0 && rate > 0:
		return rate * bt / 100
	case rate > 0:
		return rate * 10 // 10 s default lifetime
	}
	return fallback
}

// ComputeFlowControl derives FLOW-CONTROL-BVC values (osmo-pcu gprs_bssgp_pcu.c gprs_bssgp_tx_fc_bvc(),
// TS 48.018 §8.2.3), fixing osmo-pcu's unit bug for the queue delay.
func ComputeFlowControl(in FlowInput) FlowParams {
	var p FlowParams
	peak := in.PeakRatePerPDCH * in.NumPDCH
	switch {
	case in.ForceBVCLeak > 0:
		p.LeakOctetsPerS = in.ForceBVCLeak
	case in.MeasuredRate > 0 && in.UsagePermille > 0:
		u := clamp(in.UsagePermille, 1000)
		p.LeakOctetsPerS = (in.MeasuredRate*u + peak*(1000-u)) / 1000
	default:
		p.LeakOctetsPerS = peak
	}
	slots := in.MaxSlotsPerMS
	if slots <= 0 || slots > 4 {
		slots = 4
	}
	if in.NumPDCH < slots {
		slots = in.NumPDCH
	}
	if in.ForceMSLeak > 0 {
		p.RMSOctetsPerS = in.ForceMSLeak
	} else {
		p.RMSOctetsPerS = in.PeakRatePerPDCH * slots
	}
	if in.ForceBVCBucket > 0 {
		p.BucketOctets = in.ForceBVCBucket
	} else {
		p.BucketOctets = bucketFor(p.LeakOctetsPerS, in.BucketTime, in.LLCLifetime, 2000)
	}
	if in.ForceMSBucket > 0 {
		p.BmaxMSOctets = in.ForceMSBucket
	} else {
		p.BmaxMSOctets = bucketFor(p.RMSOctetsPerS, in.BucketTime, in.LLCLifetime, p.BucketOctets/2+500)
	}
	p.BucketOctets = clamp(p.BucketOctets, MaxBucketOctets)
	p.BmaxMSOctets = clamp(p.BmaxMSOctets, MaxBucketOctets)
	p.LeakOctetsPerS = clamp(p.LeakOctetsPerS, MaxLeakOctetsPerS)
	p.RMSOctetsPerS = clamp(p.RMSOctetsPerS, MaxLeakOctetsPerS)
	p.QueueDelay = in.AvgQueueDelay
	return p
}

// bucketUnits converts octets to the 100-octet unit, rounding up so a
// non-zero bucket never encodes as 0.
func bucketUnits(o int) uint16 { return uint16(clamp((o+99)/100, 0xffff)) }

// rateUnits converts octets/s to the 100 bit/s unit, rounded to nearest.
func rateUnits(o int) uint16 { return uint16(clamp((o*8+50)/100, 0xffff)) }

// PDU encodes p as FLOW-CONTROL-BVC with tag. The BVC Measurement is the
// queueing delay in centiseconds (TS 48.018 §11.3.7) — osmo-pcu divides
// nanoseconds by 1e9 instead of 1e7 and so only reports whole seconds.
func (p FlowParams) PDU(tag uint8) *bssgp.FlowControlBVC {
	cs := int(p.QueueDelay / (10 * time.Millisecond))
	return &bssgp.FlowControlBVC{
		Tag: tag, BucketSize: bucketUnits(p.BucketOctets), LeakRate: rateUnits(p.LeakOctetsPerS),
		BmaxMS: bucketUnits(p.BmaxMSOctets), RMS: rateUnits(p.RMSOctetsPerS),
		Measurement: uint16(clamp(cs, 0xffff)), HasMeasurement: true,
	}
}

// MSFlowParams sizes FLOW-CONTROL-MS for one MS (TS 48.018 §8.2.4): the leak
// rate is the MS's measured drain rate over the air, the bucket holds what
// drains within the MS queue's AQM interval plus one maximum LLC PDU, so the
// SGSN never has more than one AQM interval of data queued in the BSS for it.
func MSFlowParams(drainOctetsPerS int, aqmInterval time.Duration) (bucketOctets, leakOctetsPerS int) {
	leak := clamp(drainOctetsPerS, MaxLeakOctetsPerS)
	bucket := int(int64(leak)*int64(aqmInterval)/int64(time.Second)) + MaxLLCPDU
	return clamp(bucket, MaxBucketOctets), leak
}

// ErrBVCBlocked is returned by the send functions while the PTP BVC is not
// unblocked.
var ErrBVCBlocked = errors.New("bssgp: BVC not unblocked")
