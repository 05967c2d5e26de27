package msnet

import (
	"bytes"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"testing"

	"github.com/gopcu/gopcu/internal/testutil"
	"github.com/gopcu/gopcu/llc/gea"
)

// sgsnLLC is the network side of a ciphered LLC link for the tests,
// written from TS 44.064 Annex A directly on the gea package's keystream
// (not with CipherUI/DecipherUI): UI frames with PM = 1, E = 1 when
// ciphered, the FCS over header and plain information field, then
// information field and FCS XORed with GEA3(Kc, INPUT, DIRECTION = 1 for
// its frames, 0 for the MS's), INPUT = (IOV-UI ⊕ (SAPI·2^27 + 2^31)) +
// N(U) + OC, OC += 512 after each N(U) 511.
type sgsnLLC struct {
	t     *testing.T
	kc    [8]byte
	iovUI uint32
	on    bool // ciphering started
	vu    [16]uint16
	txOC  [16]uint32
	vr    [16]uint16
	rxOC  [16]uint32
	// osmo: cipher the downlink N(U) 511 with the next cycle's OC, as
	// osmo-sgsn 1.9's gprs_llc_tx_ui does.
	osmo bool
}

func (p *sgsnLLC) input(sapi uint8, nu uint16, oc uint32) uint32 {
	return (p.iovUI ^ (uint32(sapi)*(1<<27) + 1<<31)) + uint32(nu) + oc
}

func (p *sgsnLLC) xor(b []byte, input uint32, dir gea.Direction) {
	ks := make([]byte, len(b))
	gea.GEA3(p.kc, input, dir, ks)
	for i := range b {
		b[i] ^= ks[i]
	}
}

// frame builds the downlink UI frame with N(U) nu and OC oc.
func (p *sgsnLLC) frame(sapi uint8, nu uint16, oc uint32, info []byte, cipher bool) []byte {
	ctl := byte(nu<<2) | 1
	if cipher {
		ctl |= 2
	}
	b := append([]byte{0x40 | sapi, 0xc0 | byte(nu>>6), ctl}, info...)
	f := FCS(b)
	b = append(b, byte(f), byte(f>>8), byte(f>>16))
	if cipher {
		p.xor(b[3:], p.input(sapi, nu, oc), gea.Downlink)
	}
	return b
}

// dl returns the next downlink UI frame of sapi, ciphered once the key is
// in use.
func (p *sgsnLLC) dl(sapi uint8, info []byte) []byte {
	nu, oc := p.vu[sapi], p.txOC[sapi]
	if p.osmo && nu == 511 {
		oc += 512
	}
	p.vu[sapi] = (nu + 1) % 512
	if p.vu[sapi] == 0 {
		p.txOC[sapi] += 512
	}
	return p.frame(sapi, nu, oc, info, p.on)
}

// ul checks an uplink UI frame: in sequence, ciphered as wanted, FCS
// right once deciphered; it returns the information field.
func (p *sgsnLLC) ul(b []byte, wantCiphered bool) []byte {
	p.t.Helper()
	if len(b) < 6 || b[1]&0xe0 != 0xc0 {
		p.t.Fatalf("uplink frame %x is not a UI frame", b)
	}
	sapi, nu := b[0]&0x0f, uint16(b[1]&7)<<6|uint16(b[2]>>2)
	if b[0]&0x40 != 0 {
		p.t.Errorf("uplink UI frame with C/R 1")
	}
	if nu != p.vr[sapi] {
		p.t.Fatalf("SAPI %d N(U) %d, want %d", sapi, nu, p.vr[sapi])
	}
	if e := b[2]&2 != 0; e != wantCiphered {
		p.t.Fatalf("SAPI %d N(U) %d: E = %v, want %v (%x)", sapi, nu, e, wantCiphered, b)
	}
	c := append([]byte(nil), b...)
	if wantCiphered {
		p.xor(c[3:], p.input(sapi, nu, p.rxOC[sapi]), gea.Uplink)
	}
	n := len(c) - 3
	if f := FCS(c[:n]); c[n] != byte(f) || c[n+1] != byte(f>>8) || c[n+2] != byte(f>>16) {
		p.t.Fatalf("SAPI %d N(U) %d: FCS wrong after deciphering", sapi, nu)
	}
	p.vr[sapi] = (nu + 1) % 512
	if p.vr[sapi] == 0 {
		p.rxOC[sapi] += 512
	}
	return c[3:n]
}

