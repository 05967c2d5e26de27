package system

import (
	"bytes"
	"context"
	"net"
	"net/netip"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/gopcu/gopcu/bssgp"
	"github.com/gopcu/gopcu/internal/testutil"
	"github.com/gopcu/gopcu/pcu"
	"github.com/gopcu/gopcu/pcu/pcuif"
	"github.com/gopcu/gopcu/tests/btsemu"
	"github.com/gopcu/gopcu/tests/msemu"
	"github.com/gopcu/gopcu/tests/sgsnemu"
)

// freeUDPPort returns a UDP port on 127.0.0.1 that was free a moment ago.
func freeUDPPort(t *testing.T) uint16 {
	c, err := net.ListenUDP("udp4", &net.UDPAddr{IP: net.IPv4(127, 0, 0, 1)})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	return uint16(c.LocalAddr().(*net.UDPAddr).Port)
}

type gbRig struct {
	*radioRig
	sgsn *sgsnemu.Server
	mu   sync.Mutex
	ul   map[uint32][][]byte
	up   bool
	fcms map[uint32]*bssgp.FlowControlMS
	// sgsnPDU, if set, sees every other PDU the SGSN emulator receives.
	sgsnPDU func(bssgp.PDU)
}

func (g *gbRig) ulFrames(tlli uint32) [][]byte {
	g.mu.Lock()
	defer g.mu.Unlock()
	return append([][]byte(nil), g.ul[tlli]...)
}

