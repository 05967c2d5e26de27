package pcuif_test

import (
	"errors"
	"fmt"

	"github.com/gopcu/gopcu/pcu/pcuif"
)

// Example encodes an RTS_REQ the way a BTS sends it, parses it as the PCU
// does, and answers it with a DATA_REQ echoing the block address.
func Example() {
	rts := &pcuif.RTSReq{SAPI: pcuif.SAPIPDTCH, FN: 2715600, ARFCN: 871, TRX: 0, TS: 7, BlockNr: 3}
	wire, err := pcuif.Marshal(rts, pcuif.V12)
	if err != nil {
		panic(err)
	}
	fmt.Printf("%d octets, type 0x%02x\n", len(wire), wire[0])

	m, err := pcuif.Parse(wire, pcuif.V12)
	if err != nil {
		panic(err)
	}
	r := m.(*pcuif.RTSReq)
	fmt.Println(m.Type(), r.SAPI, r.FN, r.ARFCN, r.TS, r.BlockNr)

	// The answer: one DATA_REQ for the same SAPI/FN/TRX/TS/block.
	dummy := []byte{0x47, 0x94, 0x2b, 0x2b, 0x2b, 0x2b, 0x2b, 0x2b, 0x2b, 0x2b, 0x2b, 0x2b,
		0x2b, 0x2b, 0x2b, 0x2b, 0x2b, 0x2b, 0x2b, 0x2b, 0x2b, 0x2b, 0x2b}
	req := &pcuif.Data{Kind: pcuif.TypeDataReq, SAPI: r.SAPI, Payload: dummy,
		FN: r.FN, ARFCN: r.ARFCN, TRX: r.TRX, TS: r.TS, BlockNr: r.BlockNr}
	out, err := pcuif.Marshal(req, pcuif.V12)
	if err != nil {
		panic(err)
	}
	back, _ := pcuif.Parse(out, pcuif.V12)
	d := back.(*pcuif.Data)
	fmt.Printf("%v %d octets: %x...\n", d.Kind, len(d.Payload), d.Payload[:3])
	// Output:
	// 1007 octets, type 0x10
	// RTS_REQ PDTCH 2715600 871 7 3
	// DATA_REQ 23 octets: 47942b...
}

// ExampleParse shows the error classes of the decoder: every error wraps a
// sentinel the caller can count.
func ExampleParse() {
	_, err := pcuif.Parse([]byte{0x10, 0x00}, pcuif.V12)
	fmt.Println(errors.Is(err, pcuif.ErrShort))
	_, err = pcuif.Parse([]byte{0x7f, 0, 0, 0, 0}, pcuif.V12)
	fmt.Println(errors.Is(err, pcuif.ErrUnknownType))
	// Output:
	// true
	// true
}
