package bss

import (
	"cmp"
	"context"
	"log/slog"
	"net/netip"
	"time"

	"github.com/gopcu/gopcu/bssgp"
	"github.com/gopcu/gopcu/bssgp/internal/tlv"
	"github.com/gopcu/gopcu/bssgp/ns"
	"github.com/gopcu/gopcu/bssgp/ns/nse"
	"github.com/gopcu/gopcu/internal/logx"
	"github.com/gopcu/gopcu/stats/counter"
)

// Config is the Gb configuration of one cell/NSE, filled from INFO_IND
// (pcuif_proto.h struct gsm_pcu_if_info_ind) and the VTY.
type Config struct {
	NS     nse.Config
	BVCI   uint16       // PTP BVCI (INFO_IND bvci)
	CellID bssgp.CellID // RAI (mcc, mnc, lac, rac) + cell_id
	// FlowControlInterval is VTY "flow-control-interval" (default 1 s).
	FlowControlInterval time.Duration
	// T1 retries BVC-BLOCK/UNBLOCK, T2 retries BVC-RESET (TS 48.018 §8.3,
	// §8.4; osmo-pcu X101/X102 = 30 s).
	T1, T2 time.Duration
	// QoS is the QoS Profile of UL-UNITDATA (TS 48.018 §11.3.28); default
	// 00 00 04, the value osmo-pcu sends (QOS_PROFILE in its tbf_ul.cpp gprs_rlcmac_ul_tbf::snd_ul_ud()).
	QoS [3]byte
	// NoAlignment omits the zero-length Alignment Octets IE osmo-pcu puts
	// into UL-UNITDATA.
	NoAlignment bool
	// Counters, when set, makes the Gb's counter groups (bssgp:bss_ctx,
	// ns:nse, ns:nsvc) while they exist; nil: nothing is counted.
	Counters counter.Registry
}

// Handler receives everything the SGSN sends up to the engine. PDU pointers
// and their byte slices are only valid during the call (they alias the
// receive buffer): copy what is kept (e.g. the LLC PDU into the MS queue).
type Handler interface {
	// DLUnitdata delivers a DL-UNITDATA for the PTP BVC (TS 48.018 §10.2.1).
	DLUnitdata(p *bssgp.DLUnitdata, now time.Duration)
	// PagingPS / PagingCS deliver paging requests (§10.3.1, §10.3.2),
	// received on the signalling or PTP BVC.
	PagingPS(p *bssgp.PagingPS, now time.Duration)
	PagingCS(p *bssgp.PagingCS, now time.Duration)
	// BVCState reports the PTP BVC going unblocked (up) or not.
	BVCState(up bool, now time.Duration)
	// FlowControl is asked for the FLOW-CONTROL-BVC values every
	// flow-control interval; ok=false skips this round.
	FlowControl(now time.Duration) (p FlowParams, ok bool)
	// Other delivers any other decoded PDU (SUSPEND-ACK/NACK, RESUME-ACK/NACK,
	// FLUSH-LL, RA-CAPABILITY, RA-CAPABILITY-UPDATE-ACK, FLOW-CONTROL-*-ACK,
	// STATUS, RIM PDUs as *RIM, others as *Raw), with the BVCI it came on.
	Other(bvci uint16, p bssgp.PDU, now time.Duration)
}

// Counters of the "bssgp:bss_ctx" group (libosmogb names), index BVCI,
// counted as osmo-pcu with libosmogb counts them (osmo-pcu
// gprs_bssgp_pcu_rcvmsg, libosmogb bssgp_rcvmsg / bssgp_tx_ul_ud):
//
//   - packets:in / bytes:in: every received PDU whose IE list parses, on
//     the BVC it came on; STATUS and RAN-INFORMATION* PDUs on the
//     signalling BVC and BVC-RESET count on the BVC their BVCI IE names.
//     Only BVCs with a group count: the PTP BVC, and the signalling BVC
//     once the SGSN reset it (libosmogb creates its context then). PDUs
//     that fail the IE parse, a BVC-RESET for a BVCI that is not ours and
//     PDUs on an unknown BVCI count nowhere. Bytes are the BSSGP PDU
//     length.
//   - packets:out / bytes:out: UL-UNITDATA only (the one PDU libosmogb's
//     BSS side counts), BSSGP length.
//   - status: received STATUS PDUs, on the same BVC as packets:in.
//   - blocked, discarded: never on the BSS side (libosmogb counts them when
//     it receives BVC-BLOCK and LLC-DISCARDED as the SGSN).
const (
	CtrPktsIn = iota
	CtrPktsOut
	CtrBytesIn
	CtrBytesOut
	CtrBlocked
	CtrDiscarded
	CtrStatus
)

