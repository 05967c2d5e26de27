package nse

import (
	"encoding/hex"
	"net/netip"
	"strings"
	"testing"
	"time"
)

type sent struct {
	bind int
	to   netip.AddrPort
	b    []byte
}

type recTx struct{ out []sent }

func (r *recTx) Send(bind int, to netip.AddrPort, b []byte) error {
	r.out = append(r.out, sent{bind, to, append([]byte(nil), b...)})
	return nil
}

func (r *recTx) take() []string {
	var s []string
	for _, x := range r.out {
		s = append(s, hex.EncodeToString(x.b))
	}
	r.out = nil
	return s
}

type recH struct {
	avail []bool
	sdus  []string
}

func (h *recH) NSUnitdata(bvci uint16, sdu []byte, now time.Duration) {
	h.sdus = append(h.sdus, hex.EncodeToString(sdu))
}
func (h *recH) NSAvailable(up bool, now time.Duration) { h.avail = append(h.avail, up) }

var sgsn = netip.MustParseAddrPort("127.0.0.1:23000")

func classicNSE(t *testing.T) (*NSE, *recTx, *recH) {
	tx, h := &recTx{}, &recH{}
	n, err := NewNSE(Config{NSEI: 101, Endpoints: []Endpoint{{Bind: 0, NSVCI: 101, Remote: sgsn}}}, tx, h, nil)
	if err != nil {
		t.Fatal(err)
	}
	return n, tx, h
}

func want(t *testing.T, got []string, w ...string) {
	t.Helper()
	if len(got) != len(w) {
		t.Fatalf("sent %v, want %v", got, w)
	}
	for i := range w {
		if got[i] != w[i] {
			t.Fatalf("sent[%d] %s, want %s (all %v)", i, got[i], w[i], got)
		}
	}
}

const (
	hReset    = "020081010182006504820065"
	hResetAck = "030182006504820065"
	hUnblock  = "06"
	hUnblkAck = "07"
	hAlive    = "0a"
	hAliveAck = "0b"
)

func in(n *NSE, h string, now time.Duration) {
	b, err := hex.DecodeString(strings.ReplaceAll(h, " ", ""))
	if err != nil {
		panic(err)
	}
	n.Input(0, sgsn, b, now)
}

func bringUp(t *testing.T) (*NSE, *recTx, *recH) {
	n, tx, h := classicNSE(t)
	n.Start(0)
	want(t, tx.take(), hReset)
	in(n, hResetAck, time.Millisecond)
	want(t, tx.take(), hUnblock, hAlive)
	in(n, hUnblkAck, 2*time.Millisecond)
	in(n, hAliveAck, 2*time.Millisecond)
	if !n.Available() || len(h.avail) != 1 || !h.avail[0] {
		t.Fatalf("not available: %v", h.avail)
	}
	return n, tx, h
}

// The capture's start-up sequence (TS 48.016 §7.3-7.4: NS-RESET, NS-UNBLOCK, then NS-ALIVE; as osmo-pcu 1.1.0 with libosmogb sends it).
func TestClassicBringUp(t *testing.T) {
	n, tx, _ := bringUp(t)
	if d, ok := n.NextDeadline(); !ok || d != 2*time.Millisecond+30*time.Second {
		t.Fatalf("next deadline %v %v, want tns-test", d, ok)
	}
	if err := n.SendUnitdata(1800, 0x1234, []byte{0x26, 0x1e}); err != nil {
		t.Fatal(err)
	}
	want(t, tx.take(), "00000708261e")
}

func TestResetRetries(t *testing.T) {
	n, tx, _ := classicNSE(t)
	n.Start(0)
	tx.take()
	for i := 1; i <= 5; i++ {
		at := time.Duration(i) * 3 * time.Second
		n.Tick(at - time.Millisecond)
		want(t, tx.take())
		n.Tick(at)
		want(t, tx.take(), hReset)
	}
	if n.Available() {
		t.Fatal("available without reset-ack")
	}
}

func TestUnblockRetriesThenReset(t *testing.T) {
	n, tx, _ := classicNSE(t)
	n.Start(0)
	in(n, hResetAck, 0)
	in(n, hAliveAck, 0)
	tx.take()
	for i := 1; i <= 3; i++ {
		n.Tick(time.Duration(i) * 3 * time.Second)
		want(t, tx.take(), hUnblock)
	}
	n.Tick(12 * time.Second)
	want(t, tx.take(), hReset)
}

func TestAliveSchedule(t *testing.T) {
	n, tx, h := bringUp(t)
	base := 2 * time.Millisecond
	n.Tick(base + 30*time.Second)
	want(t, tx.take(), hAlive)
	// tns-alive-retries (10) unanswered ALIVEs, 3 s apart, then the NS-VC is dead -> reset.
	for i := 1; i < 10; i++ {
		n.Tick(base + 30*time.Second + time.Duration(i)*3*time.Second)
		want(t, tx.take(), hAlive)
	}
	n.Tick(base + 30*time.Second + 30*time.Second)
	want(t, tx.take(), hReset)
	if n.Available() || h.avail[len(h.avail)-1] {
		t.Fatal("still available")
	}
}