// startGb runs gopcu with its real Gb stack against the SGSN emulator, both
// on loopback, and the BTS and MS emulators on the radio side.
func startGb(t *testing.T, v pcuif.Version) *gbRig {
	t.Helper()
	g := &gbRig{ul: map[uint32][][]byte{}, fcms: map[uint32]*bssgp.FlowControlMS{}}
	sg, err := sgsnemu.Listen(netip.MustParseAddrPort("127.0.0.1:0"), sgsnemu.Config{}, sgsnemu.Callbacks{
		ULUnitdata: func(bvci uint16, ul *bssgp.ULUnitdata, now time.Duration) {
			g.mu.Lock()
			g.ul[ul.TLLI] = append(g.ul[ul.TLLI], append([]byte(nil), ul.LLC...))
			g.mu.Unlock()
		},
		PDU: func(bvci uint16, p bssgp.PDU, now time.Duration) {
			if f, ok := p.(*bssgp.FlowControlMS); ok {
				g.mu.Lock()
				c := *f
				g.fcms[f.TLLI] = &c
				g.mu.Unlock()
			}
			g.mu.Lock()
			f := g.sgsnPDU
			g.mu.Unlock()
			if f != nil {
				f(p)
			}
		},
		BVCState: func(bvci uint16, unblocked bool, now time.Duration) {
			if bvci == 1800 {
				g.mu.Lock()
				g.up = unblocked
				g.mu.Unlock()
			}
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { sg.Close() })
	g.sgsn = sg
	path := filepath.Join(t.TempDir(), "pcu_bts")
	info := btsemu.DefaultInfo(v)
	info.SetRemote(0, 101, freeUDPPort(t), sg.Addr())
	bts, err := btsemu.Listen(btsemu.Config{Path: path, Version: v, Info: info})
	if err != nil {
		t.Fatal(err)
	}
	eng := pcu.New(pcu.Config{SocketPath: path, Gb: true})
	ctx, cancel := context.WithCancel(context.Background())
	r := &rig{t: t, path: path, bts: bts, eng: eng, cancel: cancel, done: make(chan struct{})}
	go func() { eng.Run(ctx); close(r.done) }()
	t.Cleanup(r.stop)
	r.waitActive(4)
	g.radioRig = &radioRig{rig: r, cell: msemu.NewCell(bts, 9)}
	testutil.Eventually(t, 5*time.Second, func() bool {
		g.mu.Lock()
		up := g.up
		g.mu.Unlock()
		var engUp bool
		eng.Call(func() { engUp = eng.GbUp() })
		return up && engUp
	}, "NS/BVC not up")
	return g
}

// TestGbEndToEnd: NS and BVC come up against the SGSN emulator; a
// DL-UNITDATA reaches the MS over the radio, and the MS's uplink frames
// reach the SGSN as UL-UNITDATA.
func TestGbEndToEnd(t *testing.T) {
	for _, v := range []pcuif.Version{pcuif.V10, pcuif.V12} {
		t.Run(v.String(), func(t *testing.T) {
			g := startGb(t, v)
			ms := g.cell.AddMS(0xc0002001, "901700000002001", 12)
			var got [][]byte
			ms.OnLLC = func(f []byte) { got = append(got, f) }
			dl := [][]byte{llcFrame(1, 300), llcFrame(2, 1200)}
			for _, f := range dl {
				if err := g.sgsn.SendDLUnitdata(1800, ms.TLLI, ms.IMSI, f); err != nil {
					t.Fatal(err)
				}
			}
			ul := [][]byte{llcFrame(3, 80), llcFrame(4, 700)}
			ctx := context.Background()
			for s := 0; s < 3000 && len(got) < len(dl); s++ {
				if err := g.cell.Step(ctx); err != nil {
					t.Fatal(err)
				}
				if s < 10 {
					time.Sleep(time.Millisecond) // let the DL-UNITDATAs arrive from the socket
				}
			}
			for _, f := range ul {
				ms.SendLLC(f)
			}
			for s := 0; s < 3000 && len(g.ulFrames(ms.TLLI)) < len(ul); s++ {
				if err := g.cell.Step(ctx); err != nil {
					t.Fatal(err)
				}
			}
			if len(got) != len(dl) || !bytes.Equal(got[0], dl[0]) || !bytes.Equal(got[1], dl[1]) {
				t.Fatalf("MS got %d DL frames", len(got))
			}
			gu := g.ulFrames(ms.TLLI)
			if len(gu) != len(ul) || !bytes.Equal(gu[0], ul[0]) || !bytes.Equal(gu[1], ul[1]) {
				t.Fatalf("SGSN got %d UL frames", len(gu))
			}
		})
	}
}

// TestFlowControlMS: while an MS has a DL TBF, gopcu sends FLOW-CONTROL-MS
// for it every flow-control interval (osmo-pcu never does), sized from its
// drain rate: CS-2 on 4 slots = 6000 octets/s = 480 x 100 bit/s (more
// after link adaptation), bucket = one CoDel interval (4 s) of it plus one
// LLC PDU.
func TestFlowControlMS(t *testing.T) {
	g := startGb(t, pcuif.V12)
	ms := g.cell.AddMS(0xc0002002, "901700000002002", 12)
	g.sgsn.SetMSRAC(ms.TLLI, sgsnemu.MultislotRAC(12))
	for i := 0; i < 60; i++ {
		if err := g.sgsn.SendDLUnitdata(1800, ms.TLLI, ms.IMSI, llcFrame(i, 1500)); err != nil {
			t.Fatal(err)
		}
	}
	ctx := context.Background()
	deadline := time.Now().Add(4 * time.Second)
	for time.Now().Before(deadline) {
		g.mu.Lock()
		f := g.fcms[ms.TLLI]
		g.mu.Unlock()
		if f != nil {
			// CS-2, -3 or -4 on 4 slots (link adaptation may have moved up)
			if f.LeakRate != 480 && f.LeakRate != 576 && f.LeakRate != 800 {
				t.Fatalf("leak rate %d x 100 bit/s, want 480/576/800", f.LeakRate)
			}
			rate := int(f.LeakRate) * 100 / 8
			want := (rate*4 + 1543) / 100
			if d := int(f.BucketSize) - want; d < -2 || d > 2 {
				t.Fatalf("bucket %d x 100 octets, want about %d", f.BucketSize, want)
			}
			return
		}
		if err := g.cell.Step(ctx); err != nil {
			t.Fatal(err)
		}
		time.Sleep(2 * time.Millisecond)
	}
	t.Fatal("no FLOW-CONTROL-MS within 4 s")
}
