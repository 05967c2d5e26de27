package system

import (
	"context"
	"errors"
	"net"
	"net/netip"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gopcu/gopcu/bssgp"
	"github.com/gopcu/gopcu/bssgp/ns/nsudp"
	"github.com/gopcu/gopcu/internal/app"
	"github.com/gopcu/gopcu/internal/emu/btsemu"
	"github.com/gopcu/gopcu/internal/emu/msemu"
	"github.com/gopcu/gopcu/internal/emu/sgsnemu"
	"github.com/gopcu/gopcu/internal/testutil"
	"github.com/gopcu/gopcu/internal/testutil/enginetest"
	"github.com/gopcu/gopcu/internal/testutil/netnstest"
	"github.com/gopcu/gopcu/internal/testutil/peertest"
	"github.com/gopcu/gopcu/pcu"
	"github.com/gopcu/gopcu/pcu/driver"
	"github.com/gopcu/gopcu/pcu/pcuif"
	"github.com/gopcu/gopcu/vty"
)

// The system-test rig: gopcu's engine in-process on the PCU socket of the
// BTS emulator (rig), with the MS emulator's cell and an in-process Gb
// (radioRig); or the whole gopcu daemon (internal/app, as cmd/gopcu runs
// it: config file, VTY, stats) with its real Gb stack against the SGSN
// emulator (gbRig) or in a test's network namespace (gbCell). Every
// engine of the system tests starts through newRig or newDaemonRig and
// run, and stops when the test ends.

// rig is one engine, or one daemon's, on a BTS emulator's PCU socket.
type rig struct {
	t      *testing.T
	path   string
	bts    *btsemu.BTS
	eng    *pcu.Engine
	d      *app.Daemon // nil: the engine alone
	cancel context.CancelFunc
	done   chan struct{}
}

// newRig makes the engine of cfg; the BTS emulator bts (nil: one the
// test closes itself) listens on cfg.SocketPath. The engine runs from run
// on.
func newRig(t *testing.T, bts *btsemu.BTS, cfg pcu.Config) *rig {
	return &rig{t: t, path: cfg.SocketPath, bts: bts, eng: pcu.New(cfg), done: make(chan struct{})}
}

