package msnet

import (
	"bytes"
	"encoding/hex"
	"errors"
	"net/netip"
	"testing"

	"github.com/gopcu/gopcu/internal/testutil"
)

// The golden frames below are LLC PDUs of a lab-net run (tests/labnet:
// this stack on virtual Um, gopcu, Debian's osmo-sgsn 1.9 and osmo-ggsn
// 1.9), cut from the BSSGP LLC-PDU IEs of the Gb capture; Wireshark 4.0
// decodes each as named (tshark -d udp.port==23000,gprs-ns).

var labRAI = RAI{MCC: 901, MNC: 70, LAC: 1, RAC: 0}

// radioCap10 is the MS Radio Access Capability the lab's MSs send: DCS
// 1800, multislot class 10 (rlcmac's encoder).
const radioCap10 = "32c4154000"

func TestAttachRequestGolden(t *testing.T) {
	// Wireshark: "SAPI: LLGMM, UI, N(U) = 0 (GMM) Attach Request"
	want := testutil.Hex(t, "01c001 0801 026000 71 0000 08991007000000001009 f10700 0100 05 32c4154000 76aebb")
	a := AttachRequest{NetCap: DefaultNetCap, Type: 1, CKSN: 7, ID: DigitsIdentity(IDIMSI, "901700000000001"),
		OldRAI: labRAI, RadioCap: testutil.Hex(t, radioCap10)}
	if got := UI(SAPIGMM, 0, a.Marshal()); !bytes.Equal(got, want) {
		t.Errorf("attach request\n got %x\nwant %x", got, want)
	}
}

func TestParseFrames(t *testing.T) {
	// osmo-sgsn's Identity Request (IMEI): UI, C/R 1, N(U) 0, PM 1
	f, err := ParseFrame(testutil.Hex(t, "41c001081502de8e9a"))
	if err != nil || f.Kind != KindUI || f.SAPI != 1 || !f.CR || f.NU != 0 || !f.PM || !bytes.Equal(f.Info, []byte{0x08, 0x15, 0x02}) {
		t.Errorf("identity request: %+v %v", f, err)
	}
	bad := testutil.Hex(t, "41c001081502de8e9b")
	if _, err := ParseFrame(bad); err != ErrFCS {
		t.Errorf("corrupted FCS: %v", err)
	}
	// Attach Accept: result 1, T3312 0x2a, RAI 901-70-1-0, READY timer
	// 0x16, P-TMSI 0xde8bbfbe
	f, err = ParseFrame(testutil.Hex(t, "01c0050802012a4409f10700010017161805f4de8bbfbec8d2bc"))
	if err != nil || f.NU != 1 {
		t.Fatalf("attach accept frame: %+v %v", f, err)
	}
	a, err := ParseAttachAccept(f.Info[2:])
	if err != nil || a.Result != 1 || a.PeriodicRAU != 0x2a || a.RAI != labRAI || !a.HasPTMSI || a.PTMSI != 0xde8bbfbe || !a.HasReady || a.ReadyTimer != 0x16 {
		t.Errorf("attach accept: %+v %v", a, err)
	}
	// RAU Accept: result 0, T3312 0x2a, RAI 901-70-1-0, P-TMSI
	// 0xde8bbfbe, READY timer 0x16 (the RAI right after the timer)
	u, err := ParseRAUAccept(testutil.Hex(t, "002a 09f107000100 1805f4de8bbfbe 1716"))
	if err != nil || u.Result != 0 || u.PeriodicRAU != 0x2a || u.RAI != labRAI || !u.HasPTMSI || u.PTMSI != 0xde8bbfbe || !u.HasReady || u.ReadyTimer != 0x16 {
		t.Errorf("RAU accept: %+v %v", u, err)
	}
	// Activate PDP Context Accept from osmo-sgsn: LLC SAPI 3, a 14-octet
	// QoS, radio priority 4, PDP address IETF IPv4 10.45.0.1
	f, err = ParseFrame(testutil.Hex(t, "01c0098a42030e23621f72993f3f1143ffff000000042b0601210a2d00019079d1"))
	if err != nil || f.Info[0] != 0x8a || f.Info[1] != SMActivatePDPAccept {
		t.Fatalf("PDP accept frame: %+v %v", f, err)
	}
	p, err := ParseActivatePDPAccept(f.Info[2:])
	if err != nil || p.LLCSAPI != 3 || len(p.QoS) != 14 || p.Addr != netip.MustParseAddr("10.45.0.1") {
		t.Errorf("PDP accept: %+v %v", p, err)
	}
}

