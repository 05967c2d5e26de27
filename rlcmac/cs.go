package rlcmac

import "fmt"

// CodingScheme is a GPRS (CS-1..4) or EGPRS (MCS-1..9) channel coding scheme
// (TS 44.060 §10.0a, TS 45.003 §5.1).
type CodingScheme uint8

// Coding schemes. The zero value is "unknown".
const (
	CSUnknown CodingScheme = iota
	CS1
	CS2
	CS3
	CS4
	MCS1
	MCS2
	MCS3
	MCS4
	MCS5
	MCS6
	MCS7
	MCS8
	MCS9
	numCS
)

// HeaderType is the RLC/MAC data block header format (TS 44.060 §10.3a).
type HeaderType uint8

// Header types.
const (
	HeaderInvalid HeaderType = iota
	HeaderGPRS               // §10.2.1/§10.2.2, 3 octets
	HeaderEGPRS1             // §10.3a.3.1 / §10.3a.4.1, MCS-7..9
	HeaderEGPRS2             // §10.3a.3.2 / §10.3a.4.2, MCS-5..6
	HeaderEGPRS3             // §10.3a.3.3 / §10.3a.4.3, MCS-1..4
)

// Family is the EGPRS MCS family (TS 44.060 §9.3.2.1 / Figure 10.0a.2.1).
type Family uint8

// MCS families.
const (
	FamilyNone Family = iota
	FamilyA
	FamilyB
	FamilyC
)

type csInfo struct {
	name       string
	ulLen      uint8 // octets exchanged on the PCU socket (UL)
	dlLen      uint8 // octets exchanged on the PCU socket (DL)
	ulHdrBits  uint8 // RLC/MAC header bits, UL
	dlHdrBits  uint8 // RLC/MAC header bits, DL
	units      uint8 // RLC data units per block
	unitLen    uint8 // data octets per unit
	padLen     uint8 // padding octets when resent in a padded variant (MCS-3/6 from MCS-8)
	hdr        HeaderType
	family     Family
	familyRank uint8
}

// Values from TS 44.060 Table 10.2.1 (CS-1..4: data octets 20/30/36/50, block
// 23/34/40/54 octets incl. spare bits), Table 10.3a.0.1 (MCS data units) and
// the header lengths of §10.3a.3/§10.3a.4 (type 1 40/46 bits, type 2 28/37 bits,
// type 3 31/31 bits DL/UL).
var csTable = [numCS]csInfo{
	{name: "UNKNOWN"},
	{"CS-1", 23, 23, 24, 24, 1, 20, 0, HeaderGPRS, FamilyNone, 0},
	{"CS-2", 34, 34, 24, 24, 1, 30, 0, HeaderGPRS, FamilyNone, 0},
	{"CS-3", 40, 40, 24, 24, 1, 36, 0, HeaderGPRS, FamilyNone, 0},
	{"CS-4", 54, 54, 24, 24, 1, 50, 0, HeaderGPRS, FamilyNone, 0},
	{"MCS-1", 27, 27, 31, 31, 1, 22, 0, HeaderEGPRS3, FamilyC, 0},
	{"MCS-2", 33, 33, 31, 31, 1, 28, 0, HeaderEGPRS3, FamilyB, 0},
	{"MCS-3", 42, 42, 31, 31, 1, 37, 6, HeaderEGPRS3, FamilyA, 0},
	{"MCS-4", 49, 49, 31, 31, 1, 44, 0, HeaderEGPRS3, FamilyC, 0},
	{"MCS-5", 61, 60, 37, 28, 1, 56, 0, HeaderEGPRS2, FamilyB, 0},
	{"MCS-6", 79, 78, 37, 28, 1, 74, 6, HeaderEGPRS2, FamilyA, 0},
	{"MCS-7", 119, 118, 46, 40, 2, 56, 0, HeaderEGPRS1, FamilyB, 0},
	{"MCS-8", 143, 142, 46, 40, 2, 68, 0, HeaderEGPRS1, FamilyA, 0},
	{"MCS-9", 155, 154, 46, 40, 2, 74, 0, HeaderEGPRS1, FamilyA, 0},
}

