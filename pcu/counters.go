package pcu

import (
	"fmt"
	"slices"

	"github.com/gopcu/gopcu/internal/ratectr"
)

// BTS rate counter indices: osmo-pcu's group "bts" ("BTS Statistics"), in
// its order and with its names and descriptions (osmo-pcu bts.cpp bts_ctr_description), so
// `show bts statistics`, `show rate-counters` and statsd names match.
const (
	CtrPDCHAllAllocated = iota
	CtrTBFDLAlloc
	CtrTBFDLFreed
	CtrTBFDLAborted
	CtrTBFULAlloc
	CtrTBFULFreed
	CtrTBFULAborted
	CtrTBFReused
	CtrTBFAllocAlgoA
	CtrTBFAllocAlgoB
	CtrTBFAllocFailed
	CtrTBFAllocFailedNoTFI
	CtrTBFAllocFailedNoUSF
	CtrTBFAllocFailedNoSlotCombi
	CtrTBFAllocFailedNoSlotAvail
	CtrRLCSent
	CtrRLCResent
	CtrRLCRestarted
	CtrRLCStalled
	CtrRLCNacked
	CtrRLCFinalBlockResent
	CtrRLCAssTimedout
	CtrRLCAssFailed
	CtrRLCAckTimedout
	CtrRLCAckFailed
	CtrRLCRelTimedout
	CtrRLCLateBlock
	CtrRLCSentDummy
	CtrRLCSentControl
	CtrRLCDLBytes
	CtrRLCDLPayloadBytes
	CtrRLCULBytes
	CtrRLCULPayloadBytes
	CtrDecodeErrors
	CtrSBAAllocated
	CtrSBAFreed
	CtrSBATimedout
	CtrLLCFrameTimedout
	CtrLLCFrameDropped
	CtrLLCFrameSched
	CtrLLCDLBytes
	CtrLLCULBytes
	CtrPCHRequests
	CtrPCHRequestsAlready
	CtrPCHRequestsTimedout
	CtrRACHRequests
	CtrRACHRequests11Bit
	CtrRACHRequestsOnePhase
	CtrRACHRequestsTwoPhase
	CtrRACHRequestsUnexpected
	CtrSPBULFirstSegment
	CtrSPBULSecondSegment
	CtrSPBDLFirstSegment
	CtrSPBDLSecondSegment
	CtrImmAssUL
	CtrImmAssULOnePhase
	CtrImmAssULTwoPhase
	CtrImmAssULContentionResolutionSuccess
	CtrImmAssRej
	CtrImmAssDL
	CtrChannelRequestDescription
	CtrPktULAssignment
	CtrPktAccessReject
	CtrPktDLAssignment
	CtrPktCellChgNotification
	CtrPktCellChgContinue
	CtrPktNeighCellData
	CtrULControl
	CtrULAssPollTimeout
	CtrULAssFailed
	CtrDLAssTimeout
	CtrDLAssFailed
	CtrPktULAckNackTimeout
	CtrPktULAckNackFailed
	CtrPktDLAckNackTimeout
	CtrPktDLAckNackFailed
	CtrGPRSDLCS1 // + 0..3
	_
	_
	_
	CtrEGPRSDLMCS1 // + 0..8
	_
	_
	_
	_
	_
	_
	_
	_
	CtrGPRSULCS1 // + 0..3
	_
	_
	_
	CtrEGPRSULMCS1 // + 0..8
	_
	_
	_
	_
	_
	_
	_
	_
	numBTSCtrs
)

// BTSCounterDescs are osmo-pcu's 102 BTS counters: 76 of their own, then
// the data blocks per coding scheme, downlink and uplink.
var BTSCounterDescs = slices.Concat(btsCounterDescs,
	csDescs("gprs:downlink_cs%d", "CS%d downlink         ", 4),
	csDescs("egprs:downlink_mcs%d", "MCS%d downlink        ", 9),
	csDescs("gprs:uplink_cs%d", "CS%d Uplink           ", 4),
	csDescs("egprs:uplink_mcs%d", "MCS%d Uplink          ", 9))

