package bssgp

import "github.com/gopcu/gopcu/internal/enumname"

// PDUType is the BSSGP PDU type (TS 48.018 §11.3.26, Table 11.27).
type PDUType uint8

// BSSGP PDU types.
const (
	PDUDLUnitdata          PDUType = 0x00
	PDUULUnitdata          PDUType = 0x01
	PDURACapability        PDUType = 0x02
	PDUPTMUnitdata         PDUType = 0x03
	PDUPagingPS            PDUType = 0x06
	PDUPagingCS            PDUType = 0x07
	PDURACapabilityUpdate  PDUType = 0x08
	PDURACapabilityUpdAck  PDUType = 0x09
	PDURadioStatus         PDUType = 0x0a
	PDUSuspend             PDUType = 0x0b
	PDUSuspendAck          PDUType = 0x0c
	PDUSuspendNack         PDUType = 0x0d
	PDUResume              PDUType = 0x0e
	PDUResumeAck           PDUType = 0x0f
	PDUResumeNack          PDUType = 0x10
	PDUBVCBlock            PDUType = 0x20
	PDUBVCBlockAck         PDUType = 0x21
	PDUBVCReset            PDUType = 0x22
	PDUBVCResetAck         PDUType = 0x23
	PDUBVCUnblock          PDUType = 0x24
	PDUBVCUnblockAck       PDUType = 0x25
	PDUFlowControlBVC      PDUType = 0x26
	PDUFlowControlBVCAck   PDUType = 0x27
	PDUFlowControlMS       PDUType = 0x28
	PDUFlowControlMSAck    PDUType = 0x29
	PDUFlushLL             PDUType = 0x2a
	PDUFlushLLAck          PDUType = 0x2b
	PDULLCDiscarded        PDUType = 0x2c
	PDUFlowControlPFC      PDUType = 0x2d
	PDUFlowControlPFCAck   PDUType = 0x2e
	PDUSGSNInvokeTrace     PDUType = 0x40
	PDUStatus              PDUType = 0x41
	PDUOverload            PDUType = 0x42
	PDURANInformation      PDUType = 0x70
	PDURANInformationReq   PDUType = 0x71
	PDURANInformationAck   PDUType = 0x72
	PDURANInformationError PDUType = 0x73
	PDURANInfoAppError     PDUType = 0x74
)

var pduNames = map[PDUType]string{
	PDUDLUnitdata: "DL-UNITDATA", PDUULUnitdata: "UL-UNITDATA", PDURACapability: "RA-CAPABILITY",
	PDUPTMUnitdata: "PTM-UNITDATA", PDUPagingPS: "PAGING-PS", PDUPagingCS: "PAGING-CS",
	PDURACapabilityUpdate: "RA-CAPABILITY-UPDATE", PDURACapabilityUpdAck: "RA-CAPABILITY-UPDATE-ACK",
	PDURadioStatus: "RADIO-STATUS", PDUSuspend: "SUSPEND", PDUSuspendAck: "SUSPEND-ACK",
	PDUSuspendNack: "SUSPEND-NACK", PDUResume: "RESUME", PDUResumeAck: "RESUME-ACK",
	PDUResumeNack: "RESUME-NACK", PDUBVCBlock: "BVC-BLOCK", PDUBVCBlockAck: "BVC-BLOCK-ACK",
	PDUBVCReset: "BVC-RESET", PDUBVCResetAck: "BVC-RESET-ACK", PDUBVCUnblock: "BVC-UNBLOCK",
	PDUBVCUnblockAck: "BVC-UNBLOCK-ACK", PDUFlowControlBVC: "FLOW-CONTROL-BVC",
	PDUFlowControlBVCAck: "FLOW-CONTROL-BVC-ACK", PDUFlowControlMS: "FLOW-CONTROL-MS",
	PDUFlowControlMSAck: "FLOW-CONTROL-MS-ACK", PDUFlushLL: "FLUSH-LL", PDUFlushLLAck: "FLUSH-LL-ACK",
	PDULLCDiscarded: "LLC-DISCARDED", PDUFlowControlPFC: "FLOW-CONTROL-PFC",
	PDUFlowControlPFCAck: "FLOW-CONTROL-PFC-ACK", PDUSGSNInvokeTrace: "SGSN-INVOKE-TRACE",
	PDUStatus: "STATUS", PDUOverload: "OVERLOAD", PDURANInformation: "RAN-INFORMATION",
	PDURANInformationReq: "RAN-INFORMATION-REQUEST", PDURANInformationAck: "RAN-INFORMATION-ACK",
	PDURANInformationError: "RAN-INFORMATION-ERROR", PDURANInfoAppError: "RAN-INFORMATION-APPLICATION-ERROR",
}

