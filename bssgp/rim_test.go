package bssgp_test

import (
	"bytes"
	"encoding/hex"
	"errors"
	"strings"
	"testing"

	"github.com/gopcu/gopcu/bssgp"
	"github.com/gopcu/gopcu/internal/testutil"
)

var labCell = bssgp.CellID{RAI: bssgp.RAI{MCC: 901, MNC: 70, LAC: 1, RAC: 0}, CI: 6969}

var rimTarget = bssgp.CellID{RAI: bssgp.RAI{MCC: 901, MNC: 70, LAC: 2, RAC: 0}, CI: 7000}

func geran(c bssgp.CellID) bssgp.RIMRoutingInfo {
	return bssgp.RIMRoutingInfo{Discr: bssgp.RIMRoutingGERAN, Cell: c}
}

// naccRequest is the RAN-INFORMATION-REQUEST osmo-pcu sends for NACC
// (nacc_fsm.c fill_rim_ran_info_req): app NACC, seq 1, single report, no
// ACK, protocol version 1, reporting cell = target.
func naccRequest() *bssgp.RIM {
	c := bssgp.RIMContainer{AppID: bssgp.RIMAppNACC, SeqNum: 1, HasSeqNum: true, ProtVer: 1, HasProtVer: true,
		AppCont: bssgp.MarshalNACCRequest(rimTarget)}
	c.SetPDUInd(bssgp.RIMReqSingle, false)
	return &bssgp.RIM{PDUType: bssgp.PDURANInformationReq, Dest: geran(rimTarget), Src: geran(labCell),
		Container: bssgp.MarshalRIMContainer(bssgp.IERANInfoReqRIMCont, &c)}
}

// Real-looking SI1, SI3 and SI13 as the RIM container carries them (21
// octets from the message type on, TS 48.018 §11.3.63.2.1).
var (
	rimSI1  = "19" + "000000000000000000000000000000" + "01" + "e50400" + "2b"
	rimSI3  = "1b" + "1b39" + "09f1070001" + "480300" + "25" + "4740" + "e50400" + "2b2b2b2b"
	rimSI13 = "0082a64c1e940fc5ef692a5053cb4b2b2b2b2b2b2b"
)

func naccInfo() *bssgp.RIM {
	si := func(h string) []byte {
		b, err := hex.DecodeString(h)
		if err != nil || len(b) != 21 {
			panic(h)
		}
		return b
	}
	a := bssgp.NACCInfo{ReportingCell: rimTarget, SI: [][]byte{si(rimSI1), si(rimSI3), si(rimSI13)}}
	c := bssgp.RIMContainer{AppID: bssgp.RIMAppNACC, SeqNum: 1, HasSeqNum: true, ProtVer: 1, HasProtVer: true,
		AppCont: a.Marshal()}
	c.SetPDUInd(bssgp.RIMInfoSingle, false)
	return naccRequest().Mirror(bssgp.PDURANInformation, bssgp.MarshalRIMContainer(bssgp.IERANInfoRIMCont, &c))
}

func naccError() *bssgp.RIM {
	req := naccRequest()
	c := bssgp.RIMContainer{AppID: bssgp.RIMAppNACC, HasCause: true, ProtVer: 1, HasProtVer: true, PDUInError: req.Container}
	return req.Mirror(bssgp.PDURANInformationError, bssgp.MarshalRIMContainer(bssgp.IERANInfoErrorRIMCont, &c))
}

func naccAppError() *bssgp.RIM {
	c := bssgp.RIMContainer{AppID: bssgp.RIMAppNACC, SeqNum: 1, HasSeqNum: true, ProtVer: 1, HasProtVer: true,
		AppError: append([]byte{bssgp.NACCCauseReportingCell, 0x4d, 0x88}, bssgp.MarshalNACCRequest(labCell)...)}
	c.SetPDUInd(bssgp.RIMInfoSingle, false)
	return naccRequest().Mirror(bssgp.PDURANInfoAppError, bssgp.MarshalRIMContainer(bssgp.IERANInfoAppErrRIM, &c))
}