// CounterDescs are libosmogb's bssgp_ctr_description.
var CounterDescs = []counter.Desc{
	{Name: "packets:in", Description: "Packets at BSSGP Level ( In)"},
	{Name: "packets:out", Description: "Packets at BSSGP Level (Out)"},
	{Name: "bytes:in", Description: "Bytes at BSSGP Level   ( In)"},
	{Name: "bytes:out", Description: "Bytes at BSSGP Level   (Out)"},
	{Name: "blocked", Description: "BVC Blocking count"},
	{Name: "discarded", Description: "BVC LLC Discarded count"},
	{Name: "status", Description: "BVC Status count"},
}

// Gb is the BSS side of one NSE with its signalling BVC and one PTP BVC.
// It is not safe for concurrent use: the engine goroutine owns it and passes
// the monotonic time to every method.
type Gb struct {
	cfg     Config
	ns      *nse.NSE
	tx      nse.Transport
	h       Handler
	log     *slog.Logger
	rootLog *slog.Logger

	// BVC bring-up flags (osmo-pcu gprs_bssgp_pcu.c bvc_timeout()).
	sigReset, ptpReset, unblocked bool
	timer                         time.Duration // T1/T2
	fcTimer                       time.Duration
	fcTag, msTag                  uint8

	buf [ns.HeaderLen + 2048]byte
	dl  bssgp.DLUnitdata
	// Ctrs is the "bssgp:bss_ctx" counter group of the PTP BVC.
	Ctrs counter.Group
	// SigCtrs is the group of the signalling BVC (index 0); nil until the
	// SGSN resets BVCI 0, as libosmogb allocates that BVC context then.
	SigCtrs counter.Group
	vcIdx   uint32 // ns:nsvc group index allocator (libosmogb nsvc_rate_ctr_idx)
}

// newBVCGroup makes the "bssgp:bss_ctx" group of a BVC in r.
func newBVCGroup(r counter.Registry, bvci uint16) counter.Group {
	return counter.New(r, counter.GroupSpec{Name: "bssgp:bss_ctx", Description: "BSSGP Peer Statistics",
		Index: uint32(bvci), Descs: CounterDescs})
}

// New builds the Gb stack. tx sends NS datagrams (UDP in production,
// in-memory in tests); log may be nil.
func New(cfg Config, tx nse.Transport, h Handler, log *slog.Logger) (*Gb, error) {
	cfg.FlowControlInterval = cmp.Or(cfg.FlowControlInterval, time.Second)
	cfg.T1 = cmp.Or(cfg.T1, 30*time.Second)
	cfg.T2 = cmp.Or(cfg.T2, 30*time.Second)
	if cfg.QoS == ([3]byte{}) {
		cfg.QoS = [3]byte{0, 0, 4}
	}
	if log == nil {
		log = logx.Discard().Logger(logx.CatBSSGP)
	}
	g := &Gb{cfg: cfg, tx: tx, h: h, log: log.With("bvci", cfg.BVCI), rootLog: log}
	n, err := nse.NewNSE(g.nsConfig(cfg), tx, g, log)
	if err != nil {
		return nil, err
	}
	g.ns = n
	g.Ctrs = newBVCGroup(cfg.Counters, cfg.BVCI)
	return g, nil
}

// nsConfig is cfg.NS with the Gb's registry and NS-VC group numbering.
func (g *Gb) nsConfig(cfg Config) nse.Config {
	c := cfg.NS
	if c.Counters == nil {
		c.Counters = cfg.Counters
	}
	if c.VCIndex == nil {
		c.VCIndex = &g.vcIdx
	}
	return c
}

