package gea

import (
	"bytes"
	"testing"

	"github.com/gopcu/gopcu/internal/testutil"
)

func key16(t *testing.T, s string) (k [16]byte) {
	t.Helper()
	copy(k[:], testutil.Hex(t, s))
	return
}

func key8(t *testing.T, s string) (k [8]byte) {
	t.Helper()
	copy(k[:], testutil.Hex(t, s))
	return
}

func TestSBoxPermutations(t *testing.T) {
	var seen7 [128]bool
	for _, v := range s7 {
		if v >= 128 || seen7[v] {
			t.Fatalf("S7 is not a permutation of 0..127 (%d)", v)
		}
		seen7[v] = true
	}
	var seen9 [512]bool
	for _, v := range s9 {
		if v >= 512 || seen9[v] {
			t.Fatalf("S9 is not a permutation of 0..511 (%d)", v)
		}
		seen9[v] = true
	}
}

// KASUMI test sets 1 to 4 of the 3GPP KASUMI test data (3GPP TS 35.203,
// Implementors' Test Data, KASUMI test sets; the values as libosmocore's
// tests/kasumi/kasumi_test.c lists them). Test set 4 applies KASUMI 50
// times to its input.
var kasumiSets = []struct {
	set     int
	key     string
	in, out uint64
	times   int
}{
	{1, "2BD6459F82C5B300952C49104881FF48", 0xEA024714AD5C4D84, 0xDF1F9B251C0BF45F, 1},
	{2, "8CE33E2CC3C0B5FC1F3DE8A6DC66B1F3", 0xD3C5D592327FB11C, 0xDE551988CEB2F9B7, 1},
	{3, "4035C6680AF8C6D1A8FF8667B1714013", 0x62A540981BA6F9B7, 0x4592B0E78690F71B, 1},
	{4, "3A3B39B5C3F2376D69F7D546E5F85D43", 0xCA49C1C75771AB0B, 0x738BAD4C4A690802, 50},
}

func TestKasumiTestSets(t *testing.T) {
	for _, v := range kasumiSets {
		c := NewKasumi(key16(t, v.key))
		x := v.in
		for range v.times {
			x = c.Encrypt(x)
		}
		if x != v.out {
			t.Errorf("KASUMI test set %d: %016X, want %016X", v.set, x, v.out)
		}
	}
}

// TestKasumiKeySchedule: the round subkeys of KASUMI test set 1 (the
// intermediate values of the same test data).
func TestKasumiKeySchedule(t *testing.T) {
	c := NewKasumi(key16(t, "2BD6459F82C5B300952C49104881FF48"))
	want := map[string][8]uint16{
		"KLi1": {0x57AC, 0x8B3E, 0x058B, 0x6601, 0x2A59, 0x9220, 0x9102, 0xFE91},
		"KLi2": {0x0B6E, 0x7EEF, 0x6BF0, 0xF388, 0x3ED5, 0xCD58, 0x2AF5, 0x00F8},
		"KOi1": {0xB3E8, 0x58B0, 0x6016, 0xA592, 0x2209, 0x1029, 0xE91F, 0x7AC5},
		"KOi2": {0x1049, 0x8148, 0x48FF, 0xD62B, 0x9F45, 0xC582, 0x00B3, 0x2C95},
		"KOi3": {0x2910, 0x1FE9, 0xC57A, 0xE8B3, 0xB058, 0x1660, 0x92A5, 0x0922},
		"KIi1": {0x6BF0, 0xF388, 0x3ED5, 0xCD58, 0x2AF5, 0x00F8, 0x0B6E, 0x7EEF},
		"KIi2": {0x7EEF, 0x6BF0, 0xF388, 0x3ED5, 0xCD58, 0x2AF5, 0x00F8, 0x0B6E},
		"KIi3": {0xCD58, 0x2AF5, 0x00F8, 0x0B6E, 0x7EEF, 0x6BF0, 0xF388, 0x3ED5},
	}
	got := map[string][8]uint16{"KLi1": c.kl1, "KLi2": c.kl2, "KOi1": c.ko1, "KOi2": c.ko2, "KOi3": c.ko3,
		"KIi1": c.ki1, "KIi2": c.ki2, "KIi3": c.ki3}
	for name, w := range want {
		if got[name] != w {
			t.Errorf("%s = %04X, want %04X", name, got[name], w)
		}
	}
}