var btsCounterDescs = []ratectr.Desc{
	{Name: "pdch:all_allocated", Description: "Cumulative counter of seconds where all enabled PDCH resources were allocated"},
	{Name: "tbf:dl:alloc", Description: "TBF DL Allocated     "},
	{Name: "tbf:dl:freed", Description: "TBF DL Freed         "},
	{Name: "tbf:dl:aborted", Description: "TBF DL Aborted       "},
	{Name: "tbf:ul:alloc", Description: "TBF UL Allocated     "},
	{Name: "tbf:ul:freed", Description: "TBF UL Freed         "},
	{Name: "tbf:ul:aborted", Description: "TBF UL Aborted       "},
	{Name: "tbf:reused", Description: "TBF Reused           "},
	{Name: "tbf:alloc:algo-a", Description: "TBF Alloc Algo A     "},
	{Name: "tbf:alloc:algo-b", Description: "TBF Alloc Algo B     "},
	{Name: "tbf:alloc:failed", Description: "TBF Alloc Failure (any reason)"},
	{Name: "tbf:alloc:failed:no_tfi", Description: "TBF Alloc Failure (TFIs exhausted)"},
	{Name: "tbf:alloc:failed:no_usf", Description: "TBF Alloc Failure (USFs exhausted)"},
	{Name: "tbf:alloc:failed:no_slot_combi", Description: "TBF Alloc Failure (No valid UL/DL slot combination found)"},
	{Name: "tbf:alloc:failed:no_slot_avail", Description: "TBF Alloc Failure (No slot available)"},
	{Name: "rlc:sent", Description: "RLC Sent             "},
	{Name: "rlc:resent", Description: "RLC Resent           "},
	{Name: "rlc:restarted", Description: "RLC Restarted        "},
	{Name: "rlc:stalled", Description: "RLC Stalled          "},
	{Name: "rlc:nacked", Description: "RLC Nacked           "},
	{Name: "rlc:final_block_resent", Description: "RLC Final Blk resent "},
	{Name: "rlc:ass:timedout", Description: "RLC Assign Timeout   "},
	{Name: "rlc:ass:failed", Description: "RLC Assign Failed    "},
	{Name: "rlc:ack:timedout", Description: "RLC Ack Timeout      "},
	{Name: "rlc:ack:failed", Description: "RLC Ack Failed       "},
	{Name: "rlc:rel:timedout", Description: "RLC Release Timeout  "},
	{Name: "rlc:late-block", Description: "RLC Late Block       "},
	{Name: "rlc:sent-dummy", Description: "RLC Sent Dummy       "},
	{Name: "rlc:sent-control", Description: "RLC Sent Control     "},
	{Name: "rlc:dl_bytes", Description: "RLC DL Bytes         "},
	{Name: "rlc:dl_payload_bytes", Description: "RLC DL Payload Bytes "},
	{Name: "rlc:ul_bytes", Description: "RLC UL Bytes         "},
	{Name: "rlc:ul_payload_bytes", Description: "RLC UL Payload Bytes "},
	{Name: "decode:errors", Description: "Decode Errors        "},
	{Name: "sba:allocated", Description: "SBA Allocated        "},
	{Name: "sba:freed", Description: "SBA Freed            "},
	{Name: "sba:timedout", Description: "SBA Timeout          "},
	{Name: "llc:timeout", Description: "Timedout Frames      "},
	{Name: "llc:dropped", Description: "Dropped Frames       "},
	{Name: "llc:scheduled", Description: "Scheduled Frames     "},
	{Name: "llc:dl_bytes", Description: "RLC encapsulated PDUs"},
	{Name: "llc:ul_bytes", Description: "full PDUs received   "},
	{Name: "pch:requests", Description: "PCH requests sent    "},
	{Name: "pch:requests:already", Description: "PCH requests on subscriber already being paged"},
	{Name: "pch:requests:timeout", Description: "PCH requests timeout "},
	{Name: "rach:requests", Description: "RACH requests received"},
	{Name: "rach:requests:11bit", Description: "11BIT_RACH requests received"},
	{Name: "rach:requests:one_phase", Description: "One phase packet access with request for single TS UL"},
	{Name: "rach:requests:two_phase", Description: "Single block packet request for two phase packet access"},
	{Name: "rach:requests:unexpected", Description: "RACH Request with unexpected content received"},
	{Name: "spb:uplink_first_segment", Description: "First seg of UL SPB  "},
	{Name: "spb:uplink_second_segment", Description: "Second seg of UL SPB "},
	{Name: "spb:downlink_first_segment", Description: "First seg of DL SPB  "},
	{Name: "spb:downlink_second_segment", Description: "Second seg of DL SPB "},
	{Name: "immediate:assignment_UL", Description: "Immediate Assign UL  "},
	{Name: "immediate:assignment_ul:one_phase", Description: "Immediate Assign UL (one phase packet access)"},
	{Name: "immediate:assignment_ul:two_phase", Description: "Immediate Assign UL (two phase packet access)"},
	{Name: "immediate:assignment_ul:contention_resolution_success", Description: "First RLC Block (PDU) on the PDTCH from the MS received"},
	{Name: "immediate:assignment_rej", Description: "Immediate Assign Rej "},
	{Name: "immediate:assignment_DL", Description: "Immediate Assign DL  "},
	{Name: "channel:request_description", Description: "Channel Request Desc "},
	{Name: "pkt:ul_assignment", Description: "Packet UL Assignment "},
	{Name: "pkt:access_reject", Description: "Packet Access Reject "},
	{Name: "pkt:dl_assignment", Description: "Packet DL Assignment "},
	{Name: "pkt:cell_chg_notification", Description: "Packet Cell Change Notification"},
	{Name: "pkt:cell_chg_continue", Description: "Packet Cell Change Continue"},
	{Name: "pkt:neigh_cell_data", Description: "Packet Neighbour Cell Data"},
	{Name: "ul:control", Description: "UL control Block     "},
	{Name: "ul:assignment_poll_timeout", Description: "UL Assign Timeout    "},
	{Name: "ul:assignment_failed", Description: "UL Assign Failed     "},
	{Name: "dl:assignment_timeout", Description: "DL Assign Timeout    "},
	{Name: "dl:assignment_failed", Description: "DL Assign Failed     "},
	{Name: "pkt:ul_ack_nack_timeout", Description: "PUAN Poll Timeout    "},
	{Name: "pkt:ul_ack_nack_failed", Description: "PUAN poll Failed     "},
	{Name: "pkt:dl_ack_nack_timeout", Description: "PDAN poll Timeout    "},
	{Name: "pkt:dl_ack_nack_failed", Description: "PDAN poll Failed     "},
}