// Close stops the Gb and unregisters its counter groups (osmo-pcu
// gprs_bssgp_destroy frees the BVC contexts and NS with their groups).
func (g *Gb) Close(now time.Duration) {
	g.ns.Stop(now)
	g.ns.Close()
	counter.Free(g.cfg.Counters, g.Ctrs)
	counter.Free(g.cfg.Counters, g.SigCtrs)
}

// ctrsOf is the counter group of a BVC (nil: libosmogb has no context).
func (g *Gb) ctrsOf(bvci uint16) counter.Group {
	switch bvci {
	case g.cfg.BVCI:
		return g.Ctrs
	case bssgp.BVCISignalling:
		return g.SigCtrs
	}
	return nil
}

func fillDefaults(cfg *Config, old Config) {
	cfg.FlowControlInterval = cmp.Or(cfg.FlowControlInterval, old.FlowControlInterval)
	cfg.T1 = cmp.Or(cfg.T1, old.T1)
	cfg.T2 = cmp.Or(cfg.T2, old.T2)
	if cfg.QoS == ([3]byte{}) {
		cfg.QoS = old.QoS
	}
	if cfg.Counters == nil {
		cfg.Counters = old.Counters
	}
}

// Reconfigure applies the configuration of a later INFO_IND (osmo-pcu
// gprs_bssgp_pcu.c gprs_ns_update_config()): a changed NSEI or dialect rebuilds NS (and so resets the BVCs);
// otherwise NS keeps the matching NS-VCs. A changed BVCI or Cell
// Identifier resets the PTP BVC.
func (g *Gb) Reconfigure(cfg Config, now time.Duration) error {
	fillDefaults(&cfg, g.cfg)
	old := g.cfg
	if cfg.BVCI != old.BVCI {
		// A new PTP BVC context: its group has the new BVCI as index.
		counter.Free(g.cfg.Counters, g.Ctrs)
		g.cfg.Counters = cfg.Counters
		g.Ctrs = newBVCGroup(cfg.Counters, cfg.BVCI)
	}
	if !g.ns.Reconfigure(g.nsConfig(cfg), now) {
		n, err := nse.NewNSE(g.nsConfig(cfg), g.tx, g, g.rootLog)
		if err != nil {
			return err
		}
		g.ns.Stop(now)
		g.ns.Close()
		g.cfg = cfg
		g.log = g.rootLog.With("bvci", cfg.BVCI)
		g.ns = n
		n.Start(now)
		return nil
	}
	g.cfg = cfg
	g.log = g.rootLog.With("bvci", cfg.BVCI)
	if (cfg.BVCI != old.BVCI || cfg.CellID != old.CellID) && g.sigReset {
		g.ptpReset = false
		g.setUnblocked(false, now)
		g.retry(now)
	}
	return nil
}

// NSE gives access to the NS layer (VTY "show ns", stats).
func (g *Gb) NSE() *nse.NSE { return g.ns }

// Config returns the configuration.
func (g *Gb) Config() Config { return g.cfg }

// Unblocked reports whether the PTP BVC is usable.
func (g *Gb) Unblocked() bool { return g.unblocked }

// Start starts NS (which then starts the BVC procedures once available).
func (g *Gb) Start(now time.Duration) { g.ns.Start(now) }

// Stop silently takes NS and the BVCs down.
func (g *Gb) Stop(now time.Duration) { g.ns.Stop(now) }

// Input feeds one datagram received on NS bind `bind` from `from`.
func (g *Gb) Input(bind int, from netip.AddrPort, b []byte, now time.Duration) {
	g.ns.Input(bind, from, b, now)
}

// Tick runs expired timers (NS and BSSGP).
func (g *Gb) Tick(now time.Duration) {
	g.ns.Tick(now)
	if g.timer != 0 && now >= g.timer {
		g.timer = 0
		g.retry(now)
	}
	if g.fcTimer != 0 && now >= g.fcTimer {
		g.fcTimer = now + g.cfg.FlowControlInterval
		g.sendFlowControl(now)
	}
}

// NextDeadline returns the earliest pending timer.
func (g *Gb) NextDeadline() (time.Duration, bool) {
	d, ok := g.ns.NextDeadline()
	for _, t := range [...]time.Duration{g.timer, g.fcTimer} {
		if t != 0 && (!ok || t < d) {
			d, ok = t, true
		}
	}
	return d, ok
}

