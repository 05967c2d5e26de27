package rlcmac

// EGPRS data blocks (TS 44.060 §10.3a). EGPRS headers and data are a
// little-endian bit stream: stream bit k is bit (k mod 8) (LSB = 0) of octet
// k/8, and every field is written LSB first at consecutive positions:
//
//	DL type 1 (MCS-7..9, 40 bits): USF 3, ES/P 2, RRBP 2, TFI 5, PR 2, BSN1 11, BSN2 10, CPS 5
//	DL type 2 (MCS-5..6, 28 bits): USF 3, ES/P 2, RRBP 2, TFI 5, PR 2, BSN1 11, CPS 3
//	DL type 3 (MCS-1..4, 31 bits): USF 3, ES/P 2, RRBP 2, TFI 5, PR 2, BSN1 11, CPS 4, SPB 2
//	UL type 1 (46 bits): R 1, SI 1, CV 4, TFI 5, BSN1 11, BSN2 10, CPS 5, RSB 1, PI 1, spare 7
//	UL type 2 (37 bits): R 1, SI 1, CV 4, TFI 5, BSN1 11, CPS 3, RSB 1, PI 1, spare 10
//	UL type 3 (31 bits): R 1, SI 1, CV 4, TFI 5, BSN1 11, CPS 4, SPB 2, RSB 1, PI 1, spare 1
//
// Each data unit is preceded by E/FBI (DL) or E/TI (UL), E first. BSN2 is
// carried as (BSN2 - BSN1) mod 2048.

// lsbStream is a little-endian bit cursor over a block.
type lsbStream struct {
	b   []byte
	pos int
}

func (s *lsbStream) put(v uint32, n int) {
	for i := 0; i < n; i++ {
		k := s.pos + i
		if v>>uint(i)&1 == 1 {
			s.b[k>>3] |= 1 << uint(k&7)
		} else {
			s.b[k>>3] &^= 1 << uint(k&7)
		}
	}
	s.pos += n
}

func (s *lsbStream) get(n int) uint32 {
	var v uint32
	for i := 0; i < n; i++ {
		k := s.pos + i
		v |= uint32(s.b[k>>3]>>uint(k&7)&1) << uint(i)
	}
	s.pos += n
	return v
}

// putBytes copies octets into the stream at the cursor (each octet LSB first).
func (s *lsbStream) putBytes(d []byte) {
	sh := uint(s.pos & 7)
	i := s.pos >> 3
	if sh == 0 {
		copy(s.b[i:], d)
		s.pos += 8 * len(d)
		return
	}
	for _, x := range d {
		s.b[i] = s.b[i]&(1<<sh-1) | x<<sh
		s.b[i+1] = s.b[i+1]&^(1<<sh-1) | x>>(8-sh)
		i++
	}
	s.pos += 8 * len(d)
}

func (s *lsbStream) getBytes(d []byte) {
	sh := uint(s.pos & 7)
	i := s.pos >> 3
	if sh == 0 {
		copy(d, s.b[i:])
		s.pos += 8 * len(d)
		return
	}
	for k := range d {
		d[k] = s.b[i]>>sh | s.b[i+1]<<(8-sh)
		i++
	}
	s.pos += 8 * len(d)
}

// Puncturing schemes.
const (
	PS1 = 0
	PS2 = 1
	PS3 = 2
)

