package pcu

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/gopcu/gopcu/gsmtap"
	"github.com/gopcu/gopcu/internal/logx"
	"github.com/gopcu/gopcu/pcu/pcuif"
	"github.com/gopcu/gopcu/rlcmac"
)

// Packet Downlink Dummy Control Block (TS 44.060 §11.2.6) with USF 0 and
// 0x2B fill, as osmo-pcu sends it for idle PDCHs.
var dummyCtrlBlock = [23]byte{0x47, 0x94, 0x2b, 0x2b, 0x2b, 0x2b, 0x2b, 0x2b, 0x2b, 0x2b, 0x2b, 0x2b,
	0x2b, 0x2b, 0x2b, 0x2b, 0x2b, 0x2b, 0x2b, 0x2b, 0x2b, 0x2b, 0x2b}

// PTCCH/D with all 16 TAIs unused (0x7f) and 0x2B fill (TS 44.004 §7.8; osmo-pcu pdch.cpp pdch_init()).
var idlePTCCH = [23]byte{0x7f, 0x7f, 0x7f, 0x7f, 0x7f, 0x7f, 0x7f, 0x7f, 0x7f, 0x7f, 0x7f, 0x7f, 0x7f, 0x7f,
	0x7f, 0x7f, 0x2b, 0x2b, 0x2b, 0x2b, 0x2b, 0x2b, 0x2b}

// ErrNotConnected: a message for the BTS while no connection exists (or
// for an older one); a BTSWriter returns it for a message it cannot send
// because its connection is gone. It counts as tx:dropped, as every error
// of the BTSWriter does (e.g. its queue is full).
var ErrNotConnected = errors.New("not connected to the BTS")

// BTSWriter is the sink of the messages to the BTS: the driver's
// connection (loop_linux.go btsSock). Write is called in the engine
// goroutine with an encoded message valid during the call only; it writes
// it at once or queues a copy, never blocking, and returns an error when
// the message is dropped (counted as tx:dropped).
type BTSWriter interface {
	Write(b []byte) error
}

// BTSConnected starts a connection to the BTS whose messages go to w (the
// driver connected the PCU socket). Engine goroutine only.
func (e *Engine) BTSConnected(w BTSWriter) {
	e.connGen++
	e.btsw = w
	e.l1log.Info("connected to BTS", "path", e.cfg.SocketPath, "gen", e.connGen)
	e.btsConnected(e.connGen)
}

// BTSLost ends the current connection to the BTS (the driver lost or
// closed the socket, err says why): radio state goes, configuration and
// Gb stay. Engine goroutine only.
func (e *Engine) BTSLost(err error) {
	if e.btsw == nil {
		return
	}
	e.btsw = nil
	e.btsLost(e.connGen, err)
}

// HandlePCUIF handles one message from the BTS (b is valid during the
// call only); its answers go to the BTSWriter at once. Engine goroutine
// only.
func (e *Engine) HandlePCUIF(b []byte) { e.handleMessage(b) }

// writeBTS writes one encoded message to the current connection.
func (e *Engine) writeBTS(b []byte) error {
	if e.btsw == nil || e.gen == 0 {
		return ErrNotConnected
	}
	return e.btsw.Write(b)
}

// btsConnected starts connection gen (the loop made it): the engine
// announces its version and waits for INFO_IND.
func (e *Engine) btsConnected(gen uint64) {
	e.gen = gen
	e.l1ctr.Inc(L1Connected)
	e.ver = e.cfg.PinVersion
	if e.ver == 0 {
		e.ver = e.lastVer
	}
	e.l1log.Info("BTS socket connected", "path", e.cfg.SocketPath, "gen", gen)
	e.emit(Event{Kind: EvBTSConnected})
	e.sendTxtVersion()
}

// btsLost ends connection gen (the loop closed it, err says why): the
// radio state goes, configuration and Gb stay.
func (e *Engine) btsLost(gen uint64, err error) {
	if gen != e.gen {
		return
	}
	e.gen = 0
	e.l1ctr.Inc(L1Lost)
	e.l1log.Error("BTS socket lost, dropping radio state and reconnecting", "err", err)
	for _, b := range e.btsList {
		e.dropRadio(b)
	}
	e.emit(Event{Kind: EvBTSLost})
}

