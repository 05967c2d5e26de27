package pcu

import (
	"bytes"
	"fmt"
	"net"
	"net/netip"
	"testing"
	"time"

	"github.com/gopcu/gopcu/bssgp"
	"github.com/gopcu/gopcu/internal/poison"
	"github.com/gopcu/gopcu/internal/testutil"
	"github.com/gopcu/gopcu/llc"
	"github.com/gopcu/gopcu/pcu/internal/gbtest"
	"github.com/gopcu/gopcu/pcu/pcuif"
	"github.com/gopcu/gopcu/rlcmac"
)

// Every pcu test runs with poisoned releases of pooled buffers (LLC frames,
// NS datagrams): a buffer given back while the engine still uses it shows
// as 0xAA octets in what the MS gets.
func init() { poison.Enable() }

// gbRig is an engine whose Gb runs over loopback UDP (the production NS
// socket, its datagram pool included) with the test as SGSN; the engine
// loop is the test itself (input hands one datagram over).
type gbRig struct {
	e     *Engine
	bts   *BTS
	sgsn  *net.UDPConn
	pcu   netip.AddrPort
	timer *time.Timer
	ns    *udpNS
}

func newGbRig(t *testing.T) *gbRig {
	ii := gbtest.Info()
	ii.Flags |= pcuif.FlagCS(2) | pcuif.FlagCS(3) | pcuif.FlagCS(4)
	ii.InitialCS = 4
	ii.TRX[0].PDCHMask = 0xff
	s0 := testutil.UDP(t)
	gbtest.SetNSVC(ii, 0, 101, gbtest.FreeUDPPort(t), s0)
	e := New(Config{SocketPath: "/nonexistent", Gb: true, Clock: &fakeClock{}})
	udp := attachUDPNS(e)
	feedInfo(t, e, ii)
	t.Cleanup(e.gbClose)
	bts := e.bts[0]
	if bts == nil || !bts.Active || e.gbl == nil {
		t.Fatal("BTS or Gb not up")
	}
	e.advance(bts, 0)
	r := &gbRig{e: e, bts: bts, sgsn: s0, timer: time.NewTimer(time.Hour), ns: udp}
	r.pcu = gbtest.WaitNSReset(t, s0)
	// the SGSN's side of the bring-up (bssgp/bss TestBringUpCapture):
	// NS-RESET-ACK, NS-UNBLOCK-ACK, NS-ALIVE-ACK, BVC-RESET-ACK of the
	// signalling and of the PTP BVC 1800, BVC-UNBLOCK-ACK
	for _, h := range []string{"030182006504820065", "07", "0b", "000000002304820000", "000000002304820708", "000000002504820708"} {
		if err := r.input(testutil.MustHex(h)); err != nil {
			t.Fatal(err)
		}
	}
	if !e.GbUp() {
		t.Fatal("PTP BVC not unblocked")
	}
	return r
}

// input sends b from the SGSN and lets the engine handle the datagram.
func (r *gbRig) input(b []byte) error {
	if _, err := r.sgsn.WriteToUDPAddrPort(b, r.pcu); err != nil {
		return err
	}
	r.timer.Reset(5 * time.Second)
	select {
	case x := <-r.ns.rx:
		r.timer.Stop()
		x.take(r.e)
		return nil
	case <-r.timer.C:
		return errTimeout
	}
}

var errTimeout = fmt.Errorf("datagram not received within 5 s")

// dlUnitdataPkt is the NS-UNITDATA datagram of a DL-UNITDATA for tlli
// (with IMSI and MS RAC, as osmo-sgsn sends it) carrying frame.
func dlUnitdataPkt(tb testing.TB, tlli uint32, imsi []byte, frame []byte) []byte {
	dl := bssgp.DLUnitdata{TLLI: tlli, PDULifetime: 0xffff, IMSI: imsi, MSRAC: msRAC, Alignment: -1, LLC: frame}
	sdu, err := bssgp.Marshal(&dl)
	if err != nil {
		tb.Fatal(err)
	}
	return append([]byte{0, 0, 0x07, 0x08}, sdu...) // NS-UNITDATA, BVCI 1800
}

