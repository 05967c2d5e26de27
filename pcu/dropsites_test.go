package pcu

import (
	"bufio"
	"errors"
	"net/netip"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/gopcu/gopcu/bssgp"
	"github.com/gopcu/gopcu/bssgp/bss"
	"github.com/gopcu/gopcu/bssgp/ns/nse"
	"github.com/gopcu/gopcu/gsmtap"
	"github.com/gopcu/gopcu/internal/logx"
	"github.com/gopcu/gopcu/llc"
	"github.com/gopcu/gopcu/pcu/nacc"
	"github.com/gopcu/gopcu/pcu/pcuif"
	"github.com/gopcu/gopcu/rlcmac"
)

// dropEngine is labCell's engine (PDCHs on TS 4-7, connected to a BTS
// that takes every message: a btsWriter) with its log lines recorded.
func dropEngine(t *testing.T) (*Engine, *BTS, *opRec) {
	t.Helper()
	ii := &pcuif.InfoInd{Version: pcuif.V12, Flags: pcuif.FlagActive | pcuif.FlagCS(1) | pcuif.FlagCS(2) | pcuif.FlagCS(3) | pcuif.FlagCS(4), InitialCS: 2}
	ii.TRX[0].PDCHMask = 0xf0
	ii.TRX[0].ARFCN = 871
	p := DefaultParams()
	p.AllocAlgo = "dynamic"
	p.MultislotDefault = 0
	rec := &opRec{}
	e := New(Config{SocketPath: "/nonexistent", Clock: &fakeClock{}, Params: &p, Logs: logx.New(rec)})
	e.BTSConnected(&btsWriter{})
	feedInfo(t, e, ii)
	bts := e.bts[0]
	if bts == nil || !bts.Active {
		t.Fatal("BTS not active")
	}
	e.advance(bts, 0)
	return e, bts, rec
}

// refusingSink is a GSMTAP socket after ICMP port unreachable.
type refusingSink struct{}

func (refusingSink) Send([]byte) error { return syscall.ECONNREFUSED }

// btsWriter is a connection to the BTS whose Write fails with err (nil:
// it takes every message).
type btsWriter struct{ err error }

func (w *btsWriter) Write([]byte) error { return w.err }

// gbDropEngine is newGbRig's engine (the Gb up, over loopback UDP) with
// its log lines recorded and a DL TBF in FLOW for TLLI 0xc0000001.
func gbDropEngine(t *testing.T) (*Engine, *BTS, *opRec) {
	r := newGbRig(t)
	rec := &opRec{}
	r.e.cfg.Logs.SetHandler(rec)
	r.dlTBFFor(0xc0000001, 0)
	return r.e, r.bts, rec
}

// withNSClosed runs f while the Gb's NS binds are closed (their sockets
// kept aside and put back): NS can send nothing.
func withNSClosed(e *Engine, f func()) {
	socks := e.gbl.socks
	e.gbl.socks = nil
	f()
	e.gbl.socks = socks
}

// egprsUL is an EGPRS UL TBF of a new MS in FLOW (contention resolved)
// on dropEngine's BTS.
func egprsUL(t *testing.T, e *Engine, bts *BTS, tlli uint32) *TBF {
	t.Helper()
	ul := onePhaseAccess(t, e, bts, tlli)
	e.makeEGPRSUL(ul)
	return ul
}

// sendEGPRSHalf sends the half spb of BSN 0 of ul as MCS-3 (TS 44.060
// §10.4.8b: 2 the first, 3 the second; 0 and 1 are not halves), its data
// unit starting with the octet first (a length indicator when E is 0).
func sendEGPRSHalf(t *testing.T, e *Engine, bts *BTS, ul *TBF, spb uint8, first byte) {
	t.Helper()
	unit := make([]byte, rlcmac.MCS3.DataLen())
	unit[0] = first
	h := rlcmac.EGPRSULHeader{TFI: ul.tfi, SPB: spb, CV: 15}
	h.CPS, _ = rlcmac.EncodeCPS(rlcmac.MCS3, 0, 0, false)
	var blk [rlcmac.MaxBlockLen]byte
	n, err := rlcmac.EncodeEGPRSUL(blk[:], rlcmac.MCS3, &h, unit, nil)
	if err != nil {
		t.Fatal(err)
	}
	e.handleDataInd(bts, &pcuif.Data{SAPI: pcuif.SAPIPDTCH, FN: ulBlockFN(0), TS: uint8(lowestSlot(ul.slots)), ARFCN: 871, Payload: blk[:n], LqualCb: 100})
}

