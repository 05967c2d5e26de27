package llc

import (
	"errors"
	"math"
	"sort"
	"time"
)

// Class is a strict-priority class of the MS queue (osmo-pcu llc.c).
type Class uint8

// Priority classes, highest first.
const (
	ClassGMM    Class = iota // SAPI 1
	ClassTOMSMS              // SAPI 2, 7, 8
	ClassData                // every other SAPI (user data 3, 5, 9, 11; reserved SAPIs)
	NumClasses
)

func (c Class) String() string {
	switch c {
	case ClassGMM:
		return "GMM"
	case ClassTOMSMS:
		return "TOM/SMS"
	case ClassData:
		return "data"
	}
	return "?"
}

// ClassOf maps a SAPI to its priority class.
func ClassOf(sapi uint8) Class {
	switch sapi {
	case SAPIGMM:
		return ClassGMM
	case SAPITOM2, SAPISMS, SAPITOM8:
		return ClassTOMSMS
	}
	return ClassData
}

// Reason is why a frame was dropped.
type Reason uint8

// Drop reasons.
const (
	ReasonLifetime Reason = iota // PDU lifetime expired (llc:timeout)
	ReasonCoDel                  // AQM decision
	ReasonOverflow               // per-MS or global memory limit
	ReasonCleared                // queue cleared (MS freed or merged away)
	NumReasons
)

func (r Reason) String() string {
	return [...]string{"lifetime", "codel", "overflow", "cleared"}[r]
}

// Flows inside one MS queue. Flows 0 and 1 are the GMM and TOM/SMS classes;
// flows 2..6 make up the data class: in the rfc variant one flow per
// user-data SAPI (3, 5, 9, 11) plus one for reserved SAPIs, scheduled by
// DRR; in the osmo variant only flowOther (one FIFO, as osmo-pcu).
const (
	flowGMM = iota
	flowTOM
	// firstUser is the first user-data flow: NumBuckets hashed flows
	// (SAPI, SNDCP NSAPI, IP 5-tuple; see FlowKey), then the flow of the
	// reserved SAPIs.
	firstUser
	// NumBuckets is the number of user-data flows of a queue.
	NumBuckets = 16
	flowOther  = firstUser + NumBuckets
	// NumFlows is the number of flows of a queue (see FlowName).
	NumFlows = flowOther + 1
	numUser  = NumFlows - firstUser
	flowUser = 0xff // marker in sapiFlow
)

var sapiFlow = [16]uint8{flowOther, flowGMM, flowTOM, flowUser, flowOther, flowUser, flowOther, flowTOM,
	flowTOM, flowUser, flowOther, flowUser, flowOther, flowOther, flowOther, flowOther}

// flowS3 is the flow of SAPI 3 frames without an SNDCP/IP flow key.
const flowS3 = firstUser + 3

// FlowName names flow i for display ("GMM", "TOM/SMS", "flow5", "other").
func FlowName(i int) string {
	switch {
	case i == flowGMM:
		return "GMM"
	case i == flowTOM:
		return "TOM/SMS"
	case i == flowOther:
		return "other"
	}
	return "flow" + string(rune('0'+(i-firstUser)/10)) + string(rune('0'+(i-firstUser)%10))
}

// flowOf picks the flow of a frame. User data is spread over NumBuckets
// flows by flow key; segments after the first of an N-PDU follow the flow
// of their NSAPI's last first segment, so an N-PDU stays in order.
func (a *active) flowOf(b []byte, fq bool) uint8 {
	return a.flowOfAt(b, fq, false)
}

// flowOfAt is flowOf; learn is true for a frame appended at the tail in
// enqueue order (Enqueue, relayout), whose ciphered N-PDU boundaries it
// tracks (see cipheredFlow).
func (a *active) flowOfAt(b []byte, fq, learn bool) uint8 {
	f := sapiFlow[SAPI(b)&0x0f]
	if f != flowUser {
		if !fq && f >= firstUser {
			return flowOther
		}
		return f
	}
	if ciphered(b) {
		whole := learn && a.learnCiphered(b)
		if !fq {
			return flowOther
		}
		return a.cipheredFlow(b, whole, learn)
	}
	if !fq {
		return flowOther
	}
	key, nsapi, kind := FlowKey(b)
	switch kind {
	case KeyIP:
		a.nsKey[nsapi] = key | 1<<31
	case KeyContinuation:
		if k := a.nsKey[nsapi]; k != 0 {
			key = k
			break
		}
		fallthrough
	default:
		return firstUser + SAPI(b)%NumBuckets
	}
	return firstUser + a.bucketOf(key)
}