// EncodeCPS returns the Coding and Puncturing Scheme indicator (TS 44.060
// Tables 10.4.8a.1.1, 10.4.8a.2.1, 10.4.8a.3.1). ps2 is used by MCS-7..9;
// pad selects the padded MCS-3/MCS-6 variants (resent MCS-8 data).
func EncodeCPS(cs CodingScheme, ps1, ps2 int, pad bool) (uint8, bool) {
	p1, p2 := uint8(ps1), uint8(ps2)
	switch cs {
	case MCS1:
		return 0b1011 + p1%2, ps1 < 2
	case MCS2:
		return 0b1001 + p1%2, ps1 < 2
	case MCS3:
		if pad {
			return 0b0110 + p1%3, ps1 < 3
		}
		return 0b0011 + p1%3, ps1 < 3
	case MCS4:
		return p1 % 3, ps1 < 3
	case MCS5:
		return 0b100 + p1%2, ps1 < 2
	case MCS6:
		if pad {
			return 0b010 + p1%2, ps1 < 2
		}
		return p1 % 2, ps1 < 2
	case MCS7:
		return 0b10100 + 3*(p1%3) + p2%3, ps1 < 3 && ps2 < 3
	case MCS8:
		return 0b01011 + 3*(p1%3) + p2%3, ps1 < 3 && ps2 < 3
	case MCS9:
		return 4*(p1%3) + p2%3, ps1 < 3 && ps2 < 3
	}
	return 0, false
}

// DecodeCPS maps a CPS value of a header type back to the coding scheme
// and puncturing schemes.
func DecodeCPS(ht HeaderType, cps uint8) (cs CodingScheme, ps1, ps2 int, pad, ok bool) {
	switch ht {
	case HeaderEGPRS3:
		switch {
		case cps <= 2:
			return MCS4, int(cps), 0, false, true
		case cps <= 5:
			return MCS3, int(cps - 3), 0, false, true
		case cps <= 8:
			return MCS3, int(cps - 6), 0, true, true
		case cps <= 10:
			return MCS2, int(cps - 9), 0, false, true
		case cps <= 12:
			return MCS1, int(cps - 11), 0, false, true
		}
	case HeaderEGPRS2:
		switch {
		case cps <= 1:
			return MCS6, int(cps), 0, false, true
		case cps <= 3:
			return MCS6, int(cps - 2), 0, true, true
		case cps <= 5:
			return MCS5, int(cps - 4), 0, false, true
		}
	case HeaderEGPRS1:
		switch {
		case cps <= 10 && cps&3 != 3:
			return MCS9, int(cps / 4), int(cps % 4), false, true
		case cps >= 11 && cps <= 19:
			return MCS8, int(cps-11) / 3, int(cps-11) % 3, false, true
		case cps >= 20 && cps <= 28:
			return MCS7, int(cps-20) / 3, int(cps-20) % 3, false, true
		}
	}
	return CSUnknown, 0, 0, false, false
}

// EGPRSDLHeader is the downlink EGPRS data block header (§10.3a.3) plus the
// per-unit E/FBI bits.
type EGPRSDLHeader struct {
	USF  uint8
	ESP  uint8 // ES/P, 2 bits
	RRBP uint8
	TFI  uint8
	PR   uint8
	BSN1 uint16
	BSN2 uint16 // MCS-7..9 only (absolute BSN)
	CPS  uint8
	SPB  uint8 // header type 3 only
	E    [2]bool
	FBI  [2]bool
}

// EGPRSULHeader is the uplink EGPRS data block header (§10.3a.4) plus the
// per-unit E/TI bits.
type EGPRSULHeader struct {
	R    bool
	SI   bool
	CV   uint8
	TFI  uint8
	BSN1 uint16
	BSN2 uint16
	CPS  uint8
	RSB  bool
	PI   bool
	SPB  uint8
	E    [2]bool
	TI   [2]bool
}

func b32(b bool) uint32 {
	if b {
		return 1
	}
	return 0
}

// EncodeEGPRSDL writes an EGPRS downlink data block of cs into b (len >=
// cs.BlockLen(false)); units holds the data unit(s) (cs.DataLen() octets
// each, two for MCS-7..9). Unused trailing bits are zero.
func EncodeEGPRSDL(b []byte, cs CodingScheme, h *EGPRSDLHeader, u1, u2 []byte) (int, error) {
	s, err := egprsEncoder(b, cs, false, u1, u2)
	if err != nil {
		return 0, err
	}
	s.put(uint32(h.USF), 3)
	s.put(uint32(h.ESP), 2)
	s.put(uint32(h.RRBP), 2)
	s.put(uint32(h.TFI), 5)
	s.put(uint32(h.PR), 2)
	s.put(uint32(h.BSN1), 11)
	s.putTypeFields(cs.HeaderType(), h.BSN1, h.BSN2, h.CPS, h.SPB)
	s.putUnits(cs, h.E, h.FBI, u1, u2)
	return len(s.b), nil
}

