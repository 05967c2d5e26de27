package ns

import (
	"net/netip"

	"github.com/gopcu/gopcu/internal/enumname"
)

// IPElement is one entry of the List of IP4 Elements (TS 48.016 §10.3.2c,
// 8 octets: address, UDP port, signalling weight, data weight) or of the List
// of IP6 Elements (§10.3.2d, 20 octets).
type IPElement struct {
	Addr       netip.Addr
	Port       uint16
	SigWeight  uint8
	DataWeight uint8
}

// AddrPort returns the element's UDP endpoint.
func (e IPElement) AddrPort() netip.AddrPort { return netip.AddrPortFrom(e.Addr, e.Port) }

const (
	ip4ElemLen = 8
	ip6ElemLen = 20
	// IP Address IE (TS 48.016 §10.3.2b) address types.
	ipAddrTypeV4 = 0x01
	ipAddrTypeV6 = 0x02
)

// HeaderLen is the NS-UNITDATA header length (PDU type, NS SDU control
// bits, BVCI; TS 48.016 §9.2.10): the headroom nse.NSE.SendUnitdataInPlace
// expects in front of the SDU.
const HeaderLen = 4

// PDUType is the NS PDU type octet (TS 48.016 §10.3.7, Table 10.3.7.1).
type PDUType uint8

// NS and SNS PDU types.
const (
	PDUUnitdata        PDUType = 0x00
	PDUReset           PDUType = 0x02
	PDUResetAck        PDUType = 0x03
	PDUBlock           PDUType = 0x04
	PDUBlockAck        PDUType = 0x05
	PDUUnblock         PDUType = 0x06
	PDUUnblockAck      PDUType = 0x07
	PDUStatus          PDUType = 0x08
	PDUAlive           PDUType = 0x0a
	PDUAliveAck        PDUType = 0x0b
	PDUSNSAck          PDUType = 0x0c
	PDUSNSAdd          PDUType = 0x0d
	PDUSNSChangeWeight PDUType = 0x0e
	PDUSNSConfig       PDUType = 0x0f
	PDUSNSConfigAck    PDUType = 0x10
	PDUSNSDelete       PDUType = 0x11
	PDUSNSSize         PDUType = 0x12
	PDUSNSSizeAck      PDUType = 0x13
)

var pduNames = map[PDUType]string{
	PDUUnitdata: "NS-UNITDATA", PDUReset: "NS-RESET", PDUResetAck: "NS-RESET-ACK",
	PDUBlock: "NS-BLOCK", PDUBlockAck: "NS-BLOCK-ACK", PDUUnblock: "NS-UNBLOCK",
	PDUUnblockAck: "NS-UNBLOCK-ACK", PDUStatus: "NS-STATUS", PDUAlive: "NS-ALIVE",
	PDUAliveAck: "NS-ALIVE-ACK", PDUSNSAck: "SNS-ACK", PDUSNSAdd: "SNS-ADD",
	PDUSNSChangeWeight: "SNS-CHANGEWEIGHT", PDUSNSConfig: "SNS-CONFIG",
	PDUSNSConfigAck: "SNS-CONFIG-ACK", PDUSNSDelete: "SNS-DELETE",
	PDUSNSSize: "SNS-SIZE", PDUSNSSizeAck: "SNS-SIZE-ACK",
}

func (t PDUType) String() string { return enumname.String(pduNames, t, "NS-PDU(0x%02x)") }

// IsSNS reports whether t is one of the IP-SNS PDUs (TS 48.016 §9.3).
func (t PDUType) IsSNS() bool { return t >= PDUSNSAck && t <= PDUSNSSizeAck }

// IEI is an NS information element identifier (TS 48.016 §10.3, Table 10.3.1).
type IEI uint8

// NS IEIs.
const (
	IECause     IEI = 0x00
	IENSVCI     IEI = 0x01
	IENSPDU     IEI = 0x02
	IEBVCI      IEI = 0x03
	IENSEI      IEI = 0x04
	IEIP4List   IEI = 0x05
	IEIP6List   IEI = 0x06
	IEMaxNSVCs  IEI = 0x07
	IENumIP4EP  IEI = 0x08
	IENumIP6EP  IEI = 0x09
	IEResetFlag IEI = 0x0a
	IEIPAddress IEI = 0x0b
)

// Cause is the NS cause value (TS 48.016 §10.3.2, Table 10.3.2.1).
type Cause uint8

// NS causes.
const (
	CauseTransitNetworkFailure  Cause = 0x00
	CauseOMIntervention         Cause = 0x01
	CauseEquipmentFailure       Cause = 0x02
	CauseNSVCBlocked            Cause = 0x03
	CauseNSVCUnknown            Cause = 0x04
	CauseBVCIUnknown            Cause = 0x05
	CauseSemanticallyIncorrect  Cause = 0x08
	CausePDUNotCompatible       Cause = 0x0a
	CauseProtocolErrorUnspec    Cause = 0x0b
	CauseInvalidEssentialIE     Cause = 0x0c
	CauseMissingEssentialIE     Cause = 0x0d
	CauseInvalidNumIP4Endpoints Cause = 0x0e
	CauseInvalidNumIP6Endpoints Cause = 0x0f
	CauseInvalidNumNSVCs        Cause = 0x10
	CauseInvalidWeights         Cause = 0x11
	CauseUnknownIPEndpoint      Cause = 0x12
	CauseUnknownIPAddress       Cause = 0x13
	CauseIPTestFailed           Cause = 0x14
)

var causeNames = map[Cause]string{
	CauseTransitNetworkFailure: "Transit network failure", CauseOMIntervention: "O&M intervention",
	CauseEquipmentFailure: "Equipment failure", CauseNSVCBlocked: "NS-VC blocked",
	CauseNSVCUnknown: "NS-VC unknown", CauseBVCIUnknown: "BVCI unknown on that NSE",
	CauseSemanticallyIncorrect: "Semantically incorrect PDU",
	CausePDUNotCompatible:      "PDU not compatible with the protocol state",
	CauseProtocolErrorUnspec:   "Protocol error, unspecified", CauseInvalidEssentialIE: "Invalid essential IE",
	CauseMissingEssentialIE: "Missing essential IE", CauseInvalidNumIP4Endpoints: "Invalid number of IP4 endpoints",
	CauseInvalidNumIP6Endpoints: "Invalid number of IP6 endpoints", CauseInvalidNumNSVCs: "Invalid number of NS-VCs",
	CauseInvalidWeights: "Invalid weights", CauseUnknownIPEndpoint: "Unknown IP endpoint",
	CauseUnknownIPAddress: "Unknown IP address", CauseIPTestFailed: "IP test failed",
}

func (c Cause) String() string { return enumname.String(causeNames, c, "NS cause 0x%02x") }
