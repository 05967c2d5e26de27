// Package pcuif is the wire format of the Osmocom PCU socket (PCUIF) between
// a BTS (or BSC) and a PCU, in versions 10 (0x0a), 11 (0x0b) and 12 (0x0c),
// in both directions. It opens no socket: the driver of the engine owns the PCU
// socket (package pcu/driver, loop_linux.go).
//
// Every message is a 4-octet header followed by one payload struct:
//
//	 0               1               2               3
//	+---------------+---------------+-------------------------------+
//	|   msg_type    |    bts_nr     |            spare              |
//	+---------------+---------------+-------------------------------+
//	|  payload (struct of the message type; the field offsets of    |
//	|  pcuif_proto.h's structs are relative to here)                |
//
// Integers are in host byte order (little-endian on every supported
// platform; we fix little-endian), except the CONTAINER length and the
// fields inside NEIGH_ADDR_REQ/CNF, which are big-endian. A sender pads every
// non-container message to the full size of the C union (1006 octets for v10
// and v11, 1007 for v12); a receiver accepts any length from header+payload
// up to that full size.
package pcuif

import (
	"errors"
	"fmt"

	"github.com/gopcu/gopcu/internal/enumname"
)

// Version is a PCUIF protocol version.
type Version uint8

// Supported versions.
const (
	V10 Version = 0x0a // osmo-pcu 1.1.0 .. 1.2.x, osmo-bts 1.5 (Debian 12)
	V11 Version = 0x0b // osmo-pcu 1.3.x
	V12 Version = 0x0c // osmo-pcu 1.4.0 .. HEAD
)

// Valid reports whether v is one of the supported versions.
func (v Version) Valid() bool { return v == V10 || v == V11 || v == V12 }

func (v Version) String() string {
	if v.Valid() {
		return fmt.Sprintf("v%d", uint8(v))
	}
	return fmt.Sprintf("unknown(0x%02x)", uint8(v))
}

// FullSize is sizeof(struct gsm_pcu_if) for the version: the length every
// non-container message is sent with.
func (v Version) FullSize() int {
	if v >= V12 {
		return 1007
	}
	return 1006
}

// HeaderLen is the length of the common header.
const HeaderLen = 4

// BufSize is a size for message buffers: the largest message (the v12
// union, 1007 octets) with room to spare, so that a receiver sees a longer
// message as such (ErrLong) instead of truncating it.
const BufSize = 2048

// MsgType is the first octet of every message.
type MsgType uint8

// Message types (pcuif_proto.h PCU_IF_MSG_*).
const (
	TypeDataReq    MsgType = 0x00
	TypeDataCnf    MsgType = 0x01 // v10, v11 only
	TypeDataInd    MsgType = 0x02
	TypeSuspReq    MsgType = 0x03
	TypeAppInfoReq MsgType = 0x04
	TypeRTSReq     MsgType = 0x10
	TypeDataCnf2   MsgType = 0x11 // v10: DATA_CNF_DT (21 B); v11+: DATA_CNF_2 (5 B)
	TypeRACHInd    MsgType = 0x22
	TypeInfoInd    MsgType = 0x32
	TypeE1CCUInd   MsgType = 0x33
	TypeActReq     MsgType = 0x40
	TypeTimeInd    MsgType = 0x52
	TypeInterfInd  MsgType = 0x53
	TypePagReq     MsgType = 0x60
	TypeTxtInd     MsgType = 0x70
	TypeContainer  MsgType = 0x80
)

var typeNames = map[MsgType]string{
	TypeDataReq: "DATA_REQ", TypeDataCnf: "DATA_CNF", TypeDataInd: "DATA_IND", TypeSuspReq: "SUSP_REQ",
	TypeAppInfoReq: "APP_INFO_REQ", TypeRTSReq: "RTS_REQ", TypeDataCnf2: "DATA_CNF_2", TypeRACHInd: "RACH_IND",
	TypeInfoInd: "INFO_IND", TypeE1CCUInd: "E1_CCU_IND", TypeActReq: "ACT_REQ", TypeTimeInd: "TIME_IND",
	TypeInterfInd: "INTERF_IND", TypePagReq: "PAG_REQ", TypeTxtInd: "TXT_IND", TypeContainer: "CONTAINER",
}

func (t MsgType) String() string { return enumname.String(typeNames, t, "UNKNOWN(0x%02x)") }

// SAPI of DATA/RTS/RACH messages (pcuif_proto.h PCU_IF_SAPI_*).
type SAPI uint8