func TestStackAnswersGolden(t *testing.T) {
	s := New(Config{IMSI: "901700000000001", IMEI: "350000000000000", RAI: labRAI, RadioCap: testutil.Hex(t, radioCap10), APN: "internet"}, 0x0b800c18)
	var sent [][]byte
	s.Send = func(f []byte) { sent = append(sent, f) }
	var tllis []uint32
	s.SetTLLI = func(t uint32) { tllis = append(tllis, t) }
	s.Attach()
	s.RxLLC(testutil.Hex(t, "41c001081502de8e9a"))                                   // identity request (IMEI)
	s.RxLLC(testutil.Hex(t, "01c0050802012a4409f10700010017161805f4de8bbfbec8d2bc")) // attach accept
	s.ActivatePDP()
	s.RxLLC(testutil.Hex(t, "01c0098a42030e23621f72993f3f1143ffff000000042b0601210a2d00019079d1"))
	s.RxLLC(testutil.Hex(t, "43fb01001601f41a05df8c7c4e")) // XID command on SAPI 3
	want := []string{
		"01c001080102600071000008991007000000001009f1070001000532c415400076aebb", // Attach Request
		"01c0050816083a050000000000009ec11e",                                     // Identity Response, IMEI 350000000000000
		"01c009080339d7bc",                                                       // Attach Complete
		"01c00d0a4105030300000002f121280908696e7465726e6574120888",               // Activate PDP Context Request, APN internet
		"43fb01001601f41a05df8c7c4e",                                             // XID response: version 0, N201-U 500, N201-I 1503
	}
	if len(sent) != len(want) {
		t.Fatalf("sent %d frames, want %d: %x", len(sent), len(want), sent)
	}
	for i := range want {
		if hex.EncodeToString(sent[i]) != want[i] {
			t.Errorf("frame %d\n got %x\nwant %s", i, sent[i], want[i])
		}
	}
	if s.GMM != GMMAttached || !s.PDPUp || s.Addr != netip.MustParseAddr("10.45.0.1") || s.PTMSI != 0xde8bbfbe {
		t.Errorf("state: gmm %d pdp %v addr %v ptmsi %08x", s.GMM, s.PDPUp, s.Addr, s.PTMSI)
	}
	if len(tllis) != 1 || tllis[0] != 0xde8bbfbe {
		t.Errorf("TLLI changes %x, want the local TLLI of the P-TMSI", tllis)
	}
	// a UI frame again with N(U) 1 on SAPI 1 is a duplicate now
	n := len(sent)
	s.RxLLC(testutil.Hex(t, "01c0050802012a4409f10700010017161805f4de8bbfbec8d2bc"))
	if s.DupUI != 1 || len(sent) != n {
		t.Errorf("duplicate UI: dup %d, %d frames sent", s.DupUI, len(sent)-n)
	}
}

// TestSNDCPGolden: osmo-sgsn's four SN-UNITDATA segments of one 1500-octet
// IP packet (N-PDU 16, N201-U 500) reassemble to the packet, and the
// encoder segments the packet into the same four PDUs.
func TestSNDCPGolden(t *testing.T) {
	frames := testutil.HexLines(t, "testdata/dl-npdu16.hex")
	if len(frames) != 4 {
		t.Fatalf("%d frames in testdata", len(frames))
	}
	var rx SNDCPRx
	var pdu []byte
	var infos [][]byte
	for i, b := range frames {
		fr, err := ParseFrame(b)
		if err != nil || fr.SAPI != 3 {
			t.Fatalf("frame %d: %v", i, err)
		}
		infos = append(infos, fr.Info)
		nsapi, p, err := rx.Receive(fr.Info)
		if err != nil || nsapi != 5 {
			t.Fatalf("segment %d: nsapi %d %v", i, nsapi, err)
		}
		if (p != nil) != (i == 3) {
			t.Fatalf("segment %d: N-PDU complete %v", i, p != nil)
		}
		pdu = p
	}
	if len(pdu) != 1500 || pdu[0] != 0x45 || int(pdu[2])<<8|int(pdu[3]) != 1500 {
		t.Fatalf("reassembled %d octets: %x", len(pdu), pdu[:min(len(pdu), 20)])
	}
	tx := SNDCPTx{NSAPI: 5, N201U: 500, npdu: 16}
	segs, err := tx.Segment(pdu)
	if err != nil || len(segs) != 4 {
		t.Fatalf("%d segments: %v", len(segs), err)
	}
	for i := range segs {
		// the SGSN's segments carry the same header but no X bit
		if !bytes.Equal(segs[i], infos[i]) {
			t.Errorf("segment %d\n got %x\nwant %x", i, segs[i][:8], infos[i][:8])
		}
	}
	// 16 segments of 496 octets at most: one more is ErrTooLong and uses
	// no N-PDU number
	if _, err := tx.Segment(make([]byte, 16*497)); !errors.Is(err, ErrTooLong) {
		t.Fatalf("17 segments: %v", err)
	}
	if segs, _ := tx.Segment([]byte{1}); segs[0][3] != 17 {
		t.Errorf("N-PDU number %d after ErrTooLong, want 17", segs[0][3])
	}
	// segments out of order and interleaved with another N-PDU
	rx = SNDCPRx{}
	one, _ := (&SNDCPTx{NSAPI: 5, npdu: 17}).Segment([]byte("ping"))
	for i, in := range [][]byte{infos[1], infos[0], one[0], infos[3]} {
		if _, p, err := rx.Receive(in); err != nil || (p != nil) != (i == 2) {
			t.Fatalf("step %d: %v %q", i, err, p)
		}
	}
	if _, p, _ := rx.Receive(infos[2]); !bytes.Equal(p, pdu) {
		t.Errorf("out-of-order reassembly: %d octets", len(p))
	}
	// a lost segment: the N-PDU is given up rxGiveUp N-PDUs later
	rx = SNDCPRx{}
	rx.Receive(infos[0])
	rx.Receive(infos[1])
	rx.Receive(infos[3])
	for k := 0; k < rxGiveUp; k++ {
		segs, _ := (&SNDCPTx{NSAPI: 5, npdu: uint16(17 + k)}).Segment([]byte{1})
		rx.Receive(segs[0])
	}
	if rx.Lost != 1 || len(rx.parts) != 0 {
		t.Errorf("lost %d, %d in progress", rx.Lost, len(rx.parts))
	}
}

