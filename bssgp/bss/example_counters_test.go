package bss_test

import (
	"fmt"
	"net/netip"
	"time"

	"github.com/gopcu/gopcu/bssgp"
	"github.com/gopcu/gopcu/bssgp/bss"
	"github.com/gopcu/gopcu/bssgp/ns"
	"github.com/gopcu/gopcu/bssgp/ns/nse"
	"github.com/gopcu/gopcu/stats/counter"
)

// myCounters is another program's counter store: it only keeps the
// totals, by group and counter name.
type myCounters struct{ totals map[string]uint64 }

type myGroup struct {
	c    *myCounters
	spec counter.GroupSpec
}

func (r *myCounters) NewGroup(s counter.GroupSpec) counter.Group { return &myGroup{c: r, spec: s} }
func (r *myCounters) Free(counter.Group)                         {}

func (g *myGroup) Inc(i int) { g.Add(i, 1) }
func (g *myGroup) Add(i int, n uint64) {
	g.c.totals[fmt.Sprintf("%s.%d.%s", g.spec.Name, g.spec.Index, g.spec.Descs[i].Name)] += n
}

// Example_counters passes the Gb a counter.Registry of its own (nil would
// turn the counters off), brings the BVCs up against a scripted SGSN and
// sends one UL-UNITDATA.
func Example_counters() {
	sgsn := netip.MustParseAddrPort("192.0.2.1:23000")
	ctrs := &myCounters{totals: map[string]uint64{}}
	cfg := bss.Config{
		NS:       nse.Config{NSEI: 101, Endpoints: []nse.Endpoint{{NSVCI: 101, Remote: sgsn}}},
		BVCI:     1800,
		CellID:   bssgp.CellID{RAI: bssgp.RAI{MCC: 901, MNC: 70, LAC: 1}, CI: 6969},
		Counters: ctrs,
	}
	drop := nse.TransportFunc(func(int, netip.AddrPort, []byte) error { return nil })
	gb, err := bss.New(cfg, drop, nil, nil)
	if err != nil {
		panic(err)
	}
	gb.Start(0)
	in := func(p ns.PDU) {
		b, _ := ns.Marshal(p)
		gb.Input(0, sgsn, b, time.Millisecond)
	}
	bvc := func(bvci uint16, p bssgp.PDU) {
		b, _ := bssgp.Marshal(p)
		in(&ns.Unitdata{BVCI: bvci, SDU: b})
	}
	in(&ns.ResetAck{NSVCI: 101, NSEI: 101})
	in(&ns.UnblockAck{})
	bvc(0, &bssgp.BVCResetAck{BVCI: 0})
	bvc(0, &bssgp.BVCResetAck{BVCI: 1800})
	bvc(0, &bssgp.BVCUnblockAck{BVCI: 1800})
	_ = gb.SendULUnitdata(0xc0001234, []byte{0x01, 0xc0, 0x01}, time.Second)
	fmt.Println("BVC unblocked:", gb.Unblocked())
	fmt.Println("bssgp:bss_ctx.1800.packets:out =", ctrs.totals["bssgp:bss_ctx.1800.packets:out"])
	fmt.Println("ns:nse.101.packets:in =", ctrs.totals["ns:nse.101.packets:in"])
	// Output:
	// BVC unblocked: true
	// bssgp:bss_ctx.1800.packets:out = 1
	// ns:nse.101.packets:in = 5
}
