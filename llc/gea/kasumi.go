package gea

import "math/bits"

// Kasumi is the KASUMI block cipher (3GPP TS 35.202): 64-bit blocks, a
// 128-bit key, an 8-round Feistel network whose round function f_i is
// FL then FO in odd rounds and FO then FL in even rounds. Only
// encryption is needed: GEA3 runs KASUMI in an output-feedback mode.
type Kasumi struct {
	// Round subkeys, index i-1 for round i (TS 35.202 key schedule).
	kl1, kl2      [8]uint16
	ko1, ko2, ko3 [8]uint16
	ki1, ki2, ki3 [8]uint16
}

// kasumiC are the key schedule constants C1..C8.
var kasumiC = [8]uint16{0x0123, 0x4567, 0x89ab, 0xcdef, 0xfedc, 0xba98, 0x7654, 0x3210}

// NewKasumi derives the round subkeys from the 128-bit key K = K1..K8
// (sixteen-bit words, K1 the most significant): with Kj' = Kj XOR Cj and
// the indices taken cyclically 1..8,
//
//	KLi,1 = ROL(Ki, 1)      KLi,2 = Ki+2'
//	KOi,1 = ROL(Ki+1, 5)    KOi,2 = ROL(Ki+5, 8)    KOi,3 = ROL(Ki+6, 13)
//	KIi,1 = Ki+4'           KIi,2 = Ki+3'           KIi,3 = Ki+7'
func NewKasumi(key [16]byte) *Kasumi {
	var k, kp [8]uint16
	for j := range k {
		k[j] = uint16(key[2*j])<<8 | uint16(key[2*j+1])
		kp[j] = k[j] ^ kasumiC[j]
	}
	c := new(Kasumi)
	for i := range 8 {
		at := func(d int) int { return (i + d) % 8 }
		c.kl1[i] = bits.RotateLeft16(k[i], 1)
		c.kl2[i] = kp[at(2)]
		c.ko1[i] = bits.RotateLeft16(k[at(1)], 5)
		c.ko2[i] = bits.RotateLeft16(k[at(5)], 8)
		c.ko3[i] = bits.RotateLeft16(k[at(6)], 13)
		c.ki1[i] = kp[at(4)]
		c.ki2[i] = kp[at(3)]
		c.ki3[i] = kp[at(7)]
	}
	return c
}

// fi is the 16-bit function FI: the input split into a 9-bit left and a
// 7-bit right half, two S9/S7 stages around the subkey KIi,j (its top 7
// bits KIi,j,1 go into the 7-bit half, its low 9 bits KIi,j,2 into the
// 9-bit half), the output the 7-bit half over the 9-bit half.
func fi(in, ki uint16) uint16 {
	l, r := in>>7, in&0x7f // 9, 7 bits
	// L1 = R0, R1 = S9[L0] ^ ZE(R0)
	l, r = r, s9[l]^r
	// L2 = R1 ^ KIi,j,2, R2 = S7[L1] ^ TR(R1) ^ KIi,j,1
	l, r = r^(ki&0x1ff), s7[l]^(r&0x7f)^(ki>>9)
	// L3 = R2, R3 = S9[L2] ^ ZE(R2)
	l, r = r, s9[l]^r
	// L4 = S7[L3] ^ TR(R3), R4 = R3
	l = s7[l] ^ (r & 0x7f)
	return l<<9 | r
}

// fo is the 32-bit function FO of round i (0-based): three FI stages.
func (c *Kasumi) fo(in uint32, i int) uint32 {
	l, r := uint16(in>>16), uint16(in)
	ko := [3]uint16{c.ko1[i], c.ko2[i], c.ko3[i]}
	ki := [3]uint16{c.ki1[i], c.ki2[i], c.ki3[i]}
	for j := range 3 {
		// Rj = FI(Lj-1 ^ KOi,j, KIi,j) ^ Rj-1, Lj = Rj-1
		l, r = r, fi(l^ko[j], ki[j])^r
	}
	return uint32(l)<<16 | uint32(r)
}

// fl is the 32-bit function FL of round i (0-based).
func (c *Kasumi) fl(in uint32, i int) uint32 {
	l, r := uint16(in>>16), uint16(in)
	r ^= bits.RotateLeft16(l&c.kl1[i], 1)
	l ^= bits.RotateLeft16(r|c.kl2[i], 1)
	return uint32(l)<<16 | uint32(r)
}

// Encrypt enciphers one 64-bit block (the most significant bit first).
func (c *Kasumi) Encrypt(block uint64) uint64 {
	l, r := uint32(block>>32), uint32(block)
	for i := 0; i < 8; i++ {
		var f uint32
		if i%2 == 0 { // rounds 1, 3, 5, 7
			f = c.fo(c.fl(l, i), i)
		} else { // rounds 2, 4, 6, 8
			f = c.fl(c.fo(l, i), i)
		}
		// Ri = Li-1, Li = Ri-1 ^ fi(Li-1)
		l, r = r^f, l
	}
	return uint64(l)<<32 | uint64(r)
}
