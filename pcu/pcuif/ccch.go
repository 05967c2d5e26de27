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
	clear(b[:PCH2Len])
	le.PutUint32(b, p.MsgID)
	copy(b[4:4+IMSIBufLen], p.IMSI)
	copy(b[21:44], p.MAC[:])
	if p.Confirm {
		b[44] = 1
	}
	return PCH2Len, nil
}

// Unmarshal decodes the 45 octets.
func (p *PCH2) Unmarshal(b []byte) error {
	if len(b) < PCH2Len {
		return errf(ErrShort, TypeDataReq, HeaderLen+2, "pch_2", "%d < %d", len(b), PCH2Len)
	}
	p.MsgID = le.Uint32(b)
	s := b[4 : 4+IMSIBufLen]
	i := bytes.IndexByte(s, 0)
	if i < 0 {
		return errf(ErrInconsistent, TypeDataReq, HeaderLen+2+4, "imsi", "not NUL-terminated")
	}
	p.IMSI = string(s[:i])
	copy(p.MAC[:], b[21:44])
	p.Confirm = b[44] != 0
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
	clear(b[:AGCH2Len])
	le.PutUint32(b, a.MsgID)
	copy(b[4:27], a.MAC[:])
	if a.Confirm {
		b[27] = 1
	}
	return AGCH2Len, nil
}

// Unmarshal decodes the 28 octets.
func (a *AGCH2) Unmarshal(b []byte) error {
	if len(b) < AGCH2Len {
		return errf(ErrShort, TypeDataReq, HeaderLen+2, "agch_2", "%d < %d", len(b), AGCH2Len)
	}
	a.MsgID = le.Uint32(b)
	copy(a.MAC[:], b[4:27])
	a.Confirm = b[27] != 0
	return nil
}

// PCHLegacyLen is the length of a v10/v11 PCH payload: 3 ASCII digits
// (paging group from the last IMSI digits, "000" if unknown) and the MAC block.
const PCHLegacyLen = 3 + MACBlock
