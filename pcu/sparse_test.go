package pcu

import (
	"testing"

	"github.com/gopcu/gopcu/llc/llctest"
	"github.com/gopcu/gopcu/pcu/pcuif"
	"github.com/gopcu/gopcu/rlcmac"
)

// sparseRig is two MSs, A and B, each downloading on DL TBFs over the same
// PDCHs (TS 2 and 3, control TS 3, CS-4), the MSs acknowledging whatever
// is polled at once.
type sparseRig struct {
	t    *testing.T
	e    *Engine
	bts  *BTS
	a, b *TBF
	fn   uint32
}

func newSparseRig(t *testing.T) *sparseRig {
	e, bts := benchEngine(t)
	r := &sparseRig{t: t, e: e, bts: bts}
	mk := func(tlli uint32, port uint16) *TBF {
		m := e.newMS(bts, tlli)
		x := &TBF{dir: DirDL, ms: m, bts: bts, trx: 0, tfi: uint8(tlli & 7), slots: 1<<2 | 1<<3, ctrlTS: 3, cs: rlcmac.CS4, dl: &dlTBF{drained: -1}}
		e.attach(x)
		e.setupDLWindow(x)
		m.DL = x
		drive(t, e, x, TBFFlow)
		return x
	}
	r.a, r.b = mk(0xc0000001, 40001), mk(0xc0000002, 40002)
	r.bulk(r.a, 40001, 60)
	r.bulk(r.b, 40002, 60)
	return r
}

func (r *sparseRig) bulk(x *TBF, port uint16, n int) {
	for i := 0; i < n; i++ {
		if err := x.ms.Queue.Enqueue(r.e.now, llctest.IPFrame(6, 80, port, 1400), 0xffff); err != nil {
			r.t.Fatal(err)
		}
	}
}

// ping queues an ICMP echo with identifier id for x.
func (r *sparseRig) ping(x *TBF, id uint16) {
	if err := x.ms.Queue.Enqueue(r.e.now, llctest.IPFrame(1, id, 0, 84), 0xffff); err != nil {
		r.t.Fatal(err)
	}
}

// period runs one block period on TS 2 and 3 and returns the data blocks A
// and B sent in it.
func (r *sparseRig) period() (na, nb int) {
	a0, b0 := r.a.dl.airtime, r.b.dl.airtime
	for _, ts := range []uint8{2, 3} {
		rts := pcuif.RTSReq{SAPI: pcuif.SAPIPDTCH, FN: r.fn, ARFCN: 871, TS: ts, BlockNr: uint8(blockNr(r.fn))}
		r.e.schedule(r.bts, &r.bts.TRX[0].PDCH[ts], &rts)
	}
	for _, x := range []*TBF{r.a, r.b} {
		if x.dl.pollOut {
			x.dl.pollOut, x.dl.sincePoll = false, 0
			r.e.dlAckNack(x, &rlcmac.AckNackDescription{SSN: uint8(x.dl.sw.VS()), RBB: ^uint64(0)})
		}
	}
	r.bts.TRX[0].PDCH[2].resv = r.bts.TRX[0].PDCH[2].resv[:0]
	r.bts.TRX[0].PDCH[3].resv = r.bts.TRX[0].PDCH[3].resv[:0]
	r.fn = nextBlockFN(r.fn)
	return int(r.a.dl.airtime - a0), int(r.b.dl.airtime - b0)
}

// TestSparseFirstAcrossMSs: a ping for A, behind A's own download, makes
// A's TBF go first on the shared PDCHs until the ping is sent (the rest of
// A's current frame at the PDCHs' full rate, then the ping), where airtime
// fairness alone would give A every other block. Then the two share again.
func TestSparseFirstAcrossMSs(t *testing.T) {
	r := newSparseRig(t)
	for i := 0; i < 100; i++ { // both downloads on the old list, sharing
		r.period()
	}
	if d := int(r.a.dl.airtime) - int(r.b.dl.airtime); d < -1 || d > 1 {
		t.Fatalf("before the ping: airtime A %d B %d, not shared", r.a.dl.airtime, r.b.dl.airtime)
	}
	r.ping(r.a, 7)
	if !r.a.sparseWork() {
		t.Fatal("A has no sparse work with a ping behind its download")
	}
	var periods, bBlocks int
	for r.a.sparseWork() {
		_, nb := r.period()
		bBlocks += nb
		if periods++; periods > 50 {
			t.Fatal("the ping was not sent in 50 block periods")
		}
	}
	// A's current 1400-octet frame (28 CS-4 blocks at most) and the ping
	// (2 blocks) on two PDCHs: at most 15 periods, B none.
	if bBlocks != 0 || periods > 15 {
		t.Fatalf("until the ping was sent: %d block periods, B sent %d blocks; want ≤ 15 and 0", periods, bBlocks)
	}
	var na, nb int
	for i := 0; i < 100; i++ {
		x, y := r.period()
		na, nb = na+x, nb+y
	}
	if nb < na { // B catches up on the airtime A got ahead
		t.Fatalf("after the ping: A %d blocks, B %d; B should catch up", na, nb)
	}
}

// TestSparseSlack: an MS whose sparse frames never stop (a new flow's
// packet every block period beside its download) gets ahead of the other MS by at most
// sparseSlack blocks of airtime; the other keeps its share after that.
func TestSparseSlack(t *testing.T) {
	r := newSparseRig(t)
	for i := 0; i < 20; i++ {
		r.period()
	}
	r.bulk(r.a, 40001, 200)
	r.bulk(r.b, 40002, 200)
	lead := 0
	var nb int
	for i := 0; i < 600; i++ {
		r.ping(r.a, uint16(i))
		_, y := r.period()
		if i >= 300 {
			nb += y
		}
		lead = max(lead, int(r.a.dl.airtime)-int(r.b.dl.airtime))
	}
	if lead > sparseSlack+2 {
		t.Fatalf("A led B by %d blocks of airtime, want ≤ sparseSlack (%d)", lead, sparseSlack)
	}
	if lead < sparseSlack-2 {
		t.Fatalf("A led B by only %d blocks: the sparse boost did not act", lead)
	}
	// in the last 300 periods (600 blocks) B still gets a share: the pings
	// are 2 blocks each, so A needs 2 per period for them and the rest is
	// shared
	if nb < 100 {
		t.Fatalf("B got %d of 600 blocks once A led by sparseSlack", nb)
	}
}

// TestSharersFollowData: while A and B both have data on their PDCHs, each
// queue is told it shares them with one other MS (llc.Queue.SetSharers), and
// its RED thresholds are those of llc.Config.REDParamsShared for two; once
// B's queue is empty and its last frame sent, A's go back to its own.
func TestSharersFollowData(t *testing.T) {
	r := newSparseRig(t)
	r.period()
	for _, x := range []*TBF{r.a, r.b} {
		st := x.ms.Queue.Stats(r.e.now)
		if st.Sharers != 2 {
			t.Fatalf("%08x: sharers %d with both downloading, want 2", x.ms.TLLI, st.Sharers)
		}
	}
	r.bulk(r.a, 40001, 100) // A outlasts B
	for i := 0; i < 5000 && (r.b.ms.Queue.Len() > 0 || r.b.dl.haveCur); i++ {
		r.period()
	}
	if r.b.ms.Queue.Len() > 0 || r.b.dl.haveCur {
		t.Fatal("B did not drain")
	}
	r.period()
	if st := r.a.ms.Queue.Stats(r.e.now); st.Sharers != 1 {
		t.Fatalf("A: sharers %d with B empty, want 1", st.Sharers)
	}
}
