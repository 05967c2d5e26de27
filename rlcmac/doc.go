// Package rlcmac implements the 3GPP TS 44.060 RLC/MAC layer codecs of a
// GPRS/EGPRS PCU and of the MS emulator: a bit vector with CSN.1 L/H
// semantics, coding schemes, GPRS/EGPRS data block headers, LLC
// segmentation and reassembly, CSN.1 control messages (both directions), the
// TS 44.018 RR messages a PCU sends on CCCH, access burst decoding, and the
// RLC ARQ windows with their Ack/Nack bitmaps.
//
// The package is pure (no I/O, no engine knowledge) and allocation-free on
// the per-block paths: every encoder writes into a caller buffer and every
// decoder fills a caller-owned struct.
//
// # Control blocks (23 octets, CS-1)
//
// Each message is a struct with one symmetric CSN.1 description (method csn)
// driving both directions:
//
//	EncodeDL(b, &DLCtrlHeader{RRBP: r, SP: true, USF: usf}, &PacketUplinkAckNack{...})
//	h, m, err := DecodeUL(b)          // allocating dispatch on the message type
//	err := DecodeULInto(b, &h, &pdan) // zero-allocation, type must match
//
// The MS side uses EncodeUL / DecodeDL / DecodeDLInto the same way.
//
// # Data blocks
//
// Downlink (network) and uplink (MS) data units are filled by DLUnit (or
// FillUnit over an LLCSource) in place, then framed by EncodeGPRSDL /
// EncodeGPRSUL / EncodeEGPRSDL / EncodeEGPRSUL. Received blocks are parsed by
// GPRSULBlock.Parse, EGPRSULBlock.Parse (network) and GPRSDLBlock.Parse,
// EGPRSDLBlock.Parse (MS); ParseUnit returns the LLC chunks of a data unit.
//
// # CCCH
//
// IAUplinkDynamic, IAUplinkSingleBlock, IAEGPRSUplinkDynamic,
// IAEGPRSUplinkMultiBlock, IADownlink and IAReject build the RR messages the
// way osmo-pcu does; EncodeImmediateAssignment / EncodeImmediateAssignmentReject
// / EncodePagingRequestType1 write the 23-octet AGCH/PCH block (L2 pseudo
// length first) and the Decode* functions parse them (MS side).
// DecodeChannelRequest8 / DecodeEGPRSChannelRequest classify RACH bursts.
//
// # Windows
//
// SendWindow (V(S), V(A), V(B)) consumes Ack/Nack descriptions
// (ApplyGPRSAckNack, ApplyEGPRSAckNack); ReceiveWindow (V(R), V(Q), V(N))
// produces them (GPRSAckNack, EGPRSAckNack with T.4 compression, §9.1.10).
package rlcmac
