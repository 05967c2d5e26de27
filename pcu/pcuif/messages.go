package pcuif

import (
	"bytes"
	"encoding/binary"
	"net/netip"
)

var le = binary.LittleEndian
var be = binary.BigEndian

// MaxFN is the number of TDMA frames in a hyperframe (2048*26*51).
const MaxFN = 2715648

// Message is one PCUIF message. The concrete types are the structs of this
// file; all are used as pointers.
type Message interface {
	// Type is the message type of the header.
	Type() MsgType
	// BTS is the header's bts_nr.
	BTS() uint8
	payloadLen(v Version) int
	putPayload(p []byte, v Version)
	getPayload(p []byte, v Version) error
	setBTS(uint8)
}

type hdr struct{ BTSNr uint8 }

func (h *hdr) BTS() uint8     { return h.BTSNr }
func (h *hdr) setBTS(n uint8) { h.BTSNr = n }

// checkFN checks the frame number at offset off of a message of type t:
// TDMA frame numbers are below MaxFN (TS 45.002 §4.3.3).
func checkFN(t MsgType, off int, fn uint32) error {
	if fn >= MaxFN {
		return errf(ErrRange, t, off, "fn", "%d >= %d", fn, MaxFN)
	}
	return nil
}

func checkTRXTS(t MsgType, off int, trx, ts uint8) error {
	if trx >= NumTRX {
		return errf(ErrRange, t, off, "trx_nr", "%d >= %d", trx, NumTRX)
	}
	if ts >= NumTS {
		return errf(ErrRange, t, off+1, "ts_nr", "%d >= %d", ts, NumTS)
	}
	return nil
}

func checkSAPI(t MsgType, s SAPI, v Version) error {
	if !s.ValidIn(v) {
		return errf(ErrVersion, t, HeaderLen, "sapi", "%s not in %s", s, v)
	}
	return nil
}

// Data is DATA_REQ, DATA_CNF and DATA_IND (struct gsm_pcu_if_data, 180 B).
// Payload is the MAC block (or PCH/AGCH struct); on decode it aliases the
// input buffer.
type Data struct {
	hdr
	Kind        MsgType // TypeDataReq, TypeDataCnf or TypeDataInd
	SAPI        SAPI
	Payload     []byte // at most DataMaxLen octets
	FN          uint32
	ARFCN       uint16
	TRX         uint8
	TS          uint8
	BlockNr     uint8
	RSSI        int8
	BER10k      uint16
	TAOffsQbits int16
	LqualCb     int16
}

// Type is Kind (the zero value is DATA_REQ).
func (m *Data) Type() MsgType          { return m.Kind }
func (m *Data) payloadLen(Version) int { return 180 }
func (m *Data) putPayload(p []byte, _ Version) {
	p[0] = byte(m.SAPI)
	p[1] = byte(len(m.Payload))
	copy(p[2:2+DataMaxLen], m.Payload)
	le.PutUint32(p[164:], m.FN)
	le.PutUint16(p[168:], m.ARFCN)
	p[170], p[171], p[172], p[173] = m.TRX, m.TS, m.BlockNr, byte(m.RSSI)
	le.PutUint16(p[174:], m.BER10k)
	le.PutUint16(p[176:], uint16(m.TAOffsQbits))
	le.PutUint16(p[178:], uint16(m.LqualCb))
}
func (m *Data) getPayload(p []byte, v Version) error {
	t := m.Kind
	m.SAPI = SAPI(p[0])
	if err := checkSAPI(t, m.SAPI, v); err != nil {
		return err
	}
	n := int(p[1])
	if n > DataMaxLen {
		return errf(ErrRange, t, HeaderLen+1, "len", "%d > %d", n, DataMaxLen)
	}
	m.Payload = p[2 : 2+n : 2+n]
	m.FN = le.Uint32(p[164:])
	if err := checkFN(t, HeaderLen+164, m.FN); err != nil {
		return err
	}
	m.ARFCN = le.Uint16(p[168:])
	m.TRX, m.TS, m.BlockNr, m.RSSI = p[170], p[171], p[172], int8(p[173])
	if err := checkTRXTS(t, HeaderLen+170, m.TRX, m.TS); err != nil {
		return err
	}
	if m.BlockNr > 11 {
		return errf(ErrRange, t, HeaderLen+172, "block_nr", "%d > 11", m.BlockNr)
	}
	m.BER10k = le.Uint16(p[174:])
	m.TAOffsQbits = int16(le.Uint16(p[176:]))
	m.LqualCb = int16(le.Uint16(p[178:]))
	return nil
}

