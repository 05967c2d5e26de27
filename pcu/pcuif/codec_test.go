package pcuif

import (
	"bytes"
	"encoding/hex"
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/gopcu/gopcu/internal/testutil"
)

// vec builds a message of total length n from hex fragments at absolute
// offsets; everything else is zero.
func vec(t testing.TB, n int, frags map[int]string) []byte {
	t.Helper()
	b := make([]byte, n)
	for off, h := range frags {
		copy(b[off:], testutil.Hex(t, h))
	}
	return b
}

// infoIndLab is the INFO_IND that Debian's osmo-bts-virtual 1.5.0 sent in
// the lab (shared/lab/reference/pcuif-sequence.txt, "INFO_IND raw bytes";
// all-zero rows omitted there and here).
func infoIndLab(t testing.TB) []byte {
	return vec(t, 1006, map[int]string{
		0x0000: "32 00 00 00 0a 00 00 00 01 00 0f 00 67 03 f0 00",
		0x0040: "00 00 00 00 00 00 00 00 07 00 00 00 00 00 00 00",
		0x0050: "00 00 00 00 00 07 00 00 00 00 00 00 00 00 00 00",
		0x0060: "00 00 07 00 00 00 00 00 00 00 00 00 00 00 00 07",
		0x0380: "00 00 00 00 00 00 00 00 00 00 00 00 3f 85 03 46",
		0x0390: "00 00 01 00 00 00 65 00 03 03 03 03 1e 03 0a 03",
		0x03a0: "03 03 03 03 0a 03 0a 03 0a 03 39 1b fa 00 03 08",
		0x03b0: "07 14 05 05 a0 05 0a 04 08 0f c4 09 c4 09 02 06",
		0x03c0: "65 00 00 00 d9 59 00 00 d8 59 00 00 04 00 7f 00",
		0x03d0: "00 01 00 00 00 00 00 00 00 00 00 00 00 00 00 00",
	})
}

func labInfo() *InfoInd {
	m := &InfoInd{Version: V10, Flags: FlagActive | FlagCS(1) | FlagCS(2) | FlagCS(3) | FlagCS(4),
		BSIC: 63, MCC: 901, MNC: 70, LAC: 1, RAC: 0, NSEI: 101,
		NSETimer: [7]uint8{3, 3, 3, 3, 30, 3, 10}, CellTimer: [11]uint8{3, 3, 3, 3, 3, 10, 3, 10, 3, 10, 3},
		CellID: 6969, RepeatTime: 250, RepeatCount: 3, BVCI: 1800,
		T3142: 20, T3169: 5, T3191: 5, T3193x10ms: 160, T3195: 5, N3101: 10, N3103: 4, N3105: 8, CVCountdown: 15,
		DLTBFExt: 2500, ULTBFExt: 2500, InitialCS: 2, InitialMCS: 6}
	m.TRX[0].ARFCN = 871
	m.TRX[0].PDCHMask = 0xf0
	for ts := 4; ts < 8; ts++ {
		m.TRX[0].TS[ts].TSC = 7
	}
	m.NSVCI[0], m.LocalPort[0], m.RemotePort[0], m.AddrType[0] = 101, 23001, 23000, AddrIPv4
	copy(m.RemoteIP[0][:], []byte{127, 0, 0, 1})
	return m
}

type golden struct {
	name string
	v    Version
	b    []byte
	m    Message
}