// bucketOf is the user bucket of flow key: the bucket that holds the
// flow's queued frames, else an empty one, searched from key mod
// NumBuckets (set-associative, as CAKE's flow hashing: with 16 buckets a
// plain key mod 16 put a phone's ping into its own download's bucket, to
// wait behind the whole download, once in 16 connections). An empty
// bucket that left the DRR lists is preferred, so that the flow starts
// as a new one (RFC 8290 §4.2). Only when all 16 hold other flows do two
// flows share one.
func (a *active) bucketOf(key uint32) uint8 {
	tag := key | 1<<31
	b0 := uint8(key % NumBuckets)
	for j := uint8(0); j < NumBuckets; j++ {
		b := (b0 + j) % NumBuckets
		if a.tags[b] == tag && a.flows[firstUser+b].frames > 0 {
			return b
		}
	}
	empty := -1
	for j := uint8(0); j < NumBuckets; j++ {
		b := (b0 + j) % NumBuckets
		if fw := &a.flows[firstUser+b]; fw.frames == 0 {
			if fw.list == listNone {
				a.tags[b] = tag
				return b
			}
			if empty < 0 {
				empty = int(b)
			}
		}
	}
	if empty >= 0 {
		a.tags[empty] = tag
		return uint8(empty)
	}
	return b0
}

// Ciphered frames. A ciphered UI frame (E bit, TS 44.064 §6.4.2.3) hides its
// SNDCP and IP headers, so neither flow keys nor N-PDU segments can be read
// from it: every such frame of a SAPI shares one flow, and a ping waits
// behind the download. What stays visible is the length. The SGSN fills
// every segment of a segmented N-PDU but the last to N201-U (TS 44.065
// §6.9), and the cipher keeps lengths, so a frame shorter than the longest
// ciphered frame seen on its SAPI ends an N-PDU; a frame as long as that
// one may have more segments behind it, but an N-PDU (at most
// cipheredMaxNPDU octets) has at most maxSegs of them, so a run of that
// many full-length frames ends one too. A short frame that follows an
// N-PDU end is a whole N-PDU. gopcu puts such a frame, if it is small
// (≤ cipheredSmall octets: a ping, a DNS answer, a TCP handshake), into a
// flow of its own, which DRR serves as a new flow (RFC 8290 §4.2), so it
// overtakes the download's queue; the segments of an N-PDU still leave in
// order and together (noteSegment keeps a flow first while its N-PDU may
// go on). The receiver takes UI frames out of N(U) order within a window
// of 32 (TS 44.064 §8.8.2), so a frame takes the small flow only while
// the oldest queued frame of the SAPI's download is fewer than
// cipheredMaxBehind frames older; behind a deeper download it is linked
// into the download's flow at the first N-PDU boundary within that
// distance (insertMidway): no frame leaves more than 30 frames out of
// order. The rule errs on the safe side: a frame of unknown position
// stays in the SAPI's flow, in order.
const (
	cipheredSmall     = 300
	cipheredMaxBehind = 31
	cipheredMaxNPDU   = 1520 // octets: an IP packet of the 1500-octet MTU with room to spare
)

// ciphered reports whether b is a ciphered LLC UI frame.
func ciphered(b []byte) bool { return len(b) >= 3+FCSLen && b[1]&0xe0 == 0xc0 && b[2]&0x02 != 0 }

// maxSegs is the most segments an N-PDU of SAPI s has (full frames of
// cfull octets carry cfull − 10 octets of it: 3 LLC header, 3 FCS and at
// least 4 SNDCP header octets).
func (a *active) maxSegs(s uint8) uint8 {
	d := int(a.cfull[s]) - 10
	if d <= 0 {
		return 1
	}
	return uint8(min((cipheredMaxNPDU+d-1)/d, 255))
}

// learnCiphered tracks the N-PDU boundaries of ciphered frames enqueued at
// the tail and reports whether b is a whole N-PDU.
func (a *active) learnCiphered(b []byte) bool {
	s := SAPI(b)
	if sapiFlow[s] != flowUser {
		return false
	}
	n := uint16(len(b))
	whole := !a.cmid[s] && n < a.cfull[s]
	a.cflags = fCLater
	if !a.cmid[s] {
		a.cflags = fCFirst
	}
	a.cfull[s] = max(a.cfull[s], n)
	if n < a.cfull[s] {
		a.cmid[s], a.crun[s] = false, 0
		a.cflags |= fEndsNPDU
		return whole
	}
	a.cmid[s] = a.fullRun(&a.crun[s], s)
	if !a.cmid[s] {
		a.cflags |= fEndsNPDU
	}
	return whole
}

// cipheredFlow picks the flow of a ciphered UI frame of a user SAPI.
func (a *active) cipheredFlow(b []byte, whole, learn bool) uint8 {
	sapi := SAPI(b)
	bulk := firstUser + sapi%NumBuckets
	if !learn || !whole || len(b) > cipheredSmall {
		return bulk // put back, part of a longer N-PDU or large: in order
	}
	if a.oldestSeq(bulk, a.seqNow) {
		// the download is too deep to overtake all of it: overtake its
		// last N-PDUs within the window (insertMidway)
		a.midway = true
		return bulk
	}
	small := firstUser + a.bucketOf(0x5ec00000|uint32(sapi)<<4|uint32(sapi+8)%NumBuckets)
	if small == bulk || a.flows[small].frames > 0 && SAPI(a.ents[a.flows[small].head].data) != sapi {
		return bulk
	}
	return small
}