func TestAliveAnswered(t *testing.T) {
	n, tx, _ := bringUp(t)
	in(n, hAlive, time.Second)
	want(t, tx.take(), hAliveAck)
	n.Tick(30*time.Second + 2*time.Millisecond)
	want(t, tx.take(), hAlive)
	in(n, hAliveAck, 31*time.Second)
	if d, _ := n.NextDeadline(); d != 61*time.Second {
		t.Fatalf("tns-test not re-armed: %v", d)
	}
}

// SGSN VTY "nsvc 101 reset" in the capture: RESET-ACK, UNBLOCK, ALIVE.
func TestSGSNReset(t *testing.T) {
	n, tx, h := bringUp(t)
	in(n, hReset, 5*time.Second)
	want(t, tx.take(), hResetAck, hUnblock, hAlive)
	if n.Available() {
		t.Fatal("available while blocked")
	}
	in(n, hUnblkAck, 5*time.Second)
	if !n.Available() || len(h.avail) != 3 {
		t.Fatalf("%v", h.avail)
	}
}

func TestSGSNBlockUnblock(t *testing.T) {
	n, tx, _ := bringUp(t)
	in(n, "04008101 01820065", time.Second)
	want(t, tx.take(), "0501820065")
	if n.Available() {
		t.Fatal("available after block")
	}
	// No UNBLOCK retries while the peer holds the block.
	n.Tick(10 * time.Second)
	want(t, tx.take())
	// NS-UNITDATA on a blocked NS-VC -> NS-STATUS "NS-VC blocked".
	in(n, "00000708 41", 10*time.Second)
	want(t, tx.take(), "0800810301820065")
	in(n, hUnblock, 11*time.Second)
	want(t, tx.take(), hUnblkAck)
	if !n.Available() {
		t.Fatal("not available after unblock")
	}
}

func TestBadInputStatus(t *testing.T) {
	n, tx, _ := bringUp(t)
	in(n, "02008101", time.Second) // RESET without NS-VCI/NSEI
	want(t, tx.take(), "0800810d028402008101")
	in(n, "0a00", time.Second) // ALIVE with payload
	want(t, tx.take(), "0800810b02820a00")
	in(n, "08", time.Second) // bad NS-STATUS is never answered
	want(t, tx.take())
	if !n.Available() {
		t.Fatal("link went down on bad input")
	}
}

// A restarted SGSN answers our PDUs with NS-STATUS "PDU not compatible with
// the protocol state" (libosmogb ns2_create_vc): reset immediately.
func TestRecoveryOnStatus(t *testing.T) {
	n, tx, _ := bringUp(t)
	in(n, "0800810a02820a00", 3*time.Second)
	want(t, tx.take(), hReset)
	in(n, hResetAck, 3*time.Second)
	want(t, tx.take(), hUnblock, hAlive)
	in(n, hUnblkAck, 3*time.Second)
	if !n.Available() {
		t.Fatal("not recovered")
	}
}

func TestUnitdataUp(t *testing.T) {
	n, _, h := bringUp(t)
	in(n, "0000070800c0000001", time.Second)
	if len(h.sdus) != 1 || h.sdus[0] != "00c0000001" {
		t.Fatal(h.sdus)
	}
}

func TestLoadSharing(t *testing.T) {
	tx, h := &recTx{}, &recH{}
	s2 := netip.MustParseAddrPort("127.0.0.1:23002")
	n, _ := NewNSE(Config{NSEI: 7, Endpoints: []Endpoint{{Bind: 0, NSVCI: 1, Remote: sgsn}, {Bind: 1, NSVCI: 2, Remote: s2}}}, tx, h, nil)
	n.Start(0)
	n.Input(0, sgsn, []byte{3, 1, 0x82, 0, 1, 4, 0x82, 0, 7}, 0)
	n.Input(1, s2, []byte{3, 1, 0x82, 0, 2, 4, 0x82, 0, 7}, 0)
	n.Input(0, sgsn, []byte{7}, 0)
	n.Input(1, s2, []byte{7}, 0)
	tx.take()
	counts := map[int]int{}
	for lsp := uint32(0); lsp < 100; lsp++ {
		n.SendUnitdata(5, lsp, []byte{1})
		counts[tx.out[0].bind]++
		// same LSP -> same NS-VC
		n.SendUnitdata(5, lsp, []byte{1})
		if tx.out[1].bind != tx.out[0].bind {
			t.Fatal("LSP not sticky")
		}
		tx.out = nil
	}
	if counts[0] != 50 || counts[1] != 50 {
		t.Fatal(counts)
	}
	// One NS-VC blocked by the SGSN: everything on the other one.
	n.Input(1, s2, []byte{4, 0, 0x81, 1, 1, 0x82, 0, 2}, 0)
	tx.take()
	for lsp := uint32(0); lsp < 10; lsp++ {
		n.SendUnitdata(5, lsp, []byte{1})
	}
	for _, o := range tx.out {
		if o.bind != 0 {
			t.Fatal("sent on blocked NS-VC")
		}
	}
}