func goldens(t testing.TB) []golden {
	sz := func(v Version) int { return v.FullSize() }
	var gs []golden
	for _, v := range []Version{V10, V11, V12} {
		n := sz(v)
		// Real idle answer of osmo-pcu 1.1.0 (pcuif-sequence.txt): DATA_REQ PDTCH len=0 fn=719 ts=4 block=10.
		gs = append(gs,
			golden{"RTS_REQ", v, vec(t, n, map[int]string{0: "10 00 00 00 05 00 00 00 cf 02 00 00 67 03 00 04 0a"}),
				&RTSReq{SAPI: SAPIPDTCH, FN: 719, ARFCN: 871, TS: 4, BlockNr: 10}},
			golden{"RTS_REQ PTCCH", v, vec(t, n, map[int]string{0: "10 00 00 00 07 00 00 00 e0 02 00 00 67 03 01 07 0b"}),
				&RTSReq{SAPI: SAPIPTCCH, FN: 736, ARFCN: 871, TRX: 1, TS: 7, BlockNr: 11}},
			golden{"DATA_REQ idle", v, vec(t, n, map[int]string{0: "00 00 00 00 05 00", 168: "cf 02 00 00 67 03 00 04 0a"}),
				&Data{Kind: TypeDataReq, SAPI: SAPIPDTCH, Payload: []byte{}, FN: 719, ARFCN: 871, TS: 4, BlockNr: 10}},
			// Packet Downlink Dummy Control Block with USF as osmo-pcu sent it in the lab.
			golden{"DATA_REQ dummy", v, vec(t, n, map[int]string{0: "00 00 00 00 05 17 40 94 2b 2b 2b 2b 2b 2b 2b 2b 2b 2b 2b 2b 2b 2b 2b 2b 2b 2b 2b 2b 2b",
				168: "c6 43 00 00 67 03 00 06 08"}),
				&Data{Kind: TypeDataReq, SAPI: SAPIPDTCH, Payload: dummyBlock(), FN: 17350, ARFCN: 871, TS: 6, BlockNr: 8}},
			golden{"DATA_IND BCCH SI13", v, vec(t, n, map[int]string{0: "02 00 00 00 04 17 01 06 00 90 00 18 5a 6f c9 f1 46 08 41 1b 2b 2b 2b 2b 2b 2b 2b 2b 2b",
				182: "ff 7f"}),
				&Data{Kind: TypeDataInd, SAPI: SAPIBCCH, Payload: testutil.MustHex("01 06 00 90 00 18 5a 6f c9 f1 46 08 41 1b 2b 2b 2b 2b 2b 2b 2b 2b 2b"), LqualCb: 32767}},
			golden{"DATA_IND PDTCH meas", v, vec(t, n, map[int]string{0: "02 03 00 00 05 02 aa bb", 168: "10 00 00 00 67 03 02 05 01 c4 e8 03 fc ff 78 00"}),
				&Data{hdr: hdr{3}, Kind: TypeDataInd, SAPI: SAPIPDTCH, Payload: []byte{0xaa, 0xbb}, FN: 16, ARFCN: 871, TRX: 2, TS: 5, BlockNr: 1,
					RSSI: -60, BER10k: 1000, TAOffsQbits: -4, LqualCb: 120}},
			// Real one-phase access RACH from the lab probe.
			golden{"RACH_IND", v, vec(t, n, map[int]string{0: "22 00 00 00 01 78 00 00 00 c0 43 00 00 00 00 00 01 00 00"}),
				&RACHInd{SAPI: SAPIRACH, RA: 0x78, FN: 17344, BurstType: 1}},
			golden{"RACH_IND 11bit PTCCH", v, vec(t, n, map[int]string{0: "22 00 00 00 07 ff 07 08 00 0c 00 00 00 67 03 01 02 00 07"}),
				&RACHInd{SAPI: SAPIPTCCH, RA: 0x7ff, QTA: 8, FN: 12, ARFCN: 871, Is11Bit: true, BurstType: 2, TS: 7}},
			golden{"TXT_IND", v, vec(t, n, map[int]string{0: "70 00 00 00 00 31 2e 31 2e 30"}), &TxtInd{TxtType: TxtPCUVersion, Text: "1.1.0"}},
			golden{"ACT_REQ", v, vec(t, n, map[int]string{0: "40 00 00 00 01 00 04 00"}), &ActReq{Activate: true, TS: 4}},
			golden{"ACT_REQ deact", v, vec(t, n, map[int]string{0: "40 00 00 00 00 03 07 00"}), &ActReq{TRX: 3, TS: 7}},
			golden{"TIME_IND", v, vec(t, n, map[int]string{0: "52 00 00 00 cb 02 00 00"}), &TimeInd{FN: 715}},
			golden{"INTERF_IND", v, vec(t, n, map[int]string{0: "53 00 00 00 01 00 00 00 0d 00 00 00 00 01 02 03 04 05 06 07"}),
				&InterfInd{TRX: 1, FN: 13, Interf: [8]uint8{0, 1, 2, 3, 4, 5, 6, 7}}},
			golden{"PAG_REQ TMSI", v, vec(t, n, map[int]string{0: "60 00 00 00 00 02 05 f4 11 22 33 44"}),
				&PagReq{ChanNeeded: 2, Identity: []byte{0xf4, 0x11, 0x22, 0x33, 0x44}}},
			golden{"SUSP_REQ", v, vec(t, n, map[int]string{0: "03 00 00 00 44 33 22 11 09 f1 07 00 01 00 05"}),
				&SuspReq{TLLI: 0x11223344, RAID: [6]byte{0x09, 0xf1, 0x07, 0x00, 0x01, 0x00}, Cause: 5}},
			golden{"APP_INFO_REQ", v, vec(t, n, map[int]string{0: "04 00 00 00 00 02 ff ff"}), &AppInfoReq{AppType: 0, Data: []byte{0xff, 0xff}}},
			golden{"E1_CCU_IND", v, vec(t, n, map[int]string{0: "33 00 00 00 00 04 01 02 03"}), &E1CCUInd{TS: 4, E1Nr: 1, E1TS: 2, E1TSSubSl: 3}},
			golden{"CONTAINER NEIGH_ADDR_REQ", v, vec(t, 15, map[int]string{0: "80 00 00 00 81 00 00 07 00 01 1b 39 03 67 3f"}),
				&Container{MsgType: ContNeighAddrReq, Data: testutil.MustHex("00 01 1b 39 03 67 3f")}},
		)
	}
	// Version specific messages.
	gs = append(gs,
		golden{"INFO_IND lab v10", V10, infoIndLab(t), labInfo()},
		// Real Immediate Assignment of osmo-pcu 1.1.0 on the v10 AGCH SAPI (lab RACH probe).
		golden{"DATA_REQ AGCH v10", V10, vec(t, 1006, map[int]string{0: "00 00 00 00 02 17 2d 06 3f 10 0e e3 67 78 60 66 00 00 c8 00 30 0b 2b 2b 2b 2b 2b 2b 2b"}),
			&Data{Kind: TypeDataReq, SAPI: SAPIAGCH, Payload: testutil.MustHex("2d 06 3f 10 0e e3 67 78 60 66 00 00 c8 00 30 0b 2b 2b 2b 2b 2b 2b 2b")}},
		golden{"DATA_CNF v10", V10, vec(t, 1006, map[int]string{0: "01 00 00 00 03 02 30 31"}), &Data{Kind: TypeDataCnf, SAPI: SAPIPCH, Payload: []byte("01")}},
		golden{"DATA_CNF_DT v10", V10, vec(t, 1006, map[int]string{0: "11 00 00 00 08 44 33 22 11 0d 00 00 00 67 03 00 04 02 c4 00 00 00 00 00 00"}),
			&DataCnfDT{SAPI: SAPIAGCHDT, TLLI: 0x11223344, FN: 13, ARFCN: 871, TS: 4, BlockNr: 2, RSSI: -60}},
		golden{"DATA_CNF_2 v11", V11, vec(t, 1006, map[int]string{0: "11 00 00 00 08 44 33 22 11"}), &DataCnf2{SAPI: SAPIPCH2, MsgID: 0x11223344}},
		golden{"DATA_CNF_2 v12", V12, vec(t, 1007, map[int]string{0: "11 00 00 00 09 ff ff ff ff"}), &DataCnf2{SAPI: SAPIAGCH2, MsgID: 0xffffffff}},
	)
	// The lab INFO_IND as v11 and v12 (v12 adds bts_model at payload offset 1002).
	i11 := labInfo()
	i11.Version = V11
	b11 := infoIndLab(t)
	b11[4] = 0x0b
	i12 := labInfo()
	i12.Version = V12
	i12.BTSModel = BTSModelTRX
	b12 := append(infoIndLab(t), 0)
	b12[4] = 0x0c
	b12[1006] = 5
	gs = append(gs, golden{"INFO_IND v11", V11, b11, i11}, golden{"INFO_IND v12", V12, b12, i12})
	// INFO_IND with IPv6 and hopping, v12.
	i6 := &InfoInd{Version: V12, Flags: FlagActive | FlagMCS(9), BSIC: 7, MCC: 262, MNC: 42, MNC3Digits: true, LAC: 13135, RAC: 1, NSEI: 1234, CellID: 20960, BVCI: 1234}
	i6.TRX[1].ARFCN = 0x3ff
	i6.TRX[1].PDCHMask = 0x01
	i6.TRX[1].TS[0] = InfoTS{TSC: 3, Hopping: true, HSN: 5, MAIO: 2, MABitLen: 9, MA: [8]byte{6: 0x01, 7: 0xff}}
	i6.NSVCI[1], i6.LocalPort[1], i6.RemotePort[1], i6.AddrType[1] = 7, 22000, 23000, AddrIPv6
	i6.RemoteIP[1] = [16]byte{0x20, 0x01, 0x0d, 0xb8, 15: 1}
	i6.BTSModel = BTSModelRBS
	gs = append(gs, golden{"INFO_IND v12 ipv6 hopping", V12, vec(t, 1007, map[int]string{
		0:           "32 00 00 00 0c 00 00 00 01 00 00 10",
		4 + 8 + 112: "ff 03 01 00 00 00 00 00 03 01 05 02 09 00 00 00 00 00 00 01 ff",
		4 + 904:     "07 06 01 2a 00 01 4f 33 01 00 d2 04",
		4 + 934:     "e0 51", 4 + 939: "d2 04",
		4 + 956: "00 00 07 00 00 00 f0 55 00 00 d8 59 00 29", 4 + 986: "20 01 0d b8 00 00 00 00 00 00 00 00 00 00 00 01",
		4 + 1002: "06"}), i6})
	// PCH_2 with a DL IMM ASS and AGCH_2, as DATA_REQ payloads.
	return gs
}

