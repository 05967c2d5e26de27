package msnet

import (
	"encoding/hex"
	"testing"

	"github.com/gopcu/gopcu/internal/testutil"
)

// TestMilenageTestSet1: 3GPP TS 35.208 §4.3 test set 1, with its GSM
// conversions (c2: SRES, c3: Kc).
func TestMilenageTestSet1(t *testing.T) {
	var m Milenage
	copy(m.K[:], testutil.Hex(t, "465b5ce8b199b49faa5f0a2ee238a6bc"))
	copy(m.OPc[:], testutil.Hex(t, "cd63cb71954a9f4e48a5994e37a02baf"))
	var rand [16]byte
	var sqn [6]byte
	var amf [2]byte
	copy(rand[:], testutil.Hex(t, "23553cbe9637a89d218ae64dae47bf35"))
	copy(sqn[:], testutil.Hex(t, "ff9bb4d0b607"))
	copy(amf[:], testutil.Hex(t, "b9b9"))
	a := m.Compute(rand, sqn, amf)
	for _, c := range []struct{ name, got, want string }{
		{"f1 (MAC-A)", hex.EncodeToString(a.MACA[:]), "4a9ffac354dfafb3"},
		{"f2 (RES)", hex.EncodeToString(a.RES[:]), "a54211d5e3ba50bf"},
		{"f3 (CK)", hex.EncodeToString(a.CK[:]), "b40ba9a3c58b2a05bbf0d987b21bf8cb"},
		{"f4 (IK)", hex.EncodeToString(a.IK[:]), "f769bcd751044604127672711c6d3441"},
		{"f5 (AK)", hex.EncodeToString(a.AK[:]), "aa689c648370"},
	} {
		if c.got != c.want {
			t.Errorf("%s = %s, want %s", c.name, c.got, c.want)
		}
	}
	sres, kc := a.GSM()
	if hex.EncodeToString(sres[:]) != "46f8416a" || hex.EncodeToString(kc[:]) != "eae4be823af9a08b" {
		t.Errorf("SRES %x, Kc %x; want 46f8416a, eae4be823af9a08b", sres, kc)
	}
}

// TestAuthCipherResponse: the stack answers osmo-sgsn's Authentication and
// Ciphering Request (TS 24.008 §9.4.9/§9.4.10) with its USIM (test set 1's
// K and OPc): GSM authentication (RAND only) gets SRES = c2(RES); UMTS AKA
// (RAND and AUTN) gets RES, four octets in the SRES IE and four in the
// extension IE 0x29; an IMEISV asked for goes along; without a SIM the
// reference number comes back alone.
func TestAuthCipherResponse(t *testing.T) {
	var sim Milenage
	copy(sim.K[:], testutil.Hex(t, "465b5ce8b199b49faa5f0a2ee238a6bc"))
	copy(sim.OPc[:], testutil.Hex(t, "cd63cb71954a9f4e48a5994e37a02baf"))
	rand := "2123553cbe9637a89d218ae64dae47bf35"        // IEI 0x21 + RAND
	autn := "2810" + "55f328b43577b9b94a9ffac354dfafb3" // IEI 0x28, length 16, AUTN of test set 1
	for _, c := range []struct {
		name string
		sim  *Milenage
		req  string // GMM message after PD and type: algorithm/IMEISV request, ref/force standby, IEs
		want string
	}{
		{"GSM", &sim, "00" + "50" + rand + "87", "081305" + "2246f8416a"},
		{"UMTS AKA, IMEISV", &sim, "10" + "30" + rand + "87" + autn, "081303" + "22a54211d5" + "2309" + "3305000000000000f0" + "2904e3ba50bf"},
		{"no SIM", nil, "00" + "50" + rand + "87", "081305"},
	} {
		t.Run(c.name, func(t *testing.T) {
			s := New(Config{IMSI: "901700000000001", IMEI: "350000000000000", RAI: labRAI, APN: "internet", SIM: c.sim}, 1)
			var sent [][]byte
			s.Send = func(f []byte) { sent = append(sent, f) }
			s.RxLLC(UI(SAPIGMM, 0, testutil.Hex(t, "0812"+c.req)))
			if len(sent) != 1 {
				t.Fatalf("sent %d frames", len(sent))
			}
			f, err := ParseFrame(sent[0])
			if err != nil {
				t.Fatal(err)
			}
			if got := hex.EncodeToString(f.Info); got != c.want {
				t.Errorf("response %s, want %s", got, c.want)
			}
		})
	}
}
