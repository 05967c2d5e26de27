package pcu

import (
	"testing"

	"github.com/gopcu/gopcu/pcu/pcuif"
	"github.com/gopcu/gopcu/rlcmac"
)

// radioFuzzEngine is an engine with an active EGPRS-capable BTS, a GPRS MS
// and an EGPRS MS, each with an UL TBF in FLOW (TLLI not yet seen) and a DL
// TBF with data: every uplink path (GPRS and EGPRS data, split halves,
// control blocks answering polls or not) has a TBF to reach.
func radioFuzzEngine(tb testing.TB) (*Engine, *BTS) {
	ii := &pcuif.InfoInd{Version: pcuif.V12, Flags: pcuif.FlagActive, InitialCS: 2, InitialMCS: 6}
	for n := 1; n <= 4; n++ {
		ii.Flags |= pcuif.FlagCS(n)
	}
	for n := 1; n <= 9; n++ {
		ii.Flags |= pcuif.FlagMCS(n)
	}
	ii.TRX[0].PDCHMask = 0xf0
	e, bts := infoEngine(tb, ii)
	frame := make([]byte, 300)
	frame[0], frame[1] = 0x03, 0xc0
	for i, egprs := range []bool{false, true} {
		m := e.newMS(bts, 0xc0001000+uint32(i))
		m.MSClass = 12
		if egprs {
			m.EGPRSClass = 12
		}
		ul, err := e.allocUL(bts, m)
		if err != nil {
			tb.Fatal(err)
		}
		if egprs {
			e.makeEGPRSUL(ul)
		}
		drive(tb, e, ul, TBFFlow)
		m.Queue.Enqueue(e.now, frame, 0xffff)
		dl, err := e.allocDL(bts, m, false)
		if err != nil {
			tb.Fatal(err)
		}
		e.setupDLWindow(dl)
		drive(tb, e, dl, TBFFlow)
	}
	return e, bts
}

// FuzzRadioInput feeds arbitrary uplink radio blocks to an engine with
// TBFs, each followed by an RTS on the same PDCH: nothing may panic, and
// the engine keeps answering (malformed blocks are counted and dropped).
// The input is a sequence of (TS & 3, FN step, length, payload) records.
func FuzzRadioInput(f *testing.F) {
	var blk [rlcmac.MaxBlockLen]byte
	add := func(recs ...[]byte) {
		var in []byte
		for _, r := range recs {
			in = append(in, r...)
		}
		f.Add(in)
	}
	rec := func(ts, step byte, p []byte) []byte {
		return append([]byte{ts, step, byte(len(p))}, p...)
	}
	unit := make([]byte, 74)
	h := rlcmac.GPRSULHeader{TFI: 0, BSN: 0, E: true, CV: 0}
	n, _ := rlcmac.EncodeGPRSUL(blk[:], rlcmac.CS2, &h, unit[:rlcmac.CS2.DataLen()])
	add(rec(0, 1, blk[:n]))
	for spb := uint8(2); spb <= 3; spb++ {
		eh := rlcmac.EGPRSULHeader{TFI: 0, BSN1: 0, SPB: spb, CV: 0, E: [2]bool{true}}
		eh.CPS, _ = rlcmac.EncodeCPS(rlcmac.MCS3, 0, 0, false)
		n, _ = rlcmac.EncodeEGPRSUL(blk[:], rlcmac.MCS3, &eh, unit[:rlcmac.MCS3.DataLen()], nil)
		add(rec(1, 1, blk[:n]), rec(1, 2, blk[:n]))
	}
	eh := rlcmac.EGPRSULHeader{TFI: 0, BSN1: 0, BSN2: 1, CV: 0, E: [2]bool{true, true}}
	eh.CPS, _ = rlcmac.EncodeCPS(rlcmac.MCS9, 0, 0, false)
	n, _ = rlcmac.EncodeEGPRSUL(blk[:], rlcmac.MCS9, &eh, unit, unit)
	add(rec(2, 1, blk[:n]))
	for _, m := range []rlcmac.Message{
		&rlcmac.PacketControlAck{TLLI: 0xc0001000, CtrlAck: 3},
		&rlcmac.PacketDownlinkAckNack{DownlinkTFI: 0, HasChanReq: true},
		&rlcmac.PacketResourceRequest{ID: rlcmac.ULID{IsTLLI: true, TLLI: 0xc0001001}},
	} {
		n, err := rlcmac.EncodeUL(blk[:], &rlcmac.ULCtrlHeader{}, m)
		if err == nil {
			add(rec(3, 1, blk[:n]))
		}
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		e, bts := radioFuzzEngine(t)
		fn := uint32(0)
		for len(in) >= 3 {
			ts, step, l := 4+in[0]&3, in[1], int(in[2])
			in = in[3:]
			l = min(l, len(in))
			payload := in[:l]
			in = in[l:]
			for i := byte(0); i < step%8; i++ {
				fn = nextBlockFN(fn)
			}
			d := pcuif.Data{SAPI: pcuif.SAPIPDTCH, FN: fn, ARFCN: 871, TS: ts, BlockNr: uint8(blockNr(fn)),
				LqualCb: int16(step) * 3, Payload: payload}
			e.handleDataInd(bts, &d)
			fn = nextBlockFN(fn)
			rts := pcuif.RTSReq{SAPI: pcuif.SAPIPDTCH, FN: fn, ARFCN: 871, TS: ts, BlockNr: uint8(blockNr(fn))}
			e.schedule(bts, &bts.TRX[0].PDCH[ts], &rts)
		}
	})
}