func TestReconfigureClassic(t *testing.T) {
	n, tx, _ := bringUp(t)
	s2 := netip.MustParseAddrPort("127.0.0.1:23002")
	cfg := n.Config()
	cfg.Endpoints = append(cfg.Endpoints, Endpoint{Bind: 1, NSVCI: 102, Remote: s2})
	if !n.Reconfigure(cfg, time.Second) {
		t.Fatal("not applied")
	}
	// The existing NS-VC is kept, the new one is reset.
	if len(n.VCs()) != 2 || !n.Available() {
		t.Fatal("lost the existing NS-VC")
	}
	want(t, tx.take(), "020081010182006604820065")
	cfg.Endpoints = cfg.Endpoints[1:]
	n.Reconfigure(cfg, time.Second)
	if len(n.VCs()) != 1 || n.Available() {
		t.Fatal("old NS-VC not dropped")
	}
	cfg.NSEI = 5
	if n.Reconfigure(cfg, time.Second) {
		t.Fatal("NSEI change applied in place")
	}
}

// NS-STATUS "NS-VC blocked" while we think the NS-VC is unblocked (the peer
// missed our unblock or we missed its block): resynchronise with NS-RESET.
func TestStatusNSVCBlockedResets(t *testing.T) {
	n, tx, _ := bringUp(t)
	in(n, "08 008103 01820065", time.Second)
	want(t, tx.take(), hReset)
}

// After the NS-VC was declared dead and reset, the ALIVE retry count starts
// from zero again.
func TestAliveRetriesResetAfterReset(t *testing.T) {
	n, tx, _ := bringUp(t)
	base := 2 * time.Millisecond
	for i := 0; i <= 10; i++ {
		n.Tick(base + 30*time.Second + time.Duration(i)*3*time.Second)
	}
	out := tx.take()
	if out[len(out)-1] != hReset {
		t.Fatal(out)
	}
	now := base + 60*time.Second
	in(n, hResetAck, now)
	want(t, tx.take(), hUnblock, hAlive)
	in(n, hUnblkAck, now)
	n.Tick(now + 3*time.Second)
	want(t, tx.take(), hAlive)
	if !n.Available() {
		t.Fatal("declared dead on the first unanswered ALIVE")
	}
}

// TestOMBlock: `nsvc N block|unblock|reset` (TS 48.016 §7.2, §7.3):
// NS-BLOCK with cause O&M intervention repeated on Tns-block until
// acknowledged, no NS-UNITDATA while blocked, a peer's NS-UNBLOCK answered
// and the block repeated, a reset keeps the O&M block, unblock runs the
// unblock procedure; Block and Unblock say when there is nothing to do.
func TestOMBlock(t *testing.T) {
	n, tx, _ := bringUp(t)
	vc := n.VCByNSVCI(101)
	if vc == nil {
		t.Fatal("no NS-VC 101")
	}
	const hBlock = "04 008101 01820065" // NS-BLOCK, cause O&M intervention (0x01), NSVCI 101
	blk := strings.ReplaceAll(hBlock, " ", "")
	if err := vc.Block(time.Second); err != nil {
		t.Fatal(err)
	}
	want(t, noAlive(tx.take()), blk)
	if n.Available() {
		t.Fatal("available while blocked by O&M")
	}
	if err := vc.Block(time.Second); err != ErrAlready {
		t.Fatalf("second block: %v", err)
	}
	if err := n.SendUnitdata(1800, 1, []byte{1}); err != ErrNotAvailable {
		t.Fatalf("unitdata while blocked: %v", err)
	}
	n.Tick(time.Second + 3*time.Second) // Tns-block: repeated
	want(t, noAlive(tx.take()), blk)
	in(n, "05 01820065", 5*time.Second) // NS-BLOCK-ACK
	n.Tick(20 * time.Second)
	for _, s := range noAlive(tx.take()) {
		if s == blk {
			t.Fatal("NS-BLOCK repeated after its ACK")
		}
	}
	in(n, hUnblock, 21*time.Second) // the peer unblocks: acked, blocked again
	want(t, noAlive(tx.take()), hUnblkAck, blk)
	if n.Available() {
		t.Fatal("peer's unblock lifted the O&M block")
	}
	vc.Reset(22 * time.Second)
	want(t, noAlive(tx.take()), hReset)
	in(n, hResetAck, 22*time.Second)
	if got := noAlive(tx.take()); len(got) == 0 || got[0] != blk {
		t.Fatalf("after the reset: %v, want NS-BLOCK first", got)
	}
	if err := vc.Unblock(23 * time.Second); err != nil {
		t.Fatal(err)
	}
	want(t, noAlive(tx.take()), hUnblock)
	in(n, hUnblkAck, 23*time.Second)
	if !n.Available() {
		t.Fatal("not available after unblock")
	}
	if err := vc.Unblock(24 * time.Second); err != ErrAlready {
		t.Fatalf("second unblock: %v", err)
	}
}

// noAlive drops the test procedure's NS-ALIVEs from what was sent.
func noAlive(s []string) []string {
	var out []string
	for _, x := range s {
		if x != hAlive {
			out = append(out, x)
		}
	}
	return out
}
