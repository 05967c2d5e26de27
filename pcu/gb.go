package pcu

import (
	"errors"
	"fmt"
	"net/netip"
	"time"

	"github.com/gopcu/gopcu/bssgp"
	"github.com/gopcu/gopcu/bssgp/bss"
	"github.com/gopcu/gopcu/bssgp/ns/nse"
	"github.com/gopcu/gopcu/internal/logx"
	"github.com/gopcu/gopcu/llc"
	"github.com/gopcu/gopcu/pcu/multislot"
	"github.com/gopcu/gopcu/pcu/pcuif"
	"github.com/gopcu/gopcu/rlcmac"
)

// gbLink is the engine's Gb stack: the bss.Gb (NS + BSSGP state
// machines, owned by the engine goroutine) and one NS socket per NS bind,
// opened by the driver (IO.NS), which hands the datagrams to HandleNS. It
// is built from the first BTS's INFO_IND (as osmo-pcu, Gb serves BTS 0),
// follows later INFO_INDs (binds opened and closed with the NS-VCs that
// use them) and survives the loss of the BTS.
type gbLink struct {
	gb    *bss.Gb
	socks []*gbSock // indexed by nse.Endpoint.Bind; nil: not open
	cfg   bss.Config
	e     *Engine
}

// gbSock is one open NS bind.
type gbSock struct {
	addr netip.AddrPort // as configured (wildcard for classic NS)
	sock NSSocket
}

var errNoNS = errors.New("pcu: no NS socket opener attached")

// openSock opens the socket of a bind on addr through the driver's opener.
func (e *Engine) openSock(addr netip.AddrPort) (*gbSock, error) {
	if e.ns == nil {
		return nil, errNoNS
	}
	s, err := e.ns.OpenNS(addr)
	if err != nil {
		return nil, err
	}
	return &gbSock{addr: addr, sock: s}, nil
}

func (s *gbSock) close() { s.sock.Close() }

// syncSocks makes the open sockets those of binds: unchanged binds keep
// their socket, changed ones are closed first (a port may move from one
// bind to another), then the missing ones are opened. It returns how many
// binds are open.
func (gl *gbLink) syncSocks(binds []netip.AddrPort) int {
	for i, s := range gl.socks {
		if s != nil && (i >= len(binds) || binds[i] != s.addr) {
			s.close()
			gl.socks[i] = nil
		}
	}
	if len(gl.socks) > len(binds) {
		gl.socks = gl.socks[:len(binds)]
	}
	for len(gl.socks) < len(binds) {
		gl.socks = append(gl.socks, nil)
	}
	n := 0
	for i, a := range binds {
		if gl.socks[i] == nil && a.IsValid() {
			s, err := gl.e.openSock(a)
			if err != nil {
				gl.e.gbLog.Error("cannot open an NS UDP socket", "bind", i, "addr", a, "err", err)
				continue
			}
			gl.socks[i] = s
		}
		if gl.socks[i] != nil {
			n++
		}
	}
	return n
}

func (gl *gbLink) closeSocks() {
	for _, s := range gl.socks {
		if s != nil {
			s.close()
		}
	}
	gl.socks = nil
}

// send is the NS transport: bind's socket.
func (gl *gbLink) send(bind int, to netip.AddrPort, b []byte) error {
	if bind < 0 || bind >= len(gl.socks) || gl.socks[bind] == nil {
		return fmt.Errorf("gb: bind %d not open", bind)
	}
	return gl.socks[bind].sock.Send(to, b)
}

// HandleNS hands a datagram the driver received on s, from from, to the
// Gb, unless s is no longer the socket of a bind (closed since: the bind
// was reconfigured). b is valid during the call only: nothing on the Gb
// side keeps a slice of it (bss.Handler's slices are valid during the
// call only; the engine's handlers copy what they keep: the LLC frame
// into the MS queue, SIs from RIM, paging identities). Engine goroutine
// only.
func (e *Engine) HandleNS(s NSSocket, from netip.AddrPort, b []byte) {
	gl := e.gbl
	if gl == nil {
		return
	}
	for i, x := range gl.socks {
		if x != nil && x.sock == s {
			gl.gb.Input(i, from, b, e.gbNow())
			return
		}
	}
	e.l1ctr.Inc(L1GbStale)
}

// gbNow is the Gb's monotonic time.
func (e *Engine) gbNow() time.Duration { return e.cfg.Clock.Now() }