func naccAck() *bssgp.RIM {
	c := bssgp.RIMContainer{AppID: bssgp.RIMAppNACC, SeqNum: 7, HasSeqNum: true, ProtVer: 1, HasProtVer: true}
	return naccRequest().Mirror(bssgp.PDURANInformationAck, bssgp.MarshalRIMContainer(bssgp.IERANInfoAckRIMCont, &c))
}

// TestRIMGolden pins the request octet by octet (TS 48.018 §10.6.1,
// §11.3.62a.1, §11.3.63.1.1, §11.3.70) and round-trips all five PDUs.
func TestRIMGolden(t *testing.T) {
	want := "71" +
		"5489" + "00" + "09f107000200" + "1b58" + // destination: GERAN cell 901-70-2-0 / 7000
		"5489" + "00" + "09f107000100" + "1b39" + // source: 901-70-1-0 / 6969
		"5799" + "4b8101" + "4c8400000001" + "4f8102" + "558101" + "4d88" + "09f107000200" + "1b58"
	b, err := bssgp.Marshal(naccRequest())
	if err != nil {
		t.Fatal(err)
	}
	if got := hex.EncodeToString(b); got != want {
		t.Fatalf("RAN-INFORMATION-REQUEST\n got %s\nwant %s", got, want)
	}
	for _, p := range []*bssgp.RIM{naccRequest(), naccInfo(), naccError(), naccAppError(), naccAck()} {
		b, err := bssgp.Marshal(p)
		if err != nil {
			t.Fatal(err)
		}
		q, err := bssgp.Parse(b)
		if err != nil {
			t.Fatalf("%s: %v", p.PDUType, err)
		}
		r, ok := q.(*bssgp.RIM)
		if !ok || r.PDUType != p.PDUType || r.Dest.Cell != p.Dest.Cell || r.Src.Cell != p.Src.Cell || !bytes.Equal(r.Container, p.Container) {
			t.Fatalf("%s: round trip %+v != %+v", p.PDUType, r, p)
		}
		c, err := bssgp.ParseRIMContainer(bssgp.RIMContainerIEI(r.PDUType), r.Container)
		if err != nil {
			t.Fatalf("%s container: %v", p.PDUType, err)
		}
		if c.AppID != bssgp.RIMAppNACC || c.ProtVer != 1 {
			t.Errorf("%s container %+v", p.PDUType, c)
		}
		if b2 := bssgp.MarshalRIMContainer(bssgp.RIMContainerIEI(r.PDUType), &c); !bytes.Equal(b2, r.Container) {
			t.Errorf("%s container re-encodes as %x, was %x", p.PDUType, b2, r.Container)
		}
	}
	// the RAN-INFORMATION's application container
	c, _ := bssgp.ParseRIMContainer(bssgp.IERANInfoRIMCont, naccInfo().Container)
	if c.PDUTypeExt() != bssgp.RIMInfoSingle || c.AckRequested() {
		t.Errorf("PDU indications %02x", c.PDUInd)
	}
	a, err := bssgp.ParseNACCInfo(c.AppCont)
	if err != nil || !a.ReportingCell.Equal(rimTarget) || a.PSI || len(a.SI) != 3 || a.SI[1][0] != 0x1b {
		t.Fatalf("NACC info %+v %v", a, err)
	}
	e, _ := bssgp.ParseRIMContainer(bssgp.IERANInfoErrorRIMCont, naccError().Container)
	if !e.HasCause || !bytes.Equal(e.PDUInError, naccRequest().Container) {
		t.Errorf("error container %+v", e)
	}
}

