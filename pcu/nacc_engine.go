package pcu

import (
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/gopcu/gopcu/bssgp"
	"github.com/gopcu/gopcu/internal/logx"
	"github.com/gopcu/gopcu/pcu/nacc"
	"github.com/gopcu/gopcu/pcu/pcuif"
	"github.com/gopcu/gopcu/rlcmac"
)

// NACCParams are the NACC timers and the neighbour resolution settings
// (osmo-pcu gprs_pcu.c T_defs, pcu_vty.c `neighbor resolution`).
type NACCParams struct {
	X1  time.Duration // [ARFCN+BSIC]->[RAC+CI] resolution timeout, 1000 ms
	X2  time.Duration // RIM RAN-INFO response timeout, 1000 ms
	X10 time.Duration // neighbour cache keep-time, 5 s
	X11 time.Duration // SI cache keep-time, 5 s
	// NeighCtrlAddr / NeighCtrlPort: `neighbor resolution A.B.C.D [PORT]`
	// (osmo-pcu 1.1.0): resolve over the BSC's CTRL interface instead of
	// the PCU socket. Empty: PCUIF NEIGH_ADDR_REQ.
	NeighCtrlAddr string
	NeighCtrlPort int
}

// DefaultNACCParams are osmo-pcu's defaults.
func DefaultNACCParams() NACCParams {
	return NACCParams{X1: time.Second, X2: time.Second, X10: 5 * time.Second, X11: 5 * time.Second, NeighCtrlPort: 4248}
}

// pollCellChgContinue is the poll of a Packet Cell Change Continue (osmo-pcu
// PDCH_ULC_POLL_CELL_CHG_CONTINUE); a value apart from the TBF polls.
const pollCellChgContinue pollReason = 100

// naccEngine is the engine's NACC state: caches, the per-MS state machines
// and the CTRL client.
type naccEngine struct {
	neigh   nacc.NeighCache
	si      nacc.SICache
	fsms    []*naccMS
	waiters []neighWaiter // ResolveNeighbour callers
	ctrl    *neighCtrl
	log     *slog.Logger
	rimLog  *slog.Logger
}

type neighWaiter struct {
	k    nacc.Key
	done func(cgi bssgp.CellID, ok bool)
}

type naccMS struct {
	ms  *MS
	fsm *nacc.FSM
}

func (e *Engine) naccState() *naccEngine {
	if e.nacc == nil {
		e.nacc = &naccEngine{log: e.cfg.Logs.Logger(logx.CatNACC), rimLog: e.cfg.Logs.Logger(logx.CatRIM)}
	}
	return e.nacc
}

// naccSink hands the rejected events of the NACC machines to the
// engine's fsmSink (fsm:rejected_event, rate-limited log lines).
type naccSink struct{ k *fsmSink }

func (s naccSink) Rejected(log *slog.Logger, inst fmt.Stringer, machine, state, event string) {
	s.k.rejected(log, inst, machine, state, event)
}

// naccEnvE adapts the engine to one MS's state machine (nacc.Env).
type naccEnvE struct {
	e   *Engine
	bts *BTS
}

func (v naccEnvE) NeighLookup(k nacc.Key) (bssgp.CellID, bool) {
	return v.e.naccState().neigh.Lookup(k, v.e.now, v.e.params.NACC.X10)
}

var errNoBTS = errors.New("pcu: no BTS connection")

func (v naccEnvE) NeighRequest(k nacc.Key) error {
	e := v.e
	if e.params.NACC.NeighCtrlAddr != "" {
		c, err := e.ctrlFor(e.params.NACC.NeighCtrlAddr, e.params.NACC.NeighCtrlPort)
		if err != nil {
			return err
		}
		return c.request(k)
	}
	if !e.Connected() {
		return errNoBTS
	}
	c := &pcuif.Container{MsgType: pcuif.ContNeighAddrReq,
		Data: pcuif.NeighAddrReq{LocalLAC: k.LocalLAC, LocalCI: k.LocalCI, TgtARFCN: k.ARFCN, TgtBSIC: k.BSIC}.Marshal()}
	c.BTSNr = v.bts.Nr
	e.send(c, e.ver)
	return nil
}