func dummyBlock() []byte {
	b := testutil.MustHex("40 94")
	for len(b) < 23 {
		b = append(b, 0x2b)
	}
	return b
}

func TestGolden(t *testing.T) {
	for _, g := range goldens(t) {
		t.Run(g.name+"/"+g.v.String(), func(t *testing.T) {
			// Parse: bytes -> struct; marshal: struct -> bytes.
			testutil.CheckGolden(t, g.b, g.m, func(b []byte) (Message, error) { return Parse(b, g.v) },
				func(m Message) ([]byte, error) { return Marshal(m, g.v) })
			// Len.
			if n := MarshalLen(g.m, g.v); n != len(g.b) {
				t.Fatalf("len %d, want %d", n, len(g.b))
			}
			// Typed decode into a reused struct agrees with Parse.
			m2, _ := New(g.m.Type(), g.v)
			if err := Unmarshal(g.b, m2, g.v); err != nil || !reflect.DeepEqual(m2, g.m) {
				t.Fatalf("unmarshal: %v %#v", err, m2)
			}
		})
	}
}

func TestLabInfoInd(t *testing.T) {
	m, err := Parse(infoIndLab(t), V12) // the INFO_IND's own version decides
	if err != nil {
		t.Fatal(err)
	}
	ii := m.(*InfoInd)
	if ii.Version != V10 {
		t.Fatalf("version %s", ii.Version)
	}
	ap, ok := ii.Remote(0)
	if !ok || ap.String() != "127.0.0.1:23000" {
		t.Fatalf("remote %v %v", ap, ok)
	}
	if _, ok := ii.Remote(1); ok {
		t.Fatal("unused NS-VC reported")
	}
}