func (cs CodingScheme) info() *csInfo {
	if cs >= numCS {
		return &csTable[0]
	}
	return &csTable[cs]
}

// String returns "CS-1".."MCS-9".
func (cs CodingScheme) String() string {
	if cs >= numCS {
		return fmt.Sprintf("CodingScheme(%d)", uint8(cs))
	}
	return csTable[cs].name
}

// Valid reports whether cs is CS-1..4 or MCS-1..9.
func (cs CodingScheme) Valid() bool { return cs >= CS1 && cs < numCS }

// IsGPRS reports CS-1..4.
func (cs CodingScheme) IsGPRS() bool { return cs >= CS1 && cs <= CS4 }

// IsEGPRS reports MCS-1..9.
func (cs CodingScheme) IsEGPRS() bool { return cs >= MCS1 && cs <= MCS9 }

// IsGMSK reports the GMSK-modulated schemes (CS-1..4, MCS-1..4).
func (cs CodingScheme) IsGMSK() bool { return cs >= CS1 && cs <= MCS4 }

// BlockLen returns the block length in octets as carried on the PCU socket.
func (cs CodingScheme) BlockLen(uplink bool) int {
	if uplink {
		return int(cs.info().ulLen)
	}
	return int(cs.info().dlLen)
}

// HeaderBits returns the RLC/MAC header length in bits.
func (cs CodingScheme) HeaderBits(uplink bool) int {
	if uplink {
		return int(cs.info().ulHdrBits)
	}
	return int(cs.info().dlHdrBits)
}

// DataUnits returns the number of RLC data units per block (2 for MCS-7..9).
func (cs CodingScheme) DataUnits() int { return int(cs.info().units) }

// DataLen returns the octets of one RLC data unit (TS 44.060 Table 10.2.1 / 10.3a.0.1).
func (cs CodingScheme) DataLen() int { return int(cs.info().unitLen) }

// PaddingLen returns the padding octets used when cs carries a unit of a larger
// family member (MCS-3 and MCS-6 carrying MCS-8 data: 6 octets).
func (cs CodingScheme) PaddingLen() int { return int(cs.info().padLen) }

// HeaderType returns the data block header type.
func (cs CodingScheme) HeaderType() HeaderType { return cs.info().hdr }

// Family returns the EGPRS family (FamilyNone for GPRS).
func (cs CodingScheme) Family() Family { return cs.info().family }

// ChannelCodingCommand returns the value of CHANNEL_CODING_COMMAND (TS 44.060
// §12.10, CS-1..4 -> 0..3) or EGPRS MCS (§12.10d, MCS-1..9 -> 0..8).
func (cs CodingScheme) ChannelCodingCommand() uint8 {
	switch {
	case cs.IsGPRS():
		return uint8(cs - CS1)
	case cs.IsEGPRS():
		return uint8(cs - MCS1)
	}
	return 0
}

// CSFromCommand is the inverse of ChannelCodingCommand.
func CSFromCommand(v uint8, egprs bool) CodingScheme {
	if egprs {
		if v <= 8 {
			return MCS1 + CodingScheme(v)
		}
		return CSUnknown
	}
	if v <= 3 {
		return CS1 + CodingScheme(v)
	}
	return CSUnknown
}

// CSFromULLen classifies an uplink block by its length (TS 44.060 §10.0a; osmo-pcu coding_scheme.c mcs_get_by_size_ul()).
func CSFromULLen(n int) CodingScheme {
	switch n {
	case 23:
		return CS1
	case 27:
		return MCS1
	case 33:
		return MCS2
	case 34:
		return CS2
	case 40:
		return CS3
	case 42:
		return MCS3
	case 49:
		return MCS4
	case 54:
		return CS4
	case 61:
		return MCS5
	case 79:
		return MCS6
	case 119:
		return MCS7
	case 143:
		return MCS8
	case 155:
		return MCS9
	}
	return CSUnknown
}

