package rlcmac

import (
	"encoding/binary"
	"errors"
)

// Payload Type of the MAC header (TS 44.060 §10.4.7).
const (
	PTData        = 0 // RLC data block
	PTControl     = 1 // RLC/MAC control block without optional octets
	PTControlOpt  = 2 // RLC/MAC control block with optional octets (DL only)
	PTReserved    = 3
	GPRSHeaderLen = 3 // octets of the GPRS data block header
)

// Data block errors.
var (
	ErrNotData      = errors.New("rlcmac: not a data block")
	ErrBadLength    = errors.New("rlcmac: block length does not match a coding scheme")
	ErrLIIgnored    = errors.New("rlcmac: block ignored (M=0, E=0; TS 44.060 Table 10.4.13.1)")
	ErrTooManyLI    = errors.New("rlcmac: too many length indicators")
	ErrLIOverflow   = errors.New("rlcmac: length indicators exceed the data unit")
	ErrPFIUnsupport = errors.New("rlcmac: PFI not supported")
)

// GPRSDLHeader is the downlink RLC data block header (TS 44.060 §10.2.1, Figure 10.2.1.1):
//
//	  7   6   5   4   3   2   1   0
//	+-------+-------+---+-----------+
//	|  PT   | RRBP  |S/P|    USF    |  octet 1
//	+-------+-------+---+-------+---+
//	|  PR   |        TFI        |FBI|  octet 2
//	+-------+-------------------+---+
//	|            BSN            | E |  octet 3
//	+---------------------------+---+
type GPRSDLHeader struct {
	RRBP uint8 // 2 bits
	SP   bool  // supplementary/polling
	USF  uint8 // 3 bits
	PR   uint8 // power reduction, 2 bits
	TFI  uint8 // 5 bits
	FBI  bool  // final block indicator
	BSN  uint8 // 7 bits
	E    bool  // true: no LI octets follow
}

// MarshalTo writes the 3-octet header.
func (h *GPRSDLHeader) MarshalTo(b []byte) (int, error) {
	if len(b) < GPRSHeaderLen {
		return 0, ErrOverflow
	}
	b[0] = PTData<<6 | (h.RRBP&3)<<4 | b2u(h.SP)<<3 | h.USF&7
	b[1] = (h.PR&3)<<6 | (h.TFI&31)<<1 | b2u(h.FBI)
	b[2] = (h.BSN&127)<<1 | b2u(h.E)
	return GPRSHeaderLen, nil
}

// Unmarshal reads the 3-octet header.
func (h *GPRSDLHeader) Unmarshal(b []byte) error {
	if err := checkGPRSHeader(b, "GPRS DL header"); err != nil {
		return err
	}
	*h = GPRSDLHeader{
		RRBP: b[0] >> 4 & 3, SP: b[0]&8 != 0, USF: b[0] & 7,
		PR: b[1] >> 6, TFI: b[1] >> 1 & 31, FBI: b[1]&1 != 0,
		BSN: b[2] >> 1, E: b[2]&1 != 0,
	}
	return nil
}

// GPRSULHeader is the uplink RLC data block header (TS 44.060 §10.2.2, Figure 10.2.2.1):
//
//	  7   6   5   4   3   2   1   0
//	+-------+---------------+---+---+
//	|  PT   |  Countdown V. |SI | R |  octet 1
//	+---+---+---------------+---+---+
//	|spr|PI |        TFI        |TI |  octet 2
//	+---+---+-------------------+---+
//	|            BSN            | E |  octet 3
//	+---------------------------+---+
type GPRSULHeader struct {
	CV  uint8 // countdown value, 4 bits (15 = not counting down)
	SI  bool  // stall indicator
	R   bool  // retry
	PI  bool  // PFI indicator
	TFI uint8 // 5 bits
	TI  bool  // TLLI indicator
	BSN uint8 // 7 bits
	E   bool  // true: no LI octets follow
}

