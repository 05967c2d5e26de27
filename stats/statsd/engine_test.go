package statsd

import (
	"net"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/gopcu/gopcu/internal/emu/btsemu"
	"github.com/gopcu/gopcu/internal/ratectr"
	"github.com/gopcu/gopcu/internal/testutil"
	"github.com/gopcu/gopcu/internal/testutil/btstest"
	"github.com/gopcu/gopcu/internal/testutil/enginetest"
	"github.com/gopcu/gopcu/internal/testutil/netnstest"
	"github.com/gopcu/gopcu/pcu"
	"github.com/gopcu/gopcu/pcu/driver"
	"github.com/gopcu/gopcu/pcu/pcuif"
)

// gopcuStatsd is gopcu's engine under its driver behind the BTS emulator
// (btsemu.Config's Path set here), with the TTCN-3 statsd reporter over
// its counters sending into a capture.
type gopcuStatsd struct {
	eng *pcu.Engine
	bts *btsemu.BTS
	r   *Reporter
	c   *capture
}

// startGopcu starts the BTS emulator (bc) and the engine (cfg with its
// socket path, back-off and counter registry set here; o for its driver),
// and sends the reporter's start-up flush; items are the reporter's stat
// items (nil: none).
func startGopcu(t *testing.T, bc btsemu.Config, cfg pcu.Config, o driver.Options, items func() []Item) *gopcuStatsd {
	t.Helper()
	bc.Path = filepath.Join(t.TempDir(), "pcu_bts")
	g := &gopcuStatsd{bts: btstest.Listen(t, bc), c: &capture{}}
	cfg.SocketPath, cfg.MinBackoff, cfg.Counters = bc.Path, 20*time.Millisecond, &ratectr.Registry{}
	g.eng = pcu.New(cfg)
	enginetest.Run(t, g.eng, o)
	g.r = New(ttcn3, cfg.Counters, items)
	g.r.SetSender(g.c.send)
	g.r.Report(time.Now()) // the start-up flush, before the script
	return g
}

// report reports once everything posted to the engine before is handled.
func (g *gopcuStatsd) report() {
	g.eng.Call(func() {})
	g.r.Report(time.Now())
}

// counters reports and sums the counter deltas since the last report.
func (g *gopcuStatsd) counters() map[string]int64 {
	g.report()
	return sumCounters(g.c.take(), "TTCN3.")
}

// osmoPCU is Debian's osmo-pcu in a network namespace of its own, with
// the TTCN-3 statsd reporter config (osmoPCUConfig, then cmds in its pcu
// node), the statsd listener ln in that namespace and the BTS emulator
// (PCUIF v10, info or its default INFO_IND) on its PCU socket. Start it
// with start once what it should find (an SGSN emulator in ns) is there.
type osmoPCU struct {
	ns   *netnstest.NS
	ln   *net.UDPConn
	bts  *btsemu.BTS
	dir  string
	bin  string
	pkts <-chan string
}

func newOsmoPCU(t *testing.T, info *pcuif.InfoInd, cmds ...string) *osmoPCU {
	t.Helper()
	bin := testutil.NeedBinary(t, "osmo-pcu")
	o := &osmoPCU{ns: netnstest.New(t), dir: t.TempDir(), bin: bin}
	if err := o.ns.Do(func() (err error) {
		o.ln, err = net.ListenUDP("udp", &net.UDPAddr{IP: net.IPv4(127, 0, 0, 1), Port: DefaultPort})
		return err
	}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { o.ln.Close() })
	if err := os.WriteFile(filepath.Join(o.dir, "osmo-pcu.cfg"), []byte(osmoPCUConfig+pcuLines(cmds)), 0o644); err != nil {
		t.Fatal(err)
	}
	o.bts = btstest.Listen(t, btsemu.Config{Path: filepath.Join(o.dir, "pcu_bts"), Version: pcuif.V10, Info: info})
	return o
}

// start runs osmo-pcu; with collect, counters gathers what it reports.
func (o *osmoPCU) start(collect bool) {
	if collect {
		o.pkts = readPackets(o.ln)
	}
	o.ns.Start(o.dir, "osmo-pcu.log", o.bin, "-c", "osmo-pcu.cfg")
}

// counters waits for two more reports (stats interval 1), stops listening
// and sums the counter deltas osmo-pcu sent since start.
func (o *osmoPCU) counters() map[string]int64 {
	time.Sleep(2200 * time.Millisecond) // osmo-pcu's stats timer runs in real time: two intervals, on purpose
	o.ln.Close()
	var all []string
	for p := range o.pkts {
		all = append(all, p)
	}
	return sumCounters(all, "TTCN3.")
}
