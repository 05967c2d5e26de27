package llc

// ECN marking (RFC 3168) of downlink LLC frames. An unciphered LLC UI frame
// of a user-data SAPI carries an SNDCP SN-UNITDATA PDU (TS 44.065 §7.2); its
// first segment holds the N-PDU, and with no compression (DCOMP = PCOMP = 0)
// the N-PDU starts with the IP header. When the AQM decides to drop such a
// frame and the IP header says ECT(0) or ECT(1), it sets CE instead and lets
// the frame go (RFC 3168 §5; RFC 8289 §5.4 and RFC 8290 §4.1 for CoDel,
// RFC 8033 §5.1 for PIE, Linux sch_sfq headdrop for RED). The frame at the
// head of its flow is the one marked: the sender hears of the congestion
// one queue length earlier than from a mark on the arriving frame.

// MarkResult is what MarkCE did, or why it could not mark.
type MarkResult uint8

// MarkCE results. Everything but Marked means the AQM drops the frame.
const (
	Marked           MarkResult = iota // CE set (or already set)
	NoMarkNotECT                       // IP header says Not-ECT
	NoMarkCiphered                     // E bit set: information field ciphered (TS 44.064 §6.4.2.3)
	NoMarkCompressed                   // SNDCP DCOMP or PCOMP ≠ 0: no plain IP header
	NoMarkOther                        // not UI, not a user SAPI, not IP, bad IPv4 checksum, over MaxFrameLen
	NoMarkPolicy                       // markable, but the AQM drops (PIE at 10 % or more, RFC 8033 §5.1)
	NumMarkResults
)

// NumNoMark is the number of reasons why a mark was not possible.
const NumNoMark = int(NumMarkResults) - 1

func (r MarkResult) String() string {
	switch r {
	case Marked:
		return "marked"
	case NoMarkNotECT:
		return "not-ect"
	case NoMarkCiphered:
		return "ciphered"
	case NoMarkCompressed:
		return "compressed"
	case NoMarkOther:
		return "other"
	case NoMarkPolicy:
		return "policy"
	}
	return "?"
}

// ipOffset finds the IP header of an unciphered LLC UI frame (with FCS) of a
// user-data SAPI whose SNDCP PDU is the first segment of an uncompressed
// N-PDU. It returns the offset of the IP header in b, or why there is none.
func ipOffset(b []byte) (int, MarkResult) {
	if len(b) < 3+4+FCSLen || len(b) > MaxFrameLen || b[1]&0xe0 != 0xc0 || sapiFlow[SAPI(b)] != flowUser {
		return 0, NoMarkOther
	}
	if b[2]&0x02 != 0 {
		return 0, NoMarkCiphered
	}
	s := b[3 : len(b)-FCSLen]
	// X F T M NSAPI (TS 44.065 §7.2): X spare, F first segment, T 1 for
	// SN-UNITDATA (4-octet header), 0 for SN-DATA (3 octets).
	if s[0]&0x80 != 0 || s[0]&0x40 == 0 || s[0]&0x0f < 5 {
		return 0, NoMarkOther
	}
	if s[1] != 0 {
		return 0, NoMarkCompressed
	}
	hl := 3
	if s[0]&0x20 != 0 {
		hl = 4
	}
	return 3 + hl, Marked
}

// ECNOf reports how the AQM would treat frame b: Marked if MarkCE would
// mark it, else the reason it would be dropped. It does not change b.
func ECNOf(b []byte) MarkResult {
	off, r := ipOffset(b)
	if r != Marked {
		return r
	}
	ip := b[off : len(b)-FCSLen]
	var ecn byte
	switch {
	case len(ip) >= 20 && ip[0]>>4 == 4 && ip[0]&0x0f >= 5 && len(ip) >= int(ip[0]&0x0f)*4 &&
		ipv4ChecksumOK(ip[:int(ip[0]&0x0f)*4]):
		ecn = ip[1] & 0x03
	case len(ip) >= 40 && ip[0]>>4 == 6:
		ecn = ip[1] >> 4 & 0x03
	default:
		return NoMarkOther
	}
	if ecn == 0 {
		return NoMarkNotECT
	}
	return Marked
}

// MarkCE sets the IP ECN field of frame b to CE in place when the frame is
// ECN-capable (see ECNOf), updating the IPv4 header checksum incrementally
// (RFC 1624 eqn. 3) and the LLC FCS (TS 44.064 §5.5) incrementally too: a
// CRC is linear, so for frames of equal length FCS' = FCS ⊕ CRC₀(changes),
// CRC₀ being the CRC register started at zero over the octets that changed
// (zero elsewhere). A frame that arrived with a wrong FCS keeps a wrong
// one. It returns Marked when the frame now carries CE; any other result
// leaves b unchanged.
func MarkCE(b []byte) MarkResult {
	r, _ := markCE(b)
	return r
}