// SAPIs.
const (
	SAPIRACH   SAPI = 0x01
	SAPIAGCH   SAPI = 0x02 // v10, v11 only
	SAPIPCH    SAPI = 0x03 // v10, v11 only
	SAPIBCCH   SAPI = 0x04
	SAPIPDTCH  SAPI = 0x05
	SAPIPRACH  SAPI = 0x06
	SAPIPTCCH  SAPI = 0x07
	SAPIPCH2   SAPI = 0x08 // v11+; AGCH_DT/PCH_DT in v10
	SAPIAGCH2  SAPI = 0x09 // v11+
	SAPIAGCHDT SAPI = 0x08 // v10 name of 0x08
)

var sapiNames = map[SAPI]string{
	SAPIRACH: "RACH", SAPIAGCH: "AGCH", SAPIPCH: "PCH", SAPIBCCH: "BCCH", SAPIPDTCH: "PDTCH",
	SAPIPRACH: "PRACH", SAPIPTCCH: "PTCCH", SAPIPCH2: "PCH_2", SAPIAGCH2: "AGCH_2",
}

func (s SAPI) String() string { return enumname.String(sapiNames, s, "SAPI(0x%02x)") }

// ValidIn reports whether the SAPI exists in version v.
func (s SAPI) ValidIn(v Version) bool {
	switch s {
	case SAPIRACH, SAPIBCCH, SAPIPDTCH, SAPIPRACH, SAPIPTCCH, SAPIPCH2:
		return true
	case SAPIAGCH, SAPIPCH:
		return v < V12
	case SAPIAGCH2:
		return v >= V11
	}
	return false
}

// INFO_IND flags (pcuif_proto.h PCU_IF_FLAG_*).
const (
	FlagActive    uint32 = 1 << 0
	FlagDirectPHY uint32 = 1 << 1 // PCU_IF_FLAG_SYSMO in v10/v11
	FlagCS1       uint32 = 1 << 16
	FlagMCS1      uint32 = 1 << 20
)

// FlagCS returns the flag bit of CS-n (1..4).
func FlagCS(n int) uint32 { return FlagCS1 << (n - 1) }

// FlagMCS returns the flag bit of MCS-n (1..9).
func FlagMCS(n int) uint32 { return FlagMCS1 << (n - 1) }

// Address types of the NS-VC entries in INFO_IND.
const (
	AddrUnspec uint8 = 0x00
	AddrIPv4   uint8 = 0x04
	AddrIPv6   uint8 = 0x29
)

// Limits.
const (
	NumTRX     = 8
	NumTS      = 8
	NumNSVC    = 2
	TxtMaxLen  = 128
	DataMaxLen = 162
	MACBlock   = 23
	IMSIBufLen = 17
)

// Text types of TXT_IND.
const (
	TxtPCUVersion uint8 = 0
	TxtOMLAlert   uint8 = 1
)

// BTS models (v12 INFO_IND bts_model).
const (
	BTSModelUnspec uint8 = 0
	BTSModelLC15   uint8 = 1
	BTSModelOC2G   uint8 = 2
	BTSModelOCTPHY uint8 = 3
	BTSModelSysmo  uint8 = 4
	BTSModelTRX    uint8 = 5
	BTSModelRBS    uint8 = 6
)

// Error kinds. Every decode error wraps exactly one of these, so callers
// (and their counters) can classify it with errors.Is.
var (
	ErrShort        = errors.New("pcuif: message too short")
	ErrLong         = errors.New("pcuif: message too long")
	ErrUnknownType  = errors.New("pcuif: unknown message type")
	ErrVersion      = errors.New("pcuif: message not valid in this version")
	ErrRange        = errors.New("pcuif: field out of range")
	ErrInconsistent = errors.New("pcuif: inconsistent message")
	ErrBuffer       = errors.New("pcuif: buffer too small")
)

// Error is a decode (or encode) error with its position.
type Error struct {
	Kind  error   // one of the Err* sentinels
	Type  MsgType // message type being processed
	Off   int     // octet offset in the message where the problem is, -1 if none
	Field string  // field name, if any
	Info  string  // details
}

func (e *Error) Error() string {
	s := fmt.Sprintf("%v: %s", e.Kind, e.Type)
	if e.Field != "" {
		s += " field " + e.Field
	}
	if e.Off >= 0 {
		s += fmt.Sprintf(" at octet %d", e.Off)
	}
	if e.Info != "" {
		s += ": " + e.Info
	}
	return s
}

func (e *Error) Unwrap() error { return e.Kind }

func errf(kind error, t MsgType, off int, field, format string, args ...any) error {
	return &Error{Kind: kind, Type: t, Off: off, Field: field, Info: fmt.Sprintf(format, args...)}
}