// DataCnfDT is the v10 DATA_CNF_DT (0x11, 21 B). osmo-pcu never processes
// it; it is decoded for completeness.
type DataCnfDT struct {
	hdr
	SAPI        SAPI
	TLLI        uint32
	FN          uint32
	ARFCN       uint16
	TRX, TS     uint8
	BlockNr     uint8
	RSSI        int8
	BER10k      uint16
	TAOffsQbits int16
	LqualCb     int16
}

func (m *DataCnfDT) Type() MsgType          { return TypeDataCnf2 }
func (m *DataCnfDT) payloadLen(Version) int { return 21 }
func (m *DataCnfDT) putPayload(p []byte, _ Version) {
	p[0] = byte(m.SAPI)
	le.PutUint32(p[1:], m.TLLI)
	le.PutUint32(p[5:], m.FN)
	le.PutUint16(p[9:], m.ARFCN)
	p[11], p[12], p[13], p[14] = m.TRX, m.TS, m.BlockNr, byte(m.RSSI)
	le.PutUint16(p[15:], m.BER10k)
	le.PutUint16(p[17:], uint16(m.TAOffsQbits))
	le.PutUint16(p[19:], uint16(m.LqualCb))
}
func (m *DataCnfDT) getPayload(p []byte, v Version) error {
	m.SAPI = SAPI(p[0])
	if err := checkSAPI(TypeDataCnf2, m.SAPI, v); err != nil {
		return err
	}
	m.TLLI = le.Uint32(p[1:])
	m.FN = le.Uint32(p[5:])
	m.ARFCN = le.Uint16(p[9:])
	m.TRX, m.TS, m.BlockNr, m.RSSI = p[11], p[12], p[13], int8(p[14])
	m.BER10k = le.Uint16(p[15:])
	m.TAOffsQbits = int16(le.Uint16(p[17:]))
	m.LqualCb = int16(le.Uint16(p[19:]))
	return checkTRXTS(TypeDataCnf2, HeaderLen+11, m.TRX, m.TS)
}

// DataCnf2 is DATA_CNF_2 (0x11 in v11+, 5 B): the BTS confirms the
// transmission of a PCH_2/AGCH_2 message by its msg_id.
type DataCnf2 struct {
	hdr
	SAPI  SAPI
	MsgID uint32
}

func (m *DataCnf2) Type() MsgType          { return TypeDataCnf2 }
func (m *DataCnf2) payloadLen(Version) int { return 5 }
func (m *DataCnf2) putPayload(p []byte, _ Version) {
	p[0] = byte(m.SAPI)
	le.PutUint32(p[1:], m.MsgID)
}
func (m *DataCnf2) getPayload(p []byte, v Version) error {
	m.SAPI = SAPI(p[0])
	m.MsgID = le.Uint32(p[1:])
	if m.SAPI != SAPIPCH2 && m.SAPI != SAPIAGCH2 {
		return errf(ErrInconsistent, TypeDataCnf2, HeaderLen, "sapi", "%s cannot be confirmed", m.SAPI)
	}
	return nil
}

// SuspReq is SUSP_REQ (11 B): GPRS suspend from a DCCH.
type SuspReq struct {
	hdr
	TLLI  uint32
	RAID  [6]byte // TS 24.008 §10.5.5.15 encoding
	Cause uint8
}