func (v naccEnvE) LocalSI(cgi bssgp.CellID) (nacc.SI, bool) {
	for _, b := range v.e.btsList {
		if b == v.bts || !b.Active || !btsCGI(b).Equal(cgi) {
			continue
		}
		return btsSI(b), true
	}
	return nacc.SI{}, false
}

func (v naccEnvE) SILookup(cgi bssgp.CellID) (nacc.SI, bool) {
	return v.e.naccState().si.Lookup(cgi, v.e.now, v.e.params.NACC.X11)
}

func (v naccEnvE) RIMRequest(cgi bssgp.CellID) error {
	return v.e.sendSignalling(nacc.RIMRequest(cgi, btsCGI(v.bts)))
}

func (v naccEnvE) Timeouts() (time.Duration, time.Duration) {
	return v.e.params.NACC.X1, v.e.params.NACC.X2
}

// btsCGI is the CGI-PS of a BTS from its INFO_IND (osmo-pcu bts->cgi_ps).
func btsCGI(b *BTS) bssgp.CellID {
	ii := &b.Info
	return bssgp.CellID{RAI: bssgp.RAI{MCC: ii.MCC, MNC: ii.MNC, MNC3Digits: ii.MNC3Digits, LAC: ii.LAC, RAC: uint8(ii.RAC)}, CI: ii.CellID}
}

// btsSI is SI1, SI3 and SI13 of a BTS as RIM and NACC carry them: 21
// octets each without the L2 pseudo length and protocol discriminator,
// only those the BTS has sent (osmo-pcu bts_fill_si_cache_value).
func btsSI(b *BTS) nacc.SI {
	var si nacc.SI
	for _, i := range []int{0, 2, 3} {
		if len(b.SI[i]) == 23 {
			si.Buf = append(si.Buf, b.SI[i][2:23]...)
		}
	}
	return si
}

// signallingSender is the part of the Gb adapter NACC uses.
type signallingSender interface {
	SendSignalling(p bssgp.PDU) error
}

var errNoGb = errors.New("pcu: no Gb")

func (e *Engine) sendSignalling(p bssgp.PDU) error {
	s, ok := e.gb.(signallingSender)
	if !ok {
		return errNoGb
	}
	return s.SendSignalling(p)
}

// naccOf returns the NACC state machine of m (nil: none).
func (n *naccEngine) naccOf(m *MS) *nacc.FSM {
	for _, x := range n.fsms {
		if x.ms == m {
			return x.fsm
		}
	}
	return nil
}

// naccNotification handles a Packet Cell Change Notification received on
// p (osmo-pcu pdch.cpp rcv_cell_change_notification): the MS is found by
// its TBF's TFI, its NACC state machine is created or fed.
func (e *Engine) naccNotification(bts *BTS, p *PDCH, m *rlcmac.PacketCellChangeNotification) {
	bts.Ctr.Inc(CtrPktCellChgNotification)
	n := e.naccState()
	var t *TBF
	for _, x := range bts.tbfs {
		if x.attached && !x.released() && x.trx == p.TRX && x.tfi == m.GlobalTFI.TFI && (x.dir == DirDL) == m.GlobalTFI.Downlink {
			t = x
			break
		}
	}
	if t == nil {
		e.l1ctr.Inc(L1RxPCCNNoTBF)
		e.opDrop(n.log, dropPCCNNoTBF, func() string {
			return fmt.Sprintf("Packet Cell Change Notification for no TBF dropped: TRX=%d TFI=%d downlink=%v", p.TRX, m.GlobalTFI.TFI, m.GlobalTFI.Downlink)
		})
		return
	}
	f := n.naccOf(t.ms)
	if f == nil {
		cgi := btsCGI(bts)
		f = nacc.New(naccEnvE{e, bts}, cgi.RAI.LAC, cgi.CI, n.log.With("ms", t.ms))
		f.Sink = naccSink{e.fsm}
		n.fsms = append(n.fsms, &naccMS{t.ms, f})
	}
	f.RxNotification(m, e.now)
	e.naccReap()
}

