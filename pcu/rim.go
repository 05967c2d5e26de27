package pcu

import (
	"fmt"

	"github.com/gopcu/gopcu/bssgp"
	"github.com/gopcu/gopcu/pcu/nacc"
)

// RIM (TS 48.018 §8c) for NACC, as osmo-pcu src/gprs_bssgp_rim.c:
//
//   - every RIM PDU must be addressed to a GERAN cell (else STATUS "Unknown
//     RIM Application Identity") of one of this PCU's BTSs (else STATUS
//     "Unknown destination address", §8c.3.1.2);
//   - a RAN-INFORMATION-REQUEST for the NACC application whose reporting
//     cell is the destination cell is answered with RAN-INFORMATION (single
//     report, SI1, SI3 and SI13 of that BTS); another application or
//     another reporting cell gets RAN-INFORMATION-ERROR; a request whose
//     container does not decode gets no answer;
//   - a RAN-INFORMATION for NACC fills the SI cache and wakes the NACC state
//     machines waiting for that cell;
//   - RAN-INFORMATION-ERROR and -APPLICATION-ERROR (and a RAN-INFORMATION
//     with an application error) are logged and end the wait of the NACC
//     state machines for that cell (osmo-pcu lets X2 expire);
//     RAN-INFORMATION-ACK is logged.

// RIMReceived hands a RIM PDU received on the signalling BVC to the engine.
// Engine goroutine only.
func (e *Engine) RIMReceived(p *bssgp.RIM) { e.rimRx(p) }

func (e *Engine) rimRx(p *bssgp.RIM) {
	n := e.naccState()
	log := n.rimLog
	if p.Dest.Discr != bssgp.RIMRoutingGERAN {
		log.Error("only GERAN supported, destination cell is not a GERAN cell -- rejected", "dest", p.Dest.String())
		e.rimStatus(bssgp.CauseUnknownRIMAppIdentity, p)
		return
	}
	var bts *BTS
	for _, b := range e.btsList {
		if b.Active && btsCGI(b).Equal(p.Dest.Cell) {
			bts = b
			break
		}
	}
	if bts == nil {
		log.Error("destination cell unknown to this PCU", "dest", p.Dest.Cell.String())
		e.rimStatus(bssgp.CauseUnknownDestination, p)
		return
	}
	kind := bssgp.RIMContainerIEI(p.PDUType)
	c, err := bssgp.ParseRIMContainer(kind, p.Container)
	if err != nil || !nacc.RIMContainerDecodes(kind, &c) {
		// libosmogb leaves such a PDU undecoded; osmo-pcu logs it and
		// answers nothing.
		log.Error("erroneous RIM PDU received -- reject", "dest", p.Dest.Cell.String(), "pdu", p.PDUType.String(), "err", err)
		return
	}
	switch p.PDUType {
	case bssgp.PDURANInformationReq:
		e.rimRequest(bts, p, &c)
	case bssgp.PDURANInformation:
		e.rimInformation(p, &c)
	case bssgp.PDURANInformationError, bssgp.PDURANInfoAppError:
		cause := -1
		if c.HasCause {
			cause = int(c.Cause)
		} else if len(c.AppError) > 0 {
			cause = int(c.AppError[0])
		}
		log.Error("Rx RIM error", "pdu", p.PDUType.String(), "src", p.Src.String(), "cause", cause)
		e.rimFailed(p.Src)
	default:
		log.Error("RIM PDU not handled by this application", "pdu", p.PDUType.String(), "src", p.Src.String())
	}
}

func (e *Engine) rimStatus(c bssgp.Cause, p *bssgp.RIM) {
	b, err := bssgp.Marshal(p)
	if err == nil {
		err = e.sendSignalling(&bssgp.Status{Cause: c, PDUInError: b})
	}
	if err != nil {
		e.rimNotSent("STATUS", err)
	}
}

// rimNotSent counts and logs a RIM PDU (or the STATUS answering one) that
// could not be built or sent.
func (e *Engine) rimNotSent(what string, err error) {
	e.l1ctr.Inc(L1GbRIMDropped)
	e.opDrop(e.naccState().rimLog, dropRIMNotSent, func() string {
		return fmt.Sprintf("%s dropped: not sent to the SGSN: %v", what, err)
	})
}