// ---- NS service user (nse.Handler) ----

// NSAvailable implements nse.Handler: NS recovery starts the BVC procedure,
// NS failure clears the BVC state (osmo-pcu gprs_bssgp_pcu.c handle_nm_status()).
func (g *Gb) NSAvailable(up bool, now time.Duration) {
	g.setUnblocked(false, now)
	g.sigReset, g.ptpReset = false, false
	g.timer, g.fcTimer = 0, 0
	if up {
		g.retry(now)
	}
}

// NSUnitdata implements nse.Handler.
func (g *Gb) NSUnitdata(bvci uint16, sdu []byte, now time.Duration) {
	if len(sdu) == 0 {
		g.sendStatus(bssgp.CauseProtocolErrorUnspec, 0, false, sdu)
		return
	}
	t := bssgp.PDUType(sdu[0])
	ieBVCI, hasBVCI, ok := envelope(t, sdu)
	if !ok {
		// IE list does not parse: STATUS, counted nowhere (osmo-pcu and
		// libosmogb parse before looking up the BVC).
		g.log.Log(context.Background(), logx.LevelNotice, "bad BSSGP PDU: IE list does not parse", "pdu", t.String())
		g.sendStatus(bssgp.CauseInvalidMandatoryInfo, 0, false, sdu)
		return
	}
	ctx := bvci // the BVC the PDU is counted on
	switch {
	case t == bssgp.PDUStatus || (t >= bssgp.PDURANInformation && t <= bssgp.PDURANInfoAppError):
		if bvci == bssgp.BVCISignalling && hasBVCI {
			ctx = ieBVCI
		}
	case t == bssgp.PDUBVCReset:
		// osmo-pcu's checks before handing BVC-RESET to libosmogb.
		if bvci != bssgp.BVCISignalling || !hasBVCI {
			g.sendStatus(bssgp.CauseInvalidMandatoryInfo, 0, false, sdu)
			return
		}
		if ieBVCI != bssgp.BVCISignalling && ieBVCI != g.cfg.BVCI {
			g.sendStatus(bssgp.CauseUnknownBVCI, ieBVCI, true, sdu)
			return
		}
		ctx = ieBVCI
	}
	c := g.ctrsOf(ctx)
	if c != nil {
		c.Inc(CtrPktsIn)
		c.Add(CtrBytesIn, uint64(len(sdu)))
	}
	if t == bssgp.PDUStatus {
		if c != nil {
			c.Inc(CtrStatus)
		}
		g.rxStatus(bvci, sdu, now)
		return
	}
	switch {
	case bvci == bssgp.BVCISignalling:
		g.rxSignalling(t, sdu, now)
	case bvci == bssgp.BVCIPTM:
		g.sendStatus(bssgp.CausePDUNotCompatibleFeat, bvci, true, sdu)
	case bvci == g.cfg.BVCI:
		g.rxPTP(t, sdu, now)
	default:
		g.sendStatus(bssgp.CauseUnknownBVCI, bvci, true, sdu)
	}
}

func (g *Gb) setUnblocked(up bool, now time.Duration) {
	if up == g.unblocked {
		return
	}
	g.unblocked = up
	g.log.Log(context.Background(), logx.LevelInfo, "PTP BVC state change", "unblocked", up)
	if !up {
		g.fcTimer = 0
	}
	if g.h != nil {
		g.h.BVCState(up, now)
	}
}

// retry (re)sends whatever step of the bring-up is pending (§2.2 table).
func (g *Gb) retry(now time.Duration) {
	switch {
	case !g.sigReset:
		g.send(bssgp.BVCISignalling, 0, &bssgp.BVCReset{BVCI: bssgp.BVCISignalling, Cause: bssgp.CauseOMIntervention})
		g.timer = now + g.cfg.T2
	case !g.ptpReset:
		g.sendPTPReset(bssgp.CauseOMIntervention, now)
	case !g.unblocked:
		g.send(bssgp.BVCISignalling, 0, &bssgp.BVCUnblock{BVCI: g.cfg.BVCI})
		g.timer = now + g.cfg.T1
	}
}