// TestRIMDecodeErrors: what libosmogb refuses (missing routing
// information or container) is "Missing mandatory IE".
func TestRIMDecodeErrors(t *testing.T) {
	full, _ := bssgp.Marshal(naccRequest())
	for name, b := range map[string][]byte{
		"no source":       full[:12],
		"no container":    full[:23],
		"short routing":   append([]byte{0x71, 0x54, 0x81, 0x00}, full[12:]...),
		"bad discr":       append(append([]byte{0x71, 0x54, 0x89, 0x05}, full[4:12]...), full[12:]...),
		"empty container": append(append([]byte(nil), full[:23]...), 0x57, 0x80),
	} {
		_, err := bssgp.Parse(b)
		if !errors.Is(err, bssgp.ErrMissingMandatoryIE) {
			t.Errorf("%s: %v, want missing mandatory IE", name, err)
		}
	}
	if _, err := bssgp.ParseRIMContainer(bssgp.IERANInfoReqRIMCont, []byte{0x4b, 0x81, 0x01}); err == nil {
		t.Error("request container without sequence number accepted")
	}
	if _, err := bssgp.ParseNACCInfo([]byte{9, 0xf1, 7, 0, 2, 0, 0x1b, 0x58, 3 << 1, 1, 2}); err == nil {
		t.Error("NACC info announcing 3 SI with 2 octets accepted")
	}
}

// TestRIMTshark checks every RIM PDU with Wireshark's BSSGP dissector.
func TestRIMTshark(t *testing.T) {
	testutil.NeedBinaries(t, "tshark")
	var pkts [][]byte
	for _, p := range []*bssgp.RIM{naccRequest(), naccInfo(), naccError(), naccAppError(), naccAck()} {
		b, err := bssgp.Marshal(p)
		if err != nil {
			t.Fatal(err)
		}
		pkts = append(pkts, append([]byte{0, 0, 0, 0}, b...)) // NS-UNITDATA, BVCI 0
	}
	s := testutil.TsharkNS(t, pkts)
	// Wireshark flags every Erroneous Application Container (a raw copy
	// of the refused container) as not dissected; any other warning counts.
	clean := strings.ReplaceAll(s, "[Expert Info (Warning/Protocol): Erroneous Application Container including IEI and LI]", "")
	for _, bad := range []string{"Malformed", "Expert Info (Error", "Expert Info (Warning"} {
		if strings.Contains(clean, bad) {
			t.Errorf("tshark reports %q:\n%s", bad, s)
		}
	}
	for _, w := range []string{"RAN-INFORMATION-REQUEST", "RAN-INFORMATION ", "RAN-INFORMATION-ERROR",
		"RAN-INFORMATION-APPLICATION-ERROR", "RAN-INFORMATION-ACK", "Network Assisted Cell Change",
		"Reporting Cell Identifier"} {
		if !strings.Contains(s, w) {
			t.Errorf("tshark output lacks %q", w)
		}
	}
	if t.Failed() || testing.Verbose() {
		t.Log(s)
	}
}

func FuzzRIM(f *testing.F) {
	for _, p := range []*bssgp.RIM{naccRequest(), naccInfo(), naccError(), naccAppError(), naccAck()} {
		b, _ := bssgp.Marshal(p)
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		p, err := bssgp.Parse(b)
		if err != nil {
			return
		}
		r, ok := p.(*bssgp.RIM)
		if !ok {
			return
		}
		c, err := bssgp.ParseRIMContainer(bssgp.RIMContainerIEI(r.PDUType), r.Container)
		if err == nil {
			_ = bssgp.MarshalRIMContainer(bssgp.RIMContainerIEI(r.PDUType), &c)
			_, _ = bssgp.ParseNACCInfo(c.AppCont)
			_, _ = bssgp.ParseNACCRequest(c.AppCont)
		}
		b2, err := bssgp.Marshal(r)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := bssgp.Parse(b2); err != nil {
			t.Fatalf("re-encoded %x does not parse: %v", b2, err)
		}
	})
}