// MarshalTo writes the 3-octet header.
func (h *GPRSULHeader) MarshalTo(b []byte) (int, error) {
	if len(b) < GPRSHeaderLen {
		return 0, ErrOverflow
	}
	b[0] = PTData<<6 | (h.CV&15)<<2 | b2u(h.SI)<<1 | b2u(h.R)
	b[1] = b2u(h.PI)<<6 | (h.TFI&31)<<1 | b2u(h.TI)
	b[2] = (h.BSN&127)<<1 | b2u(h.E)
	return GPRSHeaderLen, nil
}

// Unmarshal reads the 3-octet header.
func (h *GPRSULHeader) Unmarshal(b []byte) error {
	if err := checkGPRSHeader(b, "GPRS UL header"); err != nil {
		return err
	}
	*h = GPRSULHeader{
		CV: b[0] >> 2 & 15, SI: b[0]&2 != 0, R: b[0]&1 != 0,
		PI: b[1]&0x40 != 0, TFI: b[1] >> 1 & 31, TI: b[1]&1 != 0,
		BSN: b[2] >> 1, E: b[2]&1 != 0,
	}
	return nil
}

// checkGPRSHeader checks that b starts with the 3-octet header of a GPRS
// data block (Payload Type "RLC/MAC block contains an RLC data block", TS
// 44.060 §10.4.7); field names the header in the error.
func checkGPRSHeader(b []byte, field string) error {
	if len(b) < GPRSHeaderLen {
		return &BitError{Off: len(b) * 8, Field: field, Err: ErrShort}
	}
	if b[0]>>6 != PTData {
		return &BitError{Off: 0, Field: "PT", Err: ErrNotData}
	}
	return nil
}

func b2u(b bool) uint8 {
	if b {
		return 1
	}
	return 0
}

// LI octet helpers. GPRS (TS 44.060 §10.4.14): LI(6) | M(1) | E(1).
// EGPRS (§10.4.14a): LI(7) | E(1).

// GPRSLI builds a GPRS length indicator octet.
func GPRSLI(li uint8, m, e bool) byte { return li<<2 | b2u(m)<<1 | b2u(e) }

// EGPRSLI builds an EGPRS length indicator octet.
func EGPRSLI(li uint8, e bool) byte { return li<<1 | b2u(e) }

// EGPRSPaddingLI is LI=127 (rest of the data unit is filling octets).
const EGPRSPaddingLI = 127

// AppendResult tells what DLUnit.Append did with an LLC chunk.
type AppendResult uint8

const (
	// NeedMoreBlocks: the unit is full and the frame (or an empty closing
	// chunk, EGPRS) continues in the next block.
	NeedMoreBlocks AppendResult = iota
	// CompletedSpaceLeft: the frame ended in this unit and space is left for the next frame.
	CompletedSpaceLeft
	// CompletedBlockFilled: the frame ended in this unit and the unit is done.
	CompletedBlockFilled
)

func (r AppendResult) String() string {
	switch r {
	case NeedMoreBlocks:
		return "need-more-blocks"
	case CompletedSpaceLeft:
		return "completed-space-left"
	case CompletedBlockFilled:
		return "completed-block-filled"
	}
	return "?"
}

// DLUnit fills one RLC data unit (the octets after the data block header)
// with LLC frame chunks and their length indicators, TS 44.060 §10.4.14
// (GPRS) / §10.4.14a (EGPRS), following the fill rules of osmo-pcu encoding.cpp
// rlc_data_to_dl_append_gprs() / rlc_data_to_dl_append_egprs().
// It writes into the caller's buffer and never allocates.
//
// Use: Reset(unit, egprs); for each LLC frame call Append(rest, final) until
// the result is not NeedMoreBlocks, advancing rest by the returned count; when
// the LLC queue drains with space left call Pad. E() is the header E bit.
//
// A frame whose last octet exactly fills an EGPRS unit returns NeedMoreBlocks
// with the whole frame consumed: call Append with the empty rest in the next
// block; this writes the LI=0 "empty chunk" that closes the frame.
type DLUnit struct {
	buf   []byte
	egprs bool
	nLI   int // LI octets at the front
	off   int // LIs + data written
	e     bool
}

