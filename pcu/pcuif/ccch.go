package pcuif

import "bytes"

// PCH2 is the payload of a DATA_REQ on SAPI PCH_2 (v11+, 45 B).
type PCH2 struct {
	MsgID   uint32
	IMSI    string // digits; empty = MS assumed non-DRX
	MAC     [MACBlock]byte
	Confirm bool
}

// PCH2Len is the length of the PCH_2 payload.
const PCH2Len = 45

// MarshalTo writes the 45 octets into b.
func (p *PCH2) MarshalTo(b []byte) (int, error) {
	if len(b) < PCH2Len {
		return 0, errf(ErrBuffer, TypeDataReq, -1, "pch_2", "need %d", PCH2Len)
	}
	if len(p.IMSI) >= IMSIBufLen {
		return 0, errf(ErrRange, TypeDataReq, HeaderLen+2+4, "imsi", "%d digits", len(p.IMSI))
	}
	putCCCH2(b[:PCH2Len], p.MsgID, &p.MAC, p.Confirm)
	copy(b[4:4+IMSIBufLen], p.IMSI)
	return PCH2Len, nil
}

// Unmarshal decodes the 45 octets.
func (p *PCH2) Unmarshal(b []byte) error {
	if len(b) < PCH2Len {
		return errf(ErrShort, TypeDataReq, HeaderLen+2, "pch_2", "%d < %d", len(b), PCH2Len)
	}
	s := b[4 : 4+IMSIBufLen]
	i := bytes.IndexByte(s, 0)
	if i < 0 {
		return errf(ErrInconsistent, TypeDataReq, HeaderLen+2+4, "imsi", "not NUL-terminated")
	}
	p.IMSI = string(s[:i])
	p.MsgID, p.Confirm = getCCCH2(b[:PCH2Len], &p.MAC)
	return nil
}

// AGCH2 is the payload of a DATA_REQ on SAPI AGCH_2 (v11+, 28 B).
type AGCH2 struct {
	MsgID   uint32
	MAC     [MACBlock]byte
	Confirm bool
}

// AGCH2Len is the length of the AGCH_2 payload.
const AGCH2Len = 28

// MarshalTo writes the 28 octets into b.
func (a *AGCH2) MarshalTo(b []byte) (int, error) {
	if len(b) < AGCH2Len {
		return 0, errf(ErrBuffer, TypeDataReq, -1, "agch_2", "need %d", AGCH2Len)
	}
	putCCCH2(b[:AGCH2Len], a.MsgID, &a.MAC, a.Confirm)
	return AGCH2Len, nil
}

// Unmarshal decodes the 28 octets.
func (a *AGCH2) Unmarshal(b []byte) error {
	if len(b) < AGCH2Len {
		return errf(ErrShort, TypeDataReq, HeaderLen+2, "agch_2", "%d < %d", len(b), AGCH2Len)
	}
	a.MsgID, a.Confirm = getCCCH2(b[:AGCH2Len], &a.MAC)
	return nil
}

// putCCCH2 writes the frame b of a PCH_2 or AGCH_2 payload (v11+): the
// message ID first, the MAC block and the confirm flag last; what lies
// between (PCH_2's IMSI) is zeroed.
func putCCCH2(b []byte, id uint32, mac *[MACBlock]byte, confirm bool) {
	clear(b)
	le.PutUint32(b, id)
	copy(b[len(b)-1-MACBlock:], mac[:])
	if confirm {
		b[len(b)-1] = 1
	}
}

// getCCCH2 reads the message ID, the MAC block and the confirm flag of
// the PCH_2 or AGCH_2 payload b.
func getCCCH2(b []byte, mac *[MACBlock]byte) (id uint32, confirm bool) {
	copy(mac[:], b[len(b)-1-MACBlock:])
	return le.Uint32(b), b[len(b)-1] != 0
}

// PCHLegacyLen is the length of a v10/v11 PCH payload: 3 ASCII digits
// (paging group from the last IMSI digits, "000" if unknown) and the MAC block.
const PCHLegacyLen = 3 + MACBlock
