// Package ns is the codec of the GPRS Network Service (3GPP TS 48.016):
// every NS and IP-SNS PDU in both directions, the PDU types, IEIs and
// causes. It opens no socket, starts no goroutine and imports nothing of
// gopcu, so another program can import it alone.
//
// As in package bssgp, each PDU is its own struct (Reset, Status,
// SNSConfig, ...; TS 48.016 §9.2, §9.3) implementing PDU: Marshal,
// MarshalTo and MarshalLen encode any of them, Parse decodes a PDU of any
// type into a new struct and Unmarshal into a given one. Unitdata, the
// traffic, has MarshalTo and Unmarshal methods that do not allocate.
//
// The layers of NS, as osrg/gobgp splits packet from server:
//
//	bssgp/ns        this codec (pdu.go and pdu_sns.go: the PDUs and their
//	                IE tables; codec.go: the walker that encodes and
//	                decodes them; ie.go: how each IE is coded; types.go,
//	                errors.go)
//	bssgp/ns/nse    the BSS-side state machines: NSE, NS-VCs (classic
//	                RESET/BLOCK/UNBLOCK/ALIVE), IP-SNS; sans-IO, driven
//	                by Input, Tick and NextDeadline, sending through a
//	                Transport
//	bssgp/ns/nsudp  the UDP transport (sockets and reader goroutines)
//
// Wire format (TS 48.016 §9, §10): one octet PDU type followed by IEs. Most IEs
// are TLV with the TS 48.016 §10.1.2 length indicator: one length octet with
// bit 8 set ("ext") for lengths up to 127, else two octets (15-bit length).
// NS-UNITDATA has a fixed header (SDU control bits, BVCI) and the SDU;
// SNS-CONFIG has the End Flag and SNS-ACK/ADD/DELETE/CHANGEWEIGHT the
// Transaction ID as value-only octets (§9.3, no IEI).
package ns