// CSFromDLLen classifies a downlink block by its length.
func CSFromDLLen(n int) CodingScheme {
	switch n {
	case 60:
		return MCS5
	case 78:
		return MCS6
	case 118:
		return MCS7
	case 142:
		return MCS8
	case 154:
		return MCS9
	case 61, 79, 119, 143, 155:
		return CSUnknown
	}
	return CSFromULLen(n)
}

// MaxBlockLen is the longest RLC/MAC block (MCS-9 uplink).
const MaxBlockLen = 155

// retxTable[resegment][initial][commanded] is TS 44.060 Table 8.1.1.1
// (resegment = 1) and Table 8.1.1.2 (resegment = 0), indexed by MCS-1..9.
var retxTable = [2][9][9]CodingScheme{
	{ // no resegmentation (Table 8.1.1.2)
		{MCS1, MCS1, MCS1, MCS1, MCS1, MCS1, MCS1, MCS1, MCS1},
		{MCS2, MCS2, MCS2, MCS2, MCS2, MCS2, MCS2, MCS2, MCS2},
		{MCS3, MCS3, MCS3, MCS3, MCS3, MCS3, MCS3, MCS3, MCS3},
		{MCS4, MCS4, MCS4, MCS4, MCS4, MCS4, MCS4, MCS4, MCS4},
		{MCS5, MCS5, MCS5, MCS5, MCS5, MCS5, MCS7, MCS7, MCS7},
		{MCS6, MCS6, MCS6, MCS6, MCS6, MCS6, MCS6, MCS6, MCS9},
		{MCS5, MCS5, MCS5, MCS5, MCS5, MCS5, MCS7, MCS7, MCS7},
		{MCS6, MCS6, MCS6, MCS6, MCS6, MCS6, MCS6, MCS8, MCS8},
		{MCS6, MCS6, MCS6, MCS6, MCS6, MCS6, MCS6, MCS6, MCS9},
	},
	{ // resegmentation (Table 8.1.1.1)
		{MCS1, MCS1, MCS1, MCS1, MCS1, MCS1, MCS1, MCS1, MCS1},
		{MCS2, MCS2, MCS2, MCS2, MCS2, MCS2, MCS2, MCS2, MCS2},
		{MCS3, MCS3, MCS3, MCS3, MCS3, MCS3, MCS3, MCS3, MCS3},
		{MCS1, MCS1, MCS1, MCS4, MCS4, MCS4, MCS4, MCS4, MCS4},
		{MCS2, MCS2, MCS2, MCS2, MCS5, MCS5, MCS7, MCS7, MCS7},
		{MCS3, MCS3, MCS3, MCS3, MCS3, MCS6, MCS6, MCS6, MCS9},
		{MCS2, MCS2, MCS2, MCS2, MCS5, MCS5, MCS7, MCS7, MCS7},
		{MCS3, MCS3, MCS3, MCS3, MCS3, MCS6, MCS6, MCS8, MCS8},
		{MCS3, MCS3, MCS3, MCS3, MCS3, MCS6, MCS6, MCS6, MCS9},
	},
}

// RetxMCS returns the MCS used to retransmit a block first sent with initial
// when the link adaptation commands commanded (TS 44.060 §8.1.1, Tables
// 8.1.1.1 / 8.1.1.2). Non-EGPRS arguments return initial.
func RetxMCS(initial, commanded CodingScheme, resegment bool) CodingScheme {
	if !initial.IsEGPRS() || !commanded.IsEGPRS() {
		return initial
	}
	r := 0
	if resegment {
		r = 1
	}
	return retxTable[r][initial-MCS1][commanded-MCS1]
}

// SingleUnitMCS is the scheme a two-unit MCS-7..9 block falls back to when
// only one unit is to be sent (MCS-7 -> MCS-5, MCS-8 -> MCS-6 padded,
// MCS-9 -> MCS-6); padded reports the MCS-6 padding variant.
func SingleUnitMCS(cs CodingScheme) (out CodingScheme, padded bool) {
	switch cs {
	case MCS7:
		return MCS5, false
	case MCS8:
		return MCS6, true
	case MCS9:
		return MCS6, false
	}
	return cs, false
}
