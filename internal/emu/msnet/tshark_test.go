package msnet

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/gopcu/gopcu/gsmtap"
	"github.com/gopcu/gopcu/internal/testutil"
)

// TestWiresharkDecodes hands the messages the lab-net runs do not send
// (routing area update, detach, P-TMSI attach, PDP deactivation, the
// answers to network-initiated procedures) to Wireshark's decoders in a
// GSMTAP (GB_LLC) capture: each must come out as the named message with
// no malformed packet or expert error.
func TestWiresharkDecodes(t *testing.T) {
	testutil.NeedBinaries(t, "tshark")
	rc := testutil.Hex(t, radioCap10)
	cases := []struct {
		name string
		msg  []byte
	}{
		{"Attach Request", (&AttachRequest{NetCap: DefaultNetCap, Type: 1, CKSN: 7, ID: TMSIIdentity(0xde8bbfbe), OldRAI: labRAI, RadioCap: rc}).Marshal()},
		{"Routing Area Update Request", RAURequest(labRAI, rc, 0xde8bbfbe, false)},
		{"Routing Area Update Request", RAURequest(labRAI, rc, 0xde8bbfbe, true)},
		{"Routing Area Update Complete", RAUComplete()},
		{"Detach Request", DetachRequest(false, 0xde8bbfbe, true)},
		{"Detach Request", DetachRequest(true, 0, false)},
		{"Detach Accept", DetachAccept()},
		{"P-TMSI Reallocation Complete", PTMSIReallocComplete()},
		{"Authentication and Ciphering Resp", AuthCipherResponse(3, nil)},
		{"Authentication and Ciphering Resp", simAnswer(t, "0050"+randIE)},             // SRES
		{"Authentication and Ciphering Resp", simAnswer(t, "1030"+randIE+"87"+autnIE)}, // RES, IMEISV, RES extension
		{"Identity Response", IdentityResponse(DigitsIdentity(IDIMEISV, "3500000000000000"))},
		{"Deactivate PDP Context Request", DeactivatePDPRequest(0)},
		{"Deactivate PDP Context Accept", DeactivatePDPAccept(0x8a)},
	}
	var pcap bytes.Buffer
	w, err := gsmtap.NewPcapWriter(&pcap)
	if err != nil {
		t.Fatal(err)
	}
	for i, c := range cases {
		h := gsmtap.Header{Type: gsmtap.TypeGBLLC, Uplink: true}
		if err := w.Write(time.Unix(int64(i), 0), &h, UI(SAPIGMM, uint16(i), c.msg)); err != nil {
			t.Fatal(err)
		}
	}
	out := testutil.Tshark(t, pcap.Bytes(), "-T", "fields", "-e", "_ws.col.Info", "-e", "_ws.malformed", "-e", "_ws.expert.severity")
	t.Logf("tshark:\n%s", out)
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if len(lines) != len(cases) {
		t.Fatalf("tshark shows %d packets, want %d:\n%s", len(lines), len(cases), out)
	}
	for i, c := range cases {
		fields := strings.Split(lines[i], "\t")
		if !strings.Contains(fields[0], c.name) {
			t.Errorf("packet %d: %q, want %s", i, fields[0], c.name)
		}
		if len(fields) > 1 && strings.TrimSpace(strings.Join(fields[1:], "")) != "" {
			t.Errorf("packet %d (%s): malformed/expert %q", i, c.name, fields[1:])
		}
	}
}

const (
	randIE = "2123553cbe9637a89d218ae64dae47bf35"   // RAND of TS 35.208 test set 1
	autnIE = "281055f328b43577b9b94a9ffac354dfafb3" // its AUTN
)

// simAnswer is the GMM message a stack with test set 1's USIM sends for an
// Authentication and Ciphering Request (the octets after the message type).
func simAnswer(t *testing.T, req string) []byte {
	t.Helper()
	s := New(Config{IMSI: "901700000000001", IMEI: "350000000000000", RAI: labRAI, SIM: testSIM(t)}, 1)
	var sent []byte
	s.Send = func(f []byte) { sent = f }
	s.RxLLC(UI(SAPIGMM, 0, testutil.Hex(t, "0812"+req)))
	f, err := ParseFrame(sent)
	if err != nil {
		t.Fatal(err)
	}
	return f.Info
}
