package pcu

import (
	"fmt"
	"log/slog"
	"strings"
	"time"

	"github.com/gopcu/gopcu/internal/logx"
	"github.com/gopcu/gopcu/llc"
)

// The log lines an operator must see at the default level (NOTICE) for
// conditions that stop or degrade service: the SGSN unreachable, the BVC
// blocked, `ms-max` reached, LLC frames dropped at a limit. Where osmo-pcu
// 1.1.0 has the same event the line is osmo-pcu's (category, level and
// text): "NS-NSE 101 became available/unavailable" (DPCU, NOTICE,
// gprs_bssgp_pcu.c gprs_ns_prim_status_cb()) and "MS(...) Discarding LLC
// PDU because lifetime limit reached, count=N new_queue_size=N" (DTBFDL,
// NOTICE, llc.c llc_queue_dequeue()). The BTS connect failure is logged
// where the connection is made (pcu/driver loop_linux.go). Each kind of
// line is rate-limited (logx.Limiter; the Gb's state on the engine's
// clock, queue and MS events on engine time); a line that passes after
// others were held back says how many.

// Rate limits of the operator lines.
const (
	opStateInterval = time.Minute // state changes (NSE, BVC): opStateBurst per minute
	opStateBurst    = 6
	opEventInterval = 10 * time.Second // recurring events (drops, ms-max): one per 10 s
	opStuckAfter    = 10 * time.Second // NSE or BVC down this long: "unreachable", "still blocked"
	opStuckInterval = time.Minute      // ... repeated once a minute while it lasts
)

// opLog is the engine's state for the operator lines (engine goroutine).
type opLog struct {
	gbSeen    bool // a Gb existed at the last tick
	nseUp     bool
	nseSince  time.Duration // of the NSE's current state (Gb start for the first)
	bvcUp     bool
	bvcSince  time.Duration
	nseLim    logx.Limiter // became available/unavailable
	bvcLim    logx.Limiter // blocked/unblocked
	unreach   logx.Limiter // SGSN unreachable
	blocked   logx.Limiter // BVC still blocked
	msMaxLim  logx.Limiter
	lifeLim   logx.Limiter
	overLim   logx.Limiter
	dropLim   [numDropKinds]logx.Limiter // opDrop, per kind
	initiated bool
}

func (o *opLog) init() {
	if o.initiated {
		return
	}
	o.initiated = true
	o.nseLim = logx.Limiter{Interval: opStateInterval, Burst: opStateBurst}
	o.bvcLim = logx.Limiter{Interval: opStateInterval, Burst: opStateBurst}
	o.unreach = logx.Limiter{Interval: opStuckInterval}
	o.blocked = logx.Limiter{Interval: opStuckInterval}
	o.msMaxLim = logx.Limiter{Interval: opEventInterval}
	o.lifeLim = logx.Limiter{Interval: opEventInterval}
	o.overLim = logx.Limiter{Interval: opEventInterval}
	for i := range o.dropLim {
		o.dropLim[i] = logx.Limiter{Interval: opEventInterval}
	}
}

// suppressedNote is what a line that passes after held-back ones ends in.
func suppressedNote(n int) string {
	if n == 0 {
		return ""
	}
	return fmt.Sprintf(" (%d similar lines suppressed)", n)
}

// opGb is the Gb state opTick follows.
type opGb struct {
	NSEI, BVCI uint16
	NSEUp      bool
	SGSN       []string // the NS-VCs' remote addresses
}

// opTick follows the Gb's NSE state once a second (tick).
func (e *Engine) opTick(now time.Duration) {
	if e.gbl == nil || e.gbl.gb == nil {
		e.oplog.follow(e.log, now, nil)
		return
	}
	n := e.gbl.gb.NSE()
	st := opGb{NSEI: n.Config().NSEI, BVCI: e.gbl.gb.Config().BVCI, NSEUp: n.Available()}
	if !st.NSEUp { // named only while unreachable: no allocation in the tick otherwise
		for _, ep := range n.Config().Endpoints {
			st.SGSN = append(st.SGSN, ep.Remote.String())
		}
	}
	e.oplog.follow(e.log, now, &st)
}