// PCU socket counters of gopcu (group "pcu:l1if"; osmo-pcu only logs these).
const (
	L1Connected = iota
	L1Lost
	L1RxMsgs
	L1RxInfoInd
	L1RxRTS
	L1RxRTSDisabledPDCH
	L1RxDataInd
	L1RxDataCnf
	L1RxRACHInd
	L1RxTimeInd
	L1RxPagReq
	L1RxSuspReq
	L1RxAppInfoReq
	L1RxInterfInd
	L1RxE1CCUInd
	L1RxContainer
	L1RxUnexpected
	L1ErrShort
	L1ErrLong
	L1ErrUnknownType
	L1ErrVersion
	L1ErrRange
	L1ErrInconsistent
	L1ErrStale
	L1TxMsgs
	L1TxDropped
	L1VersionMismatch
	L1LLCCoDelDropped
	L1LLCOverflowDropped
	L1LLCRequeued
	L1TALoopUpdates
	L1MSReclaimed
	L1GbStale
	L1PagingDropped
	L1FNJump
	L1LLCECNMarked
	L1LLCNoMarkNotECT // llc.NoMarkNotECT .. llc.NoMarkPolicy in order
	L1LLCNoMarkCiphered
	L1LLCNoMarkCompressed
	L1LLCNoMarkOther
	L1LLCNoMarkPolicy
	L1GbULUnitdataDropped
	L1GbLLCDiscardedDropped
	L1ULLLCNoTLLI
	L1ULDataNoTBF
	L1FSMRejected
	L1PagReqDropped
	L1GbDLUnitdataDropped
	L1LLCRefused
	L1TxErrEncode
	L1RxDataIndDisabledPDCH
	L1RxPCCNNoTBF
	L1PagingUnencodable
	L1GbFlowControlMSDropped
	L1GbSuspendDropped
	L1GbRIMDropped
	L1GSMTAPDropped
	numL1Ctrs
)