// Reset starts a new unit over buf (len = CodingScheme.DataLen()).
func (u *DLUnit) Reset(buf []byte, egprs bool) {
	*u = DLUnit{buf: buf, egprs: egprs, e: true}
}

// E returns the data block header E bit (true: no extension octets).
func (u *DLUnit) E() bool { return u.e }

// Len returns the octets written so far (LIs and data).
func (u *DLUnit) Len() int { return u.off }

// Space returns the octets still free.
func (u *DLUnit) Space() int { return len(u.buf) - u.off }

// NumLI returns the number of LI octets written.
func (u *DLUnit) NumLI() int { return u.nLI }

// insertLI shifts the data written so far by one octet and stores li after
// the existing LI octets.
func (u *DLUnit) insertLI(li byte) {
	copy(u.buf[u.nLI+1:u.off+1], u.buf[u.nLI:u.off])
	u.buf[u.nLI] = li
	u.nLI++
	u.off++
	u.e = false
}

// Append writes as much of chunk (the rest of the current LLC frame) as fits.
// final is true when this frame is the last one to send (the queue is empty).
// It returns the octets of chunk consumed.
func (u *DLUnit) Append(chunk []byte, final bool) (int, AppendResult) {
	space := len(u.buf) - u.off
	n := len(chunk)
	if u.egprs {
		return u.appendEGPRS(chunk, final, space, n)
	}
	switch {
	case n > space:
		// Frame continues in the next block: previous LI gets M=1 (more data follows).
		if u.nLI > 0 {
			u.buf[u.nLI-1] |= 0x02
		}
		copy(u.buf[u.off:], chunk[:space])
		u.off += space
		return space, NeedMoreBlocks
	case n == space && final:
		// Last frame fills the unit exactly: no LI (§10.4.14).
		if u.nLI > 0 {
			u.buf[u.nLI-1] |= 0x03
		}
		copy(u.buf[u.off:], chunk)
		u.off += n
		return n, CompletedBlockFilled
	case n == space:
		// Exactly filling but not last: LI=0 so that the frame extends into
		// the next block (§10.4.14: "LI = 0 ... the LLC PDU would fit ...").
		if u.nLI > 0 {
			u.buf[u.nLI-1] = u.buf[u.nLI-1]&^0x01 | 0x02
		}
		u.insertLI(GPRSLI(0, false, true))
		space--
		copy(u.buf[u.off:], chunk[:space])
		u.off += space
		return space, NeedMoreBlocks
	}
	if u.nLI > 0 {
		u.buf[u.nLI-1] = u.buf[u.nLI-1]&^0x01 | 0x02
	}
	u.insertLI(GPRSLI(uint8(n), false, true))
	copy(u.buf[u.off:], chunk)
	u.off += n
	if u.off < len(u.buf) && !final {
		return n, CompletedSpaceLeft
	}
	if final {
		u.padFill()
	}
	return n, CompletedBlockFilled
}

func (u *DLUnit) appendEGPRS(chunk []byte, final bool, space, n int) (int, AppendResult) {
	switch {
	case n > space:
		copy(u.buf[u.off:], chunk[:space])
		u.off += space
		return space, NeedMoreBlocks
	case n == space && final:
		copy(u.buf[u.off:], chunk)
		u.off += n
		return n, CompletedBlockFilled
	case n == space:
		// No LI; the next block starts with an empty chunk (LI=0), §10.4.14a.
		copy(u.buf[u.off:], chunk)
		u.off += n
		return n, NeedMoreBlocks
	}
	if u.nLI > 0 {
		u.buf[u.nLI-1] &^= 0x01
	}
	u.insertLI(EGPRSLI(uint8(n), true))
	copy(u.buf[u.off:], chunk)
	u.off += n
	if !final {
		if u.off < len(u.buf) {
			return n, CompletedSpaceLeft
		}
		return n, CompletedBlockFilled
	}
	u.Pad()
	return n, CompletedBlockFilled
}