func (m *SuspReq) Type() MsgType          { return TypeSuspReq }
func (m *SuspReq) payloadLen(Version) int { return 11 }
func (m *SuspReq) putPayload(p []byte, _ Version) {
	le.PutUint32(p, m.TLLI)
	copy(p[4:10], m.RAID[:])
	p[10] = m.Cause
}
func (m *SuspReq) getPayload(p []byte, _ Version) error {
	m.TLLI = le.Uint32(p)
	copy(m.RAID[:], p[4:10])
	m.Cause = p[10]
	return nil
}

// AppInfoReq is APP_INFO_REQ (164 B): Packet Application Information (ETWS).
type AppInfoReq struct {
	hdr
	AppType uint8 // 4 bits, TS 44.060 §11.2.47
	Data    []byte
}

func (m *AppInfoReq) Type() MsgType          { return TypeAppInfoReq }
func (m *AppInfoReq) payloadLen(Version) int { return 164 }
func (m *AppInfoReq) putPayload(p []byte, _ Version) {
	p[0] = m.AppType
	p[1] = byte(len(m.Data))
	copy(p[2:164], m.Data)
}
func (m *AppInfoReq) getPayload(p []byte, _ Version) error {
	m.AppType = p[0]
	if m.AppType > 0x0f {
		return errf(ErrRange, TypeAppInfoReq, HeaderLen, "application_type", "%d > 15", m.AppType)
	}
	n := int(p[1])
	if n > DataMaxLen {
		return errf(ErrRange, TypeAppInfoReq, HeaderLen+1, "len", "%d > %d", n, DataMaxLen)
	}
	m.Data = p[2 : 2+n : 2+n]
	return nil
}

// RTSReq is RTS_REQ (13 B): the BTS asks for the block to send at FN on
// TRX/TS (SAPI PDTCH or PTCCH).
type RTSReq struct {
	hdr
	SAPI    SAPI
	FN      uint32
	ARFCN   uint16
	TRX, TS uint8
	BlockNr uint8
}

func (m *RTSReq) Type() MsgType          { return TypeRTSReq }
func (m *RTSReq) payloadLen(Version) int { return 13 }
func (m *RTSReq) putPayload(p []byte, _ Version) {
	p[0] = byte(m.SAPI)
	le.PutUint32(p[4:], m.FN)
	le.PutUint16(p[8:], m.ARFCN)
	p[10], p[11], p[12] = m.TRX, m.TS, m.BlockNr
}
func (m *RTSReq) getPayload(p []byte, v Version) error {
	m.SAPI = SAPI(p[0])
	if err := checkSAPI(TypeRTSReq, m.SAPI, v); err != nil {
		return err
	}
	m.FN = le.Uint32(p[4:])
	if err := checkFN(TypeRTSReq, HeaderLen+4, m.FN); err != nil {
		return err
	}
	m.ARFCN = le.Uint16(p[8:])
	m.TRX, m.TS, m.BlockNr = p[10], p[11], p[12]
	if m.BlockNr > 11 {
		return errf(ErrRange, TypeRTSReq, HeaderLen+12, "block_nr", "%d > 11", m.BlockNr)
	}
	return checkTRXTS(TypeRTSReq, HeaderLen+10, m.TRX, m.TS)
}

// RACHInd is RACH_IND (15 B): an access burst on CCCH (SAPI RACH) or
// PTCCH/U (SAPI PTCCH).
type RACHInd struct {
	hdr
	SAPI      SAPI
	RA        uint16 // 8 or 11 bit
	QTA       int16  // timing advance in quarter bits
	FN        uint32 // full FN or RFN
	ARFCN     uint16
	Is11Bit   bool
	BurstType uint8 // 0 none, 1 access 0, 2 access 1, 3 access 2
	TRX, TS   uint8
}