// egprsEncoder checks the arguments of an EGPRS data block encoder and
// returns a cursor over the zeroed block.
func egprsEncoder(b []byte, cs CodingScheme, uplink bool, u1, u2 []byte) (lsbStream, error) {
	if !cs.IsEGPRS() {
		return lsbStream{}, ErrInvalid
	}
	n := cs.BlockLen(uplink)
	if len(b) < n || len(u1) != cs.DataLen() || (cs.DataUnits() == 2 && len(u2) != cs.DataLen()) {
		return lsbStream{}, ErrOverflow
	}
	clear(b[:n])
	return lsbStream{b: b[:n]}, nil
}

// putTypeFields writes the header fields that depend on the header type
// (§10.3a.3, §10.3a.4): BSN2 and CPS (type 1), CPS (type 2), CPS and SPB
// (type 3).
func (s *lsbStream) putTypeFields(ht HeaderType, bsn1, bsn2 uint16, cps, spb uint8) {
	switch ht {
	case HeaderEGPRS1:
		s.put(uint32(bsn2-bsn1)&(EGPRSSNS-1), 10)
		s.put(uint32(cps), 5)
	case HeaderEGPRS2:
		s.put(uint32(cps), 3)
	case HeaderEGPRS3:
		s.put(uint32(cps), 4)
		s.put(uint32(spb), 2)
	}
}

// getTypeFields reads what putTypeFields writes.
func (s *lsbStream) getTypeFields(ht HeaderType, bsn1 uint16) (bsn2 uint16, cps, spb uint8) {
	switch ht {
	case HeaderEGPRS1:
		bsn2 = (bsn1 + uint16(s.get(10))) & (EGPRSSNS - 1)
		cps = uint8(s.get(5))
	case HeaderEGPRS2:
		cps = uint8(s.get(3))
	case HeaderEGPRS3:
		cps = uint8(s.get(4))
		spb = uint8(s.get(2))
	}
	return bsn2, cps, spb
}

// putUnits writes the data unit(s), each after its E and FBI (DL) or TI
// (UL) bit.
func (s *lsbStream) putUnits(cs CodingScheme, e, x [2]bool, u1, u2 []byte) {
	s.put(b32(e[0]), 1)
	s.put(b32(x[0]), 1)
	s.putBytes(u1)
	if cs.DataUnits() == 2 {
		s.put(b32(e[1]), 1)
		s.put(b32(x[1]), 1)
		s.putBytes(u2)
	}
}

// ulSpare is the number of spare bits that end an uplink EGPRS header of
// header type 1, 2 or 3 (§10.3a.4).
func ulSpare(ht HeaderType) int {
	switch ht {
	case HeaderEGPRS1:
		return 7
	case HeaderEGPRS2:
		return 10
	}
	return 1
}

// EncodeEGPRSUL writes an EGPRS uplink data block (the MS side).
func EncodeEGPRSUL(b []byte, cs CodingScheme, h *EGPRSULHeader, u1, u2 []byte) (int, error) {
	s, err := egprsEncoder(b, cs, true, u1, u2)
	if err != nil {
		return 0, err
	}
	s.put(b32(h.R), 1)
	s.put(b32(h.SI), 1)
	s.put(uint32(h.CV), 4)
	s.put(uint32(h.TFI), 5)
	s.put(uint32(h.BSN1), 11)
	s.putTypeFields(cs.HeaderType(), h.BSN1, h.BSN2, h.CPS, h.SPB)
	s.put(b32(h.RSB), 1)
	s.put(b32(h.PI), 1)
	s.put(0, ulSpare(cs.HeaderType()))
	s.putUnits(cs, h.E, h.TI, u1, u2)
	return len(s.b), nil
}