// oldestSeq reports whether flow f holds a frame cipheredMaxBehind or more
// frames older than seq (frames inserted midway can stand before older
// ones, so the whole flow is looked at; only small ciphered frames ask).
func (a *active) oldestSeq(f uint8, seq uint32) bool {
	for j := a.flows[f].head; j >= 0; j = a.ents[j].next {
		if seq-a.ents[j].seq >= cipheredMaxBehind {
			return true
		}
	}
	return false
}

// cipheredLeave tracks the N-PDU boundaries of ciphered frames leaving the
// queue (delivered or dropped, in order per SAPI) and reports whether
// more segments of b's N-PDU may follow.
func (a *active) cipheredLeave(b []byte) bool {
	s := SAPI(b)
	if !ciphered(b) || sapiFlow[s] != flowUser || a.cfull[s] == 0 {
		return false
	}
	if uint16(len(b)) < a.cfull[s] {
		a.cdrun[s] = 0
		return false
	}
	return a.fullRun(&a.cdrun[s], s)
}

// fullRun counts one more full-length frame of SAPI s in run and reports
// whether its N-PDU may go on: after maxSegs of them in a row it has ended
// (run starts again).
func (a *active) fullRun(run *uint8, s uint8) bool {
	*run++
	if *run >= a.maxSegs(s) {
		*run = 0
		return false
	}
	return true
}

func classOfFlow(f uint8) Class {
	if f >= firstUser {
		return ClassData
	}
	return Class(f)
}

// entryFlags are an entry's flags (the f* constants).
type entryFlags uint16

const (
	fProtected   entryFlags = 1 << iota // never AQM-dropped
	fDiscardable                        // may be dropped inside the lifetime hysteresis
	fPooled                             // data is a buffer of Shared's pool (EnqueueCopy)
	fFirstSeg                           // an unciphered first SNDCP segment (holds the N-PDU's start)
	fLaterSeg                           // an unciphered later SNDCP segment (no IP header)
	fECT                                // ECN-capable: ECNOf was Marked when it was queued
	fEndsNPDU                           // a ciphered frame that ends its N-PDU (learnCiphered)
	fCFirst                             // a ciphered frame that starts its N-PDU (learnCiphered)
	fCLater                             // a ciphered frame that continues an N-PDU (learnCiphered)
)

// startsNPDU reports whether the entry starts an N-PDU: an unciphered first
// SNDCP segment, or a ciphered frame that follows one ending an N-PDU.
func (fl entryFlags) startsNPDU() bool { return fl&(fFirstSeg|fCFirst) != 0 }

// laterSeg reports whether the entry continues an N-PDU whose start was
// queued before it: an unciphered later SNDCP segment, or a ciphered frame
// that follows a full-length one (learnCiphered).
func (fl entryFlags) laterSeg() bool { return fl&(fLaterSeg|fCLater) != 0 }

// frameFlags are the entry flags read from a frame once, when it is
// queued: AQM protection, lifetime hysteresis, SNDCP segment kind and ECN
// capability.
func frameFlags(b []byte) entryFlags {
	var fl entryFlags
	if Protected(b) {
		fl |= fProtected
	}
	if Discardable(b) {
		fl |= fDiscardable
	}
	if _, _, first, _, ok := sndcpSegment(b); ok {
		if first {
			fl |= fFirstSeg
		} else {
			fl |= fLaterSeg
		}
	}
	if fl&fFirstSeg != 0 && ECNOf(b) == Marked {
		fl |= fECT
	}
	return fl
}

// entry is one queued frame. 56 bytes; entries live in a per-queue slab and
// are linked per flow by index, so steady-state operation allocates nothing.
type entry struct {
	data   []byte
	enq    time.Duration // enqueue time: PDU lifetime counts from here
	origin time.Duration // sojourn origin (enq, or the put-back time)
	seq    uint32        // enqueue order within the queue (wrapping)
	next   int32
	life   uint16 // PDU lifetime from BSSGP, centiseconds
	flags  entryFlags
	flow   uint8
}

// aqmExt is the per-flow PIE and RED state of a queue.
type aqmExt struct {
	pie [NumFlows]pie
	red [NumFlows]red
}

func (x *aqmExt) reset() {
	for i := range x.pie {
		x.pie[i] = pie{}
		x.red[i].reset()
	}
}

type flow struct {
	head, tail int32
	frames     int32
	octets     int32
	deficit    int32
	list       uint8 // 0 none, 1 new flows, 2 old flows
}

const (
	listNone = iota
	listNew
	listOld
)

type flist struct {
	f [numUser]uint8
	n uint8
}

func (l *flist) push(f uint8) { l.f[l.n] = f; l.n++ }

func (l *flist) pop() {
	copy(l.f[:], l.f[1:l.n])
	l.n--
}