// sendTxtVersion announces the PCU version (osmo-pcu pcu_l1_if.cpp pcu_tx_txt_ind()). Before
// the first INFO_IND the version is unknown; the announcement is then sent
// in the v10/v11 size (1006 octets), which a v12 BTS accepts as well since
// it only checks header + payload length.
func (e *Engine) sendTxtVersion() {
	v := e.ver
	if v == 0 {
		v = pcuif.V10
	}
	e.send(&pcuif.TxtInd{TxtType: pcuif.TxtPCUVersion, Text: e.cfg.PCUVersion}, v)
}

// send encodes m into the engine's buffer and writes it to the BTS at once
// (writeBTS: the loop owns the socket), or queues it behind messages the
// socket did not take yet.
func (e *Engine) send(m pcuif.Message, v pcuif.Version) {
	if e.sent != nil {
		e.sent(m)
	}
	n, err := pcuif.MarshalTo(e.txBuf[:], m, v)
	if err != nil {
		e.l1ctr.Inc(L1TxErrEncode)
		e.opDrop(e.l1log, dropTxEncode, func() string { return fmt.Sprintf("%v to the BTS dropped: cannot encode: %v", m.Type(), err) })
		return
	}
	if err := e.writeBTS(e.txBuf[:n]); err != nil {
		e.l1ctr.Inc(L1TxDropped)
		e.opDrop(e.l1log, dropTxNotSent, func() string { return fmt.Sprintf("%v to the BTS dropped: cannot send: %v", m.Type(), err) })
		return
	}
	e.l1ctr.Inc(L1TxMsgs)
}

func (e *Engine) decodeError(err error, b []byte) {
	var idx int
	switch {
	case errors.Is(err, pcuif.ErrShort):
		idx = L1ErrShort
	case errors.Is(err, pcuif.ErrLong):
		idx = L1ErrLong
	case errors.Is(err, pcuif.ErrUnknownType):
		idx = L1ErrUnknownType
	case errors.Is(err, pcuif.ErrVersion):
		idx = L1ErrVersion
	case errors.Is(err, pcuif.ErrRange):
		idx = L1ErrRange
	default:
		idx = L1ErrInconsistent
	}
	e.l1ctr.Inc(idx)
	e.opDrop(e.l1log, dropRxBad, func() string { return fmt.Sprintf("bad message from the BTS dropped: %v, len=%d", err, len(b)) })
}

// rxStale counts and logs a message of type t for BTS btsNr, of which no
// INFO_IND came (or, for RTS_REQ, one without ACTIVE).
func (e *Engine) rxStale(t pcuif.MsgType, btsNr uint8) {
	e.l1ctr.Inc(L1ErrStale)
	e.opDrop(e.l1log, dropRxStale, func() string {
		return fmt.Sprintf("%v for BTS %d dropped: the BTS is not active (no INFO_IND for it, or one without ACTIVE)", t, btsNr)
	})
}

// rxBadSAPI counts and logs a message of type t with a SAPI it cannot
// have (rx:err:inconsistent).
func (e *Engine) rxBadSAPI(t pcuif.MsgType, sapi pcuif.SAPI) {
	e.l1ctr.Inc(L1ErrInconsistent)
	e.opDrop(e.l1log, dropRxBad, func() string { return fmt.Sprintf("%v with unsupported SAPI %v dropped", t, sapi) })
}