// neighbourCell is a cell that asks dropEngine's for its SIs.
var neighbourCell = bssgp.CellID{RAI: bssgp.RAI{MCC: 262, MNC: 42, LAC: 13135, RAC: 0}, CI: 2}

// fromBTS is a drop: m (v12) from the BTS, for BTS nr.
func fromBTS(nr uint8, m pcuif.Message) func(t *testing.T, e *Engine, bts *BTS) {
	return func(t *testing.T, e *Engine, _ *BTS) {
		b, err := pcuif.Marshal(m, pcuif.V12)
		if err != nil {
			t.Fatal(err)
		}
		b[1] = nr // the header's bts_nr (pcuif_proto.h struct gsm_pcu_if)
		e.HandlePCUIF(b)
	}
}

// sendULBlock sends UL RLC data block bsn of ul (CS-1, no LI: the data
// continues the LLC frame, which the block with CV 0 ends).
func sendULBlock(t *testing.T, e *Engine, bts *BTS, ul *TBF, tfi uint8, bsn uint8, cv uint8) {
	t.Helper()
	unit := make([]byte, rlcmac.CS1.DataLen())
	var blk [rlcmac.MaxBlockLen]byte
	n, err := rlcmac.EncodeGPRSUL(blk[:], rlcmac.CS1, &rlcmac.GPRSULHeader{CV: cv, TFI: tfi, BSN: bsn, E: true}, unit)
	if err != nil {
		t.Fatal(err)
	}
	e.handleDataInd(bts, &pcuif.Data{SAPI: pcuif.SAPIPDTCH, FN: ulBlockFN(0), TRX: 0, TS: uint8(lowestSlot(ul.slots)), ARFCN: 871, Payload: blk[:n], LqualCb: 100})
}

