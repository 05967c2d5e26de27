// Package ns implements the GPRS Network Service (3GPP TS 48.016) over UDP/IP
// for the BSS side of the Gb interface: a pure codec for every NS and SNS PDU
// (this file set: types.go, errors.go, pdu.go) and single-goroutine state
// machines for NS-VCs, the classic (RESET/BLOCK/UNBLOCK/ALIVE) and the IP-SNS
// dialects, plus a thin UDP transport.
//
// Wire format (TS 48.016 §9, §10): one octet PDU type followed by IEs. Most IEs
// are TLV with the TS 48.016 §10.1.2 length indicator: one length octet with
// bit 8 set ("ext") for lengths up to 127, else two octets (15-bit length).
// NS-UNITDATA has a fixed header (SDU control bits, BVCI) and the SDU;
// SNS-CONFIG has the End Flag and SNS-ACK/ADD/DELETE/CHANGEWEIGHT the
// Transaction ID as value-only octets (§10.3.x, no IEI).
package ns