func (m *RACHInd) Type() MsgType          { return TypeRACHInd }
func (m *RACHInd) payloadLen(Version) int { return 15 }
func (m *RACHInd) putPayload(p []byte, _ Version) {
	p[0] = byte(m.SAPI)
	le.PutUint16(p[1:], m.RA)
	le.PutUint16(p[3:], uint16(m.QTA))
	le.PutUint32(p[5:], m.FN)
	le.PutUint16(p[9:], m.ARFCN)
	if m.Is11Bit {
		p[11] = 1
	}
	p[12], p[13], p[14] = m.BurstType, m.TRX, m.TS
}
func (m *RACHInd) getPayload(p []byte, v Version) error {
	m.SAPI = SAPI(p[0])
	if err := checkSAPI(TypeRACHInd, m.SAPI, v); err != nil {
		return err
	}
	m.RA = le.Uint16(p[1:])
	m.QTA = int16(le.Uint16(p[3:]))
	m.FN = le.Uint32(p[5:])
	m.ARFCN = le.Uint16(p[9:])
	switch p[11] {
	case 0:
		m.Is11Bit = false
	case 1:
		m.Is11Bit = true
	default:
		return errf(ErrRange, TypeRACHInd, HeaderLen+11, "is_11bit", "%d", p[11])
	}
	m.BurstType, m.TRX, m.TS = p[12], p[13], p[14]
	if m.Is11Bit && m.RA > 0x7ff || !m.Is11Bit && m.RA > 0xff {
		return errf(ErrRange, TypeRACHInd, HeaderLen+1, "ra", "0x%x too large", m.RA)
	}
	if err := checkFN(TypeRACHInd, HeaderLen+5, m.FN); err != nil {
		return err
	}
	if m.BurstType > 3 {
		return errf(ErrRange, TypeRACHInd, HeaderLen+12, "burst_type", "%d > 3", m.BurstType)
	}
	return checkTRXTS(TypeRACHInd, HeaderLen+13, m.TRX, m.TS)
}

// InfoTS is the per-timeslot part of INFO_IND (13 B).
type InfoTS struct {
	TSC      uint8
	Hopping  bool
	HSN      uint8
	MAIO     uint8
	MABitLen uint8
	MA       [8]byte // right-aligned Mobile Allocation bitmap
}

// InfoTRX is the per-TRX part of INFO_IND (112 B).
type InfoTRX struct {
	ARFCN    uint16
	PDCHMask uint8
	HLayer1  uint32
	TS       [NumTS]InfoTS
}

// InfoInd is INFO_IND (1002 B in v10/v11, 1003 B in v12): the BTS's
// configuration. Its own Version field decides its layout.
type InfoInd struct {
	hdr
	Version     Version
	Flags       uint32
	TRX         [NumTRX]InfoTRX
	BSIC        uint8
	MCC, MNC    uint16
	MNC3Digits  bool
	LAC, RAC    uint16
	NSEI        uint16
	NSETimer    [7]uint8
	CellTimer   [11]uint8
	CellID      uint16
	RepeatTime  uint16
	RepeatCount uint8
	BVCI        uint16
	T3142       uint8
	T3169       uint8
	T3191       uint8
	T3193x10ms  uint8
	T3195       uint8
	N3101       uint8
	N3103       uint8
	N3105       uint8
	CVCountdown uint8
	DLTBFExt    uint16
	ULTBFExt    uint16
	InitialCS   uint8
	InitialMCS  uint8
	NSVCI       [NumNSVC]uint16
	LocalPort   [NumNSVC]uint16
	RemotePort  [NumNSVC]uint16
	AddrType    [NumNSVC]uint8
	RemoteIP    [NumNSVC][16]byte // IPv4 in the first 4 octets
	BTSModel    uint8             // v12 only
}

func (m *InfoInd) Type() MsgType { return TypeInfoInd }
func (m *InfoInd) payloadLen(v Version) int {
	if m.Version >= V12 || m.Version == 0 && v >= V12 {
		return 1003
	}
	return 1002
}