// handleMessage dispatches one message from the BTS (osmo-pcu pcu_l1_if.cpp pcu_rx()).
func (e *Engine) handleMessage(b []byte) {
	e.l1ctr.Inc(L1RxMsgs)
	t, btsNr, err := pcuif.PeekHeader(b)
	if err != nil {
		e.decodeError(err, b)
		return
	}
	if t == pcuif.TypeInfoInd {
		e.handleInfoInd(b)
		return
	}
	v := e.ver
	if v == 0 {
		v = pcuif.V12 // before any INFO_IND: decode leniently
	}
	bts := e.bts[btsNr]
	switch t {
	case pcuif.TypeRTSReq:
		e.l1ctr.Inc(L1RxRTS)
		if err := pcuif.Unmarshal(b, &e.rxRTS, v); err != nil {
			e.decodeError(err, b)
			return
		}
		if bts == nil || !bts.Active {
			e.rxStale(t, btsNr)
			return
		}
		e.handleRTS(bts, &e.rxRTS)
		return
	case pcuif.TypeDataInd:
		e.l1ctr.Inc(L1RxDataInd)
		if err := pcuif.Unmarshal(b, &e.rxData, v); err != nil {
			e.decodeError(err, b)
			return
		}
		if bts == nil {
			e.rxStale(t, btsNr)
			return
		}
		e.handleDataInd(bts, &e.rxData)
		return
	}
	m, err := e.decodeOther(t, b, v)
	if err != nil {
		e.decodeError(err, b)
		return
	}
	if bts == nil {
		e.rxStale(t, btsNr)
		return
	}
	switch m := m.(type) {
	case *pcuif.TimeInd:
		e.l1ctr.Inc(L1RxTimeInd)
		e.onTimeInd(bts, m)
	case *pcuif.RACHInd:
		e.l1ctr.Inc(L1RxRACHInd)
		e.onRACHInd(bts, m)
	case *pcuif.Data: // DATA_CNF (v10/v11)
		e.l1ctr.Inc(L1RxDataCnf)
		e.onDataCnf(bts, m)
	case *pcuif.DataCnf2:
		e.l1ctr.Inc(L1RxDataCnf)
		e.onDataCnf2(bts, m)
	case *pcuif.DataCnfDT:
		e.l1ctr.Inc(L1RxDataCnf) // defined in v10 but never processed (osmo-pcu 1.1.0 pcu_l1_if.cpp pcu_rx())
	case *pcuif.PagReq:
		e.l1ctr.Inc(L1RxPagReq)
		e.onPagReq(bts, m)
	case *pcuif.SuspReq:
		e.l1ctr.Inc(L1RxSuspReq)
		e.onSuspReq(bts, m)
	case *pcuif.AppInfoReq:
		e.l1ctr.Inc(L1RxAppInfoReq)
		e.onAppInfoReq(bts, m)
	case *pcuif.InterfInd:
		e.l1ctr.Inc(L1RxInterfInd)
	case *pcuif.E1CCUInd:
		e.l1ctr.Inc(L1RxE1CCUInd)
	case *pcuif.Container:
		e.l1ctr.Inc(L1RxContainer)
		e.onContainer(bts, m)
	default: // DATA_REQ, ACT_REQ, TXT_IND: PCU to BTS only
		e.l1ctr.Inc(L1RxUnexpected)
		e.opDrop(e.l1log, dropRxUnexpected, func() string { return fmt.Sprintf("%v from the BTS dropped: only a PCU sends it", t) })
	}
}

// decodeOther decodes a message that is neither RTS_REQ nor DATA_IND.
// The frequent ones (osmo-bts sends a TIME_IND at every radio block
// start, pcu_tx_time_ind, and an INTERF_IND per TRX every interference
// averaging period, intave x 104 frames) decode into reused targets, so the
// steady state allocates nothing per message; the rest through
// pcuif.Parse.
func (e *Engine) decodeOther(t pcuif.MsgType, b []byte, v pcuif.Version) (pcuif.Message, error) {
	var m pcuif.Message
	switch t {
	case pcuif.TypeTimeInd:
		e.rxTime = pcuif.TimeInd{}
		m = &e.rxTime
	case pcuif.TypeRACHInd:
		e.rxRACH = pcuif.RACHInd{}
		m = &e.rxRACH
	case pcuif.TypeInterfInd:
		e.rxInterf = pcuif.InterfInd{}
		m = &e.rxInterf
	default:
		return pcuif.Parse(b, v)
	}
	if err := pcuif.Unmarshal(b, m, v); err != nil {
		return nil, err
	}
	return m, nil
}