// msRAC is an MS Radio Access Capability (multislot class 10, no EGPRS:
// the engine decodes it in every DL-UNITDATA, looking for the EGPRS class).
var msRAC = func() []byte {
	var r rlcmac.MSRadioAccessCapability
	r.N = 1
	r.Values[0] = rlcmac.RACValue{AccessTech: rlcmac.AccessTechGSM1800, RFPowerCap: 1, HasMultislot: true,
		Multislot: rlcmac.MultislotCapability{HasGPRS: true, GPRSClass: 10}}
	b := make([]byte, 16)
	n, err := rlcmac.EncodeMSRadioAccessCapability(b, &r)
	if err != nil {
		panic(err)
	}
	return b[:n]
}()

// dlTBFFor makes a running GPRS DL TBF on TS 2 for a new MS.
func (r *gbRig) dlTBFFor(tlli uint32, tfi uint8) *TBF {
	e, bts := r.e, r.bts
	m := bts.ms.byTLLI[tlli]
	if m == nil {
		m = e.newMS(bts, tlli)
	}
	t := flowingDL(e, m, 0, tfi, 2, rlcmac.CS4)
	return t
}

// patternFrame is LLC UI frame k on SAPI 3: its number, then a pattern.
func patternFrame(k, n int) []byte {
	b := make([]byte, n)
	b[0], b[1], b[2], b[3] = 0x03, 0xc0, byte(k>>8), byte(k)
	for i := 4; i < n; i++ {
		b[i] = byte(k*13 + i)
	}
	return b
}

// msReassembler is the MS side of a GPRS DL TBF: it keeps the data units
// by BSN (a resent block must carry the unit it carried the first time)
// and rebuilds the LLC frames of the units V(R) passes.
type msReassembler struct {
	units  map[int][]byte
	hdr    map[int]rlcmac.GPRSDLHeader
	onAir  map[int]bool // BSNs sent (received or lost) in the window
	next   int          // next BSN to reassemble
	cur    []byte
	frames [][]byte
	resent int
}

func newMSReassembler() *msReassembler {
	return &msReassembler{units: map[int][]byte{}, hdr: map[int]rlcmac.GPRSDLHeader{}, onAir: map[int]bool{}}
}

func (m *msReassembler) block(t *testing.T, tfi uint8, blk []byte, lost bool) {
	if len(blk) == 0 || blk[0]>>6 != 0 {
		return // a control block
	}
	var b rlcmac.GPRSDLBlock
	if err := b.Parse(blk); err != nil {
		t.Fatalf("DL data block %x: %v", blk, err)
	}
	if b.Header.TFI != tfi {
		return
	}
	bsn := int(b.Header.BSN)
	if m.onAir[bsn] {
		m.resent++
	}
	m.onAir[bsn] = true
	if lost {
		return
	}
	if old, ok := m.units[bsn]; ok {
		if !bytes.Equal(old, b.Data) {
			t.Fatalf("BSN %d resent with other octets:\n%x\nwas\n%x", bsn, b.Data, old)
		}
		return
	}
	m.units[bsn] = bytes.Clone(b.Data)
	m.hdr[bsn] = b.Header
	for {
		u, ok := m.units[m.next]
		if !ok {
			return
		}
		h := m.hdr[m.next]
		var pu rlcmac.ULUnit
		if err := rlcmac.ParseUnit(u, false, h.E, false, false, h.FBI, &pu); err != nil {
			t.Fatalf("BSN %d: %v", m.next, err)
		}
		for _, c := range pu.Chunks[:pu.N] {
			m.cur = append(m.cur, u[c.Off:c.Off+c.Len]...)
			if c.Complete {
				if !llc.IsDummy(m.cur) {
					m.frames = append(m.frames, m.cur)
				}
				m.cur = nil
			}
		}
		delete(m.units, (m.next+64)%128) // the window has moved past it
		delete(m.onAir, (m.next+64)%128)
		m.next = (m.next + 1) % 128
	}
}

// ackNack is the MS's Packet Downlink Ack/Nack for what it has got of
// t's window (bit i of the RBB: BSN SSN-1-i).
func (m *msReassembler) ackNack(t *TBF) *rlcmac.AckNackDescription {
	vs := t.dl.sw.VS()
	a := &rlcmac.AckNackDescription{SSN: uint8(vs)}
	for i := 0; i < 64; i++ {
		bsn := (vs - 1 - i + 128) % 128
		if _, ok := m.units[bsn]; ok || t.dl.sw.InWindow(bsn) && inOrder(m.next, bsn) {
			a.RBB |= 1 << uint(i)
		}
	}
	return a
}