// follow logs the NSE's state changes, the SGSN unreachable and the BVC
// blocked for opStuckAfter; g is nil without a Gb.
func (o *opLog) follow(log *slog.Logger, now time.Duration, g *opGb) {
	o.init()
	if g == nil {
		o.gbSeen, o.bvcUp = false, false
		return
	}
	if !o.gbSeen { // a new Gb: NSE down since its start (its BVC state comes from bvcState)
		o.gbSeen, o.nseUp, o.nseSince = true, false, now
	}
	if g.NSEUp != o.nseUp {
		o.nseUp, o.nseSince = g.NSEUp, now
		o.unreach = logx.Limiter{Interval: opStuckInterval} // a new outage is reported after opStuckAfter
		if ok, s := o.nseLim.Allow(now); ok {
			state := "unavailable"
			if g.NSEUp {
				state = "available"
			}
			logx.Notice(log, fmt.Sprintf("NS-NSE %d became %s%s", g.NSEI, state, suppressedNote(s)))
		}
	}
	if !g.NSEUp && now-o.nseSince >= opStuckAfter {
		if ok, _ := o.unreach.Allow(now); ok { // the duration says how long: no count of ticks
			logx.Notice(log, fmt.Sprintf("NS-NSE %d unavailable for %v: the SGSN (%s) does not answer",
				g.NSEI, (now-o.nseSince).Truncate(time.Second), strings.Join(g.SGSN, ", ")))
		}
	}
	if since := max(o.nseSince, o.bvcSince); g.NSEUp && !o.bvcUp && now-since >= opStuckAfter {
		if ok, _ := o.blocked.Allow(now); ok {
			logx.Notice(log, fmt.Sprintf("BVCI=%d blocked for %v while NS-NSE %d is available: the SGSN does not unblock it",
				g.BVCI, (now-since).Truncate(time.Second), g.NSEI))
		}
	}
}

// opBVCState logs the PTP BVC going blocked or unblocked (bss.Handler
// BVCState). The NSE's state is looked at first: the BVC goes blocked at
// once when the NSE fails, and unblocked only once the NSE is up, so the
// NSE line comes first and is not missed when the NSE goes down and up
// again between two ticks.
func (e *Engine) opBVCState(up bool, now time.Duration) {
	var bvci uint16
	if e.gbl != nil {
		bvci = e.gbl.cfg.BVCI
	}
	e.opTick(now)
	e.oplog.bvcState(e.gbLog, bvci, up, now)
}

func (o *opLog) bvcState(log *slog.Logger, bvci uint16, up bool, now time.Duration) {
	o.init()
	o.bvcUp, o.bvcSince = up, now
	o.blocked = logx.Limiter{Interval: opStuckInterval}
	if ok, s := o.bvcLim.Allow(now); ok {
		state := "blocked"
		if up {
			state = "unblocked"
		}
		logx.Notice(log, fmt.Sprintf("BVCI=%d %s%s", bvci, state, suppressedNote(s)))
	}
}

// opMSMax logs that `ms-max` made room: freed idle MSs, or none idle
// (the new MS goes over the limit).
func (e *Engine) opMSMax(bts *BTS, freed int) {
	o := &e.oplog
	o.init()
	if ok, s := o.msMaxLim.Allow(e.now); ok {
		what := fmt.Sprintf("%d idle MSs freed", freed)
		if freed == 0 {
			what = "no idle MS to free, going over it"
		}
		logx.Notice(e.log, fmt.Sprintf("BTS%d: ms-max %d reached: %s%s", bts.Nr, e.params.MSMax, what, suppressedNote(s)))
	}
}

// opDiscard logs LLC frames of m dropped at a limit: the PDU lifetime (as
// osmo-pcu's line) and the queue memory limits (`queue limit ms|global`).
// CoDel's drops are the AQM at work, counted but not logged.
func (e *Engine) opDiscard(m *MS, d llc.Discard) {
	if d.Lifetime == 0 && d.Overflow == 0 {
		return
	}
	o := &e.oplog
	o.init()
	now := e.now // engine time, as the queues'
	if d.Lifetime > 0 {
		if ok, s := o.lifeLim.Allow(now); ok {
			logx.Notice(e.cfg.Logs.Logger(logx.CatTBFDL), fmt.Sprintf("%s Discarding LLC PDU because lifetime limit reached, count=%d new_queue_size=%d%s",
				m, d.Lifetime, m.Queue.Len(), suppressedNote(s)))
		}
	}
	if d.Overflow > 0 {
		if ok, s := o.overLim.Allow(now); ok {
			logx.Notice(e.cfg.Logs.Logger(logx.CatTBFDL), fmt.Sprintf("%s Discarding LLC PDU because the queue memory limit was reached, count=%d new_queue_size=%d%s",
				m, d.Overflow, m.Queue.Len(), suppressedNote(s)))
		}
	}
}

// dropKind is a kind of frame or message the engine drops; each is
// counted where it is dropped and logged by opDrop (the sites are listed
// in dropsites_test.go).
type dropKind int