// Pad finishes a unit that has space left because no more LLC data is
// available: EGPRS adds LI=127 (§10.4.14a, "filling octets"), then the rest
// is filled with 0x2B.
func (u *DLUnit) Pad() {
	if u.off >= len(u.buf) {
		return
	}
	if u.egprs && u.off < len(u.buf) {
		if u.nLI > 0 {
			u.buf[u.nLI-1] &^= 0x01
		}
		u.insertLI(EGPRSLI(EGPRSPaddingLI, true))
	}
	u.padFill()
}

func (u *DLUnit) padFill() {
	for i := u.off; i < len(u.buf); i++ {
		u.buf[i] = PadOctet
	}
}

// Chunk is one piece of an LLC frame inside an uplink data unit.
type Chunk struct {
	Off      int  // octet offset inside the data unit
	Len      int  // octets
	Complete bool // the LLC frame ends with this chunk
}

// MaxChunks is the number of chunks a data unit can describe (an MCS-9 unit
// of 74 octets holds at most 37 one-octet chunks with their LIs; osmo-pcu
// stops at 16).
const MaxChunks = 40

// ULUnit is a parsed uplink data unit (TS 44.060 §10.4.13/§10.4.14, Tables
// 10.4.13.1 and 10.4.14a.1).
type ULUnit struct {
	TLLI    uint32
	HasTLLI bool
	Chunks  [MaxChunks]Chunk
	N       int
}

// ParseULUnit parses the LI octets, the optional TLLI (big-endian for GPRS,
// little-endian for EGPRS, §10.2.2 / §10.3a.2.1 notes) and computes the chunk
// positions. e, ti, pi are the header bits, last is CV == 0.
func ParseULUnit(data []byte, egprs, e, ti, pi, last bool, out *ULUnit) error {
	out.N = 0
	out.HasTLLI = false
	out.TLLI = 0
	const toEnd = -1
	offs := 0
	add := func(l int, complete bool) error {
		if out.N == MaxChunks {
			return &BitError{Off: offs * 8, Field: "LI", Err: ErrTooManyLI}
		}
		out.Chunks[out.N] = Chunk{Len: l, Complete: complete}
		out.N++
		return nil
	}
	if e {
		_ = add(toEnd, last)
	} else {
		for end := false; !end; {
			if offs >= len(data) {
				return &BitError{Off: offs * 8, Field: "LI", Err: ErrShort}
			}
			o := data[offs]
			offs++
			if egprs {
				li, ee := int(o>>1), o&1 == 1
				end = ee
				switch {
				case li == 0 && out.N == 0:
					if err := add(0, true); err != nil {
						return err
					}
				case li == 127 && ee:
					end = true
					continue
				case li > 0 && li != 127:
					if err := add(li, true); err != nil {
						return err
					}
				default:
					return &BitError{Off: (offs - 1) * 8, Field: "LI", Err: ErrInvalid}
				}
				if end {
					if err := add(toEnd, last); err != nil {
						return err
					}
				}
				continue
			}
			li, m, ee := int(o>>2), o&2 != 0, o&1 == 1
			if li == 0 { // §10.4.14: LI=0 only as last LI
				ee, m = true, false
			}
			end = ee
			if !m && !ee {
				return ErrLIIgnored
			}
			l := li
			if li == 0 {
				l = toEnd
			}
			if err := add(l, li != 0 || last); err != nil {
				return err
			}
			if ee && m {
				if err := add(toEnd, last); err != nil {
					return err
				}
			}
		}
	}
	if ti {
		if offs+4 > len(data) {
			return &BitError{Off: offs * 8, Field: "TLLI", Err: ErrShort}
		}
		if egprs {
			out.TLLI = binary.LittleEndian.Uint32(data[offs:])
		} else {
			out.TLLI = binary.BigEndian.Uint32(data[offs:])
		}
		out.HasTLLI = true
		offs += 4
	}
	if pi {
		return &BitError{Off: offs * 8, Field: "PFI", Err: ErrPFIUnsupport}
	}
	for i := 0; i < out.N; i++ {
		c := &out.Chunks[i]
		c.Off = offs
		if c.Len == toEnd {
			if offs == len(data) {
				out.N = i // no room for a trailing chunk (EGPRS has no M bit)
				break
			}
			c.Len = len(data) - offs
		}
		offs += c.Len
		if offs > len(data) {
			return &BitError{Off: offs * 8, Field: "LI", Err: ErrLIOverflow}
		}
	}
	return nil
}

