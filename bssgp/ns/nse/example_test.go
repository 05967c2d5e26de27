package nse_test

import (
	"fmt"
	"net/netip"
	"time"

	"github.com/gopcu/gopcu/bssgp/ns"
	"github.com/gopcu/gopcu/bssgp/ns/nse"
)

type upcalls struct{}

func (upcalls) NSUnitdata(bvci uint16, sdu []byte, now time.Duration) {
	fmt.Printf("BSSGP PDU on BVCI %d: % x\n", bvci, sdu)
}
func (upcalls) NSAvailable(up bool, now time.Duration) { fmt.Println("NSE available:", up) }

// Example runs a classic NSE without sockets and without counters
// (Config.Counters nil): its datagrams go to a function, the SGSN's
// answers come in through Input, the time is whatever the caller says.
func Example() {
	sgsn := netip.MustParseAddrPort("192.0.2.1:23000")
	send := func(bind int, to netip.AddrPort, b []byte) error {
		p, err := ns.Parse(b)
		if err != nil {
			return err
		}
		fmt.Printf("sent %v to %v\n", p.Type(), to)
		return nil
	}
	n, err := nse.NewNSE(nse.Config{NSEI: 101, Endpoints: []nse.Endpoint{{NSVCI: 101, Remote: sgsn}}},
		nse.TransportFunc(send), upcalls{}, nil)
	if err != nil {
		panic(err)
	}
	n.Start(0) // NS-RESET
	answer := func(p ns.PDU, now time.Duration) {
		b, _ := ns.Marshal(p)
		n.Input(0, sgsn, b, now)
	}
	answer(&ns.ResetAck{NSVCI: 101, NSEI: 101}, time.Millisecond) // NS-UNBLOCK, NS-ALIVE follow
	answer(&ns.UnblockAck{}, time.Millisecond)                    // the NS-VC is unblocked
	answer(&ns.Unitdata{BVCI: 1800, SDU: []byte{0x00, 0xc0, 0x00, 0x12, 0x34}}, 2*time.Millisecond)
	_ = n.SendUnitdata(1800, 0xc0001234, []byte{0x01})
	// Output:
	// sent NS-RESET to 192.0.2.1:23000
	// sent NS-UNBLOCK to 192.0.2.1:23000
	// sent NS-ALIVE to 192.0.2.1:23000
	// NSE available: true
	// BSSGP PDU on BVCI 1800: 00 c0 00 12 34
	// sent NS-UNITDATA to 192.0.2.1:23000
}