func TestCCCHPayloads(t *testing.T) {
	p := PCH2{MsgID: 0xdeadbeef, IMSI: "262420000000001", Confirm: true}
	copy(p.MAC[:], testutil.MustHex("2d 06 3f 10 0e e3 67 78 60 66 00 00 c8 00 30 0b 2b 2b 2b 2b 2b 2b 2b"))
	b := make([]byte, PCH2Len)
	if _, err := p.MarshalTo(b); err != nil {
		t.Fatal(err)
	}
	want := "efbeadde" + hex.EncodeToString([]byte("262420000000001")) + "0000" + "2d063f100ee3677860660000c800300b2b2b2b2b2b2b2b" + "01"
	if hex.EncodeToString(b) != want {
		t.Fatalf("PCH_2 %x\nwant %s", b, want)
	}
	var q PCH2
	if err := q.Unmarshal(b); err != nil || q != p {
		t.Fatalf("PCH_2 round trip %v %+v", err, q)
	}
	a := AGCH2{MsgID: 0xffffffff}
	copy(a.MAC[:], p.MAC[:])
	ab := make([]byte, AGCH2Len)
	a.MarshalTo(ab)
	if hex.EncodeToString(ab) != "ffffffff2d063f100ee3677860660000c800300b2b2b2b2b2b2b2b00" {
		t.Fatalf("AGCH_2 %x", ab)
	}
	var a2 AGCH2
	if err := a2.Unmarshal(ab); err != nil || a2 != a {
		t.Fatal("AGCH_2 round trip")
	}
	c := NeighAddrCnf{Req: NeighAddrReq{1, 6969, 871, 63}, MCC: 901, MNC: 70, LAC: 2, RAC: 3, CellID: 7}
	c2, err := ParseNeighAddrCnf(c.Marshal())
	if err != nil || c2 != c {
		t.Fatalf("NEIGH_ADDR_CNF %v %+v", err, c2)
	}
	if _, err := ParseNeighAddrCnf(make([]byte, 17)); !errors.Is(err, ErrShort) {
		t.Fatal("short NEIGH_ADDR_CNF accepted")
	}
}

