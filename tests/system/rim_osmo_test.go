package system

import (
	"context"
	"encoding/hex"
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
	"github.com/gopcu/gopcu/internal/testutil/peertest"
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

// pcuStart starts one PCU in the namespace n, its PCU socket at
// dir/pcu_bts: osmo-pcu or gopcu, for the comparisons with osmo-pcu.
type pcuStart func(n *netnstest.NS, dir string)

// osmoPCU starts osmo-pcu (bin) with rimOsmoPCUConfig; its log goes into
// the test's output when the test fails.
func osmoPCU(t *testing.T, bin string) pcuStart {
	return func(n *netnstest.NS, dir string) {
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
}

// gopcuPCU starts gopcu's daemon.
func gopcuPCU(t *testing.T) pcuStart {
	return func(n *netnstest.NS, dir string) {
		newDaemonRig(t, nil, filepath.Join(dir, "pcu_bts"), "", n.ListenNS).run()
	}
}

// osmoRig is what surrounds the PCU in a comparison with osmo-pcu: a
// network namespace, a v10 BTS emulator and the SGSN emulator on
// 127.0.0.1:23000 inside the namespace.
type osmoRig struct {
	n   *netnstest.NS
	dir string
	bts *btsemu.BTS
	srv *sgsnemu.Server
	up  atomic.Bool // BVC 1800 unblocked
}

// listenOsmoRig starts the emulators; the SGSN emulator hands every BSSGP
// PDU it receives to pdu.
func listenOsmoRig(t *testing.T, pdu func(r *osmoRig, p bssgp.PDU)) *osmoRig {
	r := &osmoRig{n: netnstest.New(t), dir: t.TempDir()}
	r.bts = btstest.Listen(t, btsemu.Config{Path: filepath.Join(r.dir, "pcu_bts"), Version: pcuif.V10, Info: btsemu.DefaultInfo(pcuif.V10)})
	r.srv = peertest.SGSNIn(t, r.n, sgsnemu.Config{}, sgsnemu.Callbacks{
		PDU: func(bvci uint16, p bssgp.PDU, now time.Duration) { pdu(r, p) },
		BVCState: func(bvci uint16, unblocked bool, now time.Duration) {
			if bvci == 1800 && unblocked {
				r.up.Store(true)
			}
		},
	})
	return r
}

// start starts the PCU and waits until it has activated the BTS's PDCHs
// (then calls active, if not nil) and its BVC is unblocked.
func (r *osmoRig) start(t *testing.T, pcu pcuStart, active func()) {
	pcu(r.n, r.dir)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := r.bts.WaitActive(ctx, 4); err != nil {
		t.Fatal(err)
	}
	if active != nil {
		active()
	}
	testutil.Eventually(t, 15*time.Second, r.up.Load, "BVC not unblocked")
}

// rimExchange runs one PCU behind a v10 BTS emulator that broadcasts
// SI1/SI3/SI13 and the SGSN emulator, sends it every RIM request of reqs
// on the signalling BVC and returns, per request, what the PCU answered
// on BVCI 0 (hex, "" for nothing within 500 ms).
func rimExchange(t *testing.T, pcu pcuStart, reqs []*bssgp.RIM) []string {
	var mu sync.Mutex
	var got []string
	r := listenOsmoRig(t, func(r *osmoRig, p bssgp.PDU) {
		switch p.(type) {
		case *bssgp.RIM, *bssgp.Status:
			b, _ := bssgp.Marshal(p)
			mu.Lock()
			got = append(got, hex.EncodeToString(b))
			mu.Unlock()
		}
	})
	r.start(t, pcu, func() {
		for _, si := range bcchSI() {
			if err := r.bts.Send(&pcuif.Data{Kind: pcuif.TypeDataInd, SAPI: pcuif.SAPIBCCH, Payload: si}); err != nil {
				t.Fatal(err)
			}
		}
	})
	var answers []string
	for _, req := range reqs {
		mu.Lock()
		got = nil
		mu.Unlock()
		var err error
		r.srv.Do(func(s *sgsnemu.SGSN, now time.Duration) { err = s.SendPDU(0, req) })
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
	ref := rimExchange(t, osmoPCU(t, bin), reqs)
	ours := rimExchange(t, gopcuPCU(t), reqs)
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
