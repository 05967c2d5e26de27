package msnet

import (
	"crypto/aes"
	"encoding/binary"
)

// Milenage is a USIM's MILENAGE algorithm set (3GPP TS 35.206 §4):
// subscriber key K and the operator variant OPc, with the default rotation
// constants r1..r5 and c1..c5 (§4.1).
type Milenage struct {
	K, OPc [16]byte
}

// AKA holds what MILENAGE computes for one RAND (TS 33.102 §6.3.2):
// f2 (RES), f3 (CK), f4 (IK), f5 (AK), f1 (MAC-A) for SQN and AMF.
type AKA struct {
	RES    [8]byte
	CK, IK [16]byte
	AK     [6]byte
	MACA   [8]byte
}

// Compute runs f1-f5 for rand, sqn and amf (TS 35.206 §4.1).
func (m *Milenage) Compute(rand [16]byte, sqn [6]byte, amf [2]byte) AKA {
	c, err := aes.NewCipher(m.K[:])
	if err != nil {
		panic(err) // a 16-octet key is always valid
	}
	enc := func(in [16]byte) (out [16]byte) { c.Encrypt(out[:], in[:]); return }
	xor := func(a, b [16]byte) (o [16]byte) {
		for i := range o {
			o[i] = a[i] ^ b[i]
		}
		return
	}
	rot := func(x [16]byte, bits int) (o [16]byte) { // cyclic left rotation by a whole number of octets
		n := bits / 8
		for i := range o {
			o[i] = x[(i+n)%16]
		}
		return
	}
	temp := enc(xor(rand, m.OPc))
	// OUT1 = E_K(TEMP ⊕ rot(IN1 ⊕ OPc, r1) ⊕ c1) ⊕ OPc, IN1 = SQN‖AMF‖SQN‖AMF
	var in1 [16]byte
	copy(in1[0:6], sqn[:])
	copy(in1[6:8], amf[:])
	copy(in1[8:14], sqn[:])
	copy(in1[14:16], amf[:])
	out1 := xor(enc(xor(temp, rot(xor(in1, m.OPc), 64))), m.OPc)
	// OUT2..OUT5 = E_K(rot(TEMP ⊕ OPc, rk) ⊕ ck) ⊕ OPc
	out := func(r int, ck byte) [16]byte {
		x := rot(xor(temp, m.OPc), r)
		x[15] ^= ck
		return xor(enc(x), m.OPc)
	}
	out2, out3, out4 := out(0, 1), out(32, 2), out(64, 4)
	var a AKA
	copy(a.MACA[:], out1[:8])
	copy(a.AK[:], out2[:6])
	copy(a.RES[:], out2[8:])
	a.CK, a.IK = out3, out4
	return a
}

// GSM converts the UMTS results to a GSM triplet's SRES and Kc
// (TS 33.102 §6.8.1.2, functions c2 and c3 for an 8-octet RES).
func (a *AKA) GSM() (sres [4]byte, kc [8]byte) {
	binary.BigEndian.PutUint32(sres[:], binary.BigEndian.Uint32(a.RES[:4])^binary.BigEndian.Uint32(a.RES[4:]))
	k := binary.BigEndian.Uint64(a.CK[:8]) ^ binary.BigEndian.Uint64(a.CK[8:]) ^
		binary.BigEndian.Uint64(a.IK[:8]) ^ binary.BigEndian.Uint64(a.IK[8:])
	binary.BigEndian.PutUint64(kc[:], k)
	return
}