func TestBadInput(t *testing.T) {
	rts := vec(t, 1007, map[int]string{0: "10 00 00 00 05 00 00 00 cf 02 00 00 67 03 00 04 0a"})
	set := func(b []byte, off int, v byte) []byte { c := append([]byte(nil), b...); c[off] = v; return c }
	cases := []struct {
		name string
		v    Version
		b    []byte
		want error
	}{
		{"empty", V12, nil, ErrShort},
		{"header only", V12, rts[:4], ErrShort},
		{"truncated RTS", V12, rts[:16], ErrShort},
		{"oversized", V12, append(append([]byte(nil), rts...), 0), ErrLong},
		{"v12 size to v10", V10, rts, ErrLong},
		{"unknown type", V12, set(rts, 0, 0x99), ErrUnknownType},
		{"RTS trx 8", V12, set(rts, 4+10, 8), ErrRange},
		{"RTS ts 8", V12, set(rts, 4+11, 8), ErrRange},
		{"RTS block 12", V12, set(rts, 4+12, 12), ErrRange},
		{"RTS fn beyond hyperframe", V12, set(rts, 4+7, 0xff), ErrRange},
		{"RTS unknown sapi", V12, set(rts, 4, 0x20), ErrVersion},
		{"AGCH sapi in v12", V12, set(rts, 4, byte(SAPIAGCH)), ErrVersion},
		{"DATA_CNF in v12", V12, set(rts, 0, byte(TypeDataCnf)), ErrVersion},
		{"DATA len 163", V12, set(set(rts, 0, 0), 5, 163), ErrRange},
		{"INFO_IND version 9", V12, set(infoIndLab(t), 4, 9), ErrVersion},
		{"INFO_IND v12 short", V12, set(infoIndLab(t), 4, 12), ErrShort},
		{"INFO_IND bad addr type", V10, set(infoIndLab(t), 4+968, 7), ErrRange},
		{"ACT_REQ activate 2", V12, vec(t, 1007, map[int]string{0: "40 00 00 00 02 00 04 00"}), ErrRange},
		{"PAG_REQ len 9", V12, vec(t, 1007, map[int]string{0: "60 00 00 00 00 00 09"}), ErrRange},
		{"TXT not terminated", V12, vec(t, 1007, map[int]string{0: "70 00 00 00 00 " + strings.Repeat("41", 128)}), ErrInconsistent},
		{"container length lies", V12, vec(t, 12, map[int]string{0: "80 00 00 00 81 00 00 09 00 01 02 03"}), ErrInconsistent},
		{"DATA_CNF_2 wrong sapi", V12, vec(t, 1007, map[int]string{0: "11 00 00 00 05 00 00 00 00"}), ErrInconsistent},
		{"RACH 8-bit ra 0x100", V12, vec(t, 1007, map[int]string{0: "22 00 00 00 01 00 01"}), ErrRange},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := Parse(c.b, c.v)
			if !errors.Is(err, c.want) {
				t.Fatalf("got %v, want %v", err, c.want)
			}
			var pe *Error
			if !errors.As(err, &pe) {
				t.Fatalf("error %T is not *Error", err)
			}
		})
	}
}