// GPRSULBlock is a parsed GPRS uplink data block.
type GPRSULBlock struct {
	CS     CodingScheme
	Header GPRSULHeader
	Unit   ULUnit
	Data   []byte // the data unit (aliases the input)
}

// Parse decodes a GPRS uplink data block of CS-1..4 (length selects the CS).
func (blk *GPRSULBlock) Parse(b []byte) error {
	return parseGPRS(b, &blk.Header, nil, &blk.CS, &blk.Data, &blk.Unit)
}

// parseGPRS decodes the GPRS data block b of one direction: uh or dh (the
// other nil) gets its header; cs, data (aliasing b) and unit are set once
// the length and the header are right.
func parseGPRS(b []byte, uh *GPRSULHeader, dh *GPRSDLHeader, cs *CodingScheme, data *[]byte, unit *ULUnit) error {
	c, err := gprsCS(b, uh != nil)
	if err == nil && uh != nil {
		err = uh.Unmarshal(b)
	}
	if err == nil && dh != nil {
		err = dh.Unmarshal(b)
	}
	if err != nil {
		return err
	}
	*cs, *data = c, b[GPRSHeaderLen:GPRSHeaderLen+c.DataLen()]
	if uh != nil {
		return ParseULUnit(*data, false, uh.E, uh.TI, uh.PI, uh.CV == 0, unit)
	}
	return ParseULUnit(*data, false, dh.E, false, false, dh.FBI, unit)
}

// EncodeGPRSDL writes a complete GPRS DL data block of cs into b (len >=
// cs.BlockLen(false)): header, the unit (already filled in b[3:] by a DLUnit
// or copied from unit when unit is not nil) and zeroed spare bits. It returns
// the block length.
func EncodeGPRSDL(b []byte, cs CodingScheme, h *GPRSDLHeader, unit []byte) (int, error) {
	return encodeGPRS(b, cs, nil, h, unit)
}

// EncodeGPRSUL writes a complete GPRS UL data block (the MS side); see EncodeGPRSDL.
func EncodeGPRSUL(b []byte, cs CodingScheme, h *GPRSULHeader, unit []byte) (int, error) {
	return encodeGPRS(b, cs, h, nil, unit)
}

// encodeGPRS writes a GPRS data block of one direction, whose header is uh
// or dh (the other nil), after checking that cs is CS-1..4 and that b holds
// a block of it.
func encodeGPRS(b []byte, cs CodingScheme, uh *GPRSULHeader, dh *GPRSDLHeader, unit []byte) (int, error) {
	if !cs.IsGPRS() {
		return 0, ErrInvalid
	}
	n := cs.BlockLen(uh != nil)
	if len(b) < n {
		return 0, ErrOverflow
	}
	// (b holds the header: the MarshalTos cannot fail)
	if uh != nil {
		uh.MarshalTo(b)
	} else {
		dh.MarshalTo(b)
	}
	return finishGPRSBlock(b[:n], cs, unit)
}

// gprsCS returns the coding scheme (CS-1..4) that the length of the GPRS
// data block b gives.
func gprsCS(b []byte, uplink bool) (CodingScheme, error) {
	cs := CSFromDLLen(len(b))
	if uplink {
		cs = CSFromULLen(len(b))
	}
	if !cs.IsGPRS() {
		return cs, &BitError{Off: 0, Field: "length", Err: ErrBadLength}
	}
	return cs, nil
}

