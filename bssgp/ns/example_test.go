package ns_test

import (
	"fmt"

	"github.com/gopcu/gopcu/bssgp/ns"
)

// Example encodes the NS-RESET a BSS sends first on a classic NS-VC
// (TS 48.016 §9.2.6), decodes it as the SGSN side does and prints its IEs.
func Example() {
	reset := ns.NewReset(ns.CauseOMIntervention, 101, 101)
	wire, err := reset.Marshal()
	if err != nil {
		panic(err)
	}
	fmt.Printf("% x\n", wire)

	var p ns.PDU
	if err := p.Unmarshal(wire); err != nil {
		panic(err)
	}
	fmt.Printf("%v cause %q NSVCI %d NSEI %d\n", p.Type, p.Cause, p.NSVCI, p.NSEI)
	// Output:
	// 02 00 81 01 01 82 00 65 04 82 00 65
	// NS-RESET cause "O&M intervention" NSVCI 101 NSEI 101
}

// ExampleNewUnitdata wraps a BSSGP PDU for BVCI 1800 in NS-UNITDATA
// (TS 48.016 §9.2.10).
func ExampleNewUnitdata() {
	u := ns.NewUnitdata(1800, []byte{0x01, 0xc0, 0x00, 0x12, 0x34})
	wire, err := u.Marshal()
	if err != nil {
		panic(err)
	}
	var p ns.PDU
	if err := p.Unmarshal(wire); err != nil {
		panic(err)
	}
	fmt.Printf("% x\n%v BVCI %d SDU % x\n", wire, p.Type, p.BVCI, p.SDU)
	// Output:
	// 00 00 07 08 01 c0 00 12 34
	// NS-UNITDATA BVCI 1800 SDU 01 c0 00 12 34
}
