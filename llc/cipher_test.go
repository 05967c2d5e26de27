package llc

import (
	"encoding/binary"
	"testing"

	"github.com/gopcu/gopcu/llc/gea"
)

// cipherTestFrame is an LLC UI frame (SAPI 3, N(U) nu, PM = 1, E as
// given) whose information field is an SN-UNITDATA PDU of NSAPI 5
// (first segment, TS 44.065 §7.2) with a UDP/IPv4 header that has a
// valid checksum; the three FCS octets are zero (FlowKey does not check
// them).
func cipherTestFrame(nu uint16, e bool) []byte {
	ip := make([]byte, 28)
	ip[0] = 0x45
	binary.BigEndian.PutUint16(ip[2:], 28)
	ip[8], ip[9] = 64, 17
	copy(ip[12:], []byte{10, 45, 0, 1, 10, 46, 0, 1})
	binary.BigEndian.PutUint16(ip[10:], ipv4Sum(ip[:20]))
	binary.BigEndian.PutUint16(ip[20:], 40000)
	binary.BigEndian.PutUint16(ip[22:], 53)
	ctl := byte(nu<<2) | 1
	if e {
		ctl |= 2
	}
	b := []byte{SAPIUser3, 0xc0 | byte(nu>>6&7), ctl, 0x60 | 5, 0, 0, 7}
	b = append(b, ip...)
	return append(b, 0, 0, 0)
}

// TestFlowKeyCipheredFrame: a UI frame with the E bit set is ciphered
// (TS 44.064 §6.3.3, Annex A: information field and FCS XORed with
// the GEA keystream), so its octets say nothing about SNDCP or IP, even
// when they happen to look like an SN-UNITDATA PDU with an IPv4 header:
// FlowKey must leave it in its SAPI's flow (KeyNone), never key it by
// IP addresses or take it for a later segment of an N-PDU.
func TestFlowKeyCipheredFrame(t *testing.T) {
	plain := cipherTestFrame(5, false)
	if _, nsapi, kind := FlowKey(plain); kind != KeyIP || nsapi != 5 {
		t.Fatalf("the unciphered frame: kind %d nsapi %d, want KeyIP, NSAPI 5", kind, nsapi)
	}
	// the same octets with E = 1: ciphertext that looks like IP
	looks := cipherTestFrame(5, true)
	if key, nsapi, kind := FlowKey(looks); kind != KeyNone || key != 0 || nsapi != 0 {
		t.Errorf("E = 1, IP-looking octets: key %#x nsapi %d kind %d, want KeyNone", key, nsapi, kind)
	}
	// ... or like a later segment of an N-PDU (F = 0)
	cont := cipherTestFrame(6, true)
	cont[3] = 0x20 | 5
	if _, _, kind := FlowKey(cont); kind != KeyNone {
		t.Errorf("E = 1, continuation-looking octets: kind %d, want KeyNone", kind)
	}
	if h, err := Inspect(looks); err != nil || !h.UI() || !h.E {
		t.Errorf("Inspect: %+v %v, want a UI frame with E", h, err)
	}
	// real GEA3 ciphertext of the IP frame, as an SGSN sends it
	var kc [8]byte
	copy(kc[:], []byte{0xea, 0xe4, 0xbe, 0x82, 0x3a, 0xf9, 0xa0, 0x8b})
	for nu := uint16(0); nu < 512; nu++ {
		b := cipherTestFrame(nu, true)
		gea.XORKeyStream(b[3:], kc, gea.InputUI(0, SAPIUser3, nu, 0), gea.Downlink)
		if _, _, kind := FlowKey(b); kind != KeyNone {
			t.Fatalf("GEA3-ciphered frame N(U) %d: kind %d, want KeyNone", nu, kind)
		}
	}
}