func testSIM(t *testing.T) *Milenage {
	sim := new(Milenage)
	copy(sim.K[:], testutil.Hex(t, "465b5ce8b199b49faa5f0a2ee238a6bc"))
	copy(sim.OPc[:], testutil.Hex(t, "cd63cb71954a9f4e48a5994e37a02baf"))
	return sim
}

// Golden information fields from osmo-sgsn (msnet_test.go) and the
// Authentication and Ciphering Request of TS 24.008 §9.4.9: GEA/3
// (ciphering algorithm 3), IMEISV requested, A&C reference 5, the RAND
// of TS 35.208 test set 1, CKSN 7 (no AUTN: GSM authentication).
const (
	acRequestGEA3   = "0812" + "13" + "50" + "2123553cbe9637a89d218ae64dae47bf35" + "87"
	attachAcceptPTM = "0802012a4409f10700010017161805f4de8bbfbe"
	pdpAccept       = "8a42030e23621f72993f3f1143ffff000000042b0601210a2d0001"
	kcTestSet1      = "eae4be823af9a08b" // c3 of TS 35.208 test set 1
)

func ipPacket(k int) []byte {
	p := make([]byte, 40+k%300)
	p[0] = 0x45
	binary.BigEndian.PutUint16(p[2:], uint16(len(p)))
	binary.BigEndian.PutUint32(p[20:], uint32(k))
	return p
}

// snUnitdata is a one-segment SN-UNITDATA PDU of NSAPI 5 (TS 44.065 §7.2).
func snUnitdata(npdu int, pkt []byte) []byte {
	return append([]byte{0x60 | 5, 0, byte(npdu >> 8 & 0x0f), byte(npdu)}, pkt...)
}