// finishGPRSBlock copies unit (if not nil) after the header of block b and
// zeroes the spare bits; it returns the block length.
func finishGPRSBlock(b []byte, cs CodingScheme, unit []byte) (int, error) {
	dl := cs.DataLen()
	if unit != nil {
		if len(unit) != dl {
			return 0, ErrInvalid
		}
		copy(b[GPRSHeaderLen:], unit)
	}
	clear(b[GPRSHeaderLen+dl:])
	return len(b), nil
}

// PutTLLI stores the TLLI of an uplink data unit (TI = 1) at the start of a
// fresh unit: big-endian for GPRS, little-endian for EGPRS (TS 44.060
// §10.2.2 note, §10.3a.2.1 note 2). LI octets inserted later go before it,
// as §10.4.13 requires. It returns false if the unit is not empty.
func (u *DLUnit) PutTLLI(tlli uint32) bool {
	if u.off != 0 || len(u.buf) < 4 {
		return false
	}
	if u.egprs {
		binary.LittleEndian.PutUint32(u.buf, tlli)
	} else {
		binary.BigEndian.PutUint32(u.buf, tlli)
	}
	u.off = 4
	return true
}

// LLCSource supplies LLC frames to FillUnit (a per-TBF DL queue on the
// network side, the MS emulator's UL queue on the MS side).
type LLCSource interface {
	// Frame returns the unsent rest of the frame being sent (possibly empty
	// for the EGPRS closing chunk); ok is false when no frame is available.
	Frame() (rest []byte, ok bool)
	// Last reports whether that frame is the last one to send (drives the
	// final-block LI rules and FBI / CV = 0).
	Last() bool
	// Sent records n octets of the frame as placed in the unit; done reports
	// that the frame is complete and the source should move to the next one.
	Sent(n int, done bool)
}

// FillUnit fills u from src following TS 44.060 §10.4.14/§10.4.14a and
// osmo-pcu's encoding.cpp rlc_data_to_dl_append_*(). It returns true when the unit ends the last frame
// (set FBI, or CV = 0 uplink). When the source runs dry with data in the unit
// the rest is padded (EGPRS LI = 127).
func FillUnit(u *DLUnit, src LLCSource) (final bool) {
	for {
		rest, ok := src.Frame()
		if !ok {
			u.Pad()
			return false
		}
		last := src.Last()
		n, r := u.Append(rest, last)
		done := r != NeedMoreBlocks
		src.Sent(n, done)
		switch {
		case !done:
			return false
		case last:
			return true
		case r == CompletedBlockFilled:
			return false
		}
	}
}

// CountdownValue computes the uplink CV (TS 44.060 §9.3.1): remaining is the
// number of blocks still to send including this one (TBC - BSN'), nts the
// number of allocated timeslots, bsCVMax the broadcast BS_CV_MAX.
func CountdownValue(remaining, nts, bsCVMax int) uint8 {
	if nts < 1 {
		nts = 1
	}
	if remaining < 1 {
		return 0
	}
	x := (remaining - 1 + nts - 1) / nts
	if x > bsCVMax || x > 14 {
		return 15
	}
	return uint8(x)
}

// ParseUnit parses the LI octets / TLLI of a data unit of either direction
// (the LI rules of §10.4.13/§10.4.14 are the same): last is FBI (DL) or
// CV == 0 (UL). It is ParseULUnit under a direction-neutral name.
func ParseUnit(data []byte, egprs, e, ti, pi, last bool, out *ULUnit) error {
	return ParseULUnit(data, egprs, e, ti, pi, last, out)
}

// GPRSDLBlock is a parsed GPRS downlink data block (the MS side).
type GPRSDLBlock struct {
	CS     CodingScheme
	Header GPRSDLHeader
	Unit   ULUnit
	Data   []byte // the data unit (aliases the input)
}

// Parse decodes a GPRS downlink data block of CS-1..4 (length selects the CS).
func (blk *GPRSDLBlock) Parse(b []byte) error {
	return parseGPRS(b, nil, &blk.Header, &blk.CS, &blk.Data, &blk.Unit)
}