// handleInfoInd builds or updates the BTS model (osmo-pcu pcu_l1_if.cpp pcu_rx_info_ind()).
// Unlike osmo-pcu, a version other than ours is adopted (unless pinned) and
// an inactive BTS does not end the process.
func (e *Engine) handleInfoInd(b []byte) {
	e.l1ctr.Inc(L1RxInfoInd)
	var ii pcuif.InfoInd
	if err := pcuif.Unmarshal(b, &ii, pcuif.V12); err != nil {
		e.decodeError(err, b)
		return
	}
	if e.cfg.PinVersion != 0 && ii.Version != e.cfg.PinVersion {
		e.l1ctr.Inc(L1VersionMismatch)
		e.l1log.Error("INFO_IND version differs from the pinned version, ignored", "bts_version", ii.Version, "pinned", e.cfg.PinVersion)
		return
	}
	if e.ver != ii.Version {
		logx.Notice(e.l1log, "speaking the BTS's PCUIF version", "version", ii.Version)
	}
	e.ver, e.lastVer = ii.Version, ii.Version
	bts := e.bts[ii.BTSNr]
	if bts == nil {
		bts = newBTS(ii.BTSNr, e.cfg.Counters)
		bts.fsm = e.fsm
		e.bts[ii.BTSNr] = bts
		e.btsList = append(e.btsList, bts)
	}
	if ii.Flags&pcuif.FlagActive == 0 {
		logx.Notice(e.l1log, "INFO_IND without ACTIVE flag", "bts", ii.BTSNr, "was_active", bts.Active)
		if bts.Active {
			e.deactivateAll(bts)
			e.dropRadio(bts)
		}
		bts.Info = ii
		return
	}
	bts.Info = ii
	bts.CSMask = 1 | uint8((ii.Flags>>16)&0x0f)
	bts.MCSMask = uint16((ii.Flags >> 20) & 0x1ff)
	for t := range bts.TRX {
		trx := &bts.TRX[t]
		it := &ii.TRX[t]
		trx.ARFCN = it.ARFCN
		for s := range trx.PDCH {
			p := &trx.PDCH[s]
			want := it.PDCHMask&(1<<s) != 0
			if want {
				its := &it.TS[s]
				p.TSC, p.Hopping, p.HSN, p.MAIO, p.MABitLen, p.MA = its.TSC, its.Hopping, its.HSN, its.MAIO, its.MABitLen, its.MA
			}
			if want && !p.Enabled {
				e.sendAct(bts, true, t, s)
				trx.setEnabled(s, true)
				e.l1log.Info("PDCH activated", "bts", bts.Nr, "trx", t, "ts", s)
			} else if !want && p.Enabled {
				e.sendAct(bts, false, t, s)
				trx.setEnabled(s, false)
				e.l1log.Info("PDCH deactivated", "bts", bts.Nr, "trx", t, "ts", s)
			}
		}
	}
	bts.Active = true
	e.gbConfigure(bts)
	e.l1log.Info("BTS configured", "bts", bts.Nr, "version", ii.Version, "pdchs", bts.EnabledPDCHs(),
		"nsei", ii.NSEI, "bvci", ii.BVCI, "cell_id", ii.CellID)
	e.emit(Event{Kind: EvBTSActive, BTS: bts.Nr})
}

// sendAct sends an ACT_REQ for a PDCH of bts, addressed to it by the
// header's bts_nr (a socket can carry several BTSs; osmo-pcu's
// pcu_tx_act_req() sets it too).
func (e *Engine) sendAct(bts *BTS, activate bool, trx, ts int) {
	a := &e.txAct
	*a = pcuif.ActReq{Activate: activate, TRX: uint8(trx), TS: uint8(ts)}
	a.BTSNr = bts.Nr
	e.send(a, e.ver)
}

func (e *Engine) deactivateAll(bts *BTS) {
	for t := range bts.TRX {
		for s := range bts.TRX[t].PDCH {
			if bts.TRX[t].PDCH[s].Enabled {
				e.sendAct(bts, false, t, s)
			}
		}
	}
}

// dropRadio forgets all radio state of a BTS (PDCHs, later TBFs); its
// configuration and Gb state stay.
func (e *Engine) dropRadio(bts *BTS) {
	for len(bts.tbfs) > 0 {
		e.fireRelease(bts.tbfs[0], relBTSDown)
	}
	for t := range bts.TRX {
		for s := range bts.TRX[t].PDCH {
			bts.TRX[t].setEnabled(s, false)
			p := &bts.TRX[t].PDCH[s]
			p.resv = nil
			p.usfOwner = [8]*TBF{}
		}
	}
	e.fnValid = false
	if bts.Active {
		bts.Active = false
		e.emit(Event{Kind: EvBTSInactive, BTS: bts.Nr})
	}
}