// active is the working storage of a queue holding (or recently holding)
// frames. Idle queues give it back to Shared's pool.
type active struct {
	ents  []entry
	free  int32
	flows [NumFlows]flow
	cd    [NumFlows]codel
	// ext holds the PIE and RED states, made the first time the queue
	// runs PIE or RED and kept with the storage in the pool: CoDel
	// queues stay small (many MSs with queued frames at once).
	ext   *aqmExt
	nsKey [16]uint32         // last flow key per SNDCP NSAPI
	tags  [NumBuckets]uint32 // flow key (with bit 31 set) of the frames in each user bucket
	// segFlow+1 is the user flow an SNDCP N-PDU was left half sent in
	// (0: none): its next segments go before any other user flow, so a
	// phone's reassembly (one N-PDU at a time per NSAPI in unacknowledged mode, TS 44.065)
	// never sees another packet between them
	segFlow  uint8
	ectFlow  [NumFlows]bool // the last first SNDCP segment a flow delivered was ECN-capable
	pendMark [NumFlows]bool // a mark decided on a later segment waits for the flow's next first segment
	dropNext [NumFlows]bool // a drop decided on a later segment waits for the flow's next first segment (aqmDrop)
	cfull    [16]uint16     // longest ciphered UI frame seen per SAPI
	cmid     [16]bool       // the last ciphered frame queued per SAPI may have more segments behind it
	crun     [16]uint8      // full-length ciphered frames queued in a row per SAPI
	cdrun    [16]uint8      // full-length ciphered frames of the current N-PDU that left, per SAPI
	seqNow   uint32         // sequence number of the frame being inserted
	cflags   entryFlags     // learnCiphered: fEndsNPDU, fCFirst, fCLater of the frame being inserted
	midway   bool           // cipheredFlow: insert the frame into the download's flow, ≤ 30 frames from its tail
	newL     flist
	oldL     flist
	params   Params
	paramsE  Params // CoDel parameters for ECN-capable frames (ParamsECNFor)
	pieP     PIEParams
	redP     REDParams
	redPE    REDParams // RED parameters for ECN-capable frames (REDParamsECNFor)
	gen      uint32
	rate     int32
	share    int32
	variant  Variant
	aqm      AQM
	codelOn  bool // the AQM is on (`queue codel`)
	fq       bool // the data class is split into flows (Config.fq)
	ecn      bool // mark ECN-capable frames instead of dropping them
	nextFree *active
}

func (a *active) init() {
	a.nsKey = [16]uint32{}
	a.tags = [NumBuckets]uint32{}
	a.segFlow = 0
	a.cfull, a.cmid, a.crun, a.cdrun = [16]uint16{}, [16]bool{}, [16]uint8{}, [16]uint8{}
	a.ectFlow, a.pendMark, a.dropNext = [NumFlows]bool{}, [NumFlows]bool{}, [NumFlows]bool{}
	a.ents = a.ents[:0]
	a.free = -1
	for i := range a.flows {
		a.flows[i] = flow{head: -1, tail: -1}
		a.cd[i].reset()
	}
	if a.ext != nil {
		a.ext.reset()
	}
	a.newL, a.oldL = flist{}, flist{}
	a.gen = 0
}

type classStats struct {
	delivered uint32
	drops     [NumReasons]uint32
	last      uint32 // sojourn, microseconds (saturating)
	min       uint32
	max       uint32
	avg       uint32 // EWMA, weight 1/8
}

// Queue is the downlink LLC queue of one MS (osmo-pcu gprs_llc_queue). It is
// owned by one goroutine. Frames passed to Enqueue belong to the queue until
// Dequeue returns them; dropped frames are simply released. EnqueueCopy
// copies into a pooled buffer instead (see bufpool.go for its life).
type Queue struct {
	s *Shared
	a *active
	// Owner is free for the engine (its MS), e.g. to find the MS of a
	// queue passed to Shared.TakeOverflowed.
	Owner any

	txStart time.Duration
	lastEnq time.Duration

	frames  int32
	octets  int32
	charge  int64
	heapIdx int32
	rate    int32 // promised drain rate (SetDrainRate)
	share   int32 // MSs with DL data on this MS's PDCHs (SetSharers), ≥ 1
	seq     uint32
	meter   drainMeter // measured drain rate (drainmeter.go)

	pendFrames uint32
	pendOctets uint32

	victim  bool
	closed  bool
	txArmed bool

	nextExp time.Duration // earliest PDU lifetime expiry of the frames (Expire)
	expGen  uint32        // Shared.gen nextExp was computed under

	cls [NumClasses]classStats

	// ecn[0] counts the frames the AQM marked CE, ecn[r] the drop
	// decisions with ECN on for which MarkResult r said why no mark was
	// possible; saturating 16-bit counts (the per-MS view of show
	// llc-queue; the totals are in Counters): 100 000 MSs pay for them.
	ecn [NumMarkResults]uint16
}

const noTime = time.Duration(math.MinInt64)

// ErrClosed is returned by Enqueue on a closed queue.
var ErrClosed = errors.New("llc: queue closed")

// NewQueue makes an empty queue. An idle queue takes no other memory.
func (s *Shared) NewQueue(owner any) *Queue {
	return &Queue{s: s, Owner: owner, txStart: noTime, lastEnq: noTime, heapIdx: -1, nextExp: noExpiry, expGen: s.gen}
}

