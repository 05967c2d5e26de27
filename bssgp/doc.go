// Package bssgp is the codec of the Base Station System GPRS Protocol
// (3GPP TS 48.018) as a BSS speaks it on Gb: every PDU a BSS sends or
// receives, one struct per PDU (TS 48.018 §10), in both directions
// (Marshal, Parse, Unmarshal), the RIM PDUs and containers (rim.go) and the
// IE values (RAI, Cell Identifier, IMSI). It opens no socket, starts no
// goroutine and imports nothing of gopcu, so another program can import
// it alone.
//
// The layers of Gb, as osrg/gobgp splits packet from server:
//
//	bssgp           this codec
//	bssgp/bss       the BSS-side procedures: BVC bring-up (signalling and
//	                PTP BVC-RESET, BVC-UNBLOCK), STATUS, flow control
//	                (FLOW-CONTROL-BVC/-MS, §8.2) over one NSE; sans-IO
//	bssgp/ns        the NS codec
//	bssgp/ns/nse    the NS state machines (NSE, NS-VCs, IP-SNS); sans-IO
//	bssgp/ns/nsudp  the NS UDP transport
//
// Wire format (TS 48.018 §10.1, §11): PDU type octet, for UL/DL-UNITDATA a
// fixed header (TLLI, QoS Profile), then TLV IEs whose length indicator
// (§11.1) is one octet with bit 8 ("ext") set for lengths up to 127, else two
// octets. The BVCI is carried by the NS-UNITDATA header (bssgp/ns), not by the
// BSSGP PDU itself.
package bssgp