// blockedGb is the adapter over a bss.Gb never started: its PTP BVC is
// blocked and its signalling BVC not reset.
func blockedGb(t *testing.T) gbAdapter {
	t.Helper()
	drop := nse.TransportFunc(func(int, netip.AddrPort, []byte) error { return nil })
	g, err := bss.New(bss.Config{NS: nse.Config{NSEI: 101, Endpoints: []nse.Endpoint{{NSVCI: 101, Remote: netip.MustParseAddrPort("127.0.0.1:23000")}}}, BVCI: 1800}, drop, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	return gbAdapter{gb: g, now: func() time.Duration { return 0 }}
}

// TestDropSites enumerates the places where the engine drops a frame or a
// message: each is counted and logged at NOTICE or, for the kinds in
// dropAtError, ERROR (the levels an operator sees by default), and the
// lines of one kind are rate-limited (one every opEventInterval, the next
// saying how many were held back). Every dropKind has a row, every site a
// row where a test can reach it.
//
// Not drop sites, and so not here: an empty DATA_IND (the BTS's lost
// radio block, no data), an RLC block received again or outside the
// receive window (ARQ: the MS sends it again or already did, TS 44.060
// §9.1.8), a split-block half of a BSN received already.
func TestDropSites(t *testing.T) {
	const tlli = 0xc0000001
	// a complete UL LLC frame: the access block (TLLI, 16 octets), BSN 1 with CV 0 (20)
	// (by a new MS each time: the one of a TLLI unset by force is lost)
	var seq uint32 // (reset by each site)
	ulFrame := func(t *testing.T, e *Engine, bts *BTS, unsetTLLI bool) {
		ul := onePhaseAccess(t, e, bts, tlli+seq)
		seq++
		if unsetTLLI {
			ul.ms.TLLI = TLLIUnset
		}
		sendULBlock(t, e, bts, ul, ul.tfi, 1, 0)
	}
	l1 := func(i int) func(*Engine, *BTS) uint64 {
		return func(e *Engine, _ *BTS) uint64 { return e.l1ctr.Value(i) }
	}
	// a PDCH's paging queue full, then one more page
	pageFull := func(t *testing.T, e *Engine, bts *BTS) {
		ms := bts.ms.byTLLI[tlli]
		if ms == nil {
			ms = onePhaseAccess(t, e, bts, tlli).ms
		}
		p := &bts.TRX[ms.UL.trx].PDCH[ms.UL.ctrlTS]
		pe := rlcmac.PageEntry{ForRR: true, TMSI: 0x01020304}
		for len(p.pages) < maxPagesPerPDCH {
			e.pagePACCH(bts, ms, pe)
		}
		e.pagePACCH(bts, ms, pe)
	}
	type site struct {
		name    string
		drop    func(t *testing.T, e *Engine, bts *BTS)
		counter func(e *Engine, bts *BTS) uint64
		line    string // the start of the line ("cat LEVEL text")
	}
	sites := []site{
		{"UL frame, no Gb", func(t *testing.T, e *Engine, bts *BTS) { ulFrame(t, e, bts, false) },
			func(e *Engine, _ *BTS) uint64 { return e.l1ctr.Value(L1GbULUnitdataDropped) },
			"lbssgp NOTICE MS(TLLI=0xc0000001) UL LLC frame of 36 octets dropped: not sent to the SGSN: pcu: no Gb"},
		{"UL frame, BVC blocked (gbadapter.go)", func(t *testing.T, e *Engine, bts *BTS) {
			e.gb = blockedGb(t)
			ulFrame(t, e, bts, false)
		}, func(e *Engine, _ *BTS) uint64 { return e.l1ctr.Value(L1GbULUnitdataDropped) },
			"lbssgp NOTICE MS(TLLI=0xc0000001) UL LLC frame of 36 octets dropped: not sent to the SGSN: " + bss.ErrBVCBlocked.Error()},
		{"UL frame, MS without TLLI", func(t *testing.T, e *Engine, bts *BTS) {
			e.SetGb(&discardGb{frames: map[uint32]int{}})
			ulFrame(t, e, bts, true)
		}, func(e *Engine, _ *BTS) uint64 { return e.l1ctr.Value(L1ULLLCNoTLLI) },
			"tbful NOTICE TBF(UL TFI=0 TRX=0 TS=01000000 FLOW MS(#1 TLLI=unknown)) UL LLC frame of 36 octets dropped: the MS has not sent its TLLI"},
		{"LLC-DISCARDED, no Gb", func(t *testing.T, e *Engine, bts *BTS) {
			e.reportDiscard(e.newMS(bts, tlli), llc.Discard{Frames: 2, Lifetime: 2, Octets: 100})
		}, func(e *Engine, _ *BTS) uint64 { return e.l1ctr.Value(L1GbLLCDiscardedDropped) },
			"lbssgp NOTICE MS(TLLI=0xc0000001) LLC-DISCARDED (2 frames, 100 octets) dropped: not sent to the SGSN: pcu: no Gb"},
		{"LLC-DISCARDED, signalling BVC not reset (gbadapter.go)", func(t *testing.T, e *Engine, bts *BTS) {
			e.gb = blockedGb(t)
			e.reportDiscard(e.newMS(bts, tlli), llc.Discard{Frames: 2, Lifetime: 2, Octets: 100})
		}, func(e *Engine, _ *BTS) uint64 { return e.l1ctr.Value(L1GbLLCDiscardedDropped) },
			"lbssgp NOTICE MS(TLLI=0xc0000001) LLC-DISCARDED (2 frames, 100 octets) dropped: not sent to the SGSN: " + bss.ErrBVCBlocked.Error()},
		{"UL data block for no TBF", func(t *testing.T, e *Engine, bts *BTS) {
			ul := onePhaseAccess(t, e, bts, tlli)
			sendULBlock(t, e, bts, ul, ul.tfi^1, 1, 15)
		}, func(e *Engine, _ *BTS) uint64 { return e.l1ctr.Value(L1ULDataNoTBF) },
			"tbf NOTICE UL data block for no TBF dropped: TFI=1 TS=6 egprs=false"},
		{"UL block of a reserved payload type", func(t *testing.T, e *Engine, bts *BTS) {
			e.handleDataInd(bts, &pcuif.Data{SAPI: pcuif.SAPIPDTCH, FN: ulBlockFN(0), TS: 4, ARFCN: 871, Payload: append([]byte{0x80}, make([]byte, 22)...)})
		}, func(_ *Engine, bts *BTS) uint64 { return bts.Ctr.Value(CtrDecodeErrors) },
			"tbf NOTICE UL block of reserved payload type 2 dropped"},
		{"PAG_REQ with an IMEI", func(t *testing.T, e *Engine, bts *BTS) {
			e.onPagReq(bts, &pcuif.PagReq{Identity: []byte{0x0a, 0x21, 0x43, 0x65, 0x87, 0x09, 0x21, 0x43}})
		}, func(e *Engine, _ *BTS) uint64 { return e.l1ctr.Value(L1PagReqDropped) },
			"l1if NOTICE PAG_REQ dropped: Mobile Identity type 2, neither TMSI nor IMSI"},
		{"PAG_REQ with a short TMSI", func(t *testing.T, e *Engine, bts *BTS) {
			e.onPagReq(bts, &pcuif.PagReq{Identity: []byte{0xf4, 1, 2}})
		}, func(e *Engine, _ *BTS) uint64 { return e.l1ctr.Value(L1PagReqDropped) },
			"l1if NOTICE PAG_REQ dropped: TMSI identity of 3 octets, not 5"},
		{"undecodable EGPRS UL data block", func(t *testing.T, e *Engine, bts *BTS) {
			e.handleDataInd(bts, &pcuif.Data{SAPI: pcuif.SAPIPDTCH, FN: ulBlockFN(0), TS: 4, ARFCN: 871, Payload: make([]byte, 27)})
		}, func(_ *Engine, bts *BTS) uint64 { return bts.Ctr.Value(CtrDecodeErrors) },
			"tbf NOTICE undecodable EGPRS UL data block dropped"},
		{"undecodable GPRS UL data block (no CS of its length)", func(t *testing.T, e *Engine, bts *BTS) {
			e.handleDataInd(bts, &pcuif.Data{SAPI: pcuif.SAPIPDTCH, FN: ulBlockFN(0), TS: 4, ARFCN: 871, Payload: make([]byte, 10)})
		}, func(_ *Engine, bts *BTS) uint64 { return bts.Ctr.Value(CtrDecodeErrors) },
			"tbf NOTICE undecodable UL data block dropped: "},
		{"EGPRS UL data block with SPB 1", func(t *testing.T, e *Engine, bts *BTS) {
			ul := egprsUL(t, e, bts, tlli+seq)
			seq++
			sendEGPRSHalf(t, e, bts, ul, 1, 0)
		}, func(_ *Engine, bts *BTS) uint64 { return bts.Ctr.Value(CtrDecodeErrors) },
			"tbf NOTICE TBF(UL TFI=0 TRX=0 TS=01000000 FLOW MS(TLLI=0xc0000001)) EGPRS UL data block with SPB 1 (not defined in the uplink) dropped"},
		{"undecodable UL data unit (split halves, LI beyond the unit)", func(t *testing.T, e *Engine, bts *BTS) {
			ul := egprsUL(t, e, bts, tlli+seq)
			seq++
			sendEGPRSHalf(t, e, bts, ul, 2, 100<<1|1) // LI 100 > 74 octets, E 1
			sendEGPRSHalf(t, e, bts, ul, 3, 0)
		}, func(_ *Engine, bts *BTS) uint64 { return bts.Ctr.Value(CtrDecodeErrors) },
			"tbf NOTICE TBF(UL TFI=0 TRX=0 TS=01000000 FLOW MS(TLLI=0xc0000001)) undecodable UL data unit dropped: rlcmac: length indicators exceed the data unit"},
		{"DL-UNITDATA for an inactive BTS", func(t *testing.T, e *Engine, bts *BTS) {
			e.HandleDLUnitdata(3, &DLUnitdata{TLLI: tlli, Lifetime: 0xffff, LLC: []byte{0x03, 0xc0, 1}})
		}, l1(L1GbDLUnitdataDropped),
			"pcu NOTICE DL-UNITDATA for TLLI=0xc0000001 dropped: BTS 3 is not active"},
		{"DL LLC frame the queue refuses (empty)", func(t *testing.T, e *Engine, bts *BTS) {
			e.HandleDLUnitdata(0, &DLUnitdata{TLLI: tlli, Lifetime: 0xffff})
		}, l1(L1LLCRefused),
			"llc ERROR MS(TLLI=0xc0000001) DL LLC frame of 0 octets dropped: the queue refused it: " + llc.ErrEmpty.Error()},
		{"message to the BTS that does not encode", func(t *testing.T, e *Engine, bts *BTS) {
			e.send(&pcuif.TxtInd{Text: "x"}, pcuif.Version(0))
		}, l1(L1TxErrEncode),
			"l1if ERROR TXT_IND to the BTS dropped: cannot encode: "},
		{"message the BTS connection does not take", func(t *testing.T, e *Engine, bts *BTS) {
			e.btsw.(*btsWriter).err = errors.New("queue full")
			e.sendTxtVersion()
		}, l1(L1TxDropped),
			"l1if ERROR TXT_IND to the BTS dropped: cannot send: queue full"},
		{"message from the BTS that does not decode", func(t *testing.T, e *Engine, bts *BTS) {
			e.HandlePCUIF([]byte{byte(pcuif.TypeRTSReq)})
		}, l1(L1ErrShort),
			"l1if ERROR bad message from the BTS dropped: pcuif: message too short"},
		{"RTS_REQ with an unsupported SAPI", func(t *testing.T, e *Engine, bts *BTS) {
			e.handleRTS(bts, &pcuif.RTSReq{SAPI: pcuif.SAPIBCCH, FN: ulBlockFN(0), ARFCN: 871, TS: 4})
		}, l1(L1ErrInconsistent),
			"l1if ERROR RTS_REQ with unsupported SAPI BCCH dropped"},
		{"DATA_IND with an unsupported SAPI", func(t *testing.T, e *Engine, bts *BTS) {
			e.handleDataInd(bts, &pcuif.Data{SAPI: pcuif.SAPIRACH, FN: ulBlockFN(0), ARFCN: 871, TS: 4})
		}, l1(L1ErrInconsistent),
			"l1if ERROR DATA_IND with unsupported SAPI RACH dropped"},
		{"RACH_IND with an unsupported SAPI", func(t *testing.T, e *Engine, bts *BTS) {
			e.onRACHInd(bts, &pcuif.RACHInd{SAPI: pcuif.SAPIPDTCH})
		}, l1(L1ErrInconsistent),
			"l1if ERROR RACH_IND with unsupported SAPI PDTCH dropped"},
		{"BCCH DATA_IND neither an SI nor a revocation", func(t *testing.T, e *Engine, bts *BTS) {
			e.handleDataInd(bts, &pcuif.Data{SAPI: pcuif.SAPIBCCH, Payload: make([]byte, 5)})
		}, l1(L1ErrInconsistent),
			"l1if ERROR BCCH DATA_IND of 5 octets dropped"},
		{"RTS_REQ for a BTS not active", fromBTS(1, &pcuif.RTSReq{SAPI: pcuif.SAPIPDTCH, FN: ulBlockFN(0), ARFCN: 871, TS: 4}),
			l1(L1ErrStale), "l1if NOTICE RTS_REQ for BTS 1 dropped: the BTS is not active"},
		{"DATA_IND for a BTS without INFO_IND", fromBTS(1, &pcuif.Data{Kind: pcuif.TypeDataInd, SAPI: pcuif.SAPIPDTCH, FN: ulBlockFN(0), ARFCN: 871, TS: 4, Payload: make([]byte, 23)}),
			l1(L1ErrStale), "l1if NOTICE DATA_IND for BTS 1 dropped: the BTS is not active"},
		{"TIME_IND for a BTS without INFO_IND", fromBTS(1, &pcuif.TimeInd{FN: 13}),
			l1(L1ErrStale), "l1if NOTICE TIME_IND for BTS 1 dropped: the BTS is not active"},
		{"ACT_REQ from the BTS", fromBTS(0, &pcuif.ActReq{Activate: true, TS: 4}),
			l1(L1RxUnexpected), "l1if ERROR ACT_REQ from the BTS dropped: only a PCU sends it"},
		{"RTS_REQ on a disabled PDCH", func(t *testing.T, e *Engine, bts *BTS) {
			e.handleRTS(bts, &pcuif.RTSReq{SAPI: pcuif.SAPIPDTCH, FN: ulBlockFN(0), ARFCN: 871, TS: 1})
		}, l1(L1RxRTSDisabledPDCH),
			"l1if NOTICE RTS_REQ on a disabled PDCH dropped: TRX=0 TS=1"},
		{"DATA_IND on a disabled PDCH", func(t *testing.T, e *Engine, bts *BTS) {
			e.handleDataInd(bts, &pcuif.Data{SAPI: pcuif.SAPIPDTCH, FN: ulBlockFN(0), ARFCN: 871, TS: 1, Payload: make([]byte, 23)})
		}, l1(L1RxDataIndDisabledPDCH),
			"l1if NOTICE DATA_IND on a disabled PDCH dropped: TRX=0 TS=1"},
		{"Packet Cell Change Notification for no TBF", func(t *testing.T, e *Engine, bts *BTS) {
			e.naccNotification(bts, &bts.TRX[0].PDCH[4], &rlcmac.PacketCellChangeNotification{GlobalTFI: rlcmac.GlobalTFI{TFI: 5}})
		}, l1(L1RxPCCNNoTBF),
			"nacc NOTICE Packet Cell Change Notification for no TBF dropped: TRX=0 TFI=5 downlink=false"},
		{"PACCH page, the PDCH's paging queue full", pageFull, l1(L1PagingDropped),
			"tbf NOTICE oldest PACCH page of TRX=0 TS="},
		{"PACCH page that does not encode (PAG_REQ's chan_needed 4)", func(t *testing.T, e *Engine, bts *BTS) {
			p := &bts.TRX[0].PDCH[4]
			p.pages = append(p.pages, pageEntry{rlcmac.PageEntry{ForRR: true, TMSI: 0x01020304, ChanNeeded: 4}})
			var blk [rlcmac.MaxBlockLen]byte
			e.encodePaging(p, 0, blk[:])
		}, l1(L1PagingUnencodable),
			"tbf NOTICE PACCH page of TRX=0 TS=4 dropped: it does not encode in a Packet Paging Request: rlcmac: "},
		{"SUSPEND, no Gb", func(t *testing.T, e *Engine, bts *BTS) {
			e.onSuspReq(bts, &pcuif.SuspReq{TLLI: tlli})
		}, l1(L1GbSuspendDropped),
			"lbssgp ERROR SUSPEND for TLLI=0xc0000001 dropped: not sent to the SGSN: pcu: no Gb"},
		{"STATUS for a RIM PDU, no Gb", func(t *testing.T, e *Engine, bts *BTS) {
			p := nacc.RIMRequest(btsCGI(bts), neighbourCell)
			p.Dest.Discr = bssgp.RIMRoutingUTRAN // not GERAN: STATUS
			e.RIMReceived(p)
		}, l1(L1GbRIMDropped),
			"rim ERROR STATUS dropped: not sent to the SGSN: pcu: no Gb"},
		{"RAN-INFORMATION, no Gb", func(t *testing.T, e *Engine, bts *BTS) {
			e.RIMReceived(nacc.RIMRequest(btsCGI(bts), neighbourCell))
		}, l1(L1GbRIMDropped),
			"rim ERROR RAN-INFORMATION dropped: not sent to the SGSN: pcu: no Gb"},
		{"GSMTAP copy the socket refused", func(t *testing.T, e *Engine, bts *BTS) {
			e.tap.sink = refusingSink{}
			e.params.GSMTAPCategories = uint32(gsmtap.Mask(0).With(gsmtap.CatDLDataGPRS))
			e.tapBlock(gsmtap.CatDLDataGPRS, false, 871, 4, gsmtap.ChannelPDTCH, 0, 0, 0, make([]byte, 23))
		}, l1(L1GSMTAPDropped),
			"l1if NOTICE GSMTAP copy of a dl-data-gprs block dropped: connection refused"},
	}
	// the sites on a Gb that is up (gbDropEngine)
	gbSites := []site{
		{"FLOW-CONTROL-MS, NS cannot send", func(t *testing.T, e *Engine, bts *BTS) {
			withNSClosed(e, e.flowControlMS)
		}, l1(L1GbFlowControlMSDropped),
			"lbssgp NOTICE MS(TLLI=0xc0000001) FLOW-CONTROL-MS dropped: not sent to the SGSN: gb: bind 0 not open"},
	}
	run := func(s site, newEngine func(*testing.T) (*Engine, *BTS, *opRec)) {
		t.Run(s.name, func(t *testing.T) {
			e, bts, rec := newEngine(t)
			seq = 0
			before := s.counter(e, bts)
			rec.take("")
			s.drop(t, e, bts)
			n1 := s.counter(e, bts) - before
			lines := rec.take(" dropped")
			if n1 == 0 || len(lines) != 1 || !strings.HasPrefix(lines[0], s.line) {
				t.Fatalf("counted %d, lines %q, want one starting %q", n1, lines, s.line)
			}
			// again within opEventInterval: counted, not logged
			s.drop(t, e, bts)
			n2 := s.counter(e, bts) - before - n1
			if lines := rec.take(" dropped"); n2 == 0 || len(lines) != 0 {
				t.Fatalf("again: counted %d, lines %q", n2, lines)
			}
			// after it, logged again with the number held back
			e.now += opEventInterval
			s.drop(t, e, bts)
			if lines := rec.take(" dropped"); len(lines) != 1 || !strings.HasSuffix(lines[0], suppressedNote(int(n2))) {
				t.Fatalf("after %v: lines %q, want one ending %q", opEventInterval, lines, suppressedNote(int(n2)))
			}
		})
	}
	for _, s := range sites {
		run(s, dropEngine)
	}
	for _, s := range gbSites {
		run(s, gbDropEngine)
	}
}

// TestDropSuppressedAllocs: the drops on the per-block path (an RTS_REQ on
// a disabled PDCH; a DATA_REQ the BTS connection does not take) allocate
// nothing while their lines are held back: opDrop makes the line only
// when it logs it.
func TestDropSuppressedAllocs(t *testing.T) {
	e, bts, rec := dropEngine(t)
	off := &pcuif.RTSReq{SAPI: pcuif.SAPIPDTCH, FN: ulBlockFN(0), ARFCN: 871, TS: 1}
	on := &pcuif.RTSReq{SAPI: pcuif.SAPIPDTCH, FN: ulBlockFN(0), ARFCN: 871, TS: 4}
	e.btsw.(*btsWriter).err = errors.New("queue full")
	rts := func() {
		e.handleRTS(bts, off)
		e.handleRTS(bts, on)
	}
	rts() // the first lines pass
	if lines := rec.take(" dropped"); len(lines) != 2 {
		t.Fatalf("lines %q, want the two drops", lines)
	}
	before := e.l1ctr.Value(L1TxDropped)
	if n := testing.AllocsPerRun(100, rts); n != 0 {
		t.Errorf("%v allocations per held-back pair of drops, want 0", n)
	}
	if lines := rec.take(" dropped"); len(lines) != 0 || e.l1ctr.Value(L1TxDropped) == before {
		t.Errorf("held back: lines %q, tx:dropped %d -> %d", lines, before, e.l1ctr.Value(L1TxDropped))
	}
}

// TestGbAdapterErrors: the adapter returns bss.Gb's errors (it used to
// discard them).
func TestGbAdapterErrors(t *testing.T) {
	a := blockedGb(t)
	if err := a.ULUnitdata(0, 0xc0000001, []byte{0x41}); !errors.Is(err, bss.ErrBVCBlocked) {
		t.Errorf("ULUnitdata: %v", err)
	}
	if err := a.LLCDiscarded(0, 0xc0000001, 1, 10); !errors.Is(err, bss.ErrBVCBlocked) {
		t.Errorf("LLCDiscarded: %v", err)
	}
}

// ioDiscard matches "_ = x.Send(...)"-like statements: a result of a call
// whose name says it sends, writes or does I/O, or posts to the engine
// goroutine (Engine.Do, Engine.Call), thrown away.
var ioDiscard = regexp.MustCompile(`(^|[\s;{(])_(\s*,\s*_)*\s*=\s*[\w.()\[\]*&]*?\b(?i:\w*send\w*|write\w*|\w*flush|output|deliver|\w*notify|handle|transmit\w*|enqueue\w*|readbyte|read|do|call)\(`)

// notIO are the packages whose Write is not I/O: rlcmac's bit vectors
// (Write and WriteBit append bits to a buffer sized beforehand).
var notIO = []string{"rlcmac/"}

// TestNoUnexplainedDiscards: no result of a send, write or I/O call is
// thrown away with "_ =" in the module's non-test Go files unless the line
// says why and where it is counted: a "// dropped: <reason, where counted>"
// comment on the line or the line before.
func TestNoUnexplainedDiscards(t *testing.T) {
	root, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(root, "go.mod")); err != nil {
		t.Fatal(err)
	}
	var bad []string
	seen := 0
	err = filepath.WalkDir(root, func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, path)
		if d.IsDir() {
			if strings.HasPrefix(d.Name(), ".") || d.Name() == "testdata" {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		for _, p := range notIO {
			if strings.HasPrefix(filepath.ToSlash(rel), p) {
				return nil
			}
		}
		f, err := os.Open(path)
		if err != nil {
			return err
		}
		defer f.Close()
		sc := bufio.NewScanner(f)
		sc.Buffer(nil, 1<<20)
		explained := false // by the comment lines just above
		for ln := 1; sc.Scan(); ln++ {
			line := sc.Text()
			if strings.HasPrefix(strings.TrimSpace(line), "//") {
				explained = explained || strings.Contains(line, "// dropped: ")
				continue
			}
			code, _, _ := strings.Cut(line, "//")
			if ioDiscard.MatchString(code) {
				seen++
				if !explained && !strings.Contains(line, "// dropped: ") {
					bad = append(bad, rel+":"+strconv.Itoa(ln)+": "+strings.TrimSpace(line))
				}
			}
			explained = false
		}
		return sc.Err()
	})
	if err != nil {
		t.Fatal(err)
	}
	if seen == 0 {
		t.Fatal("the pattern matched nothing: is it still right?")
	}
	if len(bad) > 0 {
		t.Errorf("results of send/write/I-O calls thrown away without a \"// dropped: <reason, where counted>\" comment:\n%s", strings.Join(bad, "\n"))
	}
}