// Frame is a frame handed out by Dequeue.
type Frame struct {
	Data     []byte
	SAPI     uint8
	Class    Class
	Enqueued time.Duration // enqueue time (PDU lifetime origin)
	Sojourn  time.Duration // now − max(enqueue, transmit start)
	Lifetime uint16        // BSSGP PDU lifetime given at enqueue (centiseconds)
	// Sparse: the frame came from a new (sparse) flow while another user
	// flow of the MS was backlogged: a ping, a TCP handshake or DNS
	// overtaking the MS's own download (SparseBehindBulk).
	Sparse bool
	seq    uint32
	queued bool // made by Dequeue (PutBack trusts Enqueued/Lifetime)
	pooled bool // Data is a pool buffer (EnqueueCopy): Shared.Release gives it back
}

// Discard is what a Dequeue call (or TakeDiscarded) dropped and must report
// to the SGSN in LLC-DISCARDED (TS 48.018 §10.4.19). Frames/Octets include
// overflow drops of earlier enqueues not reported yet.
type Discard struct {
	Frames   int
	Octets   int
	Lifetime int // frames by reason
	CoDel    int // AQM drops (CoDel, PIE or RED)
	Overflow int
	// Marked counts frames the AQM changed to CE instead of dropping (not
	// in Frames: they were delivered). NoMark counts the drop decisions of
	// this call by why no mark was possible (index MarkResult − 1), with
	// ECN on.
	Marked int
	NoMark [NumNoMark]uint16 // (small: a Discard is returned by every Dequeue)
}

// LLCDiscarded returns the IE values of LLC-DISCARDED: LLC Frames Discarded
// (capped at 255) and Number of octets affected (capped at 2^24 − 1), as
// osmo-pcu does.
func (d Discard) LLCDiscarded() (frames uint8, octets uint32) {
	return uint8(min(d.Frames, 0xff)), uint32(min(d.Octets, 0xffffff))
}

// Len is the number of queued frames.
func (q *Queue) Len() int { return int(q.frames) }

// Octets is the number of queued LLC octets.
func (q *Queue) Octets() int { return int(q.octets) }

// LastEnqueue is the time of the last Enqueue (ok false if none). The
// engine's idle-ack timer fires Config.IdleAckDelay after it.
func (q *Queue) LastEnqueue() (time.Duration, bool) { return q.lastEnq, q.lastEnq != noTime }

// SetTransmitStart tells the queue that the MS's DL TBF can transmit from
// now on (assignment done, first block possible). Sojourn (CoDel, stats) is
// measured from max(enqueue, transmit start), so paging and TBF
// establishment are not taken for a standing queue; PDU lifetime still runs
// from enqueue. Only the first call after NewQueue or StopTransmit counts;
// later calls while the TBF runs are ignored, so calling it before every
// Dequeue is harmless. Call StopTransmit when the DL TBF ends.
func (q *Queue) SetTransmitStart(now time.Duration) {
	if !q.txArmed {
		q.txStart = now
		q.txArmed = true
	}
}

// StopTransmit tells the queue that the MS has no DL TBF any more; the next
// SetTransmitStart starts a new sojourn origin.
func (q *Queue) StopTransmit() { q.txArmed, q.meter, q.share = false, drainMeter{}, 0 }

// SetDrainRate tells the queue the MS's current DL drain rate in LLC octets
// per second (see DrainRate); with plain `queue codel` the rfc variant
// derives its CoDel target and interval from it. Call it when the coding
// scheme or the number of assigned DL slots changes; 0 means unknown.
func (q *Queue) SetDrainRate(octetsPerSecond int) {
	q.rate = int32(min(max(octetsPerSecond, 0), math.MaxInt32))
}

// SetSharers tells the queue how many MSs, this one included, have DL data
// waiting for the PDCHs its TBF is sent on (the engine counts them at each
// block it schedules for the MS). The automatic RED thresholds shrink with
// it (REDParamsShared): the other MSs keep the PDCHs busy when this queue
// runs empty. n < 1 counts as 1.
func (q *Queue) SetSharers(n int) {
	q.share = int32(min(max(n, 1), math.MaxInt32))
}

// HeadSojourn is the sojourn of the oldest queued frame (0 if empty).
func (q *Queue) HeadSojourn(now time.Duration) time.Duration {
	if q.a == nil {
		return 0
	}
	var best time.Duration
	for i := range q.a.flows {
		if h := q.a.flows[i].head; h >= 0 {
			best = max(best, q.sojourn(&q.a.ents[h], now))
		}
	}
	return best
}

func (q *Queue) sojourn(e *entry, now time.Duration) time.Duration {
	d := now - max(e.origin, q.txStart)
	if d < 0 {
		return 0
	}
	return d
}

// Enqueue appends an LLC frame received in DL-UNITDATA at now, with the
// BSSGP PDU Lifetime in centiseconds (LifetimeInfinite if the IE was absent
// or invalid, as osmo-pcu). The queue owns frame afterwards. It fails only
// for an empty or oversized frame. If the per-MS or global limit is
// exceeded, frames are dropped from the head of the fattest flow of this MS
// (per-MS limit) or of the fattest MS (global limit); such drops are
// reported by the victim's next Dequeue or by Shared.TakeOverflowed.
func (q *Queue) Enqueue(now time.Duration, frame []byte, pduLifetime uint16) error {
	if err := q.admit(frame); err != nil {
		return err
	}
	return q.enqueue(now, frame, pduLifetime, 0)
}