// TestCipherRoundTrip runs the MS's LLC against a ciphering SGSN-side
// LLC both ways: attach with GEA/3 selected, the Attach Accept and
// everything after it ciphered, then 1100 IP packets down (N(U) of SAPI
// 3 wraps twice, frames overtaken across a wrap) and 1100 up. With
// osmo, the peer ciphers like osmo-sgsn 1.9 (IOV-UI in little-endian
// octets, N(U) 511 with the next OC) and the MS has OsmoSGSN set.
func TestCipherRoundTrip(t *testing.T) {
	for _, osmo := range []bool{false, true} {
		t.Run(fmt.Sprintf("osmo=%v", osmo), func(t *testing.T) {
			p := &sgsnLLC{t: t, iovUI: 0x12345678, osmo: osmo}
			copy(p.kc[:], testutil.Hex(t, kcTestSet1))
			s := New(Config{IMSI: "901700000000001", IMEI: "350000000000000", RAI: labRAI, APN: "internet",
				SIM: testSIM(t), GEA3: true, OsmoSGSN: osmo}, 1)
			var sent [][]byte
			s.Send = func(f []byte) { sent = append(sent, f) }
			next := func() []byte {
				t.Helper()
				if len(sent) == 0 {
					t.Fatal("the MS sent nothing")
				}
				f := sent[0]
				sent = sent[1:]
				return f
			}
			var got [][]byte
			s.OnIP = func(pkt []byte) { got = append(got, pkt) }

			s.Attach()
			ar := p.ul(next(), false)
			if !bytes.Equal(ar[2:5], []byte{2, 0x60, 0x20}) {
				t.Errorf("attach request MS network capability %x, want GEA/3 (026020)", ar[2:5])
			}
			// XID Reset with IOV-UI on SAPI 1 (the SGSN's LLGMM-RESET)
			iov := binary.BigEndian.AppendUint32(nil, p.iovUI)
			if osmo {
				iov = binary.LittleEndian.AppendUint32(nil, p.iovUI)
			}
			xid := AppendXID(nil, []XIDParam{{Type: XIDReset}, {Type: XIDIOVUI, Value: iov}})
			xcmd := append([]byte{0x40 | SAPIGMM, 0xfb}, xid...)
			f := FCS(xcmd)
			s.RxLLC(append(xcmd, byte(f), byte(f>>8), byte(f>>16)))
			if r := next(); r[1]&0xef != 0xeb {
				t.Fatalf("XID response %x", r)
			}
			p.vu, p.vr = [16]uint16{}, [16]uint16{}

			s.RxLLC(p.dl(SAPIGMM, testutil.Hex(t, acRequestGEA3)))
			resp := p.ul(next(), false) // the response goes in clear
			if len(resp) < 8 || hex.EncodeToString(resp[:8]) != "081305"+"2246f8416a" {
				t.Errorf("A&C response %x, want reference 5 and SRES 46f8416a", resp)
			}
			if s.Ciphering() != GEA3 {
				t.Fatalf("ciphering %d after the A&C request, want GEA/3", s.Ciphering())
			}
			p.on = true

			s.RxLLC(p.dl(SAPIGMM, testutil.Hex(t, attachAcceptPTM)))
			if s.GMM != GMMAttached || s.PTMSI != 0xde8bbfbe {
				t.Fatalf("attach accept not taken: gmm %d, P-TMSI %08x, drops %d", s.GMM, s.PTMSI, s.CipherDrops)
			}
			if ac := p.ul(next(), true); !bytes.Equal(ac, []byte{PDGMM, GMMAttachComplete}) {
				t.Errorf("attach complete %x", ac)
			}
			s.ActivatePDP()
			if req := p.ul(next(), true); len(req) < 2 || req[1] != SMActivatePDPRequest {
				t.Errorf("activate PDP context request %x", req)
			}
			s.RxLLC(p.dl(SAPIGMM, testutil.Hex(t, pdpAccept)))
			if !s.PDPUp {
				t.Fatal("PDP context not up")
			}

			// downlink: 1100 frames on SAPI 3; around each wrap the
			// frames N(U) 508..511 arrive after 0..2 of the next cycle
			const n = 1100
			var held [][]byte
			for k := range n {
				fr := p.dl(SAPIQoS1, snUnitdata(k, ipPacket(k)))
				nu := uint16(fr[1]&7)<<6 | uint16(fr[2]>>2)
				switch {
				case nu >= 508:
					held = append(held, fr)
				case nu == 2 && held != nil:
					s.RxLLC(fr)
					for _, h := range held {
						s.RxLLC(h)
					}
					held = nil
				default:
					s.RxLLC(fr)
				}
			}
			if len(got) != n || s.CipherDrops != 0 {
				t.Fatalf("downlink: %d of %d packets, %d ciphered frames dropped", len(got), n, s.CipherDrops)
			}
			seen := map[uint32]bool{}
			for _, pkt := range got {
				k := binary.BigEndian.Uint32(pkt[20:])
				if !bytes.Equal(pkt, ipPacket(int(k))) || seen[k] {
					t.Fatalf("downlink packet %d wrong or twice", k)
				}
				seen[k] = true
			}
			// uplink: 1100 packets, N(U) of SAPI 3 wraps twice
			for k := range n {
				if err := s.SendIP(ipPacket(k)); err != nil {
					t.Fatal(err)
				}
				info := p.ul(next(), true)
				if !bytes.Equal(info[4:], ipPacket(k)) {
					t.Fatalf("uplink packet %d: %x", k, info)
				}
			}
			if s.Deciphered != n+2 || s.Ciphered != n+2 {
				t.Errorf("deciphered %d, ciphered %d, want %d each", s.Deciphered, s.Ciphered, n+2)
			}

			// a frame ciphered with the wrong OC fails its FCS and is
			// dropped, as is a ciphered frame after the key is gone
			s.RxLLC(p.frame(SAPIQoS1, p.vu[SAPIQoS1], p.txOC[SAPIQoS1]+512, snUnitdata(n, ipPacket(n)), true))
			if len(got) != n || s.CipherDrops != 1 {
				t.Errorf("wrong OC: %d packets, %d drops", len(got), s.CipherDrops)
			}
			s.Attach() // CKSN 7: the MS forgets the key
			p.ul(next(), false)
			s.RxLLC(p.dl(SAPIQoS1, snUnitdata(n, ipPacket(n))))
			if len(got) != n || s.CipherDrops != 2 || s.Ciphering() != GEA0 {
				t.Errorf("no key: %d packets, %d drops, ciphering %d", len(got), s.CipherDrops, s.Ciphering())
			}
		})
	}
}

// TestCipherOsmoOC: osmo-sgsn 1.9 ciphers its downlink N(U) 511 with the
// OC of the next cycle; an MS that counts OC as TS 44.064 Annex A.2.1
// says loses that frame, one with OsmoSGSN takes it.
func TestCipherOsmoOC(t *testing.T) {
	for _, osmo := range []bool{false, true} {
		p := &sgsnLLC{t: t, osmo: true, on: true}
		copy(p.kc[:], testutil.Hex(t, kcTestSet1))
		p.vu[SAPIGMM] = 1 // after the A&C request in clear
		s := New(Config{IMSI: "901700000000001", IMEI: "350000000000000", RAI: labRAI, SIM: testSIM(t), GEA3: true, OsmoSGSN: osmo}, 1)
		s.Send = func([]byte) {}
		s.RxLLC(UI(SAPIGMM, 0, testutil.Hex(t, acRequestGEA3)))
		s.RxLLC(p.dl(SAPIGMM, testutil.Hex(t, attachAcceptPTM))) // N(U) 0 on SAPI 1
		s.RxLLC(p.dl(SAPIGMM, testutil.Hex(t, pdpAccept)))
		for k := range 512 {
			s.RxLLC(p.dl(SAPIQoS1, snUnitdata(k, ipPacket(k))))
		}
		want := 0
		if !osmo {
			want = 1
		}
		if s.CipherDrops != want || s.DLIP != 512-want {
			t.Errorf("OsmoSGSN %v: %d drops, %d packets; want %d drops", osmo, s.CipherDrops, s.DLIP, want)
		}
	}
}