// gbConfigure builds or updates the Gb stack from an INFO_IND
// (osmo-pcu pcu_l1_if.cpp pcu_info_ind_ns(), gprs_bssgp_pcu.c gprs_ns_update_config()).
func (e *Engine) gbConfigure(bts *BTS) {
	if !e.cfg.Gb || bts.Nr != 0 {
		return
	}
	ii := &bts.Info
	var nsvcs []nse.InfoIndNSVC
	for i := 0; i < pcuif.NumNSVC; i++ {
		if ii.AddrType[i] == pcuif.AddrUnspec {
			continue
		}
		nsvcs = append(nsvcs, nse.InfoIndNSVC{NSVCI: ii.NSVCI[i], LocalPort: ii.LocalPort[i], RemotePort: ii.RemotePort[i],
			AddrType: ii.AddrType[i], RemoteIP: ii.RemoteIP[i]})
	}
	eps := nse.EndpointsFromInfoInd(nsvcs)
	if len(eps) == 0 {
		e.gbLog.Error("INFO_IND has no usable NS-VC, Gb not started")
		return
	}
	mcc, mnc := ii.MCC, ii.MNC
	if e.params.OverrideMCC > 0 {
		mcc, mnc = uint16(e.params.OverrideMCC), uint16(e.params.OverrideMNC)
	}
	dialect := nse.DialectClassic
	if e.params.GbDialect == "ip-sns" {
		dialect = nse.DialectIPSNS
	}
	cfg := bss.Config{
		NS:                  nse.Config{NSEI: ii.NSEI, Dialect: dialect, Endpoints: eps, Timers: e.params.NSTimers, SourceAddr: e.sourceAddr},
		BVCI:                ii.BVCI,
		CellID:              bssgp.CellID{RAI: bssgp.RAI{MCC: mcc, MNC: mnc, MNC3Digits: ii.MNC3Digits, LAC: ii.LAC, RAC: uint8(ii.RAC)}, CI: ii.CellID},
		FlowControlInterval: e.params.FlowControlInterval,
		Counters:            e.cfg.Counters, // bssgp:bss_ctx, ns:nse, ns:nsvc groups
	}
	now := e.gbNow()
	binds := nse.BindAddrs(eps)
	if e.gbl != nil {
		e.gbl.syncSocks(binds) // new binds open before their NS-VCs send
		if err := e.gbl.gb.Reconfigure(cfg, now); err != nil {
			e.gbLog.Error("cannot reconfigure Gb", "err", err)
		}
		e.gbl.cfg = cfg
		return
	}
	gl := &gbLink{cfg: cfg, e: e}
	if gl.syncSocks(binds) == 0 {
		gl.closeSocks()
		e.gbLog.Error("cannot open the NS UDP sockets, Gb not started")
		return
	}
	gb, err := bss.New(cfg, nse.TransportFunc(gl.send), gbHandler{e}, e.cfg.Logs.Logger(logx.CatBSSGP))
	if err != nil {
		gl.closeSocks()
		e.gbLog.Error("cannot start Gb", "err", err)
		return
	}
	gl.gb = gb
	e.gbl = gl
	e.gb = gbAdapter{gb: gb, now: e.gbNow}
	gb.Start(now)
	logx.Notice(e.gbLog, "Gb started", "nsei", cfg.NS.NSEI, "bvci", cfg.BVCI, "dialect", e.params.GbDialect)
}

// gbDeadline is when the Gb wants its next Tick (ok=false: never).
func (e *Engine) gbDeadline() (time.Duration, bool) {
	if e.gbl == nil {
		return 0, false
	}
	return e.gbl.gb.NextDeadline()
}

func (e *Engine) gbClose() {
	if e.gbl != nil {
		e.gbl.gb.Close(e.gbNow())
		e.gbl.closeSocks()
		e.gbl = nil
	}
}

// GbUp reports whether the PTP BVC is unblocked. Engine goroutine only.
func (e *Engine) GbUp() bool { return e.gbl != nil && e.gbl.gb.Unblocked() }

// gbHandler receives the SGSN's PDUs inside the engine goroutine.
type gbHandler struct{ e *Engine }

func (h gbHandler) DLUnitdata(p *bssgp.DLUnitdata, now time.Duration) {
	e := h.e
	// d and its LLC frame alias the datagram: HandleDLUnitdata copies the
	// frame into a pooled buffer and keeps nothing else
	d := DLUnitdata{TLLI: p.TLLI, Lifetime: p.PDULifetime, LLC: p.LLC}
	if p.HasOldTLLI {
		d.OldTLLI = p.OldTLLI
	}
	// timers first (HandleDLUnitdata's order): an MS they free is not
	// taken for known here (its classes would keep the new MS's from
	// being decoded)
	e.timersDue()
	var known *MS // the MS HandleDLUnitdata will take, if known by TLLI
	if bts := e.bts[0]; bts != nil {
		known = bts.ms.byTLLI[p.TLLI]
	}
	if len(p.IMSI) > 0 {
		var buf [32]byte
		if digits, err := bssgp.AppendIMSI(buf[:0], p.IMSI); err == nil {
			d.IMSI = e.imsiString(known, digits)
		}
	}
	// MS Radio Access Capability: only its multislot classes, and only
	// while the MS has not got them (HandleDLUnitdata keeps the first)
	if len(p.MSRAC) > 0 && (known == nil || known.MSClass == 0 || known.EGPRSClass == 0) {
		var rac rlcmac.MSRadioAccessCapability
		if rlcmac.DecodeMSRadioAccessCapability(p.MSRAC, &rac) == nil {
			g, eg, _ := rac.MultislotClasses()
			d.MSClass, d.EGPRS = int(g), int(eg)
		}
	}
	e.handleDLUnitdata(0, &d)
}