// handleRTS answers an RTS_REQ with exactly one DATA_REQ for the same
// SAPI/FN/TRX/TS/block (osmo-pcu pcu_l1_if.cpp pcu_rx_rts_req(), gprs_rlcmac_sched.cpp gprs_rlcmac_rcv_rts_block()).
func (e *Engine) handleRTS(bts *BTS, r *pcuif.RTSReq) {
	p := &bts.TRX[r.TRX].PDCH[r.TS]
	if !p.Enabled {
		e.l1ctr.Inc(L1RxRTSDisabledPDCH)
		e.opDrop(e.l1log, dropRTSDisabledPDCH, func() string {
			return fmt.Sprintf("RTS_REQ on a disabled PDCH dropped: TRX=%d TS=%d FN=%d", r.TRX, r.TS, r.FN)
		})
		return
	}
	p.LastRTSFN = r.FN
	bts.CurFN = r.FN
	d := &e.txData
	*d = pcuif.Data{Kind: pcuif.TypeDataReq, SAPI: r.SAPI, FN: r.FN, ARFCN: r.ARFCN, TRX: r.TRX, TS: r.TS, BlockNr: r.BlockNr}
	d.BTSNr = bts.Nr
	switch r.SAPI {
	case pcuif.SAPIPDTCH:
		if blk := e.schedule(bts, p, r); blk != nil {
			d.Payload = blk
		} else if bts.genIdleBlocks(e.ver, r.TRX) {
			d.Payload = dummyCtrlBlock[:]
			bts.Ctr.Inc(CtrRLCSentDummy)
		}
	case pcuif.SAPIPTCCH:
		if p.hasTAI() {
			ptcchD(p, &e.ptcchBuf)
			d.Payload = e.ptcchBuf[:]
			e.tapBlock(gsmtap.CatDLPTCCH, false, r.ARFCN, r.TS, gsmtap.ChannelPTCCH, r.FN, 0, 0, d.Payload)
		} else if bts.genIdleBlocks(e.ver, r.TRX) {
			d.Payload = idlePTCCH[:]
			e.tapBlock(gsmtap.CatDLPTCCH, false, r.ARFCN, r.TS, gsmtap.ChannelPTCCH, r.FN, 0, 0, d.Payload)
		}
	default:
		e.rxBadSAPI(pcuif.TypeRTSReq, r.SAPI)
		return
	}
	e.send(d, e.ver)
}

func (e *Engine) handleDataInd(bts *BTS, d *pcuif.Data) {
	switch d.SAPI {
	case pcuif.SAPIPDTCH, pcuif.SAPIPTCCH:
		bts.CurFN = d.FN
		if d.SAPI == pcuif.SAPIPDTCH && !bts.TRX[d.TRX].PDCH[d.TS].Enabled {
			e.l1ctr.Inc(L1RxDataIndDisabledPDCH)
			e.opDrop(e.l1log, dropDataIndDisabledPDCH, func() string {
				return fmt.Sprintf("DATA_IND on a disabled PDCH dropped: TRX=%d TS=%d FN=%d", d.TRX, d.TS, d.FN)
			})
			return
		}
		e.onULBlock(bts, d)
		if d.SAPI == pcuif.SAPIPDTCH {
			// the block at d.FN was the answer, if any: reservations up
			// to it on this PDCH are unanswered (as osmo-pcu's
			// pdch_ulc_expire_fn on every DATA.ind, empty ones too)
			e.expirePDCH(bts, &bts.TRX[d.TRX].PDCH[d.TS], d.FN, -1)
		}
	case pcuif.SAPIBCCH:
		e.onSI(bts, d)
	default:
		e.rxBadSAPI(pcuif.TypeDataInd, d.SAPI)
	}
}

// onSI stores system information (osmo-pcu pcu_l1_if.cpp pcu_rx_data_ind_bcch()).
func (e *Engine) onSI(bts *BTS, d *pcuif.Data) {
	switch len(d.Payload) {
	case 0, 1:
		// revocation
	case 23:
		idx := -1
		switch d.Payload[2] {
		case 0x19:
			idx = 0 // SI1
		case 0x1a:
			idx = 1 // SI2
		case 0x1b:
			idx = 2 // SI3
		case 0x00:
			idx = 3 // SI13
		}
		if idx >= 0 {
			bts.SI[idx] = append(bts.SI[idx][:0], d.Payload...)
		}
		if idx == 3 {
			e.onSI13(bts, d.Payload)
		}
	default:
		e.l1ctr.Inc(L1ErrInconsistent)
		e.opDrop(e.l1log, dropRxBad, func() string {
			return fmt.Sprintf("BCCH DATA_IND of %d octets dropped: neither an SI (23) nor a revocation (0, 1)", len(d.Payload))
		})
	}
}