// TestCipherOff: without GEA3 in its Config the MS announces no GEA/2..7
// and sends in clear as before; a network that selects GEA/3 anyway is
// an error. With GEA3 but a network that selects no ciphering (GEA/0)
// every frame goes in clear.
func TestCipherOff(t *testing.T) {
	s := New(Config{IMSI: "901700000000001", IMEI: "350000000000000", RAI: labRAI, APN: "internet", SIM: testSIM(t)}, 1)
	var sent [][]byte
	s.Send = func(f []byte) { sent = append(sent, f) }
	s.Attach()
	if f, _ := ParseFrame(sent[0]); !bytes.Equal(f.Info[2:5], []byte{2, 0x60, 0}) {
		t.Errorf("attach request MS network capability %x", f.Info[2:5])
	}
	s.RxLLC(UI(SAPIGMM, 0, testutil.Hex(t, acRequestGEA3)))
	if s.Ciphering() != GEA0 || s.Err == nil {
		t.Errorf("GEA/3 not offered but taken: ciphering %d, err %v", s.Ciphering(), s.Err)
	}

	s = New(Config{IMSI: "901700000000001", IMEI: "350000000000000", RAI: labRAI, APN: "internet", SIM: testSIM(t), GEA3: true}, 1)
	sent = nil
	s.Send = func(f []byte) { sent = append(sent, f) }
	s.Attach()
	s.RxLLC(UI(SAPIGMM, 0, testutil.Hex(t, "0812"+"10"+"50"+"2123553cbe9637a89d218ae64dae47bf35"+"87"))) // GEA/0
	s.RxLLC(UI(SAPIGMM, 1, testutil.Hex(t, attachAcceptPTM)))
	s.ActivatePDP()
	for i, b := range sent {
		if b[2]&2 != 0 {
			t.Errorf("frame %d ciphered with GEA/0 selected: %x", i, b)
		}
	}
	if s.Ciphering() != GEA0 || s.Ciphered != 0 || len(sent) != 4 {
		t.Errorf("ciphering %d, %d ciphered, %d frames", s.Ciphering(), s.Ciphered, len(sent))
	}
}

// TestCipherUIHelpers: CipherUI and DecipherUI agree with the keystream
// of TS 44.064 Annex A.2 and the frame format (E and PM set, FCS over the
// plain frame).
func TestCipherUIHelpers(t *testing.T) {
	var kc [8]byte
	copy(kc[:], testutil.Hex(t, kcTestSet1))
	info := []byte("some SNDCP PDU")
	b := CipherUI(3, 300, info, kc, 7, 1024, gea.Downlink, true)
	if b[0] != 0x43 || b[2]&3 != 3 || b[1]&0xe0 != 0xc0 {
		t.Fatalf("header %x", b[:3])
	}
	plain := append([]byte{0x43, b[1], b[2]}, info...)
	f := FCS(plain)
	plain = append(plain, byte(f), byte(f>>8), byte(f>>16))
	ks := make([]byte, len(info)+3)
	gea.GEA3(kc, gea.InputUI(7, 3, 300, 1024), gea.Downlink, ks)
	for i := range ks {
		if b[3+i] != plain[3+i]^ks[i] {
			t.Fatalf("octet %d not plain ⊕ keystream", 3+i)
		}
	}
	d := DecipherUI(b, kc, 7, 1024, gea.Downlink)
	fr, err := ParseFrame(d)
	if err != nil || !fr.E || fr.NU != 300 || !bytes.Equal(fr.Info, info) {
		t.Errorf("deciphered: %+v %v", fr, err)
	}
	if _, err := ParseFrame(DecipherUI(b, kc, 7, 512, gea.Downlink)); err != ErrFCS {
		t.Errorf("wrong OC: %v, want ErrFCS", err)
	}
}