// L1CounterDescs describe the "pcu:l1if" group.
var L1CounterDescs = []ratectr.Desc{
	{Name: "link:connected", Description: "PCU socket connections established"},
	{Name: "link:lost", Description: "PCU socket connections lost"},
	{Name: "rx:msgs", Description: "Messages received from the BTS"},
	{Name: "rx:info_ind", Description: "INFO_IND received"},
	{Name: "rx:rts_req", Description: "RTS_REQ received"},
	{Name: "rx:rts_req:disabled_pdch", Description: "RTS_REQ for a disabled PDCH (not answered)"},
	{Name: "rx:data_ind", Description: "DATA_IND received"},
	{Name: "rx:data_cnf", Description: "DATA_CNF / DATA_CNF_2 received"},
	{Name: "rx:rach_ind", Description: "RACH_IND received"},
	{Name: "rx:time_ind", Description: "TIME_IND received"},
	{Name: "rx:pag_req", Description: "PAG_REQ received"},
	{Name: "rx:susp_req", Description: "SUSP_REQ received"},
	{Name: "rx:app_info_req", Description: "APP_INFO_REQ received"},
	{Name: "rx:interf_ind", Description: "INTERF_IND received"},
	{Name: "rx:e1_ccu_ind", Description: "E1_CCU_IND received"},
	{Name: "rx:container", Description: "CONTAINER received"},
	{Name: "rx:unexpected", Description: "Messages a BTS must not send (ignored)"},
	{Name: "rx:err:short", Description: "Truncated messages"},
	{Name: "rx:err:long", Description: "Oversized messages"},
	{Name: "rx:err:unknown_type", Description: "Messages of unknown type"},
	{Name: "rx:err:version", Description: "Messages not valid in the negotiated version"},
	{Name: "rx:err:range", Description: "Messages with out-of-range fields"},
	{Name: "rx:err:inconsistent", Description: "Inconsistent messages"},
	{Name: "rx:err:stale", Description: "Messages before INFO_IND or of an inactive BTS"},
	{Name: "tx:msgs", Description: "Messages sent to the BTS"},
	{Name: "tx:dropped", Description: "Messages dropped (transmit queue full or not connected)"},
	{Name: "version:mismatch", Description: "INFO_IND with a version other than the pinned one"},
	{Name: "llc:dropped:codel", Description: "LLC frames dropped by CoDel (AQM)"},
	{Name: "llc:dropped:overflow", Description: "LLC frames dropped by the queue memory limits"},
	{Name: "llc:requeued", Description: "Unacknowledged LLC frames of an aborted DL TBF put back into the queue"},
	{Name: "ta:loop_updates", Description: "Timing advance changes from uplink burst timing"},
	{Name: "ms:reclaimed", Description: "Idle MSs freed early to stay within ms-max"},
	{Name: "gb:rx:stale", Description: "NS datagrams of a bind closed since they arrived (dropped)"},
	{Name: "paging:dropped", Description: "PACCH pages dropped: the PDCH's paging queue was full"},
	{Name: "rx:err:fn_jump", Description: "RTS_REQ/TIME_IND whose FN jumped implausibly (ignored)"},
	{Name: "llc:ecn:marked", Description: "LLC frames the AQM marked CE (ECN) instead of dropping"},
	{Name: "llc:aqm:nomark:not_ect", Description: "AQM drops with ECN on: the IP packet is not ECN-capable"},
	{Name: "llc:aqm:nomark:ciphered", Description: "AQM drops with ECN on: the LLC frame is ciphered"},
	{Name: "llc:aqm:nomark:compressed", Description: "AQM drops with ECN on: SNDCP header or data compression"},
	{Name: "llc:aqm:nomark:other", Description: "AQM drops with ECN on: no IP header in the frame (not a first segment, not IP)"},
	{Name: "llc:aqm:nomark:policy", Description: "AQM drops with ECN on: ECN-capable, but PIE's probability was 10 % or more"},
	{Name: "gb:tx:ul_unitdata:dropped", Description: "UL LLC frames not sent to the SGSN (no Gb, BVC blocked, NS cannot send)"},
	{Name: "gb:tx:llc_discarded:dropped", Description: "LLC-DISCARDED not sent to the SGSN (no Gb, signalling BVC not reset, NS cannot send)"},
	{Name: "ul:llc:dropped:no_tlli", Description: "UL LLC frames dropped: the MS had not sent its TLLI"},
	{Name: "rx:ul_data:no_tbf", Description: "UL data blocks for no TBF of their TFI on the PDCH (dropped)"},
	{Name: "fsm:rejected_event", Description: "Events no transition of a state machine accepted (TBF, control procedure, NACC; ignored)"},
	{Name: "rx:pag_req:dropped", Description: "PAG_REQ without a TMSI or IMSI to page (dropped)"},
	{Name: "gb:rx:dl_unitdata:dropped", Description: "DL-UNITDATA for a BTS that is not active (dropped)"},
	{Name: "llc:dropped:refused", Description: "DL LLC frames the MS's queue refused: empty or longer than 1543 octets"},
	{Name: "tx:err:encode", Description: "Messages to the BTS that did not encode (dropped)"},
	{Name: "rx:data_ind:disabled_pdch", Description: "DATA_IND for a disabled PDCH (dropped)"},
	{Name: "rx:pccn:no_tbf", Description: "Packet Cell Change Notifications for no TBF of their TFI (dropped)"},
	{Name: "paging:dropped:encode", Description: "PACCH pages dropped: the page does not encode in a Packet Paging Request (a field out of range)"},
	{Name: "gb:tx:flow_control_ms:dropped", Description: "FLOW-CONTROL-MS not sent to the SGSN (NS cannot send)"},
	{Name: "gb:tx:suspend:dropped", Description: "SUSPEND not sent to the SGSN (no Gb, signalling BVC not reset, NS cannot send)"},
	{Name: "gb:tx:rim:dropped", Description: "RIM PDUs, and STATUS answering an erroneous one, not sent to the SGSN (no Gb, NS cannot send)"},
	{Name: "gsmtap:tx:dropped", Description: "GSMTAP copies of radio blocks not sent (the socket refused them, e.g. after ICMP port unreachable)"},
}