// inOrder: bsn is below the MS's V(R) (already reassembled).
func inOrder(vr, bsn int) bool { return (vr-bsn+128)%128 <= 64 && vr != bsn }

// TestDLFramesThroughPoolsIntact: DL LLC frames from the SGSN (NS datagrams
// from the pooled NS reader, LLC frames copied into pooled buffers) reach
// the MS with their octets intact while later frames reuse the buffers of
// acknowledged ones, blocks are NACKed and resent, and a TBF is dropped
// with frames in flight (put back, sent again by the next TBF).
func TestDLFramesThroughPoolsIntact(t *testing.T) {
	r := newGbRig(t)
	e, bts := r.e, r.bts
	e.params.X2031 = time.Hour // no FBI when the queue runs dry
	const tlli = 0xc0000101
	imsi, _ := bssgp.EncodeIMSI("901700000000101")
	tbf := r.dlTBFFor(tlli, 1)
	ms := newMSReassembler()
	var sent [][]byte
	const total = 120
	fn := uint32(0)
	dropped := false
	// frames arrive in order, each intact; those put back arrive again
	next, seen := 0, 0
	check := func() {
		for ; seen < len(ms.frames); seen++ {
			f := ms.frames[seen]
			k := -1
			if len(f) >= 4 {
				k = int(f[2])<<8 | int(f[3])
			}
			if k < 0 || k >= len(sent) || !bytes.Equal(f, sent[k]) {
				w := sent[min(max(k, 0), len(sent)-1)]
				t.Fatalf("frame %d (as %d): %d octets %x..., want %d octets %x...", seen, k, len(f), f[:min(len(f), 24)], len(w), w[:24])
			}
			if k > next {
				t.Fatalf("frame %d received before frame %d", k, next)
			}
			if k == next {
				next++
			}
		}
	}
	for blocks := 0; next < total && blocks < 20000; blocks++ {
		q := tbf.ms.Queue
		for len(sent) < total && q.Len() < 3 {
			k := len(sent)
			f := patternFrame(k, 24+(k*211)%1400)
			if err := r.input(dlUnitdataPkt(t, tlli, imsi, f)); err != nil {
				t.Fatal(err)
			}
			sent = append(sent, f)
		}
		rts := pcuif.RTSReq{SAPI: pcuif.SAPIPDTCH, FN: fn, ARFCN: 871, TS: 2, BlockNr: uint8(blockNr(fn))}
		blk := e.schedule(bts, &bts.TRX[0].PDCH[2], &rts)
		ms.block(t, tbf.tfi, blk, blocks%7 == 3) // every 7th block lost on air
		check()
		if tbf.dl.pollOut || blocks%10 == 9 {
			tbf.dl.pollOut, tbf.dl.sincePoll = false, 0
			e.dlAckNack(tbf, ms.ackNack(tbf))
		}
		bts.TRX[0].PDCH[2].resv = bts.TRX[0].PDCH[2].resv[:0]
		fn = nextBlockFN(fn)
		if !dropped && next >= total/2 && len(tbf.dl.inflight) > 0 {
			// the TBF goes (e.g. N3105) with frames unacknowledged: they
			// go back to the queue and the next TBF sends them again
			dropped = true
			e.fireRelease(tbf, relNone)
			tbf = r.dlTBFFor(tlli, 2)
			ms.units, ms.hdr, ms.onAir, ms.next, ms.cur = map[int][]byte{}, map[int]rlcmac.GPRSDLHeader{}, map[int]bool{}, 0, nil
		}
	}
	if next < total {
		t.Fatalf("got frames up to %d of %d", next, total)
	}
	if ms.resent == 0 || !dropped {
		t.Fatalf("no retransmission (%d) or no TBF drop (%v): the test does not test", ms.resent, dropped)
	}
	if m := bts.ms.byTLLI[tlli]; m.MSClass != 10 || m.IMSI != "901700000000101" {
		t.Fatalf("MS class %d, IMSI %q from the DL-UNITDATAs", m.MSClass, m.IMSI)
	}
	if ps := e.llcShared.PoolStats(); ps.Reused == 0 || ps.Released == 0 {
		t.Fatalf("LLC buffers not recycled: %+v", ps)
	}
}