func TestIdentities(t *testing.T) {
	for _, d := range []string{"901700000000001", "3500000000000000", "12"} {
		typ := uint8(IDIMSI)
		if len(d)%2 == 0 {
			typ = IDIMEISV
		}
		id, err := ParseIdentity(DigitsIdentity(typ, d))
		if err != nil || id.Digits != d || id.Type != typ {
			t.Errorf("%s: %+v %v", d, id, err)
		}
	}
	id, err := ParseIdentity(TMSIIdentity(0xdeadbeef))
	if err != nil || id.Type != IDTMSI || id.TMSI != 0xdeadbeef {
		t.Errorf("tmsi: %+v %v", id, err)
	}
	if LocalTLLI(0xde8bbfbe) != 0xde8bbfbe || ForeignTLLI(0xde8bbfbe) != 0x9e8bbfbe || RandomTLLI(0xffffffff) != 0x7fffffff {
		t.Error("TLLI kinds (TS 23.003 §2.6)")
	}
	r3 := RAI{MCC: 310, MNC: 260, MNC3: true, LAC: 0x1234, RAC: 7}
	if b := r3.Append(nil); !bytes.Equal(b, []byte{0x13, 0x00, 0x62, 0x12, 0x34, 7}) {
		t.Errorf("3-digit MNC RAI %x", b)
	}
	if r, err := ParseRAI(r3.Append(nil)); err != nil || r != r3 {
		t.Errorf("parse %+v %v", r, err)
	}
}

func TestXIDCodec(t *testing.T) {
	ps, err := ParseXID(testutil.Hex(t, "01001601f41a05df"))
	if err != nil || len(ps) != 3 || ps[1].Type != XIDN201U || !bytes.Equal(ps[1].Value, []byte{0x01, 0xf4}) {
		t.Fatalf("%+v %v", ps, err)
	}
	// osmo-sgsn's LLGMM reset: IOV-UI (4 octets: XL=1) and Reset
	in := []XIDParam{{Type: XIDIOVUI, Value: []byte{1, 2, 3, 4}}, {Type: XIDReset}}
	b := AppendXID(nil, in)
	if !bytes.Equal(b, []byte{0x84, 0x10, 1, 2, 3, 4, 0x30}) {
		t.Errorf("encoded %x", b)
	}
	out, err := ParseXID(b)
	if err != nil || len(out) != 2 || out[0].Type != XIDIOVUI || len(out[0].Value) != 4 || out[1].Type != XIDReset {
		t.Errorf("round trip %+v %v", out, err)
	}
	// the reset zeroes N(U) and is not echoed
	s := New(Config{}, 1)
	var sent [][]byte
	s.Send = func(f []byte) { sent = append(sent, f) }
	s.vu[1] = 7
	s.rx[1].accept(8)
	cmd := append([]byte{0x41, 0xfb}, b...)
	f := FCS(cmd)
	s.RxLLC(append(cmd, byte(f), byte(f>>8), byte(f>>16)))
	if s.vu[1] != 0 || s.rx[1].vur != 0 || len(sent) != 1 || !bytes.Equal(sent[0][:2], []byte{0x41, 0xfb}) || len(sent[0]) != 5 {
		t.Errorf("after reset: vu %d vur %d sent %x", s.vu[1], s.rx[1].vur, sent)
	}
}

func TestUIWindow(t *testing.T) {
	var w uiWindow
	steps := []struct {
		nu   uint16
		want bool
	}{
		{0, true}, {1, true}, {1, false}, // a repeat
		{3, true}, {2, true}, {2, false}, // 2 overtaken by 3: taken once
		{0, false},                          // received before, 4 below V(UR)
		{20, true}, {19, true}, {19, false}, // 4..18 overtaken: each taken once
		{60, true}, {19, true}, // 41 below V(UR) 61: out of the window, a new frame
	}
	for i, s := range steps {
		if got := w.accept(s.nu); got != s.want {
			t.Errorf("step %d: N(U) %d accepted %v, want %v", i, s.nu, got, s.want)
		}
	}
	// wrap-around: 511 then 0
	w = uiWindow{vur: 511}
	if !w.accept(511) || !w.accept(0) || w.accept(511) || w.vur != 1 {
		t.Errorf("wrap: vur %d", w.vur)
	}
}
