package system

import (
	"context"
	"encoding/hex"
	"net/netip"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gopcu/gopcu/bssgp"
	"github.com/gopcu/gopcu/internal/emu/btsemu"
	"github.com/gopcu/gopcu/internal/emu/sgsnemu"
	"github.com/gopcu/gopcu/internal/testutil"
	"github.com/gopcu/gopcu/internal/testutil/btstest"
	"github.com/gopcu/gopcu/internal/testutil/netnstest"
	"github.com/gopcu/gopcu/pcu/pcuif"
)

const rimOsmoPCUConfig = `log stderr
 logging filter all 1
 logging level set-all notice
 logging level rim info
line vty
 bind 127.0.0.1
pcu
 pcu-socket pcu_bts
`

// startOsmoPCU starts osmo-pcu (bin) in n with rimOsmoPCUConfig in dir; its
// log goes into the test's output when the test fails.
func startOsmoPCU(t *testing.T, bin string, n *netnstest.NS, dir string) {
	if err := os.WriteFile(filepath.Join(dir, "osmo-pcu.cfg"), []byte(rimOsmoPCUConfig), 0o644); err != nil {
		t.Fatal(err)
	}
	n.Start(dir, "osmo-pcu.log", bin, "-c", "osmo-pcu.cfg")
	t.Cleanup(func() {
		if t.Failed() {
			b, _ := os.ReadFile(filepath.Join(dir, "osmo-pcu.log"))
			t.Logf("osmo-pcu.log:\n%s", b)
		}
	})
}

// rimExchange runs one PCU (start) behind a v10 BTS emulator that
// broadcasts SI1/SI3/SI13 and the SGSN emulator, sends it every RIM
// request of reqs on the signalling BVC and returns, per request, what the
// PCU answered on BVCI 0 (hex, "" for nothing within 500 ms).
func rimExchange(t *testing.T, start func(n *netnstest.NS, dir string, bts *btsemu.BTS), reqs []*bssgp.RIM) []string {
	n := netnstest.New(t)
	dir := t.TempDir()
	info := btsemu.DefaultInfo(pcuif.V10)
	bts := btstest.Listen(t, btsemu.Config{Path: filepath.Join(dir, "pcu_bts"), Version: pcuif.V10, Info: info})
	var mu sync.Mutex
	var got []string
	var up atomic.Bool
	var srv *sgsnemu.Server
	if err := n.Do(func() (err error) {
		srv, err = sgsnemu.Listen(netip.MustParseAddrPort("127.0.0.1:23000"), sgsnemu.Config{}, sgsnemu.Callbacks{
			PDU: func(bvci uint16, p bssgp.PDU, now time.Duration) {
				switch p.(type) {
				case *bssgp.RIM, *bssgp.Status:
					b, _ := bssgp.Marshal(p)
					mu.Lock()
					got = append(got, hex.EncodeToString(b))
					mu.Unlock()
				}
			},
			BVCState: func(bvci uint16, unblocked bool, now time.Duration) {
				if bvci == 1800 && unblocked {
					up.Store(true)
				}
			},
		})
		return err
	}); err != nil {
		t.Fatal(err)
	}
	start(n, dir, bts)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := bts.WaitActive(ctx, 4); err != nil {
		t.Fatal(err)
	}
	for _, si := range bcchSI() {
		if err := bts.Send(&pcuif.Data{Kind: pcuif.TypeDataInd, SAPI: pcuif.SAPIBCCH, Payload: si}); err != nil {
			t.Fatal(err)
		}
	}
	testutil.Eventually(t, 15*time.Second, up.Load, "BVC not unblocked")
	var answers []string
	for _, r := range reqs {
		mu.Lock()
		got = nil
		mu.Unlock()
		var err error
		srv.Do(func(s *sgsnemu.SGSN, now time.Duration) { err = s.SendPDU(0, r) })
		if err != nil {
			t.Fatal(err)
		}
		var a string
		testutil.Poll(500*time.Millisecond, func() bool { // no answer is an answer too
			mu.Lock()
			defer mu.Unlock()
			a = strings.Join(got, " ")
			return a != ""
		})
		answers = append(answers, a)
	}
	return answers
}

// TestRIMServerMatchesOsmoPCU: the same RAN-INFORMATION-REQUESTs (valid,
// wrong reporting cell, another application with and without container,
// unknown destination, UTRAN destination) get the same answers, octet for
// octet, from gopcu and Debian's osmo-pcu 1.1.0.
func TestRIMServerMatchesOsmoPCU(t *testing.T) {
	bin := testutil.NeedBinary(t, "osmo-pcu")
	serving := bssgp.CellID{RAI: bssgp.RAI{MCC: 901, MNC: 70, LAC: 1}, CI: 6969}
	geran := func(c bssgp.CellID) bssgp.RIMRoutingInfo {
		return bssgp.RIMRoutingInfo{Discr: bssgp.RIMRoutingGERAN, Cell: c}
	}
	reqs := []*bssgp.RIM{
		rimReq(geran(serving), geran(naccTarget), bssgp.RIMAppNACC, &serving),
		rimReq(geran(serving), geran(naccTarget), bssgp.RIMAppNACC, &naccTarget),
		rimReq(geran(serving), geran(naccTarget), bssgp.RIMAppSI3, nil),
		rimReq(geran(serving), geran(naccTarget), bssgp.RIMAppSI3, &serving),
		rimReq(geran(naccTarget), geran(serving), bssgp.RIMAppNACC, &naccTarget),
		rimReq(bssgp.RIMRoutingInfo{Discr: bssgp.RIMRoutingUTRAN, Cell: serving}, geran(naccTarget), bssgp.RIMAppNACC, &serving),
	}
	names := []string{"valid", "wrong reporting cell", "SI3 app, no container", "SI3 app with container", "unknown destination", "UTRAN destination"}
	ref := rimExchange(t, func(n *netnstest.NS, dir string, bts *btsemu.BTS) { startOsmoPCU(t, bin, n, dir) }, reqs)
	ours := rimExchange(t, func(n *netnstest.NS, dir string, bts *btsemu.BTS) {
		newDaemonRig(t, nil, filepath.Join(dir, "pcu_bts"), "", n.ListenNS).run()
	}, reqs)
	for i := range reqs {
		t.Logf("%s: osmo-pcu %q", names[i], ref[i])
		if ref[i] != ours[i] {
			t.Errorf("%s:\nosmo-pcu %s\ngopcu    %s", names[i], ref[i], ours[i])
		}
	}
}

// bcchSI are SI1, SI3 and SI13 as the BTS sends them on BCCH: L2 pseudo
// length (SI13: 0, its content is in the rest octets), PD, then the
// 21 octets RIM carries.
func bcchSI() [][]byte {
	return [][]byte{append([]byte{0x55, 0x06}, naccSI1...), append([]byte{0x49, 0x06}, naccSI3...), append([]byte{0x01, 0x06}, naccSI13...)}
}