// admit reports why frame cannot be queued (closed queue, empty or
// oversized frame), nil if it can.
func (q *Queue) admit(frame []byte) error {
	switch {
	case q.closed:
		return ErrClosed
	case len(frame) == 0:
		return ErrEmpty
	case len(frame) > MaxFrameLen:
		return ErrTooLong
	}
	return nil
}

// enqueue appends a checked frame with the extra entry flags fl.
func (q *Queue) enqueue(now time.Duration, frame []byte, pduLifetime uint16, fl entryFlags) error {
	fl |= frameFlags(frame)
	q.seq++
	q.insert(entry{data: frame, enq: now, origin: now, seq: q.seq, life: pduLifetime, flags: fl}, false)
	q.lastEnq = now
	q.enforce()
	return nil
}

// PutBack puts a frame returned by Dequeue back at the head of its flow
// (osmo-pcu llc_queue_merge_prepend: a DL TBF is replaced before its frames
// were acknowledged). The PDU lifetime keeps counting from the original
// enqueue; the sojourn starts again at now, so data that was already on air
// is not mistaken for a standing queue (aqm.md D8). Put frames back in
// reverse order of their dequeue. Pass the Frame returned by Dequeue
// unchanged: a Frame built by hand has no queue metadata and is taken as
// enqueued now with an infinite lifetime.
func (q *Queue) PutBack(now time.Duration, f Frame) {
	if q.closed { // its MS is gone: the frame ends here (not charged again)
		q.s.Release(&f)
		return
	}
	if !f.queued {
		f.Enqueued, f.Lifetime = now, LifetimeInfinite
		f.seq = q.headSeq(f.Data)
	}
	var fl entryFlags
	if f.pooled {
		fl |= fPooled
	}
	fl |= frameFlags(f.Data)
	q.insert(entry{data: f.Data, enq: f.Enqueued, origin: now, seq: f.seq, life: f.Lifetime, flags: fl}, true)
	q.meter.on = false // the frame did not drain: the cycle's time is void
	q.enforce()
}

// headSeq is a sequence number that sorts before every queued frame of the
// flow of frame b (for frames put back without their metadata).
func (q *Queue) headSeq(b []byte) uint32 {
	if q.a == nil {
		return q.seq
	}
	q.sync()
	if h := q.a.flows[q.a.flowOf(b, q.a.fq)].head; h >= 0 {
		return q.a.ents[h].seq - 1
	}
	return q.seq
}

func (q *Queue) insert(e entry, front bool) {
	if q.a == nil {
		q.a = q.s.getActive()
	}
	q.sync()
	a := q.a
	idx := a.alloc()
	e.next = -1
	a.seqNow, a.cflags, a.midway = e.seq, 0, false
	f := a.flowOfAt(e.data, a.fq, !front)
	e.flow = f
	e.flags = e.flags&^(fEndsNPDU|fCFirst|fCLater) | a.cflags
	fw := &a.flows[f]
	if a.midway {
		a.ents[idx] = e
		q.insertMidway(f, idx)
	} else if front {
		e.next = fw.head
		fw.head = idx
		if fw.tail < 0 {
			fw.tail = idx
		}
	} else {
		if fw.tail >= 0 {
			a.ents[fw.tail].next = idx
		} else {
			fw.head = idx
		}
		fw.tail = idx
	}
	if !a.midway {
		a.ents[idx] = e
	}
	q.noteExpiry(&a.ents[idx])
	n := int32(len(e.data))
	if !front && a.codelOn && a.aqm == AQMRED && f >= firstUser {
		a.ext.red[f].arrive(int(fw.octets), &a.redP)
	}
	fw.frames++
	fw.octets += n
	if f >= firstUser && fw.list == listNone {
		fw.list = listNew
		fw.deficit = q.s.cfg.quantum()
		a.newL.push(f)
	}
	q.account(int64(n), 1)
}

// insertMidway links entry idx (a small whole ciphered N-PDU, see
// cipheredFlow) into flow f as early as it may go: after the last frame
// of the flow that is cipheredMaxBehind or more frames older than it (it
// must not be overtaken), at the first N-PDU boundary from there (after a
// frame that ends its N-PDU). It then overtakes at most 30 frames and
// splits no N-PDU; with no such place it goes to the tail.
func (q *Queue) insertMidway(f uint8, idx int32) {
	a := q.a
	fw := &a.flows[f]
	seq := a.ents[idx].seq
	from := int32(-1) // the last frame that must stay ahead
	for j := fw.head; j >= 0; j = a.ents[j].next {
		if seq-a.ents[j].seq >= cipheredMaxBehind {
			from = j
		}
	}
	for prev := from; prev >= 0 && prev != fw.tail; prev = a.ents[prev].next {
		if a.ents[prev].flags&fEndsNPDU == 0 {
			continue
		}
		// behind the small frames already waiting there, in their order
		for n := a.ents[prev].next; n >= 0 && n != idx && a.ents[n].flags&fEndsNPDU != 0 && len(a.ents[n].data) <= cipheredSmall &&
			int32(a.ents[n].seq-seq) < 0; n = a.ents[n].next {
			prev = n
		}
		if prev == fw.tail {
			break
		}
		a.ents[idx].next = a.ents[prev].next
		a.ents[prev].next = idx
		return
	}
	a.ents[idx].next = -1
	if fw.tail >= 0 {
		a.ents[fw.tail].next = idx
	} else {
		fw.head = idx
	}
	fw.tail = idx
}

