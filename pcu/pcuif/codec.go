package pcuif

// MarshalLen is the length m is sent with in version v: the full union size
// for every message but CONTAINER, which is sent with its exact size.
func MarshalLen(m Message, v Version) int {
	if m.Type() == TypeContainer {
		return HeaderLen + m.payloadLen(v)
	}
	if ii, ok := m.(*InfoInd); ok && ii.Version != 0 {
		v = ii.Version
	}
	return v.FullSize()
}

// MarshalTo encodes m for version v into b, zero-filling the rest of the
// union, and returns the length. It does not allocate.
func MarshalTo(b []byte, m Message, v Version) (int, error) {
	n := MarshalLen(m, v)
	if len(b) < n {
		return 0, errf(ErrBuffer, m.Type(), -1, "", "need %d octets, have %d", n, len(b))
	}
	if err := checkEncode(m, v); err != nil {
		return 0, err
	}
	b = b[:n]
	clear(b)
	b[0] = byte(m.Type())
	b[1] = m.BTS()
	m.putPayload(b[HeaderLen:], v)
	return n, nil
}

// Marshal encodes m for version v into a new buffer.
func Marshal(m Message, v Version) ([]byte, error) {
	b := make([]byte, MarshalLen(m, v))
	n, err := MarshalTo(b, m, v)
	return b[:n], err
}

func checkEncode(m Message, v Version) error {
	if !v.Valid() {
		return errf(ErrVersion, m.Type(), -1, "", "cannot encode for %s", v)
	}
	switch x := m.(type) {
	case *Data:
		if len(x.Payload) > DataMaxLen {
			return errf(ErrRange, x.Kind, HeaderLen+1, "len", "%d > %d", len(x.Payload), DataMaxLen)
		}
		if x.Kind != TypeDataReq && x.Kind != TypeDataInd && x.Kind != TypeDataCnf {
			return errf(ErrInconsistent, x.Kind, 0, "msg_type", "not a DATA message")
		}
		if x.Kind == TypeDataCnf && v >= V12 {
			return errf(ErrVersion, x.Kind, 0, "msg_type", "DATA_CNF removed in %s", v)
		}
	case *DataCnfDT:
		if v != V10 {
			return errf(ErrVersion, TypeDataCnf2, 0, "msg_type", "DATA_CNF_DT exists only in v10")
		}
	case *DataCnf2:
		if v < V11 {
			return errf(ErrVersion, TypeDataCnf2, 0, "msg_type", "DATA_CNF_2 needs v11+")
		}
	case *AppInfoReq:
		if len(x.Data) > DataMaxLen {
			return errf(ErrRange, TypeAppInfoReq, HeaderLen+1, "len", "%d > %d", len(x.Data), DataMaxLen)
		}
	case *PagReq:
		if len(x.Identity) == 0 || len(x.Identity) > 8 {
			return errf(ErrRange, TypePagReq, HeaderLen+2, "identity_lv", "length %d", len(x.Identity))
		}
	case *TxtInd:
		if len(x.Text) >= TxtMaxLen {
			return errf(ErrRange, TypeTxtInd, HeaderLen+1, "text", "%d octets >= %d", len(x.Text), TxtMaxLen)
		}
	case *Container:
		if len(x.Data) > 0xffff {
			return errf(ErrRange, TypeContainer, HeaderLen+2, "length", "%d", len(x.Data))
		}
	case *InfoInd:
		if x.Version != 0 && !x.Version.Valid() {
			return errf(ErrVersion, TypeInfoInd, HeaderLen, "version", "%d", x.Version)
		}
	}
	return nil
}

// PeekHeader returns the type and bts_nr of a message.
func PeekHeader(b []byte) (MsgType, uint8, error) {
	if len(b) < HeaderLen {
		return 0, 0, errf(ErrShort, 0, len(b), "header", "%d octets", len(b))
	}
	return MsgType(b[0]), b[1], nil
}

// Unmarshal decodes message b (header included), sent in version v, into m,
// whose concrete type must match the message type. Slices in m alias b.
// It does not allocate.
func Unmarshal(b []byte, m Message, v Version) error {
	t, bts, err := PeekHeader(b)
	if err != nil {
		return err
	}
	if d, ok := m.(*Data); ok {
		d.Kind = t
	}
	if t != m.Type() {
		return errf(ErrInconsistent, t, 0, "msg_type", "decoding into %s", m.Type())
	}
	if !v.Valid() && t != TypeInfoInd {
		return errf(ErrVersion, t, -1, "", "no version negotiated")
	}
	p := b[HeaderLen:]
	need := m.payloadLen(v)
	if t == TypeContainer {
		need = 4
	}
	if t == TypeInfoInd {
		need = 1002
		if len(p) >= 4 && Version(le.Uint32(p)) >= V12 {
			need = 1003
		}
	}
	if len(p) < need {
		return errf(ErrShort, t, len(b), "", "%d payload octets, need %d", len(p), need)
	}
	maxLen := v.FullSize()
	if t == TypeInfoInd {
		maxLen = 1007
	}
	if t != TypeContainer && len(b) > maxLen || t == TypeContainer && len(b) > HeaderLen+4+0xffff {
		return errf(ErrLong, t, maxLen, "", "%d octets, at most %d", len(b), maxLen)
	}
	m.setBTS(bts)
	return m.getPayload(p, v)
}

// New returns an empty message of type t as used in version v, or an
// ErrUnknownType/ErrVersion error.
func New(t MsgType, v Version) (Message, error) {
	switch t {
	case TypeDataReq, TypeDataInd:
		return &Data{Kind: t}, nil
	case TypeDataCnf:
		if v >= V12 {
			return nil, errf(ErrVersion, t, 0, "msg_type", "removed in %s", v)
		}
		return &Data{Kind: t}, nil
	case TypeSuspReq:
		return &SuspReq{}, nil
	case TypeAppInfoReq:
		return &AppInfoReq{}, nil
	case TypeRTSReq:
		return &RTSReq{}, nil
	case TypeDataCnf2:
		if v == V10 {
			return &DataCnfDT{}, nil
		}
		return &DataCnf2{}, nil
	case TypeRACHInd:
		return &RACHInd{}, nil
	case TypeInfoInd:
		return &InfoInd{}, nil
	case TypeE1CCUInd:
		return &E1CCUInd{}, nil
	case TypeActReq:
		return &ActReq{}, nil
	case TypeTimeInd:
		return &TimeInd{}, nil
	case TypeInterfInd:
		return &InterfInd{}, nil
	case TypePagReq:
		return &PagReq{}, nil
	case TypeTxtInd:
		return &TxtInd{}, nil
	case TypeContainer:
		return &Container{}, nil
	}
	return nil, errf(ErrUnknownType, t, 0, "msg_type", "")
}

// Parse decodes any message sent in version v. For INFO_IND the message's
// own version field is used, so a PCU can learn the BTS's version from it.
func Parse(b []byte, v Version) (Message, error) {
	t, _, err := PeekHeader(b)
	if err != nil {
		return nil, err
	}
	m, err := New(t, v)
	if err != nil {
		return nil, err
	}
	if err := Unmarshal(b, m, v); err != nil {
		return nil, err
	}
	return m, nil
}

// PeekInfoVersion returns the version field of an INFO_IND message.
func PeekInfoVersion(b []byte) (Version, bool) {
	if len(b) < HeaderLen+4 || MsgType(b[0]) != TypeInfoInd {
		return 0, false
	}
	return Version(le.Uint32(b[HeaderLen:])), true
}
