// Package gsmtap encodes and decodes GSMTAP headers (libosmocore
// include/osmocom/core/gsmtap.h, struct gsmtap_hdr, version 2) and writes
// GSMTAP-over-UDP pcap files for Wireshark. It opens no socket: the UDP
// sender is package gsmtap/gsmtapudp.
//
//	 0               1               2               3
//	+---------------+---------------+---------------+---------------+
//	|    version    |    hdr_len    |     type      |   timeslot    |
//	+---------------+---------------+---------------+---------------+
//	|P|U|          arfcn            |  signal_dbm   |    snr_db     |
//	+---------------+---------------+---------------+---------------+
//	|                         frame_number                          |
//	+---------------+---------------+---------------+---------------+
//	|   sub_type    |  antenna_nr   |   sub_slot    |      res      |
//	+---------------+---------------+---------------+---------------+
package gsmtap

import (
	"encoding/binary"
	"errors"
	"fmt"

	"github.com/gopcu/gopcu/internal/enumname"
)

// Version, header length and UDP port.
const (
	Version = 0x02
	HdrLen  = 16
	UDPPort = 4729
)

// GSMTAP payload types (GSMTAP_TYPE_*).
const (
	TypeUM          = 0x01
	TypeABIS        = 0x02
	TypeUMBurst     = 0x03
	TypeGBLLC       = 0x08
	TypeGBSNDCP     = 0x09
	TypeOsmocoreLog = 0x10
)

// Um channel types (GSMTAP_CHANNEL_*), the sub_type of TypeUM.
const (
	ChannelUnknown = 0x00
	ChannelBCCH    = 0x01
	ChannelCCCH    = 0x02
	ChannelRACH    = 0x03
	ChannelAGCH    = 0x04
	ChannelPCH     = 0x05
	ChannelSDCCH   = 0x06
	ChannelSDCCH4  = 0x07
	ChannelSDCCH8  = 0x08
	ChannelTCHF    = 0x09
	ChannelTCHH    = 0x0a
	ChannelPACCH   = 0x0b
	ChannelCBCH52  = 0x0c
	ChannelPDTCH   = 0x0d // alias PDCH
	ChannelPTCCH   = 0x0e
	ChannelCBCH51  = 0x0f
	ChannelACCH    = 0x80 // flag
)

// Burst types (GSMTAP_BURST_*), the sub_type of TypeUMBurst.
const (
	BurstUnknown    = 0x00
	BurstFCCH       = 0x01
	BurstPartialSCH = 0x02
	BurstSCH        = 0x03
	BurstCTSSCH     = 0x04
	BurstCompactSCH = 0x05
	BurstNormal     = 0x06
	BurstDummy      = 0x07
	BurstAccess     = 0x08
	BurstNone       = 0x09
)

// Coding scheme hints (defined by libosmocore, not sent by osmo-pcu).
const (
	GPRSCSBase  = 0x20
	GPRSMCSBase = 0x30
)

// ARFCN field flags.
const (
	ARFCNFlagPCS    = 0x8000
	ARFCNFlagUplink = 0x4000
	ARFCNMask       = 0x3fff
)

// ErrShort / ErrVersion are returned by Unmarshal.
var (
	ErrShort   = errors.New("gsmtap: header too short")
	ErrVersion = errors.New("gsmtap: unsupported version")
)

// Header is a GSMTAP v2 header.
type Header struct {
	Type        uint8
	Timeslot    uint8
	ARFCN       uint16 // 0..16383
	Uplink      bool
	PCS         bool
	SignalDBm   int8
	SNRdB       int8
	FrameNumber uint32
	SubType     uint8
	AntennaNr   uint8
	SubSlot     uint8
}

// MarshalLen returns 16.
func (h *Header) MarshalLen() int { return HdrLen }

// MarshalTo writes the header into b.
func (h *Header) MarshalTo(b []byte) (int, error) {
	if len(b) < HdrLen {
		return 0, ErrShort
	}
	b[0] = Version
	b[1] = HdrLen / 4
	b[2] = h.Type
	b[3] = h.Timeslot
	a := h.ARFCN & ARFCNMask
	if h.Uplink {
		a |= ARFCNFlagUplink
	}
	if h.PCS {
		a |= ARFCNFlagPCS
	}
	binary.BigEndian.PutUint16(b[4:], a)
	b[6] = byte(h.SignalDBm)
	b[7] = byte(h.SNRdB)
	binary.BigEndian.PutUint32(b[8:], h.FrameNumber)
	b[12] = h.SubType
	b[13] = h.AntennaNr
	b[14] = h.SubSlot
	b[15] = 0
	return HdrLen, nil
}