func (t PDUType) String() string { return enumname.String(pduNames, t, "BSSGP-PDU(0x%02x)") }

// IsSignalling reports whether t belongs on the signalling BVC (BVCI 0)
// only (TS 48.018 §5.4.1: GMM-SAP/NM-SAP PDUs other than PAGING and
// RADIO-STATUS/RA-CAPABILITY, which use PTP).
func (t PDUType) IsSignalling() bool {
	switch t {
	case PDUSuspend, PDUSuspendAck, PDUSuspendNack, PDUResume, PDUResumeAck, PDUResumeNack,
		PDUFlushLL, PDUFlushLLAck, PDULLCDiscarded, PDUBVCBlock, PDUBVCBlockAck, PDUBVCReset,
		PDUBVCResetAck, PDUBVCUnblock, PDUBVCUnblockAck, PDUSGSNInvokeTrace, PDUOverload,
		PDURANInformation, PDURANInformationReq, PDURANInformationAck, PDURANInformationError,
		PDURANInfoAppError:
		return true
	}
	return false
}

// IsPTP reports whether t is a PTP-only PDU (never on BVCI 0).
func (t PDUType) IsPTP() bool {
	switch t {
	case PDUDLUnitdata, PDUULUnitdata, PDURACapability, PDURACapabilityUpdate, PDURACapabilityUpdAck,
		PDURadioStatus, PDUFlowControlBVC, PDUFlowControlBVCAck, PDUFlowControlMS, PDUFlowControlMSAck,
		PDUFlowControlPFC, PDUFlowControlPFCAck:
		return true
	}
	return false
}

// IEI is a BSSGP information element identifier (TS 48.018 §11.3, Table 11.3).
type IEI uint8

// BSSGP IEIs used by the BSS side.
const (
	IEAlignment          IEI = 0x00
	IEBmaxDefaultMS      IEI = 0x01
	IEBSSAreaIndication  IEI = 0x02
	IEBucketLeakRate     IEI = 0x03
	IEBVCI               IEI = 0x04
	IEBVCBucketSize      IEI = 0x05
	IEBVCMeasurement     IEI = 0x06
	IECause              IEI = 0x07
	IECellIdentifier     IEI = 0x08
	IEChannelNeeded      IEI = 0x09
	IEDRXParameters      IEI = 0x0a
	IEeMLPPPriority      IEI = 0x0b
	IEFlushAction        IEI = 0x0c
	IEIMSI               IEI = 0x0d
	IELLCPDU             IEI = 0x0e
	IELLCFramesDiscarded IEI = 0x0f
	IELocationArea       IEI = 0x10
	IEMobileID           IEI = 0x11
	IEMSBucketSize       IEI = 0x12
	IEMSRadioAccessCap   IEI = 0x13
	IEOMCID              IEI = 0x14
	IEPDUInError         IEI = 0x15
	IEPDULifetime        IEI = 0x16
	IEPriority           IEI = 0x17
	IEQoSProfile         IEI = 0x18
	IERadioCause         IEI = 0x19
	IERACapUpdCause      IEI = 0x1a
	IERoutingArea        IEI = 0x1b
	IERDefaultMS         IEI = 0x1c
	IESuspendRefNum      IEI = 0x1d
	IETag                IEI = 0x1e
	IETLLI               IEI = 0x1f
	IETMSI               IEI = 0x20
	IENumOctetsAffected  IEI = 0x25
	IELSAIdentifierList  IEI = 0x26
	IELSAInformation     IEI = 0x27
	IEPFI                IEI = 0x28
	IEABQP               IEI = 0x3a
	IEFeatureBitmap      IEI = 0x3b
	IEBucketFullRatio    IEI = 0x3c
	IEServiceUTRANCCO    IEI = 0x3d
	IENSEI               IEI = 0x3e
	IEGlobalCNID         IEI = 0x53
	IEExtFeatureBitmap   IEI = 0x69
	IEFlowCtrlGranul     IEI = 0x7e
	IESubscriberProfID   IEI = 0x81
)

