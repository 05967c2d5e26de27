package ns_test

import (
	"fmt"

	"github.com/gopcu/gopcu/bssgp/ns"
)

// Example encodes the NS-RESET a BSS sends first on a classic NS-VC
// (TS 48.016 §9.2.5), decodes it as the SGSN side does and prints its IEs.
func Example() {
	wire, err := ns.Marshal(&ns.Reset{Cause: ns.CauseOMIntervention, NSVCI: 101, NSEI: 101})
	if err != nil {
		panic(err)
	}
	fmt.Printf("% x\n", wire)

	p, err := ns.Parse(wire)
	if err != nil {
		panic(err)
	}
	switch p := p.(type) {
	case *ns.Reset:
		fmt.Printf("%v cause %q NSVCI %d NSEI %d\n", p.Type(), p.Cause, p.NSVCI, p.NSEI)
	}
	// Output:
	// 02 00 81 01 01 82 00 65 04 82 00 65
	// NS-RESET cause "O&M intervention" NSVCI 101 NSEI 101
}

// ExampleUnitdata wraps a BSSGP PDU for BVCI 1800 in NS-UNITDATA
// (TS 48.016 §9.2.10) and decodes it again with the allocation-free
// methods of the hot path, into a struct the receiver reuses.
func ExampleUnitdata() {
	var buf [ns.HeaderLen + 1600]byte
	n, err := (&ns.Unitdata{BVCI: 1800, SDU: []byte{0x01, 0xc0, 0x00, 0x12, 0x34}}).MarshalTo(buf[:])
	if err != nil {
		panic(err)
	}
	var rx ns.Unitdata
	if err := rx.Unmarshal(buf[:n]); err != nil {
		panic(err)
	}
	fmt.Printf("% x\n%v BVCI %d SDU % x\n", buf[:n], rx.Type(), rx.BVCI, rx.SDU)
	// Output:
	// 00 00 07 08 01 c0 00 12 34
	// NS-UNITDATA BVCI 1800 SDU 01 c0 00 12 34
}

// ExampleParse decodes an SNS-CONFIG (TS 48.016 §9.3.4) whose List of IP4
// Elements announces one SGSN endpoint.
func ExampleParse() {
	p, err := ns.Parse([]byte{0x0f, 0x01, 0x04, 0x82, 0x04, 0xd2, 0x05, 0x88, 127, 0, 0, 1, 0x59, 0xd8, 1, 1})
	if err != nil {
		panic(err)
	}
	c := p.(*ns.SNSConfig)
	fmt.Printf("%v end %v NSEI %d endpoint %v weights %d/%d\n", p.Type(), c.EndFlag, c.NSEI,
		c.IP4[0].AddrPort(), c.IP4[0].SigWeight, c.IP4[0].DataWeight)
	// Output:
	// SNS-CONFIG end true NSEI 1234 endpoint 127.0.0.1:23000 weights 1/1
}
