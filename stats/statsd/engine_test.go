package statsd

import (
	"context"
	"net"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/gopcu/gopcu/internal/emu/btsemu"
	"github.com/gopcu/gopcu/internal/testutil"
	"github.com/gopcu/gopcu/internal/testutil/btstest"
	"github.com/gopcu/gopcu/internal/testutil/netnstest"
	"github.com/gopcu/gopcu/pcu"
	"github.com/gopcu/gopcu/pcu/driver"
	"github.com/gopcu/gopcu/pcu/pcuif"
)

// runEngine runs eng under its driver until the test ends.
func runEngine(t *testing.T, eng *pcu.Engine, o driver.Options) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { driver.Run(ctx, eng, o); close(done) }()
	t.Cleanup(func() { cancel(); <-done })
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
