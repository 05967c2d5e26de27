package rlcmac

import "errors"

// Compressed received block bitmap (TS 44.060 §9.1.10): run lengths of ones
// and zeros coded with the ITU-T T.4 modified Huffman code words of Tables
// 9.1.10.2 (terminating codes, run 0..63) and 9.1.10.3 (make-up codes,
// 64..960). A run >= 64 is a make-up code followed by a terminating code.

// ErrCRBB reports an undecodable compressed bitmap.
var ErrCRBB = errors.New("rlcmac: invalid compressed bitmap")

// Code words for runs of ones (T.4 "white"): 0..63 then make-up 64..960.
var crbbOnesCodes = [79]string{
	"00110101", "000111", "0111", "1000", "1011", "1100", "1110", "1111",
	"10011", "10100", "00111", "01000", "001000", "000011", "110100", "110101",
	"101010", "101011", "0100111", "0001100", "0001000", "0010111", "0000011", "0000100",
	"0101000", "0101011", "0010011", "0100100", "0011000", "00000010", "00000011", "00011010",
	"00011011", "00010010", "00010011", "00010100", "00010101", "00010110", "00010111", "00101000",
	"00101001", "00101010", "00101011", "00101100", "00101101", "00000100", "00000101", "00001010",
	"00001011", "01010010", "01010011", "01010100", "01010101", "00100100", "00100101", "01011000",
	"01011001", "01011010", "01011011", "01001010", "01001011", "00110010", "00110011", "00110100",
	"11011", "10010", "010111", "0110111", "00110110", "00110111", "01100100", "01100101",
	"01101000", "01100111", "011001100", "011001101", "011010010", "011010011", "011010100",
}

// Code words for runs of zeros (T.4 "black").
var crbbZerosCodes = [79]string{
	"0000110111", "10", "11", "010", "011", "0011", "0010", "00011",
	"000101", "000100", "0000100", "0000101", "0000111", "00000100", "00000111", "000011000",
	"0000010111", "0000011000", "0000001000", "00001100111", "00001101000", "00001101100", "00000110111", "00000101000",
	"00000010111", "00000011000", "000011001010", "000011001011", "000011001100", "000011001101", "000001101000", "000001101001",
	"000001101010", "000001101011", "000011010010", "000011010011", "000011010100", "000011010101", "000011010110", "000011010111",
	"000001101100", "000001101101", "000011011010", "000011011011", "000001010100", "000001010101", "000001010110", "000001010111",
	"000001100100", "000001100101", "000001010010", "000001010011", "000000100100", "000000110111", "000000111000", "000000100111",
	"000000101000", "000001011000", "000001011001", "000000101011", "000000101100", "000001011010", "000001100110", "000001100111",
	"0000001111", "000011001000", "000011001001", "000001011011", "000000110011", "000000110100", "000000110101", "0000001101100",
	"0000001101101", "0000001001010", "0000001001011", "0000001001100", "0000001001101", "0000001110010", "0000001110011",
}

type t4code struct {
	bits uint16
	n    uint8
}

type t4table [79]t4code

func makeT4(src *[79]string) (t t4table) {
	for i, s := range src {
		var v uint16
		for _, ch := range s {
			v = v<<1 | uint16(ch-'0')
		}
		t[i] = t4code{v, uint8(len(s))}
	}
	return t
}

var (
	t4Ones  = makeT4(&crbbOnesCodes)
	t4Zeros = makeT4(&crbbZerosCodes)
)

func t4RunLen(idx int) int {
	if idx < 64 {
		return idx
	}
	return (idx - 63) * 64
}

// t4Lookup finds the code word at the cursor (ones or zeros table).
func t4Lookup(v *BitVec, ones bool) (run, n int, ok bool) {
	t := &t4Zeros
	if ones {
		t = &t4Ones
	}
	for i := range t {
		c := t[i]
		x, err := v.Peek(int(c.n))
		if err == nil && uint16(x) == c.bits {
			return t4RunLen(i), int(c.n), true
		}
	}
	return 0, 0, false
}

// DecompressCRBB decodes a compressed bitmap of crbbLen bits (TS 44.060
// §9.1.10) whose first run has the colour startOnes, writing the bits
// MSB-first into dst from bit 0. It returns the number of bitmap bits.
func DecompressCRBB(crbb []byte, crbbLen int, startOnes bool, dst []byte) (int, error) {
	if crbbLen > len(crbb)*8 {
		return 0, ErrCRBB
	}
	src := BitVec{buf: crbb, end: crbbLen}
	out := NewBitVec(dst)
	ones := startOnes
	for !src.AtEnd() {
		run, n, ok := t4Lookup(&src, ones)
		if !ok {
			return out.Pos(), &BitError{Off: src.Pos(), Field: "CRBB", Err: ErrCRBB}
		}
		src.pos += n
		if out.Remaining() < run {
			return out.Pos(), &BitError{Off: src.Pos(), Field: "CRBB", Err: ErrOverflow}
		}
		var b uint8
		if ones {
			b = 1
		}
		for i := 0; i < run; i++ {
			_ = out.WriteBit(b)
		}
		if run < 64 { // a terminating code ends the run; make-up codes continue it
			ones = !ones
		}
	}
	return out.Pos(), nil
}

// CompressRBB T.4-codes the first n bits of the bitmap src (MSB-first) into
// dst, stopping before the compressed size would exceed maxBits. It returns
// the compressed length in bits, the number of bitmap bits it covers, and the
// starting colour. ok is false when compression does not save space
// (compressed >= covered), mirroring the selection rule of osmo-pcu encoding.cpp
// write_packet_ack_nack_desc_egprs() (egprs_compress::compress_rbb).
func CompressRBB(src []byte, n int, dst []byte, maxBits int) (cbits, ubits int, startOnes, ok bool) {
	if n == 0 || n > len(src)*8 {
		return 0, 0, false, false
	}
	if maxBits > len(dst)*8 {
		maxBits = len(dst) * 8
	}
	out := BitVec{buf: dst, end: maxBits}
	startOnes = src[0]&0x80 != 0
	ones := startOnes
	pos := 0
	for pos < n {
		// Measure the run (whole octets at a time where possible).
		run := 0
		full := byte(0)
		if ones {
			full = 0xFF
		}
		for pos < n {
			if pos&7 == 0 && pos+8 <= n && src[pos>>3] == full {
				pos += 8
				run += 8
				continue
			}
			if (src[pos>>3]>>(7-uint(pos&7))&1 == 1) != ones {
				break
			}
			pos++
			run++
		}
		t := &t4Zeros
		if ones {
			t = &t4Ones
		}
		need := int(t[run%64].n)
		if run >= 64 {
			mk := run / 64
			if mk > 15 {
				break // longer than 960 + 63: stop here
			}
			need += int(t[63+mk].n)
		}
		if out.pos+need > out.end {
			break
		}
		if run >= 64 {
			c := t[63+run/64]
			_ = out.Write(uint64(c.bits), int(c.n))
		}
		c := t[run%64]
		_ = out.Write(uint64(c.bits), int(c.n))
		ubits += run
		ones = !ones
	}
	cbits = out.pos
	return cbits, ubits, startOnes, cbits > 0 && cbits < ubits
}