// naccReap drops finished state machines and those of freed MSs.
func (e *Engine) naccReap() {
	n := e.nacc
	if n == nil {
		return
	}
	out := n.fsms[:0]
	for _, x := range n.fsms {
		if x.fsm.State() == nacc.Done || !msAlive(x.ms) {
			continue
		}
		out = append(out, x)
	}
	for i := len(out); i < len(n.fsms); i++ {
		n.fsms[i] = nil
	}
	n.fsms = out
}

func msAlive(m *MS) bool {
	for _, x := range m.bts.ms.all {
		if x == m {
			return true
		}
	}
	return false
}

// naccTick runs the NACC timers (X1, X2) and the cache keep-times on radio
// time. Called on every advance of the frame clock.
func (e *Engine) naccTick(bts *BTS) {
	n := e.nacc
	if n == nil || len(n.fsms) == 0 && n.neigh.Len() == 0 && n.si.Len() == 0 {
		return
	}
	for _, x := range n.fsms {
		x.fsm.Tick(e.now)
	}
	n.neigh.Expire(e.now, e.params.NACC.X10)
	n.si.Expire(e.now, e.params.NACC.X11)
	e.naccReap()
}

// naccTBF is the TBF of m whose control TS is p, to address NACC messages
// to (osmo-pcu get_ctrl_msg_tbf_candidates: a DL TBF wins over an UL TBF).
func naccTBF(m *MS, trx uint8, p *PDCH) *TBF {
	for _, t := range []*TBF{m.DL, m.UL} {
		if t != nil && t.attached && !t.released() && t.trx == trx && t.ctrlTS == p.TS {
			return t
		}
	}
	return nil
}

// naccControl builds a pending NACC control message for this PDCH: Packet
// Neighbour Cell Data or Packet Cell Change Continue (with a poll). It
// returns the block length, 0 if none.
func (e *Engine) naccControl(bts *BTS, trx *TRX, p *PDCH, fn uint32, usf uint8, blk []byte) int {
	n := e.nacc
	if n == nil || len(n.fsms) == 0 {
		return 0
	}
	for _, x := range n.fsms {
		f := x.fsm
		if !f.RTS() || x.ms.bts != bts {
			continue
		}
		t := naccTBF(x.ms, trx.Nr, p)
		if t == nil {
			continue
		}
		tfi := rlcmac.GlobalTFI{Downlink: t.dir == DirDL, TFI: t.tfi}
		switch f.State() {
		case nacc.TxNeighbourData:
			h := rlcmac.DLCtrlHeader{USF: usf}
			nb := e.encodeCtrl(blk, &h, f.NeighbourData(tfi, e.now))
			if nb == 0 {
				f.Abort(e.now)
				e.naccReap()
				return 0
			}
			bts.Ctr.Inc(CtrPktNeighCellData)
			t.ms.Ctr.Inc(MSCtrDLCtrlMsgSched)
			e.naccReap()
			return nb
		case nacc.TxContinue:
			rrbp, ok := p.pollRRBP(fn, t, pollCellChgContinue)
			if !ok {
				n.log.Error("failed registering poll for Packet Cell Change Continue", "ms", x.ms)
				continue
			}
			h := rlcmac.DLCtrlHeader{RRBP: rrbp, SP: true, USF: usf}
			nb := e.encodeCtrl(blk, &h, f.CellChangeContinue(tfi))
			if nb == 0 {
				p.dropReservations(t)
				continue
			}
			bts.Ctr.Inc(CtrPktCellChgContinue)
			t.ms.Ctr.Inc(MSCtrDLCtrlMsgSched)
			f.ContinueSent(rrbpFN(fn, rrbp), p.TS, e.now)
			n.log.Debug("scheduled Packet Cell Change Continue polling on PACCH", "fn", rrbpFN(fn, rrbp), "ts", p.TS)
			return nb
		}
	}
	return 0
}