// TestDLUnitdataAllocs: in steady state a DL-UNITDATA, from the NS
// socket through NS, BSSGP and the MS queue to the DATA_REQs that carry
// it and the Ack/Nack that ends its life, allocates nothing (issue 16).
func TestDLUnitdataAllocs(t *testing.T) {
	r := newGbRig(t)
	e, bts := r.e, r.bts
	e.params.X2031 = time.Hour
	const tlli = 0xc0000201
	imsi, _ := bssgp.EncodeIMSI("901700000000201")
	tbf := r.dlTBFFor(tlli, 1)
	tbf.ms.MSClass = 10
	var txBuf [64]byte
	var txN int
	e.sent = func(m pcuif.Message) {
		if d, ok := m.(*pcuif.Data); ok {
			txN = copy(txBuf[:], d.Payload)
		}
	}
	rtsMsg := pcuif.RTSReq{SAPI: pcuif.SAPIPDTCH, ARFCN: 871, TS: 2}
	rtsBuf := make([]byte, 2048)
	pkt := dlUnitdataPkt(t, tlli, imsi, patternFrame(1, 500))
	fn := uint32(0)
	step := func() {
		if err := r.input(pkt); err != nil {
			t.Fatal(err)
		}
		for range 12 { // 500 octets: 10 CS-4 blocks, then dummies
			rtsMsg.FN, rtsMsg.BlockNr = fn, uint8(blockNr(fn))
			n, err := pcuif.MarshalTo(rtsBuf, &rtsMsg, pcuif.V12)
			if err != nil {
				t.Fatal(err)
			}
			e.handleMessage(rtsBuf[:n])
			fn = nextBlockFN(fn)
		}
		e.dlAckNack(tbf, &rlcmac.AckNackDescription{SSN: uint8(tbf.dl.sw.VS()), RBB: ^uint64(0)})
		tbf.dl.pollOut = false
		bts.TRX[0].PDCH[2].resv = bts.TRX[0].PDCH[2].resv[:0]
	}
	for range 50 {
		step() // warm: pools, slabs, maps
	}
	if a := testing.AllocsPerRun(200, step); a != 0 {
		t.Errorf("%.2f allocations per DL-UNITDATA (Gb input to DATA_REQ and acknowledgement)", a)
	}
	if txN == 0 || tbf.ms.Queue.Len() != 0 || len(tbf.dl.inflight) != 0 {
		t.Fatalf("frames not sent and acknowledged: %d queued, %d in flight", tbf.ms.Queue.Len(), len(tbf.dl.inflight))
	}
}

// TestFreeTBFPutsBackUnclosedFrame: a DL TBF freed while its frame has
// all its octets in blocks but is not closed yet (EGPRS: a unit filled
// exactly, the closing empty chunk still to come) gives the frame back to
// the MS's queue: the MS cannot have it, and nothing may be lost.
func TestFreeTBFPutsBackUnclosedFrame(t *testing.T) {
	e, bts := benchEngine(t)
	m := e.newMS(bts, 0xc0000001)
	x := flowingDL(e, m, 0, 0, 3, rlcmac.CS4)
	frame := make([]byte, 300)
	frame[0], frame[1] = 0x03, 0xc0 // LLC UI, SAPI 3
	if err := m.Queue.EnqueueCopy(e.now, frame, 0xffff); err != nil {
		t.Fatal(err)
	}
	if !e.nextFrame(x) {
		t.Fatal("no frame taken")
	}
	x.dl.cur = x.dl.cur[len(x.dl.cur):] // every octet placed, the frame not closed
	e.fireRelease(x, relNone)
	if m.Queue.Len() != 1 {
		t.Fatalf("%d frames queued after the TBF was freed, want the unclosed frame back", m.Queue.Len())
	}
	fr, ok, _ := m.Queue.Dequeue(e.now)
	if !ok || len(fr.Data) != 300 || fr.Data[0] != 0x03 {
		t.Fatalf("frame back: %v %d octets", ok, len(fr.Data))
	}
}