func TestEncodeErrors(t *testing.T) {
	if _, err := Marshal(&Data{Kind: TypeDataCnf, SAPI: SAPIPCH}, V12); !errors.Is(err, ErrVersion) {
		t.Fatal("DATA_CNF encoded for v12")
	}
	if _, err := Marshal(&Data{Payload: make([]byte, 163)}, V12); !errors.Is(err, ErrRange) {
		t.Fatal("oversized payload encoded")
	}
	if _, err := MarshalTo(make([]byte, 100), &RTSReq{}, V12); !errors.Is(err, ErrBuffer) {
		t.Fatal("short buffer accepted")
	}
}

// BenchmarkRTSToDataReq is the per-block PCU socket cost: decode an RTS_REQ
// and encode the DATA_REQ answering it (issue target: <= 300 ns, 0 allocs).
func BenchmarkRTSToDataReq(b *testing.B) {
	in, _ := Marshal(&RTSReq{SAPI: SAPIPDTCH, FN: 719, ARFCN: 871, TS: 4, BlockNr: 10}, V12)
	out := make([]byte, V12.FullSize())
	blk := dummyBlock()
	var rts RTSReq
	var d Data
	b.ReportAllocs()
	for b.Loop() {
		if err := Unmarshal(in, &rts, V12); err != nil {
			b.Fatal(err)
		}
		d = Data{Kind: TypeDataReq, SAPI: rts.SAPI, Payload: blk, FN: rts.FN, ARFCN: rts.ARFCN, TRX: rts.TRX, TS: rts.TS, BlockNr: rts.BlockNr}
		if _, err := MarshalTo(out, &d, V12); err != nil {
			b.Fatal(err)
		}
	}
}

// TestPaddedContainer: the Osmocom TTCN-3 suite's BTS sends every PCUIF
// message padded to the size of the whole union (PCUIF_Types.ttcn
// PCUIF_Message, 1007 octets), CONTAINER too. The octets after the
// container's data are ignored (osmo-pcu pcu_rx() needs only
// header + 4 + length), in every version; fewer than length stay an error.
func TestPaddedContainer(t *testing.T) {
	cnf := NeighAddrCnf{Req: NeighAddrReq{1, 6969, 871, 63}, MCC: 901, MNC: 70, LAC: 2, RAC: 3, CellID: 7000}
	data := cnf.Marshal()
	for _, v := range []Version{V10, V11, V12} {
		for _, size := range []int{HeaderLen + 4 + 18 + 1, 1006, 1007} {
			b := make([]byte, size)
			copy(b, []byte{0x80, 0, 0, 0, ContNeighAddrCnf, 0, 0, 18})
			copy(b[8:], data)
			m, err := Parse(b, v)
			if err != nil {
				t.Fatalf("%s, %d octets: %v", v, size, err)
			}
			c := m.(*Container)
			if c.MsgType != ContNeighAddrCnf || !bytes.Equal(c.Data, data) {
				t.Fatalf("%s, %d octets: %+v", v, size, c)
			}
			if got, err := ParseNeighAddrCnf(c.Data); err != nil || got != cnf {
				t.Fatalf("%s, %d octets: NEIGH_ADDR_CNF %+v %v", v, size, got, err)
			}
			if out, err := Marshal(c, v); err != nil || !bytes.Equal(out, b[:8+18]) {
				t.Fatalf("%s: re-encoded %x %v", v, out, err)
			}
		}
	}
}
