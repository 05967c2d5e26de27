package pcu

import (
	"fmt"
	"testing"
	"time"

	"github.com/gopcu/gopcu/pcu/pcuif"
	"github.com/gopcu/gopcu/rlcmac"
)

// benchEngine is an engine with one active BTS (PDCHs on TS 0-7) fed
// directly, without the socket.
func benchEngine(tb testing.TB) (*Engine, *BTS) {
	ii := &pcuif.InfoInd{Version: pcuif.V12, Flags: pcuif.FlagActive | pcuif.FlagCS(1) | pcuif.FlagCS(2) | pcuif.FlagCS(3) | pcuif.FlagCS(4), InitialCS: 4}
	ii.TRX[0].PDCHMask = 0xff
	return infoEngine(tb, ii)
}

// flowingDL gives m a GPRS DL TBF in FLOW on one TS of trx (its control
// TS) with tfi, sending at cs.
func flowingDL(e *Engine, m *MS, trx, tfi, ts uint8, cs rlcmac.CodingScheme) *TBF {
	t := &TBF{dir: DirDL, ms: m, bts: m.bts, trx: trx, tfi: tfi, slots: 1 << ts, ctrlTS: ts, cs: cs, dl: &dlTBF{drained: -1}}
	e.attach(t)
	e.setupDLWindow(t)
	m.DL = t
	drive(panicTB{}, e, t, TBFFlow)
	return t
}

// panicTB stands for a testing.TB where there is none (drive's Fatalf
// panics).
type panicTB struct{ testing.TB }

func (panicTB) Helper()                   {}
func (panicTB) Fatalf(f string, a ...any) { panic(fmt.Sprintf(f, a...)) }

// infoEngine is an engine whose BTS got ii (TRX 0 on ARFCN 871), fed
// directly, without the socket.
func infoEngine(tb testing.TB, ii *pcuif.InfoInd) (*Engine, *BTS) {
	ii.TRX[0].ARFCN = 871
	return configEngine(tb, Config{}, ii)
}

// configEngine is an engine made with cfg (no socket) whose BTS got ii.
func configEngine(tb testing.TB, cfg Config, ii *pcuif.InfoInd) (*Engine, *BTS) {
	tb.Helper()
	cfg.SocketPath = "/nonexistent"
	e := New(cfg)
	b, err := pcuif.Marshal(ii, pcuif.V12)
	if err != nil {
		tb.Fatal(err)
	}
	e.handleMessage(b)
	bts := e.bts[0]
	if bts == nil || !bts.Active {
		tb.Fatal("BTS not active")
	}
	return e, bts
}

// BenchmarkScheduleRTS16TBF: one RTS on a PDCH shared by 16 DL TBFs that
// all have data (issue target: <= 2 us, 0 allocations).
func BenchmarkScheduleRTS16TBF(b *testing.B) { benchScheduleRTS(b, 1) }

// BenchmarkScheduleRTS16TBFBusyBTS: the same RTS in a BTS of 8 TRXs whose
// other 7 TRXs carry 16 DL TBFs each (128 TBFs in the BTS): the cost of
// one RTS must not grow with the TBFs on other PDCHs (issue 16 item 4).
func BenchmarkScheduleRTS16TBFBusyBTS(b *testing.B) { benchScheduleRTS(b, 8) }

func benchScheduleRTS(b *testing.B, trxs int) {
	ii := &pcuif.InfoInd{Version: pcuif.V12, Flags: pcuif.FlagActive | pcuif.FlagCS(1) | pcuif.FlagCS(2) | pcuif.FlagCS(3) | pcuif.FlagCS(4), InitialCS: 4}
	for i := 0; i < trxs; i++ {
		ii.TRX[i].PDCHMask = 0xff
		ii.TRX[i].ARFCN = 871 + uint16(i)
	}
	e, bts := infoEngine(b, ii)
	frame := make([]byte, 1500)
	frame[0], frame[1] = 0x03, 0xc0
	var tbfs []*TBF
	for i := 0; i < 16; i++ {
		m := e.newMS(bts, 0xc0000000+uint32(i))
		m.MSClass = 1 // one slot each: all on the least loaded... force TS 3 below
		tbfs = append(tbfs, flowingDL(e, m, 0, uint8(i), 3, rlcmac.CS4))
	}
	for trx := uint8(1); int(trx) < trxs; trx++ { // elsewhere in the BTS, busy on their own PDCHs
		for i := 0; i < 16; i++ {
			m := e.newMS(bts, 0xc1000000+uint32(trx)<<8+uint32(i))
			flowingDL(e, m, trx, uint8(i), 3, rlcmac.CS4)
		}
	}
	if len(bts.tbfs) != 16*trxs {
		b.Fatalf("%d TBFs in the BTS, want %d", len(bts.tbfs), 16*trxs)
	}
	p := &bts.TRX[0].PDCH[3]
	rts := pcuif.RTSReq{SAPI: pcuif.SAPIPDTCH, ARFCN: 871, TS: 3}
	fn := uint32(0)
	all := rlcmac.AckNackDescription{FinalAck: false}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; b.Loop(); i++ {
		rts.FN, rts.BlockNr = fn, uint8(blockNr(fn))
		if e.schedule(bts, p, &rts) == nil {
			b.Fatal("no block")
		}
		fn = nextBlockFN(fn)
		// the MSs answer every poll: reservations are consumed
		b.StopTimer()
		p.resv = p.resv[:0]
		for _, t := range tbfs {
			t.dl.pollOut, t.n[nN3105] = false, 0
		}
		b.StartTimer()
		if i%16 == 15 { // every TBF got a block: refill queues and acknowledge everything
			b.StopTimer()
			for _, t := range tbfs {
				for t.ms.Queue.Len() < 2 {
					t.ms.Queue.Enqueue(e.now, frame, 0xffff)
				}
				all.SSN = uint8(t.dl.sw.VS())
				all.RBB = ^uint64(0)
				e.dlAckNack(t, &all) // the engine path: V(A) and the in-flight frames
				t.dl.pollOut = false
				p.resv = p.resv[:0]
			}
			b.StartTimer()
		}
	}
}