const (
	dropULFrameNotSent        dropKind = iota // UL-UNITDATA not sent: no Gb, BVC blocked, NS (l1if gb:tx:ul_unitdata:dropped)
	dropLLCDiscardedNotSent                   // LLC-DISCARDED not sent (l1if gb:tx:llc_discarded:dropped)
	dropULFrameNoTLLI                         // UL LLC frame of an MS without TLLI (l1if ul:llc:dropped:no_tlli)
	dropULBlockNoTBF                          // UL data block for no TBF (l1if rx:ul_data:no_tbf)
	dropULBlockUndecodable                    // UL block or unit that does not decode (bts decode:errors)
	dropPagReq                                // PAG_REQ without a TMSI or IMSI (l1if rx:pag_req:dropped)
	dropDLUnitdataInactiveBTS                 // DL-UNITDATA for a BTS not active (l1if gb:rx:dl_unitdata:dropped)
	dropDLFrameRefused                        // DL LLC frame the MS's queue refused (l1if llc:dropped:refused)
	dropTxEncode                              // message to the BTS that does not encode (l1if tx:err:encode)
	dropTxNotSent                             // message to the BTS the BTSWriter did not take (l1if tx:dropped)
	dropRxBad                                 // message from the BTS that does not decode or fit its SAPI (l1if rx:err:*)
	dropRxStale                               // message for a BTS without INFO_IND or not active (l1if rx:err:stale)
	dropRxUnexpected                          // message only a PCU sends, from the BTS (l1if rx:unexpected)
	dropRTSDisabledPDCH                       // RTS_REQ on a disabled PDCH, not answered (l1if rx:rts_req:disabled_pdch)
	dropDataIndDisabledPDCH                   // DATA_IND on a disabled PDCH (l1if rx:data_ind:disabled_pdch)
	dropPCCNNoTBF                             // Packet Cell Change Notification for no TBF (l1if rx:pccn:no_tbf)
	dropPACCHPage                             // PACCH page: queue full, or does not encode (l1if paging:dropped, paging:dropped:encode)
	dropFlowControlMSNotSent                  // FLOW-CONTROL-MS not sent (l1if gb:tx:flow_control_ms:dropped)
	dropSuspendNotSent                        // SUSPEND not sent (l1if gb:tx:suspend:dropped)
	dropRIMNotSent                            // RIM PDU or the STATUS for one not sent (l1if gb:tx:rim:dropped)
	dropGSMTAPNotSent                         // GSMTAP copy of a block the sink did not take (l1if gsmtap:tx:dropped)
	numDropKinds
)

// dropAtError are the kinds logged at ERROR rather than NOTICE: a bug
// (a message that does not encode), a BTS or SGSN that breaks the
// protocol, or a message the PCU owes its peer and could not send; they
// were ERROR lines before they were rate-limited, as osmo-pcu's are
// (pcu_l1_if.cpp pcu_rx(), pcu_sock_send(); gprs_bssgp_pcu.c).
var dropAtError = [numDropKinds]bool{
	dropDLFrameRefused: true, dropTxEncode: true, dropTxNotSent: true, dropRxBad: true,
	dropRxUnexpected: true, dropSuspendNotSent: true, dropRIMNotSent: true,
}

// opDrop logs a dropped frame or message at NOTICE (ERROR for the kinds
// in dropAtError), one line per kind every opEventInterval of engine
// time; a line that passes after others were held back says how many.
// The caller has counted it. msg makes the line only when it is logged
// (no allocation for the lines held back).
func (e *Engine) opDrop(log *slog.Logger, k dropKind, msg func() string) {
	o := &e.oplog
	o.init()
	if ok, s := o.dropLim[k].Allow(e.now); ok {
		if dropAtError[k] {
			log.Error(msg() + suppressedNote(s))
			return
		}
		logx.Notice(log, msg()+suppressedNote(s))
	}
}

// gbULUnitdata sends one UL LLC frame of m to the SGSN; a frame that
// cannot go (no Gb, the BVC blocked, NS down) is counted and logged.
func (e *Engine) gbULUnitdata(m *MS, frame []byte) {
	err := errNoGb
	if e.gb != nil {
		err = e.gb.ULUnitdata(m.bts.Nr, m.TLLI, frame)
	}
	if err != nil {
		e.l1ctr.Inc(L1GbULUnitdataDropped)
		e.opDrop(e.gbLog, dropULFrameNotSent, func() string {
			return fmt.Sprintf("%s UL LLC frame of %d octets dropped: not sent to the SGSN: %v", m, len(frame), err)
		})
	}
}

// gbLLCDiscarded sends LLC-DISCARDED for m's dropped frames; one that
// cannot go is counted and logged.
func (e *Engine) gbLLCDiscarded(m *MS, frames uint8, octets uint32) {
	err := errNoGb
	if e.gb != nil {
		err = e.gb.LLCDiscarded(m.bts.Nr, m.TLLI, frames, octets)
	}
	if err != nil {
		e.l1ctr.Inc(L1GbLLCDiscardedDropped)
		e.opDrop(e.gbLog, dropLLCDiscardedNotSent, func() string {
			return fmt.Sprintf("%s LLC-DISCARDED (%d frames, %d octets) dropped: not sent to the SGSN: %v", m, frames, octets, err)
		})
	}
}
