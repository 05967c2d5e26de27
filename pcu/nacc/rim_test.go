package nacc

import (
	"bytes"
	"testing"

	"github.com/gopcu/gopcu/bssgp"
)

var (
	rimCellA = bssgp.CellID{RAI: bssgp.RAI{MCC: 262, MNC: 42, LAC: 13135, RAC: 0}, CI: 20960}
	rimCellB = bssgp.CellID{RAI: bssgp.RAI{MCC: 262, MNC: 42, LAC: 13300, RAC: 7}, CI: 880}
)

// rimRequest is cell B's request for cell A's SI.
func rimRequest() *bssgp.RIM { return RIMRequest(rimCellA, rimCellB) }

// TestRIMInfo: the answer to a NACC request goes back to its source, and
// carries the reporting cell and every whole SI of 21 octets (a trailing
// part is left out, and counted as missing).
func TestRIMInfo(t *testing.T) {
	req := rimRequest()
	si := bytes.Repeat([]byte{0x2b}, 2*bssgp.RIMSILen+5)
	resp, n := RIMInfo(req, rimCellA, si)
	if n != 2 || resp.PDUType != bssgp.PDURANInformation || !resp.Dest.Cell.Equal(rimCellB) || !resp.Src.Cell.Equal(rimCellA) {
		t.Fatalf("RIMInfo: %d SI, %+v", n, resp)
	}
	c, err := bssgp.ParseRIMContainer(bssgp.IERANInfoRIMCont, resp.Container)
	if err != nil || !RIMContainerDecodes(bssgp.IERANInfoRIMCont, &c) {
		t.Fatalf("container does not decode: %v", err)
	}
	a, err := bssgp.ParseNACCInfo(c.AppCont)
	if err != nil || !a.ReportingCell.Equal(rimCellA) || len(a.SI) != 2 || !bytes.Equal(SIOfRIM(&a).Buf, si[:2*bssgp.RIMSILen]) {
		t.Fatalf("NACC container %+v, %v", a, err)
	}
}

// TestRIMError: the refusal mirrors the request and carries its container
// as PDU in Error, with cause 0 (osmo-pcu format_response_pdu_err).
func TestRIMError(t *testing.T) {
	req := rimRequest()
	resp := RIMError(req)
	c, err := bssgp.ParseRIMContainer(bssgp.IERANInfoErrorRIMCont, resp.Container)
	if err != nil || resp.PDUType != bssgp.PDURANInformationError || !resp.Dest.Cell.Equal(rimCellB) ||
		!c.HasCause || c.Cause != 0 || c.AppID != bssgp.RIMAppNACC || !bytes.Equal(c.PDUInError, req.Container) {
		t.Fatalf("RIMError: %+v, container %+v, %v", resp, c, err)
	}
}

// TestRIMContainerDecodes: only NACC application containers decode.
func TestRIMContainerDecodes(t *testing.T) {
	good := bssgp.MarshalNACCRequest(rimCellA)
	for _, c := range []struct {
		kind bssgp.IEI
		c    bssgp.RIMContainer
		want bool
	}{
		{bssgp.IERANInfoReqRIMCont, bssgp.RIMContainer{AppID: bssgp.RIMAppNACC, AppCont: good}, true},
		{bssgp.IERANInfoReqRIMCont, bssgp.RIMContainer{AppID: bssgp.RIMAppNACC + 1, AppCont: good}, false},
		{bssgp.IERANInfoReqRIMCont, bssgp.RIMContainer{AppID: bssgp.RIMAppNACC, AppCont: good[:4]}, false},
		{bssgp.IERANInfoReqRIMCont, bssgp.RIMContainer{AppID: bssgp.RIMAppNACC + 1}, true}, // no container: the engine refuses the application
		{bssgp.IERANInfoRIMCont, bssgp.RIMContainer{AppID: bssgp.RIMAppNACC, AppError: []byte{1}}, true},
		{bssgp.IERANInfoAppErrRIM, bssgp.RIMContainer{AppID: bssgp.RIMAppNACC}, false},
	} {
		if got := RIMContainerDecodes(c.kind, &c.c); got != c.want {
			t.Errorf("%v %+v: %v, want %v", c.kind, c.c, got, c.want)
		}
	}
}