// imsiString returns digits as a string, without allocating when it is
// the IMSI of m or of a known MS (the usual case: the SGSN names the IMSI
// in every DL-UNITDATA of an MS).
func (e *Engine) imsiString(m *MS, digits []byte) string {
	if m != nil && m.IMSI == string(digits) {
		return m.IMSI
	}
	if bts := e.bts[0]; bts != nil {
		if o := bts.ms.byIMSI[string(digits)]; o != nil {
			return o.IMSI
		}
	}
	return string(digits)
}

func (h gbHandler) PagingPS(p *bssgp.PagingPS, now time.Duration) {
	h.e.sgsnCtr.Inc(SGSNCtrRxPagingPS)
	h.e.pagingPS(p)
}

func (h gbHandler) PagingCS(p *bssgp.PagingCS, now time.Duration) {
	h.e.sgsnCtr.Inc(SGSNCtrRxPagingCS)
	h.e.pagingCS(p)
}

func (h gbHandler) BVCState(up bool, now time.Duration) {
	h.e.opBVCState(up, now) // oplog.go
}

// FlowControl gives FLOW-CONTROL-BVC the cell's drain capacity
// (osmo-pcu gprs_bssgp_pcu.c gprs_bssgp_tx_fc_bvc()): PDCHs x current coding scheme rate, blended with
// what the MSs acknowledged since the last one by the share of blocks that
// carried it, and the mean queueing delay of the frames sent.
func (h gbHandler) FlowControl(now time.Duration) (bss.FlowParams, bool) {
	e := h.e
	bts := e.bts[0]
	if bts == nil {
		return bss.FlowParams{}, false
	}
	return e.flowParams(bts), true
}

func (e *Engine) flowParams(bts *BTS) bss.FlowParams {
	cs := e.fcCodingScheme(bts)
	peak := cs.DataLen() * cs.DataUnits() * 50 // osmo-pcu gprs_bssgp_max_leak_rate()
	npdch := max(bts.EnabledPDCHs(), 1)
	in := bss.FlowInput{NumPDCH: npdch, PeakRatePerPDCH: peak, MaxSlotsPerMS: min(multislot.MaxDLSlots(e.params.MultislotDefault, 0), 4),
		ForceBVCBucket: e.params.FCForceBVCBucket, ForceBVCLeak: e.params.FCForceBVCLeak,
		ForceMSBucket: e.params.FCForceMSBucket, ForceMSLeak: e.params.FCForceMSLeak, BucketTime: e.params.FCBucketTime,
		LLCLifetime: int(e.params.LLC.Lifetime)}
	fc := &bts.fc
	if fc.rtsBlocks > 0 && fc.recvBlocks > 0 {
		// osmo-pcu's measurement: octets per acknowledged block x 50
		// blocks/s x PDCHs, weighted by the share of blocks used
		in.UsagePermille = int(min(fc.recvBlocks*1000/fc.rtsBlocks, 1000))
		in.MeasuredRate = int(fc.recvBytes * 1000 * uint64(npdch) / (20 * fc.recvBlocks))
	}
	if fc.delayN > 0 {
		in.AvgQueueDelay = fc.delaySum / time.Duration(fc.delayN)
	}
	*fc = fcMeasure{}
	return bss.ComputeFlowControl(in)
}