// markCE is MarkCE, also reporting whether the frame changed (false when
// it carried CE already).
func markCE(b []byte) (MarkResult, bool) {
	if r := ECNOf(b); r != Marked {
		return r, false
	}
	off, _ := ipOffset(b)
	ip := b[off:]
	var d [12]byte // old ⊕ new of IP octets 0..11
	if ip[0]>>4 == 4 {
		if ip[1]&0x03 == 0x03 {
			return Marked, false
		}
		old := uint16(ip[0])<<8 | uint16(ip[1])
		d[1], d[10], d[11] = ip[1], ip[10], ip[11]
		ip[1] |= 0x03
		csum := uint16(ip[10])<<8 | uint16(ip[11])
		csum = csumUpdate(csum, old, uint16(ip[0])<<8|uint16(ip[1]))
		ip[10], ip[11] = byte(csum>>8), byte(csum)
		d[1] ^= ip[1]
		d[10] ^= ip[10]
		d[11] ^= ip[11]
	} else {
		if ip[1]&0x30 == 0x30 {
			return Marked, false
		}
		d[1] = ip[1]
		ip[1] |= 0x30 // Traffic Class bits 1-0 are bits 5-4 of octet 1
		d[1] ^= ip[1]
	}
	// CRC₀ over the changed span (octets before it are zero and leave the
	// register at zero), then over the zero octets up to the covered end.
	end := fcsCovered(b)
	var c uint32
	n := 0
	for i, x := range d {
		if off+i >= end {
			break
		}
		c = c>>8 ^ fcsTable[byte(c)^x]
		n = off + i + 1
	}
	if n == 0 {
		return Marked, true // the FCS does not cover the IP header (PM = 0)
	}
	c = crcZeros(c, end-n)
	t := b[len(b)-FCSLen:]
	t[0] ^= byte(c)
	t[1] ^= byte(c >> 8)
	t[2] ^= byte(c >> 16)
	return Marked, true
}

// crcZeros advances the CRC-24 register c over n zero octets in O(log n):
// zeroOps[k] is the register's linear map for 2^k zero octets, as 24
// columns (the image of each register bit), the way zlib's crc32_combine
// does it.
func crcZeros(c uint32, n int) uint32 {
	for k := 0; n > 0; k, n = k+1, n>>1 {
		if n&1 == 0 {
			continue
		}
		var r uint32
		for i := 0; c != 0; i, c = i+1, c>>1 {
			if c&1 != 0 {
				r ^= zeroOps[k][i]
			}
		}
		c = r
	}
	return c
}

var zeroOps = func() (ops [12][24]uint32) {
	for i := range ops[0] { // one zero octet
		c := uint32(1) << i
		ops[0][i] = c>>8 ^ fcsTable[byte(c)]
	}
	for k := 1; k < len(ops); k++ { // 2^k = 2^(k-1) twice
		for i := range ops[k] {
			c := ops[k-1][i]
			var r uint32
			for j := 0; c != 0; j, c = j+1, c>>1 {
				if c&1 != 0 {
					r ^= ops[k-1][j]
				}
			}
			ops[k][i] = r
		}
	}
	return
}()

// csumUpdate is RFC 1624 eqn. 3: HC' = ~(~HC + ~m + m'), in one's
// complement arithmetic, for one 16-bit word changing from m to m2.
func csumUpdate(hc, m, m2 uint16) uint16 {
	sum := uint32(^hc) + uint32(^m) + uint32(m2)
	for sum > 0xffff {
		sum = sum&0xffff + sum>>16
	}
	return ^uint16(sum)
}

// N202 is the number of information octets the FCS covers in a UI frame
// with PM = 0 (TS 44.064 §5.5, §8.9.9).
const N202 = 4

// fcsTable is the reflected CRC-24 of TS 44.064 §5.5.1 (generator
// polynomial 0xBBA1B5 reflected: 0xAD85DD).
var fcsTable = func() (t [256]uint32) {
	for i := range t {
		c := uint32(i)
		for k := 0; k < 8; k++ {
			if c&1 != 0 {
				c = c>>1 ^ 0xAD85DD
			} else {
				c >>= 1
			}
		}
		t[i] = c
	}
	return
}()

// FCS is the LLC frame check sequence over b (TS 44.064 §5.5.1: register
// preset to ones, result complemented; sent least significant octet first).
func FCS(b []byte) uint32 {
	c := uint32(0xffffff)
	for _, x := range b {
		c = c>>8 ^ fcsTable[byte(c)^x]
	}
	return ^c & 0xffffff
}

// fcsCovered is how many octets of frame b (with its FCS) the FCS covers:
// all of a UI frame with PM = 1 or of any other frame, else the header and
// the first N202 octets of the information field.
func fcsCovered(b []byte) int {
	n := len(b) - FCSLen
	if IsUI(b) && len(b) >= 3 && b[2]&0x01 == 0 {
		return min(n, 3+N202)
	}
	return n
}

func fcsOK(b []byte) bool {
	if len(b) < FCSLen+2 {
		return false
	}
	f := FCS(b[:fcsCovered(b)])
	t := b[len(b)-FCSLen:]
	return t[0] == byte(f) && t[1] == byte(f>>8) && t[2] == byte(f>>16)
}

func putFCS(b []byte) {
	f := FCS(b[:fcsCovered(b)])
	t := b[len(b)-FCSLen:]
	t[0], t[1], t[2] = byte(f), byte(f>>8), byte(f>>16)
}