// rimRequest answers a RAN-INFORMATION-REQUEST for bts (osmo-pcu
// handle_ran_info_request).
func (e *Engine) rimRequest(bts *BTS, p *bssgp.RIM, c *bssgp.RIMContainer) {
	log := e.naccState().rimLog
	var rep bssgp.CellID
	if c.AppCont != nil {
		rep, _ = bssgp.ParseNACCRequest(c.AppCont)
	}
	var resp *bssgp.RIM
	switch {
	case c.AppID != bssgp.RIMAppNACC:
		log.Error("Rx RAN-INFO-REQ with unknown/wrong application ID -- reject", "cell", btsCGI(bts).String(), "app", c.AppID)
		resp = nacc.RIMError(p)
	case !rep.Equal(btsCGI(bts)):
		log.Error("reporting cell in RIM application container does not match destination cell -- rejected",
			"reporting", rep.String(), "dest", btsCGI(bts).String())
		resp = nacc.RIMError(p)
	default:
		log.Info("responding to RAN INFORMATION REQUEST", "cell", rep.String())
		resp = e.rimInfo(bts, p)
	}
	if err := e.sendSignalling(resp); err != nil {
		e.rimNotSent(resp.PDUType.String(), err)
	}
}

// rimInfo is the RAN-INFORMATION answering a NACC request for bts: the
// BVC's cell as reporting cell and the BTS's SI1, SI3, SI13 (nacc.RIMInfo).
func (e *Engine) rimInfo(bts *BTS, req *bssgp.RIM) *bssgp.RIM {
	rep := btsCGI(bts)
	if e.gbl != nil && bts.Nr == 0 {
		rep = e.gbl.cfg.CellID // osmo-pcu: the BVC context's RA-ID and cell id
	}
	resp, n := nacc.RIMInfo(req, rep, btsSI(bts).Buf)
	if n < 3 {
		e.naccState().log.Info("TX RAN INFO RESPONSE (NACC): some SI are missing", "cell", rep.String(), "si", n)
	}
	return resp
}

// rimInformation stores a RAN-INFORMATION's SI in the SI cache and wakes
// the waiting NACC state machines (osmo-pcu handle_ran_info_response).
func (e *Engine) rimInformation(p *bssgp.RIM, c *bssgp.RIMContainer) {
	n := e.naccState()
	if c.AppID != bssgp.RIMAppNACC {
		n.rimLog.Error("Rx RAN-INFO with unknown/wrong application ID -- reject", "app", c.AppID)
		return
	}
	if c.AppError != nil || c.AppCont == nil {
		cause := -1
		if len(c.AppError) > 0 {
			cause = int(c.AppError[0])
		}
		n.rimLog.Error("Rx RAN-INFO with an app error", "src", p.Src.String(), "nacc_cause", cause)
		e.rimFailed(p.Src)
		return
	}
	a, _ := bssgp.ParseNACCInfo(c.AppCont)
	si := nacc.SIOfRIM(&a)
	n.rimLog.Info("Rx RAN-INFO", "cell", a.ReportingCell.String(), "psi", a.PSI, "num_si", len(a.SI))
	n.si.Add(a.ReportingCell, si, e.now)
	for _, x := range n.fsms {
		if x.fsm.WaitingSI(a.ReportingCell) {
			x.fsm.RxSI(a.ReportingCell, si, e.now)
		}
	}
	e.naccReap()
}

// rimFailed ends the wait of the NACC state machines asking for the SI of
// the cell that refused (gopcu: at once; osmo-pcu only logs and lets X2
// expire).
func (e *Engine) rimFailed(src bssgp.RIMRoutingInfo) {
	if src.Discr != bssgp.RIMRoutingGERAN || e.nacc == nil {
		return
	}
	for _, x := range e.nacc.fsms {
		x.fsm.RxSIError(src.Cell, e.now)
	}
	e.naccReap()
}