func (g *Gb) sendPTPReset(c bssgp.Cause, now time.Duration) {
	g.send(bssgp.BVCISignalling, 0, &bssgp.BVCReset{BVCI: g.cfg.BVCI, Cause: c, CellID: g.cfg.CellID, HasCellID: true})
	g.timer = now + g.cfg.T2
}

func (g *Gb) sendFlowControl(now time.Duration) {
	if g.h == nil {
		return
	}
	p, ok := g.h.FlowControl(now)
	if !ok {
		return
	}
	g.fcTag++
	g.send(g.cfg.BVCI, 0, p.PDU(g.fcTag))
}

// send encodes p after the NS header room and hands it to NS.
func (g *Gb) send(bvci uint16, lsp uint32, p bssgp.PDU) error {
	n, err := bssgp.MarshalTo(p, g.buf[ns.HeaderLen:])
	if err != nil {
		return err
	}
	return g.out(bvci, lsp, n)
}

// out hands the n-octet PDU in g.buf (after the NS header room) to NS.
// UL-UNITDATA is counted on the BVC it goes to, whether NS can send it or
// not (libosmogb bssgp_tx_ul_ud); no other PDU is.
func (g *Gb) out(bvci uint16, lsp uint32, n int) error {
	if n > 0 && bssgp.PDUType(g.buf[ns.HeaderLen]) == bssgp.PDUULUnitdata {
		if c := g.ctrsOf(bvci); c != nil {
			c.Inc(CtrPktsOut)
			c.Add(CtrBytesOut, uint64(n))
		}
	}
	return g.ns.SendUnitdataInPlace(bvci, lsp, g.buf[:ns.HeaderLen+n])
}

// sendStatus answers an erroneous PDU with STATUS on the signalling BVC
// (TS 48.018 §8.7, §10.4.14): the BVCI IE for BVCI-blocked/unknown causes,
// the PDU in error always. A STATUS is never answered with a STATUS.
func (g *Gb) sendStatus(c bssgp.Cause, bvci uint16, withBVCI bool, bad []byte) {
	if len(bad) > 0 && bssgp.PDUType(bad[0]) == bssgp.PDUStatus {
		return
	}
	if len(bad) > MaxLLCPDU {
		bad = bad[:MaxLLCPDU]
	}
	g.log.Log(context.Background(), logx.LevelNotice, "sending STATUS", "cause", c.String(), "bvci", bvci)
	st := bssgp.Status{Cause: c, BVCI: bvci, HasBVCI: withBVCI, PDUInError: bad}
	if st.PDUInError == nil {
		st.PDUInError = []byte{}
	}
	// dropped: a STATUS NS cannot send; counted by the NSE (packets:out:drop)
	_ = g.send(bssgp.BVCISignalling, 0, &st)
}

func (g *Gb) decodeErr(err error, sdu []byte) {
	c, ok := bssgp.CauseOf(err)
	if !ok {
		c = bssgp.CauseProtocolErrorUnspec
	}
	g.log.Log(context.Background(), logx.LevelNotice, "bad BSSGP PDU", "err", err)
	g.sendStatus(c, 0, false, sdu)
}

func (g *Gb) rxStatus(bvci uint16, sdu []byte, now time.Duration) {
	var st bssgp.Status
	if err := bssgp.Unmarshal(sdu, &st); err != nil {
		return // never answer a STATUS
	}
	g.log.Log(context.Background(), logx.LevelNotice, "STATUS received", "cause", st.Cause.String(), "bvci", st.BVCI)
	if st.HasBVCI && st.BVCI == g.cfg.BVCI && g.sigReset {
		switch st.Cause {
		case bssgp.CauseBVCIBlocked: // re-run UNBLOCK (osmo-pcu gprs_bssgp_pcu.c gprs_bssgp_pcu_rx_sign())
			if g.ptpReset {
				g.setUnblocked(false, now)
				g.retry(now)
			}
		case bssgp.CauseUnknownBVCI: // re-run PTP RESET
			g.ptpReset = false
			g.setUnblocked(false, now)
			g.retry(now)
		}
	}
	if g.h != nil {
		g.h.Other(bvci, &st, now)
	}
}

