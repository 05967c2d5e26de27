// Package nse holds the BSS side's NS state machines (3GPP TS 48.016):
// one NSE with its NS-VCs in the classic dialect (NS-RESET, NS-BLOCK,
// NS-UNBLOCK, NS-ALIVE; §7) or in IP-SNS (SNS-SIZE, SNS-CONFIG, then
// SNS-ADD/DELETE/CHANGEWEIGHT; §7.4b), and load sharing of NS-UNITDATA
// over the unblocked NS-VCs (§4.4.1).
//
// It is sans-IO: one owner goroutine feeds received datagrams to
// NSE.Input, runs NSE.Tick at NSE.NextDeadline and passes the monotonic
// time to every call; the NSE sends through the caller's Transport
// (bssgp/ns/nsudp in gopcu, an in-memory function in tests) and counts
// through a counter.Registry (stats/counter; nil: no counters). The one
// exception: with Config.SourceAddr nil, an IP-SNS NSE asks the kernel for
// its source address towards the SGSN (nsudp.SourceAddrTowards, a
// connected UDP socket that sends nothing) to announce a wildcard bind.
// PDUs are encoded and decoded by the codec, bssgp/ns.
package nse