// fcCodingScheme is the coding scheme whose rate FLOW-CONTROL-BVC offers
// per PDCH (osmo-pcu gprs_bssgp_pcu.c max_coding_scheme_dl()): with link
// adaptation (`cs threshold`, the default) the highest the cell allows
// within `mcs max` / `cs max`, which the TBFs reach on a good radio;
// without it the initial one (INFO_IND), else the highest allowed. MCSs
// when the BTS allows any. gopcu offered the initial CS before (CS-2 in
// the Osmocom lab, 60 % of the CS-4 the TBFs ran at): osmo-sgsn's BVC
// bucket then held back what the cell could have carried.
func (e *Engine) fcCodingScheme(bts *BTS) rlcmac.CodingScheme {
	p := &e.params
	highest := func(mask uint16, limit int) int {
		for n := limit; n >= 1; n-- {
			if mask&(1<<(n-1)) != 0 {
				return n
			}
		}
		return 0
	}
	if bts.MCSMask != 0 {
		n := highest(bts.MCSMask, 9)
		switch {
		case !p.CSAdjust && bts.Info.InitialMCS != 0:
			n = int(bts.Info.InitialMCS)
		case p.CSAdjust:
			n = highest(bts.MCSMask, min(max(p.MCSMaxDL, 1), 9))
			if n == 0 {
				n = 9
			}
		}
		return rlcmac.MCS1 + rlcmac.CodingScheme(min(max(n, 1), 9)-1)
	}
	mask := uint16(bts.CSMask) | 1 // CS-1 always
	n := highest(mask, 4)
	switch {
	case !p.CSAdjust && bts.Info.InitialCS != 0:
		n = int(bts.Info.InitialCS)
	case p.CSAdjust:
		n = highest(mask, min(max(p.CSMaxDL, 1), 4))
	}
	return rlcmac.CS1 + rlcmac.CodingScheme(min(max(n, 1), 4)-1)
}

func (h gbHandler) Other(bvci uint16, p bssgp.PDU, now time.Duration) {
	if r, ok := p.(*bssgp.RIM); ok {
		h.e.rimRx(r) // rim.go
		return
	}
	h.e.gbLog.Debug("BSSGP PDU not handled by the engine", "bvci", bvci, "pdu", p.Type())
}

// pagingPS pages an MS on CCCH (PAGING REQUEST TYPE 1 on PCH,
// TS 44.018 §9.1.22; osmo-pcu gprs_bssgp_pcu.c gprs_bssgp_pcu_rx_paging_ps()).
func (e *Engine) pagingPS(p *bssgp.PagingPS) {
	bts := e.bts[0]
	if bts == nil || !bts.Active {
		return
	}
	imsi, err := bssgp.DecodeIMSI(p.IMSI)
	if err != nil {
		return
	}
	e.clockNow()
	if bts.pchPending(imsi) { // T3113 runs: paged already (osmo-pcu gprs_bssgp_pcu.c)
		bts.Ctr.Inc(CtrPCHRequestsAlready)
		return
	}
	var pr rlcmac.PagingRequestType1
	if p.HasTMSI {
		// TS 24.008 §10.5.1.4: odd/even 0, type TMSI (4), filler 0xF
		pr.MILen = 5
		pr.MI = [8]byte{0xf4, byte(p.PTMSI >> 24), byte(p.PTMSI >> 16), byte(p.PTMSI >> 8), byte(p.PTMSI)}
	} else if len(p.IMSI) <= 8 {
		pr.MILen = uint8(copy(pr.MI[:], p.IMSI)) // the BSSGP IMSI IE is a Mobile Identity value
	} else {
		return
	}
	pr.PacketPage1 = true
	var mac [rlcmac.MACBlockLen]byte
	if _, err := rlcmac.EncodePagingRequestType1(mac[:], &pr); err != nil {
		e.gbLog.Error("cannot encode paging", "err", err)
		return
	}
	e.sendPCH(bts, imsi, mac[:], msgIDNone, false)
	bts.Ctr.Inc(CtrPCHRequests)
	e.pchStart(bts, imsi, p.PTMSI, p.HasTMSI)
}

// flowControlMS sends FLOW-CONTROL-MS for every MS with a DL TBF (TS
// 48.018 §8.2), with `flow-control-ms` only: osmo-pcu never sends it, and
// an SGSN may not expect it (the Osmocom TTCN-3 suite's BSSGP emulation
// fails a testcase on one for a TLLI it did not register). The bucket holds what the MS's
// radio drains in one AQM interval, the leak rate is that drain rate, so
// the SGSN holds back what the air interface cannot carry instead of the
// PCU having to drop it.
func (e *Engine) flowControlMS() {
	if e.gbl == nil || !e.gbl.gb.Unblocked() {
		return
	}
	bts := e.bts[0]
	if bts == nil {
		return
	}
	now := e.gbNow()
	for _, m := range bts.ms.all {
		t := m.DL
		if t == nil || !t.attached || m.TLLI == TLLIUnset {
			continue
		}
		rate := llc.DrainRate(t.cs.DataLen(), popcount8(t.slots))
		bucket, leak := bss.MSFlowParams(rate, e.params.LLC.ParamsFor(rate).Interval)
		if _, err := e.gbl.gb.SendFlowControlMS(m.TLLI, bucket, leak, now); err != nil {
			e.l1ctr.Inc(L1GbFlowControlMSDropped)
			e.opDrop(e.gbLog, dropFlowControlMSNotSent, func() string {
				return fmt.Sprintf("%s FLOW-CONTROL-MS dropped: not sent to the SGSN: %v", m, err)
			})
		}
	}
}