func (m *InfoInd) putPayload(p []byte, v Version) {
	ver := m.Version
	if ver == 0 {
		ver = v
	}
	le.PutUint32(p, uint32(ver))
	le.PutUint32(p[4:], m.Flags)
	for i := range m.TRX {
		t := &m.TRX[i]
		o := 8 + 112*i
		le.PutUint16(p[o:], t.ARFCN)
		p[o+2] = t.PDCHMask
		le.PutUint32(p[o+4:], t.HLayer1)
		for j := range t.TS {
			s := &t.TS[j]
			q := p[o+8+13*j:]
			q[0] = s.TSC
			if s.Hopping {
				q[1] = 1
			}
			q[2], q[3], q[4] = s.HSN, s.MAIO, s.MABitLen
			copy(q[5:13], s.MA[:])
		}
	}
	p[904] = m.BSIC
	le.PutUint16(p[905:], m.MCC)
	le.PutUint16(p[907:], m.MNC)
	if m.MNC3Digits {
		p[909] = 1
	}
	le.PutUint16(p[910:], m.LAC)
	le.PutUint16(p[912:], m.RAC)
	le.PutUint16(p[914:], m.NSEI)
	copy(p[916:923], m.NSETimer[:])
	copy(p[923:934], m.CellTimer[:])
	le.PutUint16(p[934:], m.CellID)
	le.PutUint16(p[936:], m.RepeatTime)
	p[938] = m.RepeatCount
	le.PutUint16(p[939:], m.BVCI)
	copy(p[941:950], []byte{m.T3142, m.T3169, m.T3191, m.T3193x10ms, m.T3195, m.N3101, m.N3103, m.N3105, m.CVCountdown})
	le.PutUint16(p[950:], m.DLTBFExt)
	le.PutUint16(p[952:], m.ULTBFExt)
	p[954], p[955] = m.InitialCS, m.InitialMCS
	for i := 0; i < NumNSVC; i++ {
		le.PutUint16(p[956+2*i:], m.NSVCI[i])
		le.PutUint16(p[960+2*i:], m.LocalPort[i])
		le.PutUint16(p[964+2*i:], m.RemotePort[i])
		p[968+i] = m.AddrType[i]
		copy(p[970+16*i:986+16*i], m.RemoteIP[i][:])
	}
	if ver >= V12 {
		p[1002] = m.BTSModel
	}
}

func (m *InfoInd) getPayload(p []byte, _ Version) error {
	m.Version = Version(le.Uint32(p))
	if !m.Version.Valid() {
		return errf(ErrVersion, TypeInfoInd, HeaderLen, "version", "%d unsupported", le.Uint32(p))
	}
	if len(p) < m.payloadLen(m.Version) {
		return errf(ErrShort, TypeInfoInd, len(p)+HeaderLen, "", "%d octets for INFO_IND %s", len(p), m.Version)
	}
	m.Flags = le.Uint32(p[4:])
	for i := range m.TRX {
		t := &m.TRX[i]
		o := 8 + 112*i
		t.ARFCN = le.Uint16(p[o:])
		t.PDCHMask = p[o+2]
		t.HLayer1 = le.Uint32(p[o+4:])
		for j := range t.TS {
			s := &t.TS[j]
			q := p[o+8+13*j:]
			s.TSC = q[0]
			s.Hopping = q[1] != 0
			s.HSN, s.MAIO, s.MABitLen = q[2], q[3], q[4]
			copy(s.MA[:], q[5:13])
			if s.TSC > 7 && t.PDCHMask&(1<<j) != 0 {
				return errf(ErrRange, TypeInfoInd, HeaderLen+o+8+13*j, "tsc", "%d > 7", s.TSC)
			}
			if s.MABitLen > 64 {
				return errf(ErrRange, TypeInfoInd, HeaderLen+o+8+13*j+4, "ma_bit_len", "%d > 64", s.MABitLen)
			}
		}
	}
	m.BSIC = p[904]
	m.MCC = le.Uint16(p[905:])
	m.MNC = le.Uint16(p[907:])
	m.MNC3Digits = p[909] != 0
	m.LAC = le.Uint16(p[910:])
	m.RAC = le.Uint16(p[912:])
	m.NSEI = le.Uint16(p[914:])
	copy(m.NSETimer[:], p[916:923])
	copy(m.CellTimer[:], p[923:934])
	m.CellID = le.Uint16(p[934:])
	m.RepeatTime = le.Uint16(p[936:])
	m.RepeatCount = p[938]
	m.BVCI = le.Uint16(p[939:])
	m.T3142, m.T3169, m.T3191, m.T3193x10ms, m.T3195 = p[941], p[942], p[943], p[944], p[945]
	m.N3101, m.N3103, m.N3105, m.CVCountdown = p[946], p[947], p[948], p[949]
	m.DLTBFExt = le.Uint16(p[950:])
	m.ULTBFExt = le.Uint16(p[952:])
	m.InitialCS, m.InitialMCS = p[954], p[955]
	for i := 0; i < NumNSVC; i++ {
		m.NSVCI[i] = le.Uint16(p[956+2*i:])
		m.LocalPort[i] = le.Uint16(p[960+2*i:])
		m.RemotePort[i] = le.Uint16(p[964+2*i:])
		m.AddrType[i] = p[968+i]
		copy(m.RemoteIP[i][:], p[970+16*i:986+16*i])
		switch m.AddrType[i] {
		case AddrUnspec, AddrIPv4, AddrIPv6:
		default:
			return errf(ErrRange, TypeInfoInd, HeaderLen+968+i, "address_type", "0x%02x", m.AddrType[i])
		}
	}
	m.BTSModel = 0
	if m.Version >= V12 {
		m.BTSModel = p[1002]
	}
	return nil
}

