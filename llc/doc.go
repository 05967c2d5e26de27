// Package llc holds what the PCU does with downlink LLC frames: frame
// inspection (TS 44.064 §6.2-6.3: SAPI, I/S/UI/U, the UI dummy command) and
// the per-MS downlink queue with PDU lifetime and active queue management.
//
// # Queue model
//
// One Queue per MS (osmo-pcu gprs_llc_queue), three strict-priority classes
// by SAPI as osmo-pcu: GMM (SAPI 1), TOM/SMS (SAPI 2, 7, 8), data (all
// others). In the default rfc variant the data class is split into one flow
// per user-data SAPI (3, 5, 9, 11) plus one for reserved SAPIs, served by
// deficit round robin with RFC 8290's new/old flow lists (quantum 1543
// octets) and each with its own RFC 8289 CoDel. GMM and TOM/SMS frames and
// every non-UI frame are never dropped by the AQM (a drop decision that
// falls on such a frame is deferred to the next droppable frame of the
// flow); PDU lifetime applies to all frames.
//
// Dequeue order per call (osmo-pcu llc_queue_dequeue): take the head of the
// highest non-empty class; drop it if its PDU lifetime expired (expiry is
// now > enqueue + lifetime; with `queue hysteresis` a frame expiring within
// the hysteresis is also dropped once this call has dropped something,
// unless it is "not discardable": ≤ 60 octets, GMM or not UI); run CoDel;
// deliver. The osmo variant runs CoDel before the lifetime check, as
// osmo-pcu. Every dropped frame is reported exactly once: lifetime and CoDel
// drops in the Discard returned by the Dequeue that dropped them, overflow
// drops in the next Dequeue of the victim or via Shared.TakeOverflowed,
// cleared frames by Clear/Close (no LLC-DISCARDED, as osmo-pcu).
//
// Sojourn is measured from max(enqueue time, transmit start) where the
// engine sets transmit start (SetTransmitStart) when the MS's DL TBF can
// first send, so paging and assignment delay does not look like a standing
// queue (aqm.md §6.2); PDU lifetime still counts from enqueue.
//
// # CoDel parameters
//
// `queue codel interval N` fixes the interval at N × 10 ms. The target is
// Config.Target if set (extension, µs resolution, ≥ 1 µs), else derived as
// below but capped at interval/2. MAXPACKET is one maximum LLC frame
// (1543 octets) compared with the backlog of the CoDel's own flow.
//
// Plain `queue codel` (Interval 0) derives the parameters per MS from its
// drain rate R in LLC octets/s: the smaller of the rate the engine promises
// with SetDrainRate(DrainRate(octets per block of the DL coding scheme, DL
// slots)) and the rate the queue measures while backlogged (drainmeter.go:
// an MS sharing its PDCHs gets only part of its slots' blocks); R = 0
// (unknown) counts as CS-1 on one slot, 1000 octets/s. With
// MTU-time = 1500 octets / R (CAKE's rule, aqm.md §4.2, RFC 8290 §4.3
// "target ≥ one MTU at the egress rate"):
//
//	target   = min(max(500 ms, 1.5 × MTU-time), 2 s)
//	interval = min(8 × target, 10 s)
//
// Examples: CS-1 × 1 slot: 2 s / 10 s; CS-2 × 1: 1.5 s / 10 s; CS-2 × 4,
// CS-4 × 4 and MCS-9 × 4: 500 ms / 4 s. The 500 ms floor is the GPRS round
// trip without any queue (block period, DL Ack/Nack polling, uplink TBF
// establishment for the TCP acks): TCP keeps the air interface busy only if
// the standing queue can hold about that much (RFC 8289 §4.3), and the
// interval spans several such round trips so a sender reacts to one drop
// before the next. The bufferbloat demo (docs/bufferbloat.md) measured this
// rule against shorter ones on CS-2 × 4: with 225 ms / 450 ms-like
// parameters the download took 18-35 % longer (drops every second or two,
// retransmission timeouts); with this rule it finishes as fast as without
// AQM. Latency-sensitive traffic does not pay for the longer standing queue
// of a bulk flow: it sits in its own flow (flow isolation above) and
// dequeues first. Parameters follow the
// rate immediately; the CoDel state is kept.
//
// The osmo variant (`queue codel variant osmo`) uses osmo-pcu's numbers:
// interval 4 s unless set, target ⌊interval_ms × 13/256⌋ ms (0 for intervals
// below 20 ms, as osmo-pcu), maxpacket 512 octets over the whole MS queue,
// one CoDel per class, no reset on an empty queue (aqm.md D1-D7). It
// reproduces osmo-pcu's tests/codel and tests/llc; gopcu's protection of
// GMM/SMS/TOM/non-UI frames and the transmit-start sojourn still apply.
//
// # Other AQMs, ECN, ciphered frames
//
// While the AQM is on (`queue codel`), Config.AQM chooses the algorithm
// run on each user-data flow (gopcu extension `queue aqm`): CoDel as
// above, PIE (RFC 8033; pie.go) or RED per flow with head drop/mark
// (Linux SFQ's redflowlimit/headdrop; red.go). DefaultConfig chooses RED
// (SFQ-RED with the flow queues): on the real Osmocom network it held the
// download's own queue at about a quarter of FQ-CoDel's for the same ping
// and download time, and a ciphered phone's ping near idle (gopcu's
// docs/bufferbloat.md, "The default: SFQ-RED"). The zero Config's AQM is
// CoDel. With `no queue fq` the data
// class is one FIFO, so each runs alone per MS (CoDel, PIE, RED) instead of
// inside the flow queues (FQ-CoDel, FQ-PIE, SFQ-RED). Every decision is
// taken on the frame at the head of its flow, before RLC/MAC encoding.
// RED's automatic min is the backlog the MS drains in the automatic CoDel
// target less one MTU (at least two maximum frames; redAutoMin), its
// max three times that, and both are the MS's share when other MSs have
// data on the same PDCHs (REDParamsShared, Queue.SetSharers). With the RFC
// variant a drop falls on a whole SNDCP N-PDU: a decision on a later
// segment, whose first segment has left, goes to the flow's next N-PDU
// unless that is its last queued one (dequeue.go, aqmDrop).
//
// ECN (RFC 3168; ecn.go): where the AQM would drop an ECN-capable frame
// (unciphered UI frame of a user SAPI whose uncompressed first SNDCP
// segment holds an IPv4/IPv6 header with ECT(0) or ECT(1)) it sets CE
// instead, updates the IPv4 checksum and the LLC FCS, and delivers it.
// CoDel marks on its drop schedule (RFC 8289 §5.4), PIE below a 10 %
// probability (RFC 8033 §5.1), RED at any probability. On by default, as
// in Linux's fq_codel; `no queue ecn` turns it off. A decision on a later
// SNDCP segment (no IP header) of an ECN-capable flow marks the flow's
// next first segment instead, up to 8 frames behind the head or the next
// one to leave (dequeue.go, markNext): with 1500-octet packets cut into
// 500-octet segments, three decisions in four fall on such segments. ECN-
// capable flows get faster CoDel parameters (ParamsECNFor) and a lower
// RED min (REDParamsECNFor). Decisions
// that could not be marks are counted by reason (not-ect, ciphered,
// compressed, other, policy).
//
// Ciphered frames (E bit) show no SNDCP or IP header. Their N-PDU
// boundaries are read from lengths (every segment but the last is
// N201-U long; a run of full-length frames ends after the most segments
// an N-PDU can have), which lets a short whole N-PDU (a ping) overtake a
// ciphered download by at most 30 frames (the receiver's N(U) window of
// 32): all of it when it is shorter, else its last N-PDUs (insertMidway),
// keeps an N-PDU's segments together, makes an AQM drop take the rest
// of the N-PDU, within its SAPI (queue.go, cipheredFlow), and defers a
// drop decided on a frame that continues an N-PDU to the next N-PDU, as
// for unciphered segments (dequeue.go, aqmDrop).
//
// # Memory
//
// Frames are charged len + FrameOverhead (64) octets against a per-MS
// limit (default 256 KiB) and a global limit (default 64 MiB) held by
// Shared. When a limit is exceeded the head of the fattest data flow of the
// fattest MS is dropped (RFC 8290 §4.1 overload rule; without data frames
// the TOM/SMS and then the GMM class). An idle queue is a ~224-byte header;
// the flow storage of a busy queue comes from a pool in Shared and goes
// back once the queue is empty and its CoDel state is cold, so steady-state
// enqueue/dequeue does not allocate.
//
// Frame buffers: Enqueue takes the caller's slice (never given to a pool);
// EnqueueCopy copies into a buffer of Shared's pool (size classes of at
// most 1.5x the length, bounded free lists). The queue owns it while the
// frame is queued and gives it back on every drop; Dequeue hands it to the
// caller, who puts it back (PutBack) or ends its life with Shared.Release.
// A buffer never given back is garbage, a buffer given back while still
// read is corrupt data (tests poison released buffers: internal/poison).
//
// # Time
//
// Nothing reads a clock: every method takes now as a monotonic
// time.Duration since an arbitrary epoch. All methods are for one goroutine.
package llc