// account adds (or with negative values removes) frames and octets.
func (q *Queue) account(octets int64, frames int32) {
	ch := octets + int64(frames)*FrameOverhead
	q.frames += frames
	q.octets += int32(octets)
	q.charge += ch
	s := q.s
	s.total += ch
	s.frames += int64(frames)
	s.octets += octets
	s.heapUpdate(q)
}

func (a *active) alloc() int32 {
	if a.free >= 0 {
		i := a.free
		a.free = a.ents[i].next
		return i
	}
	a.ents = append(a.ents, entry{})
	return int32(len(a.ents) - 1)
}

// pop removes the head of flow f (which must not be empty).
func (q *Queue) pop(f uint8) int32 {
	a := q.a
	fw := &a.flows[f]
	i := fw.head
	e := &a.ents[i]
	fw.head = e.next
	if fw.head < 0 {
		fw.tail = -1
	}
	n := int32(len(e.data))
	fw.frames--
	fw.octets -= n
	q.account(-int64(n), -1)
	return i
}

func (q *Queue) release(i int32) {
	a := q.a
	a.ents[i] = entry{next: a.free}
	a.free = i
}

// drop releases entry i (already popped) for reason r.
func (q *Queue) drop(i int32, r Reason) {
	e := &q.a.ents[i]
	c := &q.cls[ClassOf(SAPI(e.data))]
	c.drops[r]++
	switch r {
	case ReasonLifetime:
		q.s.ctr.Timeout++
	case ReasonCoDel:
		q.s.ctr.CoDel++
	case ReasonOverflow:
		q.s.ctr.Overflow++
		q.pendFrames++
		q.pendOctets += uint32(len(e.data))
		if !q.victim {
			q.victim = true
			q.s.victims = append(q.s.victims, q)
		}
	case ReasonCleared:
		q.s.ctr.Cleared++
	}
	if e.flags&fPooled != 0 {
		q.s.bufs.put(e.data)
	}
	q.release(i)
}

// enforce applies the per-MS and the global limit after an insert.
func (q *Queue) enforce() {
	lim := int64(q.s.cfg.msLimit())
	for q.charge > lim {
		q.overflowDrop()
	}
	q.s.enforceGlobal()
}

// overflowDrop drops the head of the fattest data flow of q (FQ-CoDel's
// overload rule, RFC 8290 §4.1), or, without user data, of the TOM/SMS and
// then the GMM class.
func (q *Queue) overflowDrop() {
	a := q.a
	best := -1
	for f := firstUser; f < NumFlows; f++ {
		if a.flows[f].frames > 0 && (best < 0 || a.flows[f].octets > a.flows[best].octets) {
			best = f
		}
	}
	if best < 0 {
		best = flowTOM
		if a.flows[flowTOM].frames == 0 {
			best = flowGMM
		}
	}
	q.drop(q.pop(uint8(best)), ReasonOverflow)
	if q.frames == 0 {
		q.compact() // no entry in use: the slab goes
	}
}

func (q *Queue) takePending() Discard {
	d := Discard{Frames: int(q.pendFrames), Octets: int(q.pendOctets), Overflow: int(q.pendFrames)}
	q.pendFrames, q.pendOctets = 0, 0
	return d
}

// TakeDiscarded returns (and forgets) overflow drops not reported yet.
func (q *Queue) TakeDiscarded() Discard { return q.takePending() }

// sync brings the working storage in line with the configuration: CoDel
// parameters, CoDel restart when it was switched on, flow layout when the
// variant changed.
func (q *Queue) sync() {
	a, s := q.a, q.s
	rate, share := q.rateNow(), max(q.share, 1)
	if a.gen == s.gen && a.rate == rate && a.share == share {
		return
	}
	cfg := &s.cfg
	if a.gen == 0 {
		a.variant = cfg.Variant
		a.fq = cfg.fq()
		a.codelOn = cfg.CoDel
		a.aqm = cfg.AQM
	}
	if a.variant != cfg.Variant || a.fq != cfg.fq() {
		a.variant = cfg.Variant
		q.relayout(cfg.fq())
	}
	if cfg.CoDel && !a.codelOn || a.aqm != cfg.AQM {
		a.resetAQM()
	}
	a.codelOn = cfg.CoDel
	a.aqm = cfg.AQM
	a.ecn = !cfg.NoECN && cfg.Variant == VariantRFC // the osmo variant is osmo-pcu's: no marks
	a.params = cfg.ParamsFor(int(rate))
	a.paramsE = cfg.ParamsECNFor(int(rate))
	if a.aqm != AQMCoDel && a.ext == nil {
		a.ext = new(aqmExt)
		a.ext.reset()
	}
	switch a.aqm {
	case AQMPIE:
		a.pieP = cfg.PIEParamsFor(int(rate))
	case AQMRED:
		a.redP = cfg.REDParamsShared(int(rate), int(share))
		a.redPE = cfg.REDParamsECNShared(int(rate), int(share))
	}
	a.gen, a.rate, a.share = s.gen, rate, share
}

