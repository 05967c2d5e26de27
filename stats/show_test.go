package stats_test

import (
	"os"
	"strings"
	"testing"

	"github.com/gopcu/gopcu/bssgp/bss"
	"github.com/gopcu/gopcu/bssgp/ns/nse"
	"github.com/gopcu/gopcu/internal/ratectr"
	"github.com/gopcu/gopcu/pcu"
	"github.com/gopcu/gopcu/stats"
)

const nsvcName = "NSE00101-NSVC-UDP-0_0_0_0:23001-127_0_0_1:23000"

// refSetup rebuilds the state of osmo-pcu 1.1.0 when its `show stats` was
// recorded (stats/statsd TestOsmoPCUReference -update): one NS-RESET sent
// in the last minute and another in the last second, no SGSN answer.
func refSetup() ([]*ratectr.Group, []stats.Item, func(*ratectr.Group) string) {
	reg := &ratectr.Registry{}
	nsvc := ratectr.NewGroup("ns:nsvc", "NSVC Peer Statistics", 0, nse.CounterDescs)
	nsvc.IndexName = nsvcName
	nse := ratectr.NewGroup("ns:nse", "NSE Peer Statistics", 101, nse.CounterDescs)
	sgsn := ratectr.NewGroup("pcu:sgsn", "SGSN Statistics", 0, pcu.SGSNCounterDescs)
	bvc := ratectr.NewGroup("bssgp:bss_ctx", "BSSGP Peer Statistics", 1800, bss.CounterDescs)
	bts := ratectr.NewGroup("bts", "BTS Statistics", 0, pcu.BTSCounterDescs)
	groups := []*ratectr.Group{nsvc, nse, sgsn, bvc, bts} // libosmocore: newest first
	for _, g := range groups {
		reg.Register(g)
	}
	const pktsOut, bytesOut, lostReset = 1, 4, 14 // nse.CounterDescs indices
	for _, g := range []*ratectr.Group{nsvc, nse} {
		g.Inc(pktsOut)
		g.Add(bytesOut, 12)
	}
	for range 59 {
		reg.Tick()
	}
	for _, g := range []*ratectr.Group{nsvc, nse} {
		g.Inc(pktsOut)
		g.Add(bytesOut, 12)
		g.Inc(lostReset)
	}
	reg.Tick() // the 60th: per-second and per-minute rates
	items := []stats.Item{
		{Group: "ns.nsvc", IndexName: nsvcName, GroupDescription: "NSVC Peer Statistics", Name: "alive.delay",
			Description: "ALIVE response time        ", Unit: "ms"},
		{Group: "ns.bind", GroupDescription: "NS Bind Statistics", Name: "tx_backlog_length",
			Description: "Transmit backlog length", Unit: "packets"},
		{Group: "bts", GroupDescription: "BTS Statistics", Name: "ms.present", Description: "MS Present           "},
		{Group: "bts", GroupDescription: "BTS Statistics", Name: "pdch.available", Description: "PDCH available       ", Value: 4},
		{Group: "bts", GroupDescription: "BTS Statistics", Name: "pdch.occupied", Description: "PDCH occupied (all)  "},
		{Group: "bts", GroupDescription: "BTS Statistics", Name: "pdch.occupied.gprs", Description: "PDCH occupied (GPRS) "},
		{Group: "bts", GroupDescription: "BTS Statistics", Name: "pdch.occupied.egprs", Description: "PDCH occupied (EGPRS)"},
	}
	name := func(g *ratectr.Group) string {
		if g == nsvc {
			return nsvcName
		}
		return ""
	}
	return groups, items, name
}

// TestShowStatsTranscript reproduces osmo-pcu 1.1.0's `show stats` byte
// for byte.
func TestShowStatsTranscript(t *testing.T) {
	want, err := os.ReadFile("testdata/osmo-pcu-1.1.0-show-stats.txt")
	if err != nil {
		t.Fatal(err)
	}
	groups, items, _ := refSetup()
	var b strings.Builder
	stats.WriteShowStats(&b, groups, items, stats.ShowOptions{}) // the NS-VC group's own IndexName
	if got := b.String(); got != string(want) {
		gl, wl := strings.Split(got, "\n"), strings.Split(string(want), "\n")
		for i := range min(len(gl), len(wl)) {
			if gl[i] != wl[i] {
				t.Fatalf("line %d:\n got %q\nwant %q", i+1, gl[i], wl[i])
			}
		}
		t.Fatalf("got %d lines, want %d", len(gl), len(wl))
	}
}

func TestShowStatsLevelSkipZero(t *testing.T) {
	groups, items, name := refSetup()
	var b strings.Builder
	stats.WriteShowStats(&b, groups, items, stats.ShowOptions{MaxLevel: stats.ClassGlobal, SkipZero: true, GroupName: name})
	want := "Ungrouped counters:\n" +
		"BTS Statistics (0):\n" +
		"BTS Statistics (0):\n" +
		" PDCH available       :        4 \n"
	if got := b.String(); got != want {
		t.Fatalf("got\n%s\nwant\n%s", got, want)
	}
	b.Reset()
	stats.WriteShowStats(&b, groups, items, stats.ShowOptions{MaxLevel: stats.ClassPeer, SkipZero: true})
	if got := b.String(); !strings.Contains(got, "NSE Peer Statistics (101):\n Packets at NS Level  (Out):        2 (1/s 2/m 0/h 0/d)\n") ||
		strings.Contains(got, "SGSN") {
		t.Fatalf("level peer:\n%s", got)
	}
}
