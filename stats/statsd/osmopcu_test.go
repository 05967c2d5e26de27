package statsd

import (
	"flag"
	"net/netip"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/gopcu/gopcu/bssgp/bss"
	"github.com/gopcu/gopcu/bssgp/ns/nse"
	"github.com/gopcu/gopcu/internal/ratectr"
	"github.com/gopcu/gopcu/internal/testutil"
	"github.com/gopcu/gopcu/internal/testutil/netnstest"
	"github.com/gopcu/gopcu/pcu"
)

var update = flag.Bool("update", false, "rewrite testdata/osmo-pcu-1.1.0.names from a live osmo-pcu")

const refFile = "testdata/osmo-pcu-1.1.0.names"

// osmoPCUConfig is osmo-pcu's TTCN-3 statsd reporter (osmo-ttcn3-hacks pcu/osmo-pcu.cfg)
// with `stats interval 1` so that osmo-pcu reports on its own.
const osmoPCUConfig = `log stderr
 logging filter all 1
 logging level set-all notice
line vty
 bind 127.0.0.1
stats interval 1
stats reporter statsd
 remote-ip 127.0.0.1
 remote-port 8125
 mtu 1024
 level subscriber
 prefix TTCN3
 flush-period 1
 enable
pcu
 pcu-socket pcu_bts
`

func readRef(t *testing.T) []string { return testutil.DataLines(t, refFile) }