func (g *Gb) rxSignalling(t bssgp.PDUType, sdu []byte, now time.Duration) {
	switch t {
	case bssgp.PDUBVCReset:
		var r bssgp.BVCReset
		if err := bssgp.Unmarshal(sdu, &r); err != nil {
			g.decodeErr(err, sdu)
			return
		}
		g.rxReset(&r, sdu, now)
	case bssgp.PDUBVCResetAck:
		var a bssgp.BVCResetAck
		if err := bssgp.Unmarshal(sdu, &a); err != nil {
			g.decodeErr(err, sdu)
			return
		}
		switch {
		case a.BVCI == bssgp.BVCISignalling && !g.sigReset:
			g.sigReset = true
			g.retry(now)
		case a.BVCI == g.cfg.BVCI && g.sigReset && !g.ptpReset:
			g.ptpReset = true
			g.retry(now)
		default:
			g.log.Log(context.Background(), logx.LevelInfo, "unexpected BVC-RESET-ACK ignored", "ack_bvci", a.BVCI)
		}
	case bssgp.PDUBVCUnblockAck:
		var a bssgp.BVCUnblockAck
		if err := bssgp.Unmarshal(sdu, &a); err != nil {
			g.decodeErr(err, sdu)
			return
		}
		if a.BVCI != g.cfg.BVCI {
			g.sendStatus(bssgp.CauseUnknownBVCI, a.BVCI, true, sdu)
			return
		}
		if g.ptpReset && !g.unblocked {
			g.timer = 0
			g.setUnblocked(true, now)
			// FLOW-CONTROL-BVC immediately, then every interval (§2.2 step 4).
			g.fcTimer = now + g.cfg.FlowControlInterval
			g.sendFlowControl(now)
		}
	case bssgp.PDUPagingPS, bssgp.PDUPagingCS:
		g.deliver(0, t, sdu, now) // PagingPS, PagingCS
	case bssgp.PDUBVCBlockAck, bssgp.PDUSuspendAck, bssgp.PDUSuspendNack, bssgp.PDUResumeAck, bssgp.PDUResumeNack, bssgp.PDUFlushLL:
		g.deliver(bssgp.BVCISignalling, t, sdu, now)
	case bssgp.PDURANInformation, bssgp.PDURANInformationReq, bssgp.PDURANInformationAck, bssgp.PDURANInformationError, bssgp.PDURANInfoAppError:
		// RIM PDUs (TS 48.018 §8c): routing checks and containers are the
		// engine's (osmo-pcu handle_rim); undecodable -> STATUS (libosmogb).
		g.deliver(bssgp.BVCISignalling, t, sdu, now)
	case bssgp.PDUSGSNInvokeTrace, bssgp.PDUOverload:
		if g.h != nil {
			g.h.Other(bssgp.BVCISignalling, &bssgp.Raw{PDUType: t, Body: sdu[1:]}, now)
		}
	default:
		if t.IsPTP() {
			// PTP PDUs on BVCI 0: logged, no STATUS (osmo-pcu gprs_bssgp_pcu.c gprs_bssgp_pcu_rx_sign()).
			g.log.Log(context.Background(), logx.LevelNotice, "PTP PDU on signalling BVC ignored", "pdu", t.String())
			return
		}
		g.sendStatus(bssgp.CauseProtocolErrorUnspec, 0, false, sdu)
	}
}

// rxReset handles an SGSN-initiated BVC-RESET (TS 48.018 §8.4,
// osmo-pcu gprs_bssgp_pcu.c gprs_bssgp_pcu_rx_sign(), libosmogb bssgp_rx_bvc_reset()).
func (g *Gb) rxReset(r *bssgp.BVCReset, sdu []byte, now time.Duration) {
	switch r.BVCI {
	case bssgp.BVCISignalling:
		if g.SigCtrs == nil {
			// libosmogb's bssgp_rx_bvc_reset allocates the context of the
			// reset BVC, with its counter group, when it has none.
			g.SigCtrs = newBVCGroup(g.cfg.Counters, bssgp.BVCISignalling)
		}
		g.send(bssgp.BVCISignalling, 0, &bssgp.BVCResetAck{BVCI: bssgp.BVCISignalling})
		// Resetting the signalling BVC resets all PTP BVCs: reset ours.
		g.sigReset, g.ptpReset = true, false
		g.setUnblocked(false, now)
		g.sendPTPReset(r.Cause, now)
	case g.cfg.BVCI:
		g.send(bssgp.BVCISignalling, 0, &bssgp.BVCResetAck{BVCI: g.cfg.BVCI, CellID: g.cfg.CellID, HasCellID: true})
		g.sigReset, g.ptpReset = true, true
		g.setUnblocked(false, now)
		g.retry(now) // UNBLOCK
	default:
		g.sendStatus(bssgp.CauseUnknownBVCI, r.BVCI, true, sdu)
	}
}