// BenchmarkEGPRSDLBlockMCS9: building one EGPRS DL data block at MCS-9
// (header type 1, two 74-octet data units from a queued LLC frame),
// issue 10 target <= 2 us, 0 allocations. The MS's receive window
// acknowledges outside the timer.
func BenchmarkEGPRSDLBlockMCS9(b *testing.B) {
	e, bts := benchEngine(b)
	for n := 1; n <= 9; n++ {
		bts.MCSMask |= 1 << (n - 1)
	}
	frame := make([]byte, 1500)
	frame[0], frame[1] = 0x03, 0xc0
	m := e.newMS(bts, 0xc0000001)
	m.MSClass, m.EGPRSClass = 12, 12
	t := &TBF{dir: DirDL, ms: m, bts: bts, trx: 0, tfi: 1, slots: 1 << 3, ctrlTS: 3, cs: rlcmac.MCS9, egprs: true, dl: &dlTBF{drained: -1}}
	e.attach(t)
	e.setupDLWindow(t)
	t.cs = rlcmac.MCS9 // the BTS's INFO_IND has no initial MCS
	m.DL = t
	drive(b, e, t, TBFFlow)
	p := &bts.TRX[0].PDCH[3]
	var rx rlcmac.ReceiveWindow
	rx.Reset(true, t.dl.sw.WS())
	var blk [rlcmac.MaxBlockLen]byte
	var parsed rlcmac.EGPRSDLBlock
	for m.Queue.Len() < 4 {
		m.Queue.Enqueue(e.now, frame, 0xffff)
	}
	fn := uint32(0)
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; b.Loop(); i++ {
		n := e.dlDataBlockEGPRS(t, p, fn, 7, prioNewData, blk[:])
		if n == 0 {
			b.Fatal("no block")
		}
		b.StopTimer()
		fn = nextBlockFN(fn)
		if err := parsed.Parse(blk[:n]); err != nil || parsed.CS != rlcmac.MCS9 {
			b.Fatalf("block %d of %d octets: %v %v", i, n, err, parsed.CS)
		}
		rx.Receive(int(parsed.Header.BSN1))
		rx.Receive(int(parsed.Header.BSN2))
		rx.RaiseVQ()
		if i%8 == 7 {
			a := rx.EGPRSAckNack(false, 120)
			e.dlAckNackEGPRS(t, &a)
			t.dl.pollOut = false
			p.resv = p.resv[:0]
			for m.Queue.Len() < 4 {
				m.Queue.Enqueue(e.now, frame, 0xffff)
			}
		}
		b.StartTimer()
	}
}

// BenchmarkRTSKnownMS: an RTS_REQ on an idle PDCH (decode, schedule,
// encode) with n known idle MSs (each with a TLLI, no TBF, no data): the
// cost must not grow with n (issue 16: within 10 % from 10 to 100 000).
func BenchmarkRTSKnownMS(b *testing.B) {
	for _, n := range []int{10, 1000, 100000} {
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			e, bts := benchEngine(b)
			e.params.X2030 = 100 * 24 * time.Hour // known, not released, in the run
			for i := 0; i < n; i++ {
				e.newMS(bts, 0xc0000000+uint32(i))
			}
			p := &bts.TRX[0].PDCH[3]
			rts := pcuif.RTSReq{SAPI: pcuif.SAPIPDTCH, ARFCN: 871, TS: 3}
			fn := uint32(0)
			step := func() {
				fn = nextBlockFN(fn)
				rts.FN, rts.BlockNr = fn, uint8(blockNr(fn))
				e.schedule(bts, p, &rts)
			}
			for range 100 {
				step() // the MSs' first timer run
			}
			b.ReportAllocs()
			b.ResetTimer()
			for b.Loop() {
				step()
			}
		})
	}
}

