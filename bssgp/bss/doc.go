// Package bss is the BSS side of the BSSGP procedures (3GPP TS 48.018) for
// one cell: the Gb owns one NSE (bssgp/ns/nse) with its signalling BVC and
// one PTP BVC, brings them up (signalling and PTP BVC-RESET, BVC-UNBLOCK,
// §8.3, §8.4), answers erroneous PDUs with STATUS (§8.7), sends
// FLOW-CONTROL-BVC every interval and FLOW-CONTROL-MS on demand (§8.2),
// delivers what the SGSN sends to a Handler and sends UL-UNITDATA,
// LLC-DISCARDED, SUSPEND, RESUME, RADIO-STATUS and RIM PDUs.
//
// It is sans-IO: one owner goroutine calls Gb.Input with each received NS
// datagram, Gb.Tick at Gb.NextDeadline, and passes the monotonic time to
// every call; the Gb sends through an nse.Transport and counts through a
// counter.Registry (stats/counter; nil: no counters). PDUs are encoded
// and decoded by the codec, package bssgp.
package bss