// deliver decodes a PDU of type t that came on bvci and hands it to the
// Handler: paging to PagingPS/PagingCS, anything else to Other. A PDU
// that does not decode gets STATUS.
func (g *Gb) deliver(bvci uint16, t bssgp.PDUType, sdu []byte, now time.Duration) {
	p := bssgp.NewPDU(t)
	if err := bssgp.Unmarshal(sdu, p); err != nil {
		g.decodeErr(err, sdu)
		return
	}
	if g.h == nil {
		return
	}
	switch p := p.(type) {
	case *bssgp.PagingPS:
		g.h.PagingPS(p, now)
	case *bssgp.PagingCS:
		g.h.PagingCS(p, now)
	default:
		g.h.Other(bvci, p, now)
	}
}

// rxPTP handles a PDU on our PTP BVC. It is accepted in every state of the
// bring-up, as osmo-pcu accepts it: TS 48.018 §5.4.1 rejects traffic on a
// BVC marked as blocked, and the BSS side never marks its BVC so
// (osmo-pcu gprs_bssgp_pcu_rx_ptp tests libosmogb's BVC_S_BLOCKED, which
// only bssgp_rx_bvc_block sets, on the SGSN side; a BVC is not blocked
// after a reset, §8.4). So a PDU the SGSN sends right after its
// BVC-UNBLOCK-ACK and that overtakes it, or after the BVC-RESET-ACK, gets
// through.
func (g *Gb) rxPTP(t bssgp.PDUType, sdu []byte, now time.Duration) {
	switch t {
	case bssgp.PDUDLUnitdata:
		if err := g.dl.Unmarshal(sdu); err != nil {
			g.decodeErr(err, sdu)
			return
		}
		if len(g.dl.LLC) > MaxLLCPDU {
			g.sendStatus(bssgp.CauseConditionalIEError, 0, false, sdu)
			return
		}
		if g.h != nil {
			g.h.DLUnitdata(&g.dl, now)
		}
	case bssgp.PDUPagingPS, bssgp.PDUPagingCS:
		g.deliver(0, t, sdu, now) // PagingPS, PagingCS
	case bssgp.PDURACapability, bssgp.PDURACapabilityUpdAck, bssgp.PDUFlowControlBVCAck, bssgp.PDUFlowControlMSAck:
		g.deliver(g.cfg.BVCI, t, sdu, now)
	default:
		// Signalling PDUs on a PTP BVC, and anything unknown (§2.4).
		g.sendStatus(bssgp.CauseProtocolErrorUnspec, 0, false, sdu)
	}
}

// ---- downward API ----

// SendULUnitdata sends one complete UL LLC frame of tlli as UL-UNITDATA on
// the PTP BVC with the cell's Cell Identifier (TS 48.018 §10.2.2). The NS-VC
// is chosen by TLLI (LSP). llc is copied before returning.
func (g *Gb) SendULUnitdata(tlli uint32, llc []byte, now time.Duration) error {
	return g.SendULUnitdataPFI(tlli, llc, 0, false, now)
}

// SendULUnitdataPFI is SendULUnitdata with a Packet Flow Identifier.
func (g *Gb) SendULUnitdataPFI(tlli uint32, llc []byte, pfi uint8, hasPFI bool, now time.Duration) error {
	if !g.unblocked {
		return ErrBVCBlocked
	}
	ul := bssgp.ULUnitdata{TLLI: tlli, QoS: g.cfg.QoS, CellID: g.cfg.CellID, PFI: pfi, HasPFI: hasPFI, LLC: llc}
	if g.cfg.NoAlignment {
		ul.Alignment = -1
	}
	n, err := ul.MarshalTo(g.buf[ns.HeaderLen:])
	if err != nil {
		return err
	}
	return g.out(g.cfg.BVCI, tlli, n)
}

