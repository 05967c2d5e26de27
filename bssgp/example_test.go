package bssgp_test

import (
	"fmt"

	"github.com/gopcu/gopcu/bssgp"
)

// ExampleParse encodes a DL-UNITDATA as an SGSN sends it (TS 48.018
// §10.2.1), decodes it as the PCU does and prints its fields.
func ExampleParse() {
	imsi, err := bssgp.EncodeIMSI("901700000000042")
	if err != nil {
		panic(err)
	}
	wire, err := bssgp.Marshal(&bssgp.DLUnitdata{
		TLLI:        0xc0001234,
		PDULifetime: 1000, // centiseconds
		IMSI:        imsi,
		LLC:         []byte{0x01, 0xc0, 0x01, 0x02},
	})
	if err != nil {
		panic(err)
	}
	fmt.Printf("% x\n", wire[:5])

	p, err := bssgp.Parse(wire)
	if err != nil {
		panic(err)
	}
	dl := p.(*bssgp.DLUnitdata)
	digits, _ := bssgp.DecodeIMSI(dl.IMSI)
	fmt.Printf("%v TLLI %08x lifetime %d cs IMSI %s LLC % x\n", p.Type(), dl.TLLI, dl.PDULifetime, digits, dl.LLC)
	// Output:
	// 00 c0 00 12 34
	// DL-UNITDATA TLLI c0001234 lifetime 1000 cs IMSI 901700000000042 LLC 01 c0 01 02
}

// ExampleMarshal builds the UL-UNITDATA that carries an MS's LLC frame
// to the SGSN: TLLI, QoS Profile, Cell Identifier (RAI 901-70-1-0, CI
// 6969), a zero-length Alignment Octets IE and the LLC-PDU with a 2-octet
// length, octet for octet as osmo-pcu sends it.
func ExampleMarshal() {
	cell := bssgp.CellID{RAI: bssgp.RAI{MCC: 901, MNC: 70, LAC: 1, RAC: 0}, CI: 6969}
	wire, err := bssgp.Marshal(&bssgp.ULUnitdata{TLLI: 0xc0001234, QoS: [3]byte{0, 0, 4}, CellID: cell,
		LLC: []byte{0x01, 0xc0, 0x01, 0x02}})
	if err != nil {
		panic(err)
	}
	fmt.Printf("% x\n", wire)
	// Output:
	// 01 c0 00 12 34 00 00 04 08 88 09 f1 07 00 01 00 1b 39 00 80 0e 00 04 01 c0 01 02
}
