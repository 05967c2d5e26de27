package config

import "github.com/gopcu/gopcu/vty"

// BTSTimers returns a BTS's timer table (`show bts-timer`; osmo-pcu bts.cpp
// T_defs_bts). Values come from INFO_IND / SI13 and are not
// settable on the VTY; the engine keeps one table per BTS.
func BTSTimers() vty.Tdefs {
	ts := vty.Tdefs{
		{T: 3142, Default: 20, Unit: vty.UnitS, Desc: "Wait Indication used in Imm Ass Reject during TBF Establishment (CCCH)", Max: 255},
		{T: 3168, Default: 4000, Unit: vty.UnitMS, Desc: "Time MS waits for PACKET UPLINK ACK when establishing a UL TBF"},
		{T: 3169, Default: 5, Unit: vty.UnitS, Desc: "Reuse of USF and TFI(s) after the MS uplink TBF assignment is invalid"},
		{T: 3191, Default: 5, Unit: vty.UnitS, Desc: "Reuse of TFI(s) after sending (1) last RLC Data Block on TBF(s), or (2) PACKET TBF RELEASE for an MBMS radio bearer"},
		{T: 3192, Default: 1500, Unit: vty.UnitMS, Desc: "Time MS stays monitoring the PDCH after transmitting DL ACK/NACK for last DL block (FBI=1). Configured at the BSC (SI13)."},
		{T: 3193, Default: 1600, Unit: vty.UnitMS, Desc: "Reuse of TFI(s) after reception of final PACKET DOWNLINK ACK/NACK from MS for TBF"},
		{T: 3195, Default: 5, Unit: vty.UnitS, Desc: "Reuse of TFI(s) upon no response from the MS (radio failure or cell change) for TBF/MBMS radio bearer"},
		{T: -16, Default: 1000, Unit: vty.UnitMS, Desc: "Granularity for *:all_allocated rate counters: amount of milliseconds that one counter increment" +
			" represents. See also X17, X18"},
		{T: -17, Default: 0, Unit: vty.UnitMS, Desc: "Rounding threshold for *:all_allocated rate counters: round up to the next counter increment" +
			" after this many milliseconds. If set to half of X16 (or 0), employ the usual round() behavior:" +
			" round up after half of a granularity period. If set to 1, behave like ceil(): already" +
			" increment the counter immediately when all channels are allocated. If set >= X16, behave like" +
			" floor(): only increment after a full X16 period of all channels being occupied." +
			" See also X16, X18"},
		{T: -18, Default: 60000, Unit: vty.UnitMS, Desc: "Forget-sum period for *:all_allocated rate counters:" +
			" after this amount of idle time, forget internally cumulated time remainders. Zero to always" +
			" keep remainders. See also X16, X17."},
	}
	ts.Reset()
	return ts
}

// ShowBTSTimers prints `show bts-timer [TNNNN]` for one BTS: "BTS<n>:"
// then each timer indented by one space (osmo-pcu show_bts_timer). The
// engine calls it per BTS from its handler.
func ShowBTSTimers(c *vty.Context, nr int, ts vty.Tdefs) error {
	c.Printf("BTS%d:\n", nr)
	arg := ""
	if len(c.Args) > 0 {
		arg = c.Args[0]
	}
	return ts.Show(c, arg, " ")
}