// KGCORE test sets 1 to 5 of 3GPP TS 55.217 (A5/3 and GEA3
// Implementors' Test Data): CA = 0x0F, CB = 0, CD = 0, CE = 0, 256
// output bits (values as in libosmocore's tests/kasumi/kasumi_test.c).
var kgcoreSets = []struct {
	set int
	ck  string
	cc  uint32
	co  string
}{
	{1, "2BD6459F82C5BC002BD6459F82C5BC00", 0x0024F20F, "889EEAAF9ED1BA1ABBD8436232E45728D01AA89133DA73C11EAB68B7D89BC841"},
	{2, "952C49104881FF48952C49104881FF48", 0x00061272, "FB4D5FBCEE13A33389285686E9A5C94240DE38150115F15F8D9D98B91A94B296"},
	{3, "EFA8B2229E720C2AEFA8B2229E720C2A", 0x0033FD3F, "0E4015755A336469C3DD8680E3035BC419A78AD3862C1090C68A391FE8A6ADEB"},
	{4, "5ACB1D644C0D51204EA55ACB1D644C0D", 0x00156B26, "E095306AD5086E2EAC7F3107DE4FA22DC1DFC97D5BC5661DD6096F476AEDC64B"},
	{5, "D3C5D592327FB11C4035C6680AF8C6D1", 0x000A59B4, "DCE64362AB5F89C11EF0B305166570F4889D5511E9E3575D062B5CED6039506A"},
}

func TestKGCORETestSets(t *testing.T) {
	for _, v := range kgcoreSets {
		co := make([]byte, 32)
		KGCORE(0x0f, 0, v.cc, 0, 0, key16(t, v.ck), co)
		if want := testutil.Hex(t, v.co); !bytes.Equal(co, want) {
			t.Errorf("KGCORE test set %d:\n got %X\nwant %X", v.set, co, want)
		}
	}
}

// GEA3 test sets 1 to 6 of 3GPP TS 55.217 V6.1.0 (GEA3 Implementors'
// Test Data), 59 octets of keystream each (the values as libosmocore's
// tests/gea/gea_test.c lists them, citing TS 55.217 and 55.218 V6.1.0).
var gea3Sets = []struct {
	set   int
	kc    string
	input uint32
	dir   Direction
	out   string
}{
	{1, "2BD6459F82C5BC00", 0x8E9421A3, 0, "5F359709DE950D0105B17B6C90194280F880B48DCCDC2AFEED415DBEF4354EEBB21D073CCBBFB2D706BD7AFFD371FC96E3970D143DCB2624054826"},
	{2, "952C49104881FF48", 0x5064DB71, 0, "FDC03D738C8E14FF0320E59AAF75760799E9DA78DD8F888471C4AEAAC1849633A26CD84F459D265B83D7D9B9A0B1E54F4D75E331640DF19E0DB0E0"},
	{3, "EFA8B2229E720C2A", 0x4BDBD5E5, 1, "4718A2ADFC90590949DDADAB406EC3B925F1AF1214673909DAAB96BB4C18B1374BB1E99445A81CC856E47C6E49E9DBB9873D0831B2175CA1E109BA"},
	{4, "3451F23A43BD2C87", 0x893FE14F, 0, "B46B1E284E3F8B63B86D9DF0915CFCEDDF2F061895BF9F82BF2593AE4847E94A4626C393CF8941CE15EA7812690D8415B88C5730FE1F5D410E16A2"},
	{5, "CAA2639BE82435CF", 0x8FE17885, 1, "9FEFAF155A26CF35603E727CDAA87BA067FD84FF98A50B7FF0EC8E95A0FB70E79CB93DEE2B7E9AB59D050E1262401571F349C68229DDF0DECC4E85"},
	{6, "1ACA8B448B767B39", 0x4F7BC3B5, 0, "514F6C3A3B5A55CA190092F7BB6E80EF3EDB738FCDCE2FF90BB387DDE75BBC32A04A67B898A3DFB8198FFFC37D437CF69E7F9C13B51A868720E750"},
}

func TestGEA3TestSets(t *testing.T) {
	for _, v := range gea3Sets {
		out := make([]byte, 59)
		GEA3(key8(t, v.kc), v.input, v.dir, out)
		if want := testutil.Hex(t, v.out); !bytes.Equal(out, want) {
			t.Errorf("GEA3 test set %d:\n got %X\nwant %X", v.set, out, want)
		}
		// a shorter output is a prefix (the keystream does not depend
		// on the length)
		short := make([]byte, 13)
		GEA3(key8(t, v.kc), v.input, v.dir, short)
		if !bytes.Equal(short, out[:13]) {
			t.Errorf("GEA3 test set %d: 13 octets %X are not a prefix of %X", v.set, short, out)
		}
	}
}