// SendLLCDiscarded reports frames dropped from tlli's DL queue (TS 48.018
// §10.4.3); frames is capped at 255 and octets at 2^24-1 as osmo-pcu does.
func (g *Gb) SendLLCDiscarded(tlli uint32, frames, octets int, now time.Duration) error {
	if !g.sigReset {
		return ErrBVCBlocked
	}
	d := bssgp.LLCDiscarded{TLLI: tlli, Frames: uint8(clamp(frames, 255)),
		BVCI: g.cfg.BVCI, NumOctets: uint32(clamp(octets, 0xffffff))}
	n, err := d.MarshalTo(g.buf[ns.HeaderLen:]) // (not send: no allocation)
	if err != nil {
		return err
	}
	return g.out(bssgp.BVCISignalling, 0, n)
}

// SendSuspend sends SUSPEND for tlli (PCUIF SUSP_REQ, TS 48.018 §10.3.6).
func (g *Gb) SendSuspend(tlli uint32, rai bssgp.RAI, now time.Duration) error {
	if !g.sigReset {
		return ErrBVCBlocked
	}
	return g.send(bssgp.BVCISignalling, 0, &bssgp.Suspend{TLLI: tlli, RAI: rai})
}

// SendResume sends RESUME (TS 48.018 §10.3.9).
func (g *Gb) SendResume(tlli uint32, rai bssgp.RAI, srn uint8, now time.Duration) error {
	if !g.sigReset {
		return ErrBVCBlocked
	}
	return g.send(bssgp.BVCISignalling, 0, &bssgp.Resume{TLLI: tlli, RAI: rai, SRN: srn})
}

// SendFlowControlMS sends FLOW-CONTROL-MS for one MS (TS 48.018 §10.4.6,
// §8.2.4); see MSFlowParams. Returns the tag used.
func (g *Gb) SendFlowControlMS(tlli uint32, bucketOctets, leakOctetsPerS int, now time.Duration) (uint8, error) {
	if !g.unblocked {
		return 0, ErrBVCBlocked
	}
	g.msTag++
	return g.msTag, g.send(g.cfg.BVCI, tlli, &bssgp.FlowControlMS{TLLI: tlli, Tag: g.msTag,
		BucketSize: bucketUnits(bucketOctets), LeakRate: rateUnits(leakOctetsPerS)})
}

// SendRadioStatus sends RADIO-STATUS for tlli (TS 48.018 §10.3.5).
func (g *Gb) SendRadioStatus(tlli uint32, radioCause uint8, now time.Duration) error {
	if !g.unblocked {
		return ErrBVCBlocked
	}
	return g.send(g.cfg.BVCI, tlli, &bssgp.RadioStatus{TLLI: tlli, HasTLLI: true, RadioCause: radioCause})
}

// SendFlushLLAck answers a FLUSH-LL (TS 48.018 §10.4.2).
func (g *Gb) SendFlushLLAck(a *bssgp.FlushLLAck, now time.Duration) error {
	return g.send(bssgp.BVCISignalling, 0, a)
}

// SendPDU sends any PDU on bvci with link selection parameter lsp.
func (g *Gb) SendPDU(bvci uint16, lsp uint32, p bssgp.PDU) error { return g.send(bvci, lsp, p) }

// envelope walks the IE list of a received PDU as libosmogb's TLV parser
// does (every IE TvLV, after the 1-octet header or the 8-octet UNITDATA
// header): ok=false when it does not parse. It returns the first BVCI IE
// of at least 2 octets.
func envelope(t bssgp.PDUType, b []byte) (bvci uint16, hasBVCI, ok bool) {
	off := 1
	if t == bssgp.PDUDLUnitdata || t == bssgp.PDUULUnitdata {
		off = 8
	}
	for off < len(b) {
		iei := bssgp.IEI(b[off])
		l, val, why := tlv.ReadLen(b, off+1)
		if why != "" || val+l > len(b) {
			return 0, false, false
		}
		if iei == bssgp.IEBVCI && !hasBVCI && l >= 2 {
			bvci, hasBVCI = uint16(b[val])<<8|uint16(b[val+1]), true
		}
		off = val + l
	}
	return bvci, hasBVCI, true
}