// Cause is the BSSGP cause (TS 48.018 §11.3.8, Table 11.10).
type Cause uint8

// BSSGP causes.
const (
	CauseProcessorOverload     Cause = 0x00
	CauseEquipmentFailure      Cause = 0x01
	CauseTransitNetworkFailure Cause = 0x02
	CauseCapacityGreaterThan0  Cause = 0x03
	CauseUnknownMS             Cause = 0x04
	CauseUnknownBVCI           Cause = 0x05
	CauseCellTrafficCongestion Cause = 0x06
	CauseSGSNCongestion        Cause = 0x07
	CauseOMIntervention        Cause = 0x08
	CauseBVCIBlocked           Cause = 0x09
	CauseSemanticallyIncorrect Cause = 0x20
	CauseInvalidMandatoryInfo  Cause = 0x21
	CauseMissingMandatoryIE    Cause = 0x22
	CauseMissingConditionalIE  Cause = 0x23
	CauseUnexpectedConditional Cause = 0x24
	CauseConditionalIEError    Cause = 0x25
	CausePDUNotCompatibleState Cause = 0x26
	CauseProtocolErrorUnspec   Cause = 0x27
	CausePDUNotCompatibleFeat  Cause = 0x28
	CauseRequestedInfoNotAvail Cause = 0x29
	CauseUnknownDestination    Cause = 0x2a
	CauseUnknownRIMAppIdentity Cause = 0x2b
)

var causeNames = map[Cause]string{
	CauseProcessorOverload: "Processor overload", CauseEquipmentFailure: "Equipment failure",
	CauseTransitNetworkFailure: "Transit network service failure",
	CauseCapacityGreaterThan0:  "Network service transmission capacity modified from zero kbps to greater than zero kbps",
	CauseUnknownMS:             "Unknown MS", CauseUnknownBVCI: "BVCI unknown",
	CauseCellTrafficCongestion: "Cell traffic congestion", CauseSGSNCongestion: "SGSN congestion",
	CauseOMIntervention: "O&M intervention", CauseBVCIBlocked: "BVCI-blocked",
	CauseSemanticallyIncorrect: "Semantically incorrect PDU", CauseInvalidMandatoryInfo: "Invalid mandatory information",
	CauseMissingMandatoryIE: "Missing mandatory IE", CauseMissingConditionalIE: "Missing conditional IE",
	CauseUnexpectedConditional: "Unexpected conditional IE", CauseConditionalIEError: "Conditional IE error",
	CausePDUNotCompatibleState: "PDU not compatible with the protocol state",
	CauseProtocolErrorUnspec:   "Protocol error - unspecified",
	CausePDUNotCompatibleFeat:  "PDU not compatible with the feature set",
	CauseRequestedInfoNotAvail: "Requested information not available",
	CauseUnknownDestination:    "Unknown destination address", CauseUnknownRIMAppIdentity: "Unknown RIM Application Identity",
}

func (c Cause) String() string { return enumname.String(causeNames, c, "BSSGP cause 0x%02x") }

// Well-known BVCIs (TS 48.018 §5.4.1).
const (
	BVCISignalling uint16 = 0
	BVCIPTM        uint16 = 1
)