// TestGEA3LLCFrames: keystreams for LLC UI frames of a real network
// (libosmocore's tests/gea/gea_test.c, "GEA3 test with real data"):
// IOV-UI 0, SAPI 3, OC 0, the frame's N(U) as LFN; the INPUT comes from
// InputUI, so this checks the TS 44.064 Annex A.2.1 formula together
// with GEA3 against what osmo-sgsn ciphers with.
func TestGEA3LLCFrames(t *testing.T) {
	for _, v := range []struct {
		lfn uint16
		dir Direction
		kc  string
		out string
	}{
		{26, Downlink, "0c09c6ed723a8400", "b08edbbb7f0532ccbd9fef6e1917fa6815e6d7fa4c9ee629f89299ef9a5541bb23f05875487113c5d5166b7fd0bd04215c60cf8dc404f6cbbfb137191e87f5250a311e34c583f7d8a35346e35f287722b6f234b95b67037ee0711b25fbf8ee3fcb354ee2ba1981e57ce3eeaa4f7401a6a8328994c25b359821e4e7ee242f7daf4e597e006b9cce0b9e86d97cd1ff83a021203b93e83457f64f9794d4388e9b7c509ca5ad278b10082fa20d7ac48aea4cb787c19fcbcea95d63bc17e840380adc86688bcf293f2e"},
		{25, Downlink, "0c09c6ed723a8400", "91d2a1a85f6bb00429d76dcd1ca27f50c52e079ee9e990afc8635e25fa8c1007fac52e77035fd09821db893843c7a0666c4e69b5ecd3c9e4e7dc3405e4535115a650eebf698674e248ef13575c"},
		{20, Uplink, "bf4575e165fec400", "c43845418e7fc4b3651bc9c3cc9af0163373126c0b31f85d192280e20c981f426dc4a0514a377f76da3d1672c6a0f463513608b3291bacd5d17bb44c8cc5383c3cc85de94e9c594e0fd61d4f2b74b452c1edf07eb04e0e67f352337cc0fd932936841fa41ee5ff0d8f3fad9625a9dec1f12726b74595a1c40d429926ba7e8461f3fa2ae2c0d3"},
		{21, Uplink, "bf4575e165fec400", "7b4fc1922c183e6f61e8d2317216ed1d2497477d6f84947f8318df42621ad9affc0c42ba2fd63e06bce4720598d5ae919ca2996f2f1feaea2aa79827692471fd0a"},
	} {
		want := testutil.Hex(t, v.out)
		out := make([]byte, len(want))
		GEA3(key8(t, v.kc), InputUI(0, 3, v.lfn, 0), v.dir, out)
		if !bytes.Equal(out, want) {
			t.Errorf("LFN %d dir %d:\n got %x\nwant %x", v.lfn, v.dir, out, want)
		}
	}
}

func TestInputUI(t *testing.T) {
	for _, v := range []struct {
		iov  uint32
		sapi uint8
		lfn  uint16
		oc   uint32
		want uint32
	}{
		{0, 1, 0, 0, 0x88000000},                      // SX = 2^27 + 2^31
		{0, 3, 26, 0, 0x9800001a},                     // 3·2^27 + 2^31 + 26
		{0, 11, 511, 512, 0xd8000000 + 511 + 512},     // SAPI 11
		{0xffffffff, 3, 5, 0, 0x67ffffff + 5},         // IOV-UI ⊕ SX
		{0x12345678, 1, 100, 1024, 0x9a345678 + 1124}, // XOR, then the sum
		{0x7fffffff, 0, 1, 0, 0},                      // modulo 2^32
	} {
		if got := InputUI(v.iov, v.sapi, v.lfn, v.oc); got != v.want {
			t.Errorf("InputUI(%#x, %d, %d, %d) = %#x, want %#x", v.iov, v.sapi, v.lfn, v.oc, got, v.want)
		}
	}
}

func TestXORKeyStreamRoundTrip(t *testing.T) {
	kc := key8(t, "0c09c6ed723a8400")
	plain := []byte("an LLC information field and its FCS")
	b := append([]byte(nil), plain...)
	XORKeyStream(b, kc, 0x98000000, Downlink)
	if bytes.Equal(b, plain) {
		t.Fatal("not ciphered")
	}
	c := append([]byte(nil), b...)
	XORKeyStream(c, kc, 0x98000000, Uplink)
	if bytes.Equal(c, plain) {
		t.Fatal("the other direction's keystream deciphered the frame")
	}
	XORKeyStream(b, kc, 0x98000000, Downlink)
	if !bytes.Equal(b, plain) {
		t.Fatalf("round trip: %q", b)
	}
}