// EGPRSULBlock is a parsed EGPRS uplink data block; the data units are
// copied octet-aligned into Data.
type EGPRSULBlock struct {
	CS     CodingScheme
	Header EGPRSULHeader
	PS1    int
	PS2    int
	NUnits int
	Data   [2][74]byte
	Unit   [2]ULUnit
}

// Parse decodes an EGPRS uplink block (the length selects MCS-1..9; the CPS
// must agree with it). LI/TLLI parsing uses the last-block flag CV == 0.
func (blk *EGPRSULBlock) Parse(b []byte) error {
	cs := CSFromULLen(len(b))
	if !cs.IsEGPRS() {
		return &BitError{Off: 0, Field: "length", Err: ErrBadLength}
	}
	blk.CS = cs
	h := &blk.Header
	s := lsbStream{b: b}
	h.R = s.get(1) == 1
	h.SI = s.get(1) == 1
	h.CV = uint8(s.get(4))
	h.TFI = uint8(s.get(5))
	h.BSN1 = uint16(s.get(11))
	h.BSN2, h.CPS, h.SPB = s.getTypeFields(cs.HeaderType(), h.BSN1)
	h.RSB = s.get(1) == 1
	h.PI = s.get(1) == 1
	s.pos += ulSpare(cs.HeaderType())
	ccs, p1, p2, _, ok := DecodeCPS(cs.HeaderType(), h.CPS)
	if !ok || ccs != cs {
		return &BitError{Off: 0, Field: "CPS", Err: ErrInvalid}
	}
	blk.PS1, blk.PS2 = p1, p2
	blk.NUnits = cs.DataUnits()
	dl := cs.DataLen()
	for i := 0; i < blk.NUnits; i++ {
		h.E[i] = s.get(1) == 1
		h.TI[i] = s.get(1) == 1
		s.getBytes(blk.Data[i][:dl])
		if h.SPB != 0 {
			// half of a resegmented unit: its LIs describe the whole unit,
			// which the receiver parses once both halves are there
			blk.Unit[i].N, blk.Unit[i].HasTLLI = 0, false
			continue
		}
		if err := ParseULUnit(blk.Data[i][:dl], true, h.E[i], h.TI[i], h.PI, h.CV == 0, &blk.Unit[i]); err != nil {
			return err
		}
	}
	return nil
}

// EGPRSDLBlock is a parsed EGPRS downlink data block (the MS side).
type EGPRSDLBlock struct {
	CS     CodingScheme
	Header EGPRSDLHeader
	NUnits int
	Data   [2][74]byte
	Unit   [2]ULUnit
}

// Parse decodes an EGPRS downlink block (the length selects MCS-1..9).
func (blk *EGPRSDLBlock) Parse(b []byte) error {
	cs := CSFromDLLen(len(b))
	if !cs.IsEGPRS() {
		return &BitError{Off: 0, Field: "length", Err: ErrBadLength}
	}
	blk.CS = cs
	h := &blk.Header
	s := lsbStream{b: b}
	h.USF = uint8(s.get(3))
	h.ESP = uint8(s.get(2))
	h.RRBP = uint8(s.get(2))
	h.TFI = uint8(s.get(5))
	h.PR = uint8(s.get(2))
	h.BSN1 = uint16(s.get(11))
	h.BSN2, h.CPS, h.SPB = s.getTypeFields(cs.HeaderType(), h.BSN1)
	if _, _, _, _, ok := DecodeCPS(cs.HeaderType(), h.CPS); !ok {
		return &BitError{Off: 0, Field: "CPS", Err: ErrInvalid}
	}
	blk.NUnits = cs.DataUnits()
	dl := cs.DataLen()
	for i := 0; i < blk.NUnits; i++ {
		h.E[i] = s.get(1) == 1
		h.FBI[i] = s.get(1) == 1
		s.getBytes(blk.Data[i][:dl])
		if h.SPB != 0 {
			continue // half of a resegmented unit: parsed once both halves are in
		}
		if err := ParseULUnit(blk.Data[i][:dl], true, h.E[i], false, false, h.FBI[i], &blk.Unit[i]); err != nil {
			return err
		}
	}
	return nil
}