// resetAQM restarts every AQM state of the queue.
func (a *active) resetAQM() {
	a.ectFlow, a.pendMark, a.dropNext = [NumFlows]bool{}, [NumFlows]bool{}, [NumFlows]bool{}
	for i := range a.cd {
		a.cd[i].reset()
	}
	if a.ext != nil {
		a.ext.reset()
	}
}

// relayout moves the data-class frames to the flows of the layout fq
// (flow queues or one FIFO), keeping their enqueue order, and restarts all
// AQM states.
func (q *Queue) relayout(fq bool) {
	a := q.a
	var idx []int32
	for f := firstUser; f < NumFlows; f++ {
		for i := a.flows[f].head; i >= 0; i = a.ents[i].next {
			idx = append(idx, i)
		}
		a.flows[f] = flow{head: -1, tail: -1}
	}
	sort.SliceStable(idx, func(x, y int) bool { return int32(a.ents[idx[x]].seq-a.ents[idx[y]].seq) < 0 })
	a.newL, a.oldL = flist{}, flist{}
	quantum := q.s.cfg.quantum()
	for _, i := range idx {
		e := &a.ents[i]
		f := a.flowOfAt(e.data, fq, true)
		e.flow = f
		fw := &a.flows[f]
		e.next = -1
		if fw.tail >= 0 {
			a.ents[fw.tail].next = i
		} else {
			fw.head = i
		}
		fw.tail = i
		fw.frames++
		fw.octets += int32(len(e.data))
		if fw.list == listNone {
			fw.list = listNew
			fw.deficit = quantum
			a.newL.push(f)
		}
	}
	a.resetAQM()
	a.fq = fq
}

// Idle releases the working storage of an empty queue whose CoDel states
// have gone cold; the engine may call it from the MS idle timer. Dequeue
// does the same when it empties the queue.
func (q *Queue) Idle(now time.Duration) { q.idle(now) }

// Clear drops every queued frame (reason cleared; osmo-pcu llc_queue_clear
// counts them in llc:dropped and sends no LLC-DISCARDED) and returns how many
// frames and octets went.
func (q *Queue) Clear() (frames, octets int) {
	a := q.a
	if a == nil {
		return 0, 0
	}
	for f := uint8(0); f < NumFlows; f++ {
		for a.flows[f].frames > 0 {
			i := q.pop(f)
			frames++
			octets += len(a.ents[i].data)
			q.drop(i, ReasonCleared)
		}
	}
	q.compact()
	return frames, octets
}

// Close clears the queue and returns its storage (MS freed). Pending
// overflow reports are forgotten.
func (q *Queue) Close() (frames, octets int) {
	frames, octets = q.Clear()
	q.pendFrames, q.pendOctets = 0, 0
	q.closed = true
	if q.a != nil {
		q.s.putActive(q.a)
		q.a = nil
	}
	return frames, octets
}

// Merge moves every frame of o into q (MS merge, osmo-pcu
// llc_queue_move_and_merge): per flow by ascending enqueue time, on equal
// times o's frame first. q keeps its CoDel states; o ends empty.
func (q *Queue) Merge(o *Queue) {
	if o == q || o.a == nil || o.frames == 0 {
		return
	}
	if q.a == nil {
		q.a = q.s.getActive()
	}
	q.sync()
	o.sync()
	if o.a.fq != q.a.fq {
		o.relayout(q.a.fq)
	}
	type item struct {
		e   entry
		src int // 0: o, 1: q
		f   uint8
	}
	var items []item
	for _, x := range []*Queue{o, q} {
		src := 0
		if x == q {
			src = 1
		}
		for f := uint8(0); f < NumFlows; f++ {
			for x.a.flows[f].frames > 0 {
				i := x.pop(f)
				items = append(items, item{e: x.a.ents[i], src: src, f: f})
				x.release(i)
			}
		}
	}
	sort.SliceStable(items, func(i, j int) bool {
		a, b := &items[i], &items[j]
		if a.e.enq != b.e.enq {
			return a.e.enq < b.e.enq
		}
		if a.src != b.src {
			return a.src < b.src
		}
		return int32(a.e.seq-b.e.seq) < 0
	})
	for i := range items {
		items[i].e.seq = uint32(i + 1)
		q.insert(items[i].e, false)
	}
	q.seq = uint32(len(items))
	if o.pendFrames > 0 {
		q.pendFrames += o.pendFrames
		q.pendOctets += o.pendOctets
		o.pendFrames, o.pendOctets = 0, 0
		if !q.victim {
			q.victim = true
			q.s.victims = append(q.s.victims, q)
		}
	}
	q.enforce()
}