// Remote returns the SGSN endpoint of NS-VC entry i, or false if unused.
func (m *InfoInd) Remote(i int) (netip.AddrPort, bool) {
	switch m.AddrType[i] {
	case AddrIPv4:
		return netip.AddrPortFrom(netip.AddrFrom4([4]byte(m.RemoteIP[i][:4])), m.RemotePort[i]), true
	case AddrIPv6:
		return netip.AddrPortFrom(netip.AddrFrom16(m.RemoteIP[i]), m.RemotePort[i]), true
	}
	return netip.AddrPort{}, false
}

// SetRemote fills NS-VC entry i.
func (m *InfoInd) SetRemote(i int, nsvci, localPort uint16, remote netip.AddrPort) {
	m.NSVCI[i] = nsvci
	m.LocalPort[i] = localPort
	m.RemotePort[i] = remote.Port()
	m.RemoteIP[i] = [16]byte{}
	a := remote.Addr()
	if a.Is4() {
		m.AddrType[i] = AddrIPv4
		b := a.As4()
		copy(m.RemoteIP[i][:], b[:])
	} else {
		m.AddrType[i] = AddrIPv6
		m.RemoteIP[i] = a.As16()
	}
}

// E1CCUInd is E1_CCU_IND (5 B): the E1 timeslot of an Ericsson CCU PDCH.
type E1CCUInd struct {
	hdr
	TRX, TS   uint8
	E1Nr      uint8
	E1TS      uint8
	E1TSSubSl uint8
}

func (m *E1CCUInd) Type() MsgType          { return TypeE1CCUInd }
func (m *E1CCUInd) payloadLen(Version) int { return 5 }
func (m *E1CCUInd) putPayload(p []byte, _ Version) {
	p[0], p[1], p[2], p[3], p[4] = m.TRX, m.TS, m.E1Nr, m.E1TS, m.E1TSSubSl
}
func (m *E1CCUInd) getPayload(p []byte, _ Version) error {
	m.TRX, m.TS, m.E1Nr, m.E1TS, m.E1TSSubSl = p[0], p[1], p[2], p[3], p[4]
	return checkTRXTS(TypeE1CCUInd, HeaderLen, m.TRX, m.TS)
}

// ActReq is ACT_REQ (4 B): activate or deactivate a PDCH.
type ActReq struct {
	hdr
	Activate bool
	TRX, TS  uint8
}

func (m *ActReq) Type() MsgType          { return TypeActReq }
func (m *ActReq) payloadLen(Version) int { return 4 }
func (m *ActReq) putPayload(p []byte, _ Version) {
	if m.Activate {
		p[0] = 1
	}
	p[1], p[2] = m.TRX, m.TS
}
func (m *ActReq) getPayload(p []byte, _ Version) error {
	if p[0] > 1 {
		return errf(ErrRange, TypeActReq, HeaderLen, "activate", "%d", p[0])
	}
	m.Activate = p[0] == 1
	m.TRX, m.TS = p[1], p[2]
	return checkTRXTS(TypeActReq, HeaderLen+1, m.TRX, m.TS)
}

