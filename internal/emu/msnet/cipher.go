package msnet

import (
	"encoding/binary"

	"github.com/gopcu/gopcu/llc/gea"
)

// LLC ciphering (TS 44.064 Annex A, TS 24.008 §4.7.7): when the network's
// Authentication and Ciphering Request selects GEA/3, the MS derives Kc
// from its SIM and, from the frame after its response on, ciphers the
// information field and FCS of its uplink UI frames (E = 1) and
// deciphers downlink UI frames with E = 1. XID and other U frames are
// never ciphered.

// GEA algorithm numbers of the ciphering algorithm IE (TS 24.008
// §10.5.5.3).
const (
	GEA0 = 0 // ciphering not used
	GEA3 = 3
)

// NetCapGEA3 is DefaultNetCap with GEA/3 announced (TS 24.008
// §10.5.5.12: octet 4 bit 6, an extended GEA bit), which osmo-sgsn reads
// in gprs_ms_net_cap_gea_mask().
var NetCapGEA3 = []byte{0x60, 0x20}

// cipherState is the MS's LLC ciphering context (one LLME).
type cipherState struct {
	algo  uint8 // GEA0 or GEA3
	kc    [8]byte
	iovUI uint32     // IOV-UI of the last XID that carried one (0 by default)
	txOC  [16]uint32 // OC of each SAPI's uplink frames
	rxOC  [16]uint32 // OC that applies to N(U) = V(UR) of each SAPI
}

// gmmCipherable reports whether an uplink layer-3 message on SAPI 1 may
// be ciphered: TS 24.008 §4.7.1.2 lists the GMM messages sent in clear
// (Attach Request, Authentication and Ciphering Response and Failure,
// Identity Response, Routing Area Update Request, ...); osmo-sgsn drops
// any other GMM message that arrives in clear once it has a key
// (gsm48_hdr_gmm_cipherable). SM messages are always ciphered.
func gmmCipherable(l3 []byte) bool {
	if len(l3) < 2 || l3[0]&0x0f != PDGMM {
		return true
	}
	switch l3[1] {
	case GMMAttachRequest, GMMAttachReject, GMMAuthCipherRequest, GMMAuthCipherResponse,
		GMMAuthCipherReject, 0x1c /* Authentication and Ciphering Failure */, GMMIdentityRequest,
		GMMIdentityResponse, GMMRAURequest, GMMRAUReject:
		return false
	}
	return true
}

// CipherUI builds a ciphered UI frame from the MS (C/R = 0, PM = 1,
// E = 1): the FCS is computed over the header and the plain information
// field, then information field and FCS are XORed with the GEA3
// keystream for INPUT = InputUI(iovUI, sapi, N(U), oc) and the direction
// given (TS 44.064 Annex A.2; an SGSN-side peer passes gea.Downlink and
// C/R 1 with cr).
func CipherUI(sapi uint8, nu uint16, info []byte, kc [8]byte, iovUI, oc uint32, dir gea.Direction, cr bool) []byte {
	nu &= 0x1ff
	a := sapi & 0x0f
	if cr {
		a |= 0x40
	}
	b := make([]byte, 0, 3+len(info)+3)
	b = append(b, a, 0xc0|byte(nu>>6), byte(nu<<2)|2|1)
	b = append(b, info...)
	b = appendFCS(b, len(b))
	gea.XORKeyStream(b[3:], kc, gea.InputUI(iovUI, sapi, nu, oc), dir)
	return b
}

// DecipherUI returns a copy of the ciphered UI frame b with its
// information field and FCS deciphered (the E bit stays set), for
// ParseFrame to check the FCS.
func DecipherUI(b []byte, kc [8]byte, iovUI, oc uint32, dir gea.Direction) []byte {
	p := append([]byte(nil), b...)
	if len(p) < 6 {
		return p
	}
	sapi := p[0] & 0x0f
	nu := uint16(p[1]&7)<<6 | uint16(p[2]>>2)
	gea.XORKeyStream(p[3:], kc, gea.InputUI(iovUI, sapi, nu, oc), dir)
	return p
}

// isCipheredUI reports whether b is a UI frame with the E bit set.
func isCipheredUI(b []byte) bool {
	return len(b) >= 3 && b[1]&0xe0 == 0xc0 && b[2]&2 != 0
}

// iovUIValue decodes the 4 octets of an IOV-UI XID parameter (TS 44.064
// §8.9): most significant octet first, or, for osmo-sgsn, in the byte
// order of its host (gprs_llc_generate_xid_for_gmm_reset() copies the
// memory of a uint32_t: least significant octet first on x86).
func iovUIValue(v []byte, hostLE bool) (uint32, bool) {
	if len(v) != 4 {
		return 0, false
	}
	if hostLE {
		return binary.LittleEndian.Uint32(v), true
	}
	return binary.BigEndian.Uint32(v), true
}

// rxOCOf is the OC with which the network ciphered a downlink frame with
// N(U) nu on SAPI sapi (TS 44.064 Annex A.2.1: OC grows by 512 each time
// N(U) wraps): the rxOC of V(UR) for a frame in V(UR)'s cycle, 512 less
// for an overtaken frame from before the wrap, 512 more for a frame past
// the wrap. osmo-sgsn (gprs_llc_tx_ui) adds its 512 once V(U) reaches
// 511, so it ciphers its N(U) 511 with the next cycle's OC already.
func (s *Stack) rxOCOf(sapi uint8, nu uint16) uint32 {
	w := &s.rx[sapi]
	oc := s.ciph.rxOC[sapi]
	if back := (w.vur - nu) & 0x1ff; back > 0 && back <= 32 { // overtaken
		if nu > w.vur {
			oc -= 512
		}
	} else if nu < w.vur {
		oc += 512
	}
	if s.cfg.OsmoSGSN && nu == 511 {
		oc += 512
	}
	return oc
}

// rxAdvanced updates the downlink OC after the window took a frame with
// N(U) nu that moved V(UR) (accept returned true and V(UR) changed).
func (s *Stack) rxAdvanced(sapi uint8, nu, oldVUR uint16) {
	if s.rx[sapi].vur == oldVUR {
		return // an overtaken frame: V(UR) and its OC stay
	}
	if nu < oldVUR { // past the wrap
		s.ciph.rxOC[sapi] += 512
	}
	if nu == 511 { // V(UR) wrapped to 0
		s.ciph.rxOC[sapi] += 512
	}
}
