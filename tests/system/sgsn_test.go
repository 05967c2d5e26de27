package system

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gopcu/gopcu/bssgp"
	"github.com/gopcu/gopcu/internal/emu/btsemu"
	"github.com/gopcu/gopcu/internal/emu/msemu"
	"github.com/gopcu/gopcu/internal/testutil"
	"github.com/gopcu/gopcu/pcu/pcuif"
)

// gmmAttachRequest builds a GMM Attach Request (TS 24.008 §9.4.1) with the
// IMSI as identity, for RAI 901-70-1-0.
func gmmAttachRequest(t *testing.T, imsi string) []byte {
	mi, err := bssgp.EncodeIMSI(imsi)
	if err != nil {
		t.Fatal(err)
	}
	b := []byte{0x08, 0x01}                           // GMM, Attach Request
	b = append(b, 0x02, 0xe5, 0xe0)                   // MS network capability
	b = append(b, 0x71)                               // GPRS ciphering key sequence 7 (none), attach type 1 (GPRS attach)
	b = append(b, 0x08, 0x02)                         // DRX parameter
	b = append(b, byte(len(mi)))                      // Mobile identity: IMSI
	b = append(b, mi...)                              //
	b = append(b, 0x09, 0xf1, 0x07, 0x00, 0x01, 0x00) // old RAI 901-70-1-0
	// MS Radio Access Capability (GSM 900/1800, multislot class 10).
	racap := []byte{0x18, 0xb3, 0x43, 0x2b, 0x25, 0x96, 0x62, 0x00, 0x60, 0x80, 0x9a, 0xc2, 0xc6, 0x62, 0x00, 0x60,
		0x80, 0xba, 0xc8, 0xc6, 0x62, 0x00, 0x60, 0x80, 0x00}
	b = append(b, byte(len(racap)))
	return append(b, racap...)
}

// TestRealSGSNAttach: an emulated MS sends a GMM Attach Request over the
// emulated radio through gopcu to Debian's osmo-sgsn (in a network
// namespace of this test); osmo-sgsn's answer comes back down over the
// radio to that MS.
func TestRealSGSNAttach(t *testing.T) {
	n, dir := startOsmoSGSN(t)

	path := filepath.Join(dir, "pcu_bts")
	info := btsemu.DefaultInfo(pcuif.V12) // NS: local 23001, SGSN 127.0.0.1:23000 (inside the namespace)
	bts, err := btsemu.Listen(btsemu.Config{Path: path, Version: pcuif.V12, Info: info})
	if err != nil {
		t.Fatal(err)
	}
	r := newDaemonRig(t, bts, path, "", n.ListenNS).run()
	eng := r.eng
	r.waitActive(4)
	// osmo-sgsn needs a moment to listen; gopcu retries NS-RESET every tns-reset.
	testutil.Eventually(t, 15*time.Second, func() bool {
		var up bool
		eng.Call(func() { up = eng.GbUp() })
		return up
	}, "BVC not unblocked by osmo-sgsn")
	out, _ := n.Output("python3", "../lab/tools/vty.py", "4245", "show bssgp")
	if !strings.Contains(out, "BVCI  1800, RA-ID: 901-70-1-0, CID: 6969, STATE: UNBLOCKED") {
		t.Fatalf("osmo-sgsn show bssgp:\n%s", out)
	}

	cell := msemu.NewCell(bts, 21)
	ms := cell.AddMS(0xd0000001, "901700000000042", 10)
	var dl [][]byte
	ms.OnLLC = func(f []byte) { dl = append(dl, f) }
	ms.SendLLC(msemu.UIFrame(1, 0, gmmAttachRequest(t, ms.IMSI)))
	// Real time matters here (osmo-sgsn answers over UDP): step the radio
	// a little slower than the air would, up to 10 s.
	stepDeadline := time.Now().Add(10 * time.Second)
	for len(dl) == 0 && time.Now().Before(stepDeadline) {
		if err := cell.Step(context.Background()); err != nil {
			t.Fatal(err)
		}
		time.Sleep(2 * time.Millisecond)
	}
	if len(dl) == 0 {
		t.Fatal("no answer from osmo-sgsn reached the MS")
	}
	f := dl[0]
	if !msemu.CheckFCS(f) {
		t.Fatalf("LLC FCS of the SGSN's frame is wrong: %x", f)
	}
	if f[0]&0x0f != 1 || len(f) < 8 || f[3]&0x0f != 0x08 {
		t.Fatalf("not a GMM frame on SAPI 1: %x", f)
	}
	names := map[byte]string{0x02: "Attach Accept", 0x04: "Attach Reject", 0x15: "Identity Request", 0x12: "Authentication and Ciphering Request"}
	name, ok := names[f[4]]
	if !ok {
		t.Fatalf("unexpected GMM message type 0x%02x: %x", f[4], f)
	}
	t.Logf("osmo-sgsn answered the Attach Request with %s (%d octets LLC)", name, len(f))
}