// newDaemonRig makes gopcu's daemon on the BTS emulator bts, which
// listens on path, with the config file text cfg ("": none, the
// defaults) and its VTY on a free loopback port; listen opens its NS
// sockets (nil: on the host). The daemon runs from run on.
func newDaemonRig(t *testing.T, bts *btsemu.BTS, path, cfg string, listen func([]netip.AddrPort, func(nsudp.Datagram)) (*nsudp.UDP, error)) *rig {
	t.Helper()
	s := app.DefaultSettings()
	s.PCUSocket, s.SocketGiven = path, true
	s.VTYPort, s.VTYPortGiven = 0, true
	if cfg != "" {
		s.ConfigFile, s.ConfigGiven = filepath.Join(t.TempDir(), "osmo-pcu.cfg"), true
		if err := os.WriteFile(s.ConfigFile, []byte(cfg), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	d, err := app.New(s, app.Options{ListenUDP: listen})
	if err != nil {
		t.Fatal(err)
	}
	return &rig{t: t, path: path, bts: bts, eng: d.Engine(), d: d, done: make(chan struct{})}
}

// run starts the engine (or the daemon); it stops, and the BTS emulator
// closes, when the test ends.
func (r *rig) run() *rig {
	ctx, cancel := context.WithCancel(context.Background())
	r.cancel = cancel
	go func() {
		defer close(r.done)
		if r.d == nil {
			driver.Run(ctx, r.eng, driver.Options{})
			return
		}
		if err := r.d.Run(ctx); err != nil && !errors.Is(err, context.Canceled) {
			r.t.Errorf("gopcu: %v", err)
		}
	}()
	r.t.Cleanup(r.stop)
	return r
}

// vtySession opens a session on the daemon's VTY, as a telnet
// connection does (its commands run through Daemon.Exec); run feeds one
// command and returns its output without the echo and the prompt. The
// session ends with the test.
func (r *rig) vtySession() (run func(cmd string) string) {
	s := r.d.VTY().NewSession(vty.ExecutorFunc(r.d.Exec).Do)
	r.t.Cleanup(s.Release)
	s.Start()
	return func(cmd string) string {
		out := string(s.Feed([]byte(cmd + "\r")))
		out = strings.TrimPrefix(out, cmd+"\r\n")
		if i := strings.LastIndex(out, "OsmoPCU"); i >= 0 {
			out = out[:i]
		}
		return out
	}
}

// startRig runs the engine (pinned to version pin, if set) on a BTS
// emulator speaking v.
func startRig(t *testing.T, v pcuif.Version, pin pcuif.Version) *rig {
	t.Helper()
	path := filepath.Join(t.TempDir(), "pcu_bts")
	bts, err := btsemu.Listen(btsemu.Config{Path: path, Version: v})
	if err != nil {
		t.Fatal(err)
	}
	return newRig(t, bts, pcu.Config{SocketPath: path, PinVersion: pin, MinBackoff: 20 * time.Millisecond, MaxBackoff: 200 * time.Millisecond}).run()
}

func (r *rig) stop() {
	r.cancel()
	<-r.done
	if r.bts != nil {
		r.bts.Close()
	}
}

func (r *rig) waitActive(n int) {
	r.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := r.bts.WaitActive(ctx, n); err != nil {
		r.t.Fatal(err)
	}
}

// fakeGb records what the engine sends towards the SGSN.
type fakeGb struct {
	mu        sync.Mutex
	ul        map[uint32][][]byte
	discarded int
}

func (g *fakeGb) ULUnitdata(bts uint8, tlli uint32, llc []byte) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.ul == nil {
		g.ul = map[uint32][][]byte{}
	}
	g.ul[tlli] = append(g.ul[tlli], append([]byte(nil), llc...)) // llc is lent (pcu.Gb)
}

func (g *fakeGb) LLCDiscarded(bts uint8, tlli uint32, frames uint8, octets uint32) {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.discarded += int(frames)
}

func (g *fakeGb) frames(tlli uint32) [][]byte {
	g.mu.Lock()
	defer g.mu.Unlock()
	return append([][]byte(nil), g.ul[tlli]...)
}

type radioRig struct {
	*rig
	gb   *fakeGb
	cell *msemu.Cell
}

// engineVTY is enginetest.VTY on the rig's engine.
func (r *radioRig) engineVTY(setParams bool, mod func(*pcu.Params)) *vty.Session {
	return enginetest.VTY(r.eng, setParams, mod)
}

// step runs one radio block of the cell; an emulator error fails the test.
func (r *radioRig) step(t *testing.T) {
	t.Helper()
	if err := r.cell.Step(context.Background()); err != nil {
		t.Fatal(err)
	}
}

func startRadio(t *testing.T, v pcuif.Version, params *pcu.Params, seed int64) *radioRig {
	t.Helper()
	return startRadioVersion(t, v, btsemu.DefaultInfo(v), params, seed, 4)
}

// startEGPRSRadio is startRadio with a BTS that allows CS-1..4 and
// MCS-1..9 (PCUIF v12).
func startEGPRSRadio(t *testing.T, params *pcu.Params, seed int64) *radioRig {
	t.Helper()
	info := btsemu.DefaultInfo(pcuif.V12)
	for n := 1; n <= 9; n++ {
		info.Flags |= pcuif.FlagMCS(n)
	}
	return startRadioInfo(t, info, params, seed, 4)
}

// startRadioInfo is startRadio with the BTS's INFO_IND given; it waits for
// pdchs active PDCHs.
func startRadioInfo(t *testing.T, info *pcuif.InfoInd, params *pcu.Params, seed int64, pdchs int) *radioRig {
	t.Helper()
	return startRadioVersion(t, pcuif.V12, info, params, seed, pdchs)
}

// startRadioVersion starts the BTS emulator speaking v with info, the
// engine and the MS emulator cell.
func startRadioVersion(t *testing.T, v pcuif.Version, info *pcuif.InfoInd, params *pcu.Params, seed int64, pdchs int) *radioRig {
	t.Helper()
	return startRadioConfig(t, v, info, pcu.Config{MinBackoff: 20 * time.Millisecond, Params: params, GSMTAP: dialGSMTAP(t, params)}, seed, pdchs)
}

// startRadioConfig is startRadioVersion with the engine's configuration
// given (its SocketPath is the BTS emulator's).
func startRadioConfig(t *testing.T, v pcuif.Version, info *pcuif.InfoInd, cfg pcu.Config, seed int64, pdchs int) *radioRig {
	t.Helper()
	cfg.SocketPath = filepath.Join(t.TempDir(), "pcu_bts")
	bts, err := btsemu.Listen(btsemu.Config{Path: cfg.SocketPath, Version: v, Info: info})
	if err != nil {
		t.Fatal(err)
	}
	gb := &fakeGb{}
	r := newRig(t, bts, cfg)
	r.eng.SetGb(gb)
	r.run().waitActive(pdchs)
	return &radioRig{rig: r, gb: gb, cell: msemu.NewCell(bts, seed)}
}

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
	sg := peertest.SGSN(t, sgsnemu.Config{}, sgsnemu.Callbacks{
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
	g.sgsn = sg
	path := filepath.Join(t.TempDir(), "pcu_bts")
	info := btsemu.DefaultInfo(v)
	info.SetRemote(0, 101, freeUDPPort(t), sg.Addr())
	bts, err := btsemu.Listen(btsemu.Config{Path: path, Version: v, Info: info})
	if err != nil {
		t.Fatal(err)
	}
	r := newDaemonRig(t, bts, path, "", nil).run()
	eng := r.eng
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

// gbCell is one gopcu with its BTS emulator, Gb in the test's namespace.
type gbCell struct {
	bts *btsemu.BTS
	eng *pcu.Engine
	r   *rig
}

// startGbCell runs gopcu's daemon with the config file text cfg on a BTS
// emulator (dir/name) sending info, its NS sockets in n.
func startGbCell(t *testing.T, n *netnstest.NS, dir, name string, info *pcuif.InfoInd, cfg string) *gbCell {
	t.Helper()
	path := filepath.Join(dir, name)
	bts, err := btsemu.Listen(btsemu.Config{Path: path, Version: info.Version, Info: info})
	if err != nil {
		t.Fatal(err)
	}
	r := newDaemonRig(t, bts, path, cfg, n.ListenNS).run()
	r.waitActive(4)
	return &gbCell{bts: bts, eng: r.eng, r: r}
}

func (c *gbCell) waitGb(t *testing.T) {
	t.Helper()
	testutil.Eventually(t, 15*time.Second, func() bool {
		var up bool
		c.eng.Call(func() { up = c.eng.GbUp() })
		return up
	}, "BVC not unblocked by osmo-sgsn")
}

// startOsmoSGSN runs Debian's osmo-sgsn with the lab's config
// (tests/lab/configs/osmo-sgsn.cfg) in a new network namespace of the
// test; its log goes into the test's output when the test fails.
func startOsmoSGSN(t *testing.T) (*netnstest.NS, string) {
	t.Helper()
	testutil.NeedBinaries(t, "osmo-sgsn")
	n := netnstest.New(t)
	dir := t.TempDir()
	cfgText, err := os.ReadFile("../lab/configs/osmo-sgsn.cfg")
	if err != nil {
		t.Fatal(err)
	}
	cfgPath := filepath.Join(dir, "osmo-sgsn.cfg")
	if err := os.WriteFile(cfgPath, cfgText, 0o644); err != nil {
		t.Fatal(err)
	}
	n.Start(dir, "osmo-sgsn.log", "osmo-sgsn", "-c", cfgPath)
	t.Cleanup(func() {
		if t.Failed() {
			b, _ := os.ReadFile(filepath.Join(dir, "osmo-sgsn.log"))
			t.Logf("osmo-sgsn.log:\n%s", b)
		}
	})
	return n, dir
}
