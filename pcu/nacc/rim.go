package nacc

import "github.com/gopcu/gopcu/bssgp"

// The NACC application of RIM (TS 48.018 §8c; the application container:
// TS 48.018 §11.3.63, §11.3.62a), as osmo-pcu src/gprs_bssgp_rim.c builds
// and checks it. The engine routes the PDUs (pcu/rim.go); these are the
// parts that depend on nothing but the PDUs.

// RIMRequest is the RAN-INFORMATION-REQUEST of cell src for the SI of
// cell dest (NACC, single report; osmo-pcu neigh_cache.c and nacc_fsm.c
// st_wait_resolve_rac_ci_on_enter()).
func RIMRequest(dest, src bssgp.CellID) *bssgp.RIM {
	c := bssgp.RIMContainer{AppID: bssgp.RIMAppNACC, SeqNum: 1, HasSeqNum: true, ProtVer: 1, HasProtVer: true,
		AppCont: bssgp.MarshalNACCRequest(dest)}
	c.SetPDUInd(bssgp.RIMReqSingle, false)
	return &bssgp.RIM{PDUType: bssgp.PDURANInformationReq,
		Dest:      bssgp.RIMRoutingInfo{Discr: bssgp.RIMRoutingGERAN, Cell: dest},
		Src:       bssgp.RIMRoutingInfo{Discr: bssgp.RIMRoutingGERAN, Cell: src},
		Container: bssgp.MarshalRIMContainer(bssgp.IERANInfoReqRIMCont, &c)}
}

// RIMContainerDecodes applies libosmogb's application container checks to
// a RIM container of kind: only NACC containers decode (8 octets of
// reporting cell for a request, a valid SI list for RAN-INFORMATION, a
// cause for an application error). osmo-pcu leaves a PDU that fails them
// undecoded and answers nothing.
func RIMContainerDecodes(kind bssgp.IEI, c *bssgp.RIMContainer) bool {
	switch kind {
	case bssgp.IERANInfoReqRIMCont:
		if c.AppCont == nil {
			return true
		}
		_, err := bssgp.ParseNACCRequest(c.AppCont)
		return c.AppID == bssgp.RIMAppNACC && err == nil
	case bssgp.IERANInfoRIMCont:
		if c.AppCont != nil {
			_, err := bssgp.ParseNACCInfo(c.AppCont)
			return c.AppID == bssgp.RIMAppNACC && err == nil
		}
		if c.AppError != nil {
			return c.AppID == bssgp.RIMAppNACC && len(c.AppError) >= 1
		}
	case bssgp.IERANInfoAppErrRIM:
		return c.AppID == bssgp.RIMAppNACC && len(c.AppError) >= 1
	}
	return true
}

// RIMError is the RAN-INFORMATION-ERROR refusing request req: application
// NACC, protocol version 1, the request's RIM container as PDU in Error.
// The cause is 0 as osmo-pcu leaves it (format_response_pdu_err).
func RIMError(req *bssgp.RIM) *bssgp.RIM {
	c := bssgp.RIMContainer{AppID: bssgp.RIMAppNACC, HasCause: true, Cause: 0, ProtVer: 1, HasProtVer: true,
		PDUInError: req.Container}
	return req.Mirror(bssgp.PDURANInformationError, bssgp.MarshalRIMContainer(bssgp.IERANInfoErrorRIMCont, &c))
}

// RIMInfo is the RAN-INFORMATION answering NACC request req (osmo-pcu
// handle_ran_info_request): single report, sequence number 1, rep as
// reporting cell and the system information si (SI1, SI3, SI13 of
// bssgp.RIMSILen octets each, as the BTS gave them). It also returns how
// many SI it carries (osmo-pcu logs fewer than 3).
func RIMInfo(req *bssgp.RIM, rep bssgp.CellID, si []byte) (*bssgp.RIM, int) {
	a := bssgp.NACCInfo{ReportingCell: rep}
	for i := 0; i+bssgp.RIMSILen <= len(si); i += bssgp.RIMSILen {
		a.SI = append(a.SI, si[i:i+bssgp.RIMSILen])
	}
	c := bssgp.RIMContainer{AppID: bssgp.RIMAppNACC, SeqNum: 1, HasSeqNum: true, ProtVer: 1, HasProtVer: true, AppCont: a.Marshal()}
	c.SetPDUInd(bssgp.RIMInfoSingle, false)
	return req.Mirror(bssgp.PDURANInformation, bssgp.MarshalRIMContainer(bssgp.IERANInfoRIMCont, &c)), len(a.SI)
}

// SIOfRIM is the SI cache entry of a RAN-INFORMATION's NACC container.
func SIOfRIM(a *bssgp.NACCInfo) SI {
	si := SI{PSI: a.PSI}
	for _, s := range a.SI {
		si.Buf = append(si.Buf, s...)
	}
	return si
}