// TimeInd is TIME_IND (4 B): the BTS's current frame number.
type TimeInd struct {
	hdr
	FN uint32
}

func (m *TimeInd) Type() MsgType                  { return TypeTimeInd }
func (m *TimeInd) payloadLen(Version) int         { return 4 }
func (m *TimeInd) putPayload(p []byte, _ Version) { le.PutUint32(p, m.FN) }
func (m *TimeInd) getPayload(p []byte, _ Version) error {
	m.FN = le.Uint32(p)
	return checkFN(TypeTimeInd, HeaderLen, m.FN)
}

// InterfInd is INTERF_IND (16 B): per-timeslot interference levels.
type InterfInd struct {
	hdr
	TRX    uint8
	FN     uint32
	Interf [NumTS]uint8
}

func (m *InterfInd) Type() MsgType          { return TypeInterfInd }
func (m *InterfInd) payloadLen(Version) int { return 16 }
func (m *InterfInd) putPayload(p []byte, _ Version) {
	p[0] = m.TRX
	le.PutUint32(p[4:], m.FN)
	copy(p[8:16], m.Interf[:])
}
func (m *InterfInd) getPayload(p []byte, _ Version) error {
	m.TRX = p[0]
	m.FN = le.Uint32(p[4:])
	copy(m.Interf[:], p[8:16])
	if m.TRX >= NumTRX {
		return errf(ErrRange, TypeInterfInd, HeaderLen, "trx_nr", "%d >= %d", m.TRX, NumTRX)
	}
	return nil
}

// PagReq is PAG_REQ (11 B): CS paging to relay on PACCH.
type PagReq struct {
	hdr
	SAPI       SAPI
	ChanNeeded uint8
	Identity   []byte // TS 24.008 Mobile Identity value (at most 8 octets); aliases input
}

func (m *PagReq) Type() MsgType          { return TypePagReq }
func (m *PagReq) payloadLen(Version) int { return 11 }
func (m *PagReq) putPayload(p []byte, _ Version) {
	p[0], p[1] = byte(m.SAPI), m.ChanNeeded
	p[2] = byte(len(m.Identity))
	copy(p[3:11], m.Identity)
}
func (m *PagReq) getPayload(p []byte, _ Version) error {
	m.SAPI, m.ChanNeeded = SAPI(p[0]), p[1]
	n := int(p[2])
	if n == 0 || n > 8 {
		return errf(ErrRange, TypePagReq, HeaderLen+2, "identity_lv", "length %d not in 1..8", n)
	}
	m.Identity = p[3 : 3+n : 3+n]
	return nil
}

// TxtInd is TXT_IND (129 B): the PCU announces its version.
type TxtInd struct {
	hdr
	TxtType uint8
	Text    string
}

func (m *TxtInd) Type() MsgType          { return TypeTxtInd }
func (m *TxtInd) payloadLen(Version) int { return 129 }
func (m *TxtInd) putPayload(p []byte, _ Version) {
	p[0] = m.TxtType
	copy(p[1:TxtMaxLen], m.Text) // the last octet stays NUL
}
func (m *TxtInd) getPayload(p []byte, _ Version) error {
	m.TxtType = p[0]
	if m.TxtType > TxtOMLAlert {
		return errf(ErrRange, TypeTxtInd, HeaderLen, "type", "%d", m.TxtType)
	}
	t := p[1 : 1+TxtMaxLen]
	i := bytes.IndexByte(t, 0)
	if i < 0 {
		return errf(ErrInconsistent, TypeTxtInd, HeaderLen+1, "text", "not NUL-terminated")
	}
	m.Text = string(t[:i])
	return nil
}