// TestOsmoPCUReference runs Debian's osmo-pcu 1.1.0 in a private network
// namespace with the TTCN-3 statsd reporter and an emulated BTS, collects
// the metric lines it sends for a few seconds and compares their names
// (with the unit) with testdata; -update rewrites the file.
func TestOsmoPCUReference(t *testing.T) {
	t.Parallel() // each run has its own network namespace
	bin := testutil.NeedBinary(t, "osmo-pcu")
	if out, _ := exec.Command(bin, "-V").CombinedOutput(); !strings.Contains(string(out), "OsmoPCU version 1.1.0") {
		t.Skipf("needs osmo-pcu 1.1.0 (found %.40q)", out)
	}
	// osmo-pcu 1.1.0 allocates its BTS and Gb groups on the first INFO_IND
	// (PCUIF v10); with no BTS connected it has no group and sends nothing.
	o := newOsmoPCU(t, nil)
	ln := o.ln
	o.start(false)

	seen := map[string]bool{}
	b := make([]byte, 65536)
	deadline := time.Now().Add(4500 * time.Millisecond)
	pkts := 0
	for time.Now().Before(deadline) {
		ln.SetReadDeadline(deadline)
		n, err := ln.Read(b)
		if err != nil {
			break
		}
		pkts++
		if n > 1024-28-1 {
			t.Errorf("osmo-pcu datagram of %d bytes", n)
		}
		for l := range strings.SplitSeq(string(b[:n]), "\n") {
			i := strings.LastIndexByte(l, ':')
			j := strings.LastIndexByte(l, '|')
			if i < 0 || j < i {
				t.Fatalf("bad line %q", l)
			}
			seen[l[:i]+" "+l[j+1:]] = true
		}
	}
	if pkts == 0 {
		log, _ := os.ReadFile(filepath.Join(o.dir, "osmo-pcu.log"))
		t.Fatalf("osmo-pcu sent nothing; log:\n%s", log)
	}
	if *update {
		recordShowStats(t, o.ns)
	}
	got := make([]string, 0, len(seen))
	for k := range seen {
		got = append(got, k)
	}
	slices.Sort(got)
	if *update {
		hdr := "# Metric names and units osmo-pcu 1.1.0 (Debian) sends over statsd with the TTCN-3\n" +
			"# reporter config (prefix TTCN3, level subscriber, flush-period 1, mtu 1024), stats\n" +
			"# interval 1, after the INFO_IND (v10) of internal/emu/btsemu's DefaultInfo, no SGSN, no MS;\n" +
			"# recorded by TestOsmoPCUReference -update. (With no BTS connected at all osmo-pcu\n" +
			"# has no counter group yet and sends nothing.)\n"
		if err := os.WriteFile(refFile, []byte(hdr+strings.Join(got, "\n")+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	if want := readRef(t); !slices.Equal(got, want) {
		t.Errorf("osmo-pcu's names differ from %s:\n got %q\nwant %q", refFile, got, want)
	}
}

// engineRegistry builds the groups gopcu registers after the same
// INFO_IND (BTS 0, NSEI 101, BVCI 1800, NS-VC 0.0.0.0:23001 ->
// 127.0.0.1:23000): the PCU's from the packages' descriptor tables, the Gb
// groups (bssgp:bss_ctx, ns:nse, ns:nsvc) registered by a real Gb.
func engineRegistry() *ratectr.Registry {
	reg := &ratectr.Registry{}
	reg.Register(ratectr.NewGroup("bts", "BTS Statistics", 0, pcu.BTSCounterDescs))
	reg.Register(ratectr.NewGroup("pcu:sgsn", "SGSN Statistics", 0, pcu.SGSNCounterDescs))
	eps := nse.EndpointsFromInfoInd([]nse.InfoIndNSVC{{NSVCI: 101, LocalPort: 23001, RemotePort: 23000,
		AddrType: nse.InfoAddrIPv4, RemoteIP: [16]byte{127, 0, 0, 1}}})
	_, err := bss.New(bss.Config{NS: nse.Config{NSEI: 101, Endpoints: eps}, BVCI: 1800, Counters: reg},
		nse.TransportFunc(func(int, netip.AddrPort, []byte) error { return nil }), nil, nil)
	if err != nil {
		panic(err)
	}
	return reg
}

// engineItems are the stat items gopcu has today (pcu/bts.go msPresent).
var engineItems = []Item{{Group: "bts", Name: "ms.present"}}

// missingNames are what osmo-pcu sends and engineItems lack: the BTS's
// PDCH stat items and the NS stat items, which only a running engine makes
// (pcu.Engine.StatItems; the NS ones are checked by
// TestPagingCountersMatchOsmoPCU).
var missingNames = []string{
	"TTCN3.bts.0.pdch.available g", "TTCN3.bts.0.pdch.occupied g",
	"TTCN3.bts.0.pdch.occupied.egprs g", "TTCN3.bts.0.pdch.occupied.gprs g",
	"TTCN3.ns.bind.0.tx_backlog_length g",
	"TTCN3.ns.nsvc.NSE00101-NSVC-UDP-0_0_0_0.23001-127_0_0_1.23000.alive.delay g",
}

// TestNamesMatchOsmoPCU reports gopcu's groups with the TTCN-3 reporter
// and compares the metric names with osmo-pcu's reference list.
func TestNamesMatchOsmoPCU(t *testing.T) {
	r := New(ttcn3, engineRegistry(), func() []Item { return engineItems })
	c := &capture{}
	r.SetSender(c.send)
	r.Report(time.Time{})
	seen := map[string]bool{}
	for _, p := range c.take() {
		if len(p) > 1024-28-1 {
			t.Errorf("datagram of %d bytes", len(p))
		}
		for l := range strings.SplitSeq(p, "\n") {
			i := strings.LastIndexByte(l, ':')
			j := strings.LastIndexByte(l, '|')
			seen[l[:i]+" "+l[j+1:]] = true
		}
	}
	var missing []string
	for _, w := range readRef(t) {
		if seen[w] {
			delete(seen, w)
			continue
		}
		missing = append(missing, w)
	}
	var extra []string
	for k := range seen {
		extra = append(extra, k)
	}
	slices.Sort(extra)
	if len(extra) > 0 {
		t.Errorf("names osmo-pcu does not send: %q", extra)
	}
	if !slices.Equal(missing, missingNames) {
		t.Errorf("names gopcu does not send:\n got %q\nwant %q", missing, missingNames)
	}
}

// recordShowStats saves osmo-pcu's `show stats` (libosmocore
// vty_out_statistics_full2) as the format reference of stats.WriteShowStats.
func recordShowStats(t *testing.T, ns *netnstest.NS) {
	out := dialOsmoVTY(t, ns).cmd("show stats")
	if err := os.WriteFile("../testdata/osmo-pcu-1.1.0-show-stats.txt", []byte(strings.ReplaceAll(out, "\r\n", "\n")), 0o644); err != nil {
		t.Fatal(err)
	}
}