// BenchmarkBusyPDCHs: one RTS_REQ on a busy PDCH, the PDCHs served in
// turn block after block as a BTS asks, with every PDCH of the cell
// carrying two DL TBFs with data (issue 16 item 5: one core for 2 000
// loaded PDCHs). 64 PDCHs are one BTS of 8 TRX x 8; 2048 are 32 such
// BTSs over the same engine (PCUIF addresses a BTS by bts_nr), with 2 DL
// TBFs and MSs per PDCH (4 096 at 2 048). It measures how the engine's
// cost per RTS grows with the PDCHs, TBFs and MSs it holds (no work per
// RTS walks them; what grows is cache misses, docs/performance.md). The
// MSs' Ack/Nacks and the queue refills run outside the timer, as in
// BenchmarkScheduleRTS16TBF.
func BenchmarkBusyPDCHs(b *testing.B) {
	for _, nbts := range []int{1, 32} {
		b.Run(fmt.Sprintf("pdchs=%d", 64*nbts), func(b *testing.B) { benchBusyPDCHs(b, nbts) })
	}
}

func benchBusyPDCHs(b *testing.B, nbts int) {
	e := New(Config{SocketPath: "/nonexistent"})
	var btss []*BTS
	for n := 0; n < nbts; n++ {
		ii := &pcuif.InfoInd{Version: pcuif.V12, Flags: pcuif.FlagActive | pcuif.FlagCS(1) | pcuif.FlagCS(2) | pcuif.FlagCS(3) | pcuif.FlagCS(4), InitialCS: 4}
		ii.BTSNr = uint8(n)
		for t := range 8 {
			ii.TRX[t].PDCHMask = 0xff
			ii.TRX[t].ARFCN = uint16(100 + 8*n + t)
		}
		msg, err := pcuif.Marshal(ii, pcuif.V12)
		if err != nil {
			b.Fatal(err)
		}
		e.handleMessage(msg)
		if bts := e.bts[n]; bts == nil || !bts.Active {
			b.Fatalf("BTS %d not active", n)
		}
		btss = append(btss, e.bts[n])
	}
	frame := make([]byte, 1500)
	frame[0], frame[1] = 0x03, 0xc0
	type pdch struct {
		bts  *BTS
		p    *PDCH
		rts  pcuif.RTSReq
		tbfs []*TBF
	}
	var pdchs []*pdch
	tlli := uint32(0xc0000000)
	for _, bts := range btss {
		for trx := range 8 {
			for ts := range 8 {
				pd := &pdch{bts: bts, p: &bts.TRX[trx].PDCH[ts], rts: pcuif.RTSReq{SAPI: pcuif.SAPIPDTCH, TRX: uint8(trx), TS: uint8(ts)}}
				for k := range 2 {
					m := e.newMS(bts, tlli)
					tlli++
					m.MSClass = 1
					t := flowingDL(e, m, uint8(trx), uint8(2*ts+k), uint8(ts), rlcmac.CS4)
					for m.Queue.Len() < 2 {
						m.Queue.Enqueue(e.now, frame, 0xffff)
					}
					pd.tbfs = append(pd.tbfs, t)
				}
				pdchs = append(pdchs, pd)
			}
		}
	}
	all := rlcmac.AckNackDescription{}
	fn := uint32(0)
	i := 0
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		pd := pdchs[i%len(pdchs)]
		pd.rts.FN, pd.rts.BlockNr = fn, uint8(blockNr(fn))
		if e.schedule(pd.bts, pd.p, &pd.rts) == nil {
			b.Fatal("no block")
		}
		i++
		if i%len(pdchs) == 0 {
			// a block of every PDCH went out: the next block; every 8th,
			// the MSs acknowledge everything and the queues are refilled
			fn = nextBlockFN(fn)
			b.StopTimer()
			for _, pd := range pdchs {
				pd.p.resv = pd.p.resv[:0]
				for _, t := range pd.tbfs {
					t.dl.pollOut, t.n[nN3105] = false, 0
					if i%(8*len(pdchs)) == 0 {
						for t.ms.Queue.Len() < 2 {
							t.ms.Queue.Enqueue(e.now, frame, 0xffff)
						}
						all.SSN = uint8(t.dl.sw.VS())
						all.RBB = ^uint64(0)
						e.dlAckNack(t, &all)
						t.dl.pollOut = false
					}
				}
				pd.bts.resvMask = [8]uint8{}
			}
			b.StartTimer()
		}
	}
}