// "pcu:sgsn" group (osmo-pcu's SGSN Statistics).
const (
	SGSNCtrRxPagingCS = iota
	SGSNCtrRxPagingPS
)

// SGSNCounterDescs describe the "pcu:sgsn" group.
var SGSNCounterDescs = []ratectr.Desc{
	{Name: "rx_paging_cs", Description: "Amount of paging CS requests received"},
	{Name: "rx_paging_ps", Description: "Amount of paging PS requests received"},
}

// Per-object groups of osmo-pcu (osmo-pcu gprs_ms.c, tbf.cpp, tbf_dl.cpp, tbf_ul.cpp): "pcu:ms" per MS,
// "pcu:tbf" per TBF, and the TBF's data blocks per coding scheme in
// "tbf:gprs" / "tbf:egprs" (a DL TBF has the one of its mode, an UL TBF
// both). Their indices count up per object.
const (
	MSCtrDLCtrlMsgSched = iota
)

// MSCounterDescs describe the "pcu:ms" group.
var MSCounterDescs = []ratectr.Desc{
	{Name: "ms:dl_ctrl_msg_sched", Description: "Amount of DL CTRL messages scheduled"},
}

const (
	TBFCtrRLCNacked = iota
)

// TBFCounterDescs describe the "pcu:tbf" group.
var TBFCounterDescs = []ratectr.Desc{
	{Name: "rlc:nacked", Description: "RLC Nacked "},
}

// TBF data block groups: GPRS CS-1..4 and EGPRS MCS-1..9, downlink or uplink.
var (
	// osmo-pcu's descriptions end in 8 blanks ("CS1        ")
	TBFGPRSDLDescs  = csDescs("gprs:downlink:cs%d", "CS%d        ", 4)
	TBFGPRSULDescs  = csDescs("gprs:uplink:cs%d", "CS%d        ", 4)
	TBFEGPRSDLDescs = csDescs("egprs:downlink:mcs%d", "MCS%d        ", 9)
	TBFEGPRSULDescs = csDescs("egprs:uplink:mcs%d", "MCS%d        ", 9)
)

// csDescs are the counters of coding schemes 1..n: name and description
// are formats of the scheme's number.
func csDescs(name, desc string, n int) []ratectr.Desc {
	d := make([]ratectr.Desc, n)
	for i := range d {
		d[i] = ratectr.Desc{Name: fmt.Sprintf(name, i+1), Description: fmt.Sprintf(desc, i+1)}
	}
	return d
}

// tbfCounters creates and registers a TBF's per-TBF groups.
func (e *Engine) tbfCounters(t *TBF) {
	idx := e.tbfIdx
	e.tbfIdx++
	t.ctr = ratectr.NewGroup("pcu:tbf", "TBF Statistics", idx, TBFCounterDescs)
	e.cfg.Counters.Register(t.ctr)
	switch {
	case t.dir == DirUL:
		t.gprsCtr = ratectr.NewGroup("tbf:gprs", "Data Blocks", idx, TBFGPRSULDescs)
		t.egprsCtr = ratectr.NewGroup("tbf:egprs", "Data Blocks", idx, TBFEGPRSULDescs)
	case t.egprs:
		t.egprsCtr = ratectr.NewGroup("tbf:egprs", "Data Blocks", idx, TBFEGPRSDLDescs)
	default:
		t.gprsCtr = ratectr.NewGroup("tbf:gprs", "Data Blocks", idx, TBFGPRSDLDescs)
	}
	for _, g := range []*ratectr.Group{t.gprsCtr, t.egprsCtr} {
		if g != nil {
			e.cfg.Counters.Register(g)
		}
	}
}

// dropTBFCounters unregisters a freed TBF's groups.
func (e *Engine) dropTBFCounters(t *TBF) {
	for _, g := range []*ratectr.Group{t.ctr, t.gprsCtr, t.egprsCtr} {
		if g != nil {
			e.cfg.Counters.Unregister(g)
		}
	}
}

// dropMSCounters unregisters a freed MS's group.
func (e *Engine) dropMSCounters(m *MS) {
	if m.Ctr != nil {
		e.cfg.Counters.Unregister(m.Ctr)
		m.Ctr = nil
	}
}