// onSI13 decodes an SI13 from BCCH: its GPRS Cell Options give T3168 and
// T3192 (`show bts-timer`); T3192 must be shorter than T3193, or a DL TBF
// would be freed while the MS still listens (osmo-pcu warns the same).
// An undecodable SI13 is logged and counted; the previous values stay.
func (e *Engine) onSI13(bts *BTS, b []byte) {
	s, err := rlcmac.DecodeSI13(b)
	if err != nil {
		bts.Ctr.Inc(CtrDecodeErrors)
		logx.Notice(e.l1log, "undecodable SI13", "err", err)
		return
	}
	if s.PBCCH {
		logx.Notice(e.l1log, "SI13 announces a PBCCH: no GPRS Cell Options on BCCH")
		return
	}
	bts.SI13, bts.HaveSI13 = s, true
	if t3193 := time.Duration(bts.Info.T3193x10ms) * 10 * time.Millisecond; t3193 > 0 && s.T3192() >= t3193 {
		logx.Notice(e.l1log, "T3192 from SI13 is not shorter than T3193 from INFO_IND", "t3192", s.T3192(), "t3193", t3193)
	}
}

// The hooks below receive what later parts of the engine act on (TBF
// engine, paging, suspend, NACC). For now they validate and log.

func (e *Engine) onTimeInd(bts *BTS, m *pcuif.TimeInd) {
	bts.CurFN = m.FN
	e.clockFN(bts, m.FN)
	// (osmo-bts sends TIME_IND only at block starts, pcu_tx_time_ind; a
	// BTS that sent one every frame would hit this on most, so the log
	// call is guarded: its arguments would allocate)
	if fn13 := m.FN % 13; fn13 != 0 && fn13 != 4 && fn13 != 8 && e.l1log.Enabled(context.Background(), slog.LevelDebug) {
		e.l1log.Debug("TIME_IND FN is not a block start", "fn", m.FN)
	}
}

func (e *Engine) onRACHInd(bts *BTS, m *pcuif.RACHInd) {
	switch m.SAPI {
	case pcuif.SAPIRACH:
		e.onRACH(bts, m)
	case pcuif.SAPIPTCCH:
		e.onPTCCHAccess(bts, m.TRX, m.TS, m.FN, m.QTA)
	default:
		e.rxBadSAPI(pcuif.TypeRACHInd, m.SAPI)
	}
}

// onDataCnf: v10/v11 DATA_CNF on SAPI PCH echoes the MAC block of a DL
// IMM ASS; the TLLI comes from its rest octets (TS 44.018 §10.5.2.16; osmo-pcu bts.cpp tlli_from_imm_ass()).
func (e *Engine) onDataCnf(bts *BTS, m *pcuif.Data) {
	mac := m.Payload
	if m.SAPI == pcuif.SAPIPCH && len(mac) == pcuif.PCHLegacyLen {
		mac = mac[3:]
	}
	var ia rlcmac.ImmediateAssignment
	if err := rlcmac.DecodeImmediateAssignment(mac, &ia); err != nil || ia.Rest.Kind != rlcmac.IARPacketDownlink {
		return
	}
	e.dlImmAssConfirmed(bts, ia.Rest.TLLI)
}

// onDataCnf2: v11+ confirmation by msg_id (the TLLI of a DL IMM ASS).
func (e *Engine) onDataCnf2(bts *BTS, m *pcuif.DataCnf2) {
	if m.MsgID != msgIDNone {
		e.dlImmAssConfirmed(bts, m.MsgID)
	}
}
func (e *Engine) onAppInfoReq(bts *BTS, m *pcuif.AppInfoReq) {}
func (e *Engine) onContainer(bts *BTS, m *pcuif.Container)   { e.naccContainer(bts, m) }