// Append appends the header and payload to dst.
func (h *Header) Append(dst, payload []byte) []byte {
	var b [HdrLen]byte
	h.MarshalTo(b[:])
	dst = append(dst, b[:]...)
	return append(dst, payload...)
}

// Unmarshal parses a header and returns the payload offset (hdr_len*4).
func (h *Header) Unmarshal(b []byte) (int, error) {
	if len(b) < HdrLen {
		return 0, ErrShort
	}
	if b[0] != Version {
		return 0, fmt.Errorf("%w: %d", ErrVersion, b[0])
	}
	off := int(b[1]) * 4
	if off < HdrLen || off > len(b) {
		return 0, fmt.Errorf("%w: hdr_len %d", ErrShort, b[1])
	}
	a := binary.BigEndian.Uint16(b[4:])
	*h = Header{
		Type: b[2], Timeslot: b[3],
		ARFCN: a & ARFCNMask, Uplink: a&ARFCNFlagUplink != 0, PCS: a&ARFCNFlagPCS != 0,
		SignalDBm: int8(b[6]), SNRdB: int8(b[7]),
		FrameNumber: binary.BigEndian.Uint32(b[8:]),
		SubType:     b[12], AntennaNr: b[13], SubSlot: b[14],
	}
	return off, nil
}

// RACHPayload encodes an access burst the way osmo-pcu does for Wireshark:
// 8-bit RA as one octet, 11-bit RA as two octets with the 11 bits left-aligned.
func RACHPayload(ra uint16, is11 bool) []byte {
	if !is11 {
		return []byte{byte(ra)}
	}
	return []byte{byte(ra >> 3), byte(ra&7) << 5}
}

// Category is an osmo-pcu GSMTAP category (src/gprs_pcu.h enum
// pcu_gsmtap_category); the VTY enables them by name with
// "gsmtap-category NAME" and they form a bit mask.
type Category uint8

// osmo-pcu GSMTAP categories.
const (
	CatDLUnknown   Category = 0
	CatDLDummy     Category = 1
	CatDLCtrl      Category = 2
	CatDLDataGPRS  Category = 3
	CatDLDataEGPRS Category = 4
	CatDLPTCCH     Category = 5
	CatDLAGCH      Category = 6
	CatDLPCH       Category = 7
	CatULUnknown   Category = 15
	CatULDummy     Category = 16
	CatULCtrl      Category = 17
	CatULDataGPRS  Category = 18
	CatULDataEGPRS Category = 19
	CatULRACH      Category = 20
	CatULPTCCH     Category = 21
)

var categoryNames = map[Category]string{
	CatDLUnknown: "dl-unknown", CatDLDummy: "dl-dummy", CatDLCtrl: "dl-ctrl", CatDLDataGPRS: "dl-data-gprs",
	CatDLDataEGPRS: "dl-data-egprs", CatDLPTCCH: "dl-ptcch", CatDLAGCH: "dl-agch", CatDLPCH: "dl-pch",
	CatULUnknown: "ul-unknown", CatULDummy: "ul-dummy", CatULCtrl: "ul-ctrl", CatULDataGPRS: "ul-data-gprs",
	CatULDataEGPRS: "ul-data-egprs", CatULRACH: "ul-rach", CatULPTCCH: "ul-ptcch",
}

// String returns the VTY name ("dl-ctrl", ...).
func (c Category) String() string { return enumname.String(categoryNames, c, "category-%d") }

// CategoryByName resolves a VTY category name.
func CategoryByName(name string) (Category, bool) {
	for c, s := range categoryNames {
		if s == name {
			return c, true
		}
	}
	return 0, false
}

// Categories returns all categories in numeric order.
func Categories() []Category {
	return []Category{CatDLUnknown, CatDLDummy, CatDLCtrl, CatDLDataGPRS, CatDLDataEGPRS, CatDLPTCCH, CatDLAGCH, CatDLPCH,
		CatULUnknown, CatULDummy, CatULCtrl, CatULDataGPRS, CatULDataEGPRS, CatULRACH, CatULPTCCH}
}

// Mask is a set of categories (bit n = category n).
type Mask uint32

// Has reports whether c is enabled.
func (m Mask) Has(c Category) bool { return m&(1<<c) != 0 }

// With returns m with c enabled.
func (m Mask) With(c Category) Mask { return m | 1<<c }

// Without returns m with c disabled.
func (m Mask) Without(c Category) Mask { return m &^ (1 << c) }
