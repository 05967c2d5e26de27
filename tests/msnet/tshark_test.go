package msnet

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gopcu/gopcu/gsmtap"
)

// TestWiresharkDecodes hands the messages the lab-net runs do not send
// (routing area update, detach, P-TMSI attach, PDP deactivation, the
// answers to network-initiated procedures) to Wireshark's decoders in a
// GSMTAP (GB_LLC) capture: each must come out as the named message with
// no malformed packet or expert error.
func TestWiresharkDecodes(t *testing.T) {
	if _, err := exec.LookPath("tshark"); err != nil {
		t.Skip("needs tshark (apt-get install tshark)")
	}
	rc := unhex(t, radioCap10)
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
		{"Identity Response", IdentityResponse(DigitsIdentity(IDIMEISV, "3500000000000000"))},
		{"Deactivate PDP Context Request", DeactivatePDPRequest(0)},
		{"Deactivate PDP Context Accept", DeactivatePDPAccept(0x8a)},
	}
	file := filepath.Join(t.TempDir(), "llc.pcap")
	f, err := os.Create(file)
	if err != nil {
		t.Fatal(err)
	}
	w, err := gsmtap.NewPcapWriter(f)
	if err != nil {
		t.Fatal(err)
	}
	for i, c := range cases {
		h := gsmtap.Header{Type: gsmtap.TypeGBLLC, Uplink: true}
		if err := w.Write(time.Unix(int64(i), 0), &h, UI(SAPIGMM, uint16(i), c.msg)); err != nil {
			t.Fatal(err)
		}
	}
	f.Close()
	out, err := exec.Command("tshark", "-r", file, "-T", "fields", "-e", "_ws.col.Info", "-e", "_ws.malformed", "-e", "_ws.expert.severity").Output()
	if err != nil {
		t.Fatalf("tshark: %v", err)
	}
	t.Logf("tshark:\n%s", out)
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
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
