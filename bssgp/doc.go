// Package bssgp implements the BSS side of the Base Station System GPRS
// Protocol (3GPP TS 48.018) for gopcu: a pure codec for every PDU a BSS sends
// or receives on Gb (one struct per PDU, TS 48.018 §10), the BVC procedures
// (signalling and PTP BVC reset, block/unblock, STATUS handling, §8) and flow
// control (FLOW-CONTROL-BVC and per-MS FLOW-CONTROL-MS, §8.2).
//
// Wire format (TS 48.018 §10.1, §11): PDU type octet, for UL/DL-UNITDATA a
// fixed header (TLLI, QoS Profile), then TLV IEs whose length indicator
// (§11.1) is one octet with bit 8 ("ext") set for lengths up to 127, else two
// octets. The BVCI is carried by the NS-UNITDATA header (bssgp/ns), not by the
// BSSGP PDU itself.
package bssgp
