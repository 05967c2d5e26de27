package gea

// KGCORE is the keystream generator core of A5/3, ECSD A5/3 and GEA3
// (3GPP TS 55.216 §4): KASUMI in an output-feedback mode with a block
// counter. Inputs CA (8 bits), CB (5 bits), CC (32 bits), CD (1 bit),
// CE (16 bits) and the 128-bit key CK; co receives the first 8·len(co)
// bits of the output CO (CL = 8·len(co)).
//
//	A    = KASUMI_{CK ⊕ KM}(CC ‖ CB ‖ CD ‖ 00 ‖ CA ‖ CE),  KM = 0x55…55
//	KSB0 = 0
//	KSBn = KASUMI_CK(A ⊕ BLKCNT ⊕ KSBn-1),  BLKCNT = n-1
//	CO   = KSB1 ‖ KSB2 ‖ …
func KGCORE(ca, cb uint8, cc uint32, cd uint8, ce uint16, ck [16]byte, co []byte) {
	km := ck
	for i := range km {
		km[i] ^= 0x55
	}
	a := uint64(cc)<<32 | uint64(cb&0x1f)<<27 | uint64(cd&1)<<26 | uint64(ca)<<16 | uint64(ce)
	a = NewKasumi(km).Encrypt(a)
	k := NewKasumi(ck)
	var ksb uint64
	for n := uint64(0); len(co) > 0; n++ {
		ksb = k.Encrypt(a ^ n ^ ksb)
		for i := 0; i < 8 && len(co) > 0; i++ {
			co[0] = byte(ksb >> (56 - 8*i))
			co = co[1:]
		}
	}
}

// Direction is the GEA DIRECTION bit (3GPP TS 55.216 §7; TS 44.064
// Annex A): 0 for LLC frames the MS sends, 1 for frames the SGSN sends.
type Direction uint8

// Directions.
const (
	Uplink   Direction = 0 // MS to SGSN
	Downlink Direction = 1 // SGSN to MS
)

// GEA3 writes len(out) octets of GEA3 keystream (3GPP TS 55.216 §7) for
// the 64-bit key Kc, the 32-bit INPUT and DIRECTION: KGCORE with
// CA = 0xFF, CB = 0, CC = INPUT, CD = DIRECTION, CE = 0 and CK = Kc ‖ Kc.
// The output octets are XORed onto the LLC information field and FCS
// (TS 44.064 Annex A).
func GEA3(kc [8]byte, input uint32, dir Direction, out []byte) {
	var ck [16]byte
	copy(ck[:8], kc[:])
	copy(ck[8:], kc[:])
	KGCORE(0xff, 0, input, uint8(dir), 0, ck, out)
}

// XORKeyStream XORs the GEA3 keystream for (kc, input, dir) onto b in
// place: the same call ciphers and deciphers.
func XORKeyStream(b []byte, kc [8]byte, input uint32, dir Direction) {
	ks := make([]byte, len(b))
	GEA3(kc, input, dir, ks)
	for i := range b {
		b[i] ^= ks[i]
	}
}

// InputUI is the ciphering INPUT of an LLC UI frame (3GPP TS 44.064
// Annex A.2.1): (IOV-UI ⊕ SX) + LFN + OC modulo 2^32, with the SAPI
// dependent SX = 2^27·SAPI + 2^31, LFN the frame's N(U) and OC the
// overflow counter of its LLE and direction, which grows by 512 each time
// N(U) wraps from 511 to 0.
func InputUI(iovUI uint32, sapi uint8, lfn uint16, oc uint32) uint32 {
	sx := uint32(sapi)<<27 + 1<<31
	return (iovUI ^ sx) + uint32(lfn) + oc
}
