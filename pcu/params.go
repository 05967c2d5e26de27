package pcu

import (
	"time"

	"github.com/gopcu/gopcu/bssgp/ns/nse"
	"github.com/gopcu/gopcu/llc"
)

// Params are the engine's tunables: the `pcu` node of the VTY maps onto
// them (pcu/config), timers default to osmo-pcu's (osmo-pcu gprs_pcu.c T_defs_pcu, bts.cpp T_defs_bts).
// Values from INFO_IND (T3169, T3191, T3193, T3195, N310x, initial CS)
// override the defaults when the BTS sends them.
type Params struct {
	ForceCSDL, ForceCSUL int       // `cs DL [UL]`; 0 = from INFO_IND
	CSAdjust             bool      // `cs threshold` (true) / `no cs threshold`
	CSAdjLower           int       // % DL error rate below which CS goes up (10)
	CSAdjUpper           int       // % above which it goes down (33)
	CSLQ                 [4][2]int // `cs link-quality-ranges`: UL C/I window (dB) per CS
	MCSLQ                [9][2]int // `mcs link-quality-ranges`: UL C/I window (dB) per MCS
	ForceMCSDL           int       // `mcs DL [UL]`; 0 = from INFO_IND
	ForceMCSUL           int       // the UL of `mcs DL UL`
	MCSMaxDL             int       // `mcs max`, default 9
	MCSMaxUL             int       // `mcs max DL UL`, default 9
	WSBase, WSPDCH       int       // `window-size BASE PDCH`, 64 0
	CSMaxDL, CSMaxUL     int       // `cs max`, default 4
	AllocAlgo            string    // "a", "b", "dynamic"
	TwoPhaseAccess       bool
	MultislotDefault     int // `multislot-class default` when configured, 0: not (see pcu/alloc Class)
	PreemptiveRetx       bool
	DLArq2               bool // `egprs dl arq-type arq2`: no split blocks
	// OsmoPollAge counts a DL poll's age from its answer's frame, as
	// osmo-pcu does, instead of from when it was sent: a kept-open TBF is
	// then polled (and an MS with new uplink data can ask for a TBF) about
	// 60 ms later each time. Off by default; the differential tests
	// against osmo-pcu turn it on.
	OsmoPollAge bool

	T3141, T3169, T3191, T3193, T3195 time.Duration
	T3190                             time.Duration // `timer T3190`: DL poll age bound (5 s)
	T3113                             time.Duration // `timer T3113`: PCH paging timeout (7 s)
	T3172                             time.Duration // `timer T3172`: Packet Access Reject wait indication (5 s)
	X2001, X2002, X2030, X2031        time.Duration
	N3101, N3103, N3105               int
	NACC                              NACCParams // X1, X2, X10, X11, `neighbor resolution`

	LLC llc.Config

	// Gb
	GbDialect           string // "classic" or "ip-sns"
	NSTimers            nse.Timers
	FlowControlInterval time.Duration
	// FlowControlMS: send FLOW-CONTROL-MS for every MS with a DL TBF each
	// flow-control interval (gopcu's `flow-control-ms`; off by default as
	// osmo-pcu never sends it)
	FlowControlMS    bool
	FCForceBVCBucket int
	FCForceBVCLeak   int
	FCForceMSBucket  int
	FCForceMSLeak    int
	FCBucketTime     int
	OverrideMCC      int // -m/-n: override MCC/MNC in the BSSGP RAI
	OverrideMNC      int

	// GSMTAP categories sent to Config.GSMTAP (`gsmtap-category`)
	GSMTAPCategories uint32
	// MSMax bounds the MS objects of a BTS (`ms-max`, gopcu); 0 = no limit.
	MSMax int
}

// DefaultParams are osmo-pcu's defaults.
func DefaultParams() Params {
	return Params{
		CSMaxDL: 4, CSMaxUL: 4, AllocAlgo: "dynamic", CSAdjust: true, CSAdjLower: 10, CSAdjUpper: 33,
		CSLQ: [4][2]int{{-256, 6}, {5, 8}, {7, 13}, {12, 256}},
		MCSLQ: [9][2]int{{-256, 6}, {5, 8}, {7, 13}, {12, 15}, {14, 17},
			{16, 18}, {17, 20}, {19, 24}, {23, 256}},
		MCSMaxDL: 9, MCSMaxUL: 9, WSBase: 64, PreemptiveRetx: true,
		T3141: 10 * time.Second, T3169: 5 * time.Second, T3191: 5 * time.Second, T3193: 1600 * time.Millisecond,
		T3195: 5 * time.Second, T3190: 5 * time.Second, T3113: 7 * time.Second, T3172: 5 * time.Second,
		X2001: 2 * time.Second, X2002: 200 * time.Millisecond, X2030: 60 * time.Second, X2031: 2 * time.Second,
		N3101: 10, N3103: 4, N3105: 8,
		NACC:      DefaultNACCParams(),
		LLC:       llc.DefaultConfig(),
		GbDialect: "classic", FlowControlInterval: time.Second,
		MSMax: DefaultMSMax,
	}
}

// Params returns the engine's parameters. Engine goroutine only.
func (e *Engine) Params() Params { return e.params }

// SetParams replaces the engine's parameters; queue settings reach every
// existing MS at once. Engine goroutine only.
func (e *Engine) SetParams(p Params) {
	if err := e.llcShared.Apply(p.LLC); err != nil {
		e.llcLog.Error("queue configuration refused", "err", err)
		p.LLC = e.params.LLC
	}
	lowered := p.MSMax > 0 && (e.params.MSMax == 0 || p.MSMax < e.params.MSMax)
	e.params = p
	if lowered {
		for _, b := range e.btsList {
			if n := len(b.ms.all) - p.MSMax; n > 0 {
				e.reclaimMS(b, n)
			}
		}
	}
}