// naccControlAck: a Packet Control Ack answered a Continue's poll (osmo-pcu
// pdch.cpp rcv_control_ack, PDCH_ULC_POLL_CELL_CHG_CONTINUE).
func (e *Engine) naccControlAck(t *TBF, fn uint32, ts uint8) {
	var f *nacc.FSM
	if e.nacc != nil {
		f = e.nacc.naccOf(t.ms)
	}
	if f == nil || !f.ExpectsAck(fn, ts) {
		logx.Notice(e.naccState().log, "POLL_CELL_CHG_CONTINUE not expected", "fn", fn, "ts", ts)
		return
	}
	f.RxControlAck(e.now)
	e.naccReap()
}

// naccPollTimeout: the Continue's poll stayed unanswered; send it again.
func (e *Engine) naccPollTimeout(t *TBF) {
	if e.nacc == nil {
		return
	}
	if f := e.nacc.naccOf(t.ms); f != nil {
		f.ContinueTimeout(e.now)
	}
}

// naccContainer handles a PCUIF CONTAINER from the BSC: NEIGH_ADDR_CNF
// (osmo-pcu pcu_l1_if.cpp pcu_rx_neigh_addr_cnf).
func (e *Engine) naccContainer(bts *BTS, m *pcuif.Container) {
	n := e.naccState()
	if m.MsgType != pcuif.ContNeighAddrCnf {
		logx.Notice(n.log, "unexpected PCUIF container", "msg_type", m.MsgType)
		return
	}
	c, err := pcuif.ParseNeighAddrCnf(m.Data)
	if err != nil {
		n.log.Error("bad NEIGH_ADDR_CNF", "err", err)
		return
	}
	k := nacc.Key{LocalLAC: c.Req.LocalLAC, LocalCI: c.Req.LocalCI, ARFCN: c.Req.TgtARFCN, BSIC: c.Req.TgtBSIC}
	var cgi *bssgp.CellID
	if c.ErrCode == 0 {
		v := bssgp.CellID{RAI: bssgp.RAI{MCC: c.MCC, MNC: c.MNC, MNC3Digits: c.MNC3Digits, LAC: c.LAC, RAC: c.RAC}, CI: c.CellID}
		cgi = &v
		n.neigh.Add(k, v, e.now)
		n.log.Debug("neighbour resolved", "arfcn", k.ARFCN, "bsic", k.BSIC, "cgi", v.String())
	} else {
		logx.Notice(n.log, "neighbour resolution failed", "arfcn", k.ARFCN, "bsic", k.BSIC, "err_code", c.ErrCode)
	}
	e.naccResolved(k, cgi)
}

// naccResolved delivers a resolution (nil: failed) to every state machine
// waiting for k.
func (e *Engine) naccResolved(k nacc.Key, cgi *bssgp.CellID) {
	n := e.naccState()
	for _, x := range n.fsms {
		x.fsm.RxRACCI(k, cgi, e.now)
	}
	e.naccReap()
	ws := n.waiters[:0]
	for _, w := range n.waiters {
		switch {
		case w.k != k:
			ws = append(ws, w)
		case cgi != nil:
			w.done(*cgi, true)
		default:
			w.done(bssgp.CellID{}, false)
		}
	}
	n.waiters = ws
}

// ResolveNeighbour resolves (ARFCN, BSIC) seen from BTS btsNr to the
// target's CGI-PS the way NACC does (neighbour cache, else the BSC over
// the PCU socket or the CTRL interface); done is called in the engine
// goroutine with the answer. Engine goroutine only.
func (e *Engine) ResolveNeighbour(btsNr uint8, arfcn uint16, bsic uint8, done func(cgi bssgp.CellID, ok bool)) error {
	bts := e.bts[btsNr]
	if bts == nil || !bts.Active {
		return errNoBTS
	}
	cgi := btsCGI(bts)
	k := nacc.Key{LocalLAC: cgi.RAI.LAC, LocalCI: cgi.CI, ARFCN: arfcn, BSIC: bsic}
	env := naccEnvE{e, bts}
	if c, ok := env.NeighLookup(k); ok {
		done(c, true)
		return nil
	}
	n := e.naccState()
	n.waiters = append(n.waiters, neighWaiter{k, done})
	if err := env.NeighRequest(k); err != nil {
		n.waiters = n.waiters[:len(n.waiters)-1]
		return err
	}
	return nil
}