// Container is CONTAINER (0x80): a transparent BSC<->PCU message, sent with
// its exact size; received with any padding after the data. The inner message type and data follow; Length is
// big-endian.
type Container struct {
	hdr
	MsgType uint8 // 0x81 NEIGH_ADDR_REQ, 0x82 NEIGH_ADDR_CNF
	Data    []byte
}

// Container message types.
const (
	ContNeighAddrReq uint8 = 0x81
	ContNeighAddrCnf uint8 = 0x82
)

func (m *Container) Type() MsgType          { return TypeContainer }
func (m *Container) payloadLen(Version) int { return 4 + len(m.Data) }
func (m *Container) putPayload(p []byte, _ Version) {
	p[0] = m.MsgType
	be.PutUint16(p[2:], uint16(len(m.Data)))
	copy(p[4:], m.Data)
}
func (m *Container) getPayload(p []byte, _ Version) error {
	m.MsgType = p[0]
	n := int(be.Uint16(p[2:]))
	// Octets after the data are padding and ignored: a BTS that sends
	// sizeof(struct gsm_pcu_if) (the TTCN-3 suite's PCUIF_Message is padded
	// to 1007 octets) pads CONTAINER too. osmo-pcu pcu_rx() likewise needs
	// only header + 4 + length octets.
	if 4+n > len(p) {
		return errf(ErrInconsistent, TypeContainer, HeaderLen+2, "length", "says %d, %d present", n, len(p)-4)
	}
	m.Data = p[4 : 4+n : 4+n]
	return nil
}

// NeighAddrReq is the NEIGH_ADDR_REQ container payload (7 B, big-endian).
type NeighAddrReq struct {
	LocalLAC, LocalCI uint16
	TgtARFCN          uint16
	TgtBSIC           uint8
}

// Marshal encodes the 7 octets.
func (r NeighAddrReq) Marshal() []byte {
	b := make([]byte, 7)
	be.PutUint16(b, r.LocalLAC)
	be.PutUint16(b[2:], r.LocalCI)
	be.PutUint16(b[4:], r.TgtARFCN)
	b[6] = r.TgtBSIC
	return b
}

// ParseNeighAddrReq decodes the 7 octets.
func ParseNeighAddrReq(b []byte) (NeighAddrReq, error) {
	if len(b) < 7 {
		return NeighAddrReq{}, errf(ErrShort, TypeContainer, HeaderLen+4, "neigh_addr_req", "%d < 7", len(b))
	}
	return NeighAddrReq{be.Uint16(b), be.Uint16(b[2:]), be.Uint16(b[4:]), b[6]}, nil
}

// NeighAddrCnf is the NEIGH_ADDR_CNF container payload (18 B, big-endian).
type NeighAddrCnf struct {
	Req        NeighAddrReq
	ErrCode    uint8
	MCC, MNC   uint16
	MNC3Digits bool
	LAC        uint16
	RAC        uint8
	CellID     uint16
}

// Marshal encodes the 18 octets.
func (c NeighAddrCnf) Marshal() []byte {
	b := make([]byte, 18)
	copy(b, c.Req.Marshal())
	b[7] = c.ErrCode
	be.PutUint16(b[8:], c.MCC)
	be.PutUint16(b[10:], c.MNC)
	if c.MNC3Digits {
		b[12] = 1
	}
	be.PutUint16(b[13:], c.LAC)
	b[15] = c.RAC
	be.PutUint16(b[16:], c.CellID)
	return b
}

// ParseNeighAddrCnf decodes the 18 octets (shorter is rejected, as osmo-pcu).
func ParseNeighAddrCnf(b []byte) (NeighAddrCnf, error) {
	if len(b) < 18 {
		return NeighAddrCnf{}, errf(ErrShort, TypeContainer, HeaderLen+4, "neigh_addr_cnf", "%d < 18", len(b))
	}
	req, _ := ParseNeighAddrReq(b)
	return NeighAddrCnf{Req: req, ErrCode: b[7], MCC: be.Uint16(b[8:]), MNC: be.Uint16(b[10:]), MNC3Digits: b[12] != 0,
		LAC: be.Uint16(b[13:]), RAC: b[15], CellID: be.Uint16(b[16:])}, nil
}
