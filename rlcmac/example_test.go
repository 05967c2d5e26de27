package rlcmac_test

import (
	"fmt"

	"github.com/gopcu/gopcu/rlcmac"
)

// Example encodes the Packet Downlink Dummy Control Block a PCU sends on an
// idle PDCH (TS 44.060 §11.2.6) with USF 7, and decodes it again.
func Example() {
	blk := make([]byte, rlcmac.ControlBlockLen)
	n, err := rlcmac.EncodeDL(blk, &rlcmac.DLCtrlHeader{USF: 7}, &rlcmac.PacketDownlinkDummyControlBlock{})
	if err != nil {
		panic(err)
	}
	fmt.Printf("%d octets: %x\n", n, blk[:n])

	h, m, err := rlcmac.DecodeDL(blk)
	if err != nil {
		panic(err)
	}
	fmt.Printf("USF %d: %s\n", h.USF, m.Name())
	// Output:
	// 23 octets: 47942b2b2b2b2b2b2b2b2b2b2b2b2b2b2b2b2b2b2b2b2b
	// USF 7: Packet Downlink Dummy Control Block
}

// ExampleDecodeUL decodes a Packet Control Acknowledgement an MS sends in
// the block its poll reserved (TS 44.060 §11.2.2).
func ExampleDecodeUL() {
	blk := make([]byte, rlcmac.ControlBlockLen)
	if _, err := rlcmac.EncodeUL(blk, &rlcmac.ULCtrlHeader{}, &rlcmac.PacketControlAck{TLLI: 0xc0001234, CtrlAck: 3}); err != nil {
		panic(err)
	}
	_, m, err := rlcmac.DecodeUL(blk)
	if err != nil {
		panic(err)
	}
	ack := m.(*rlcmac.PacketControlAck)
	fmt.Printf("%s: TLLI %08x CTRL_ACK %d\n", m.Name(), ack.TLLI, ack.CtrlAck)
	// Output:
	// Packet Control Acknowledgement: TLLI c0001234 CTRL_ACK 3
}

// ExampleEncodeGPRSDL builds a CS-1 downlink data block carrying the last
// 20 octets of an LLC frame (TS 44.060 §10.2.1): BSN 5, TFI 3, final block.
func ExampleEncodeGPRSDL() {
	unit := make([]byte, 20)
	blk := make([]byte, 23)
	n, err := rlcmac.EncodeGPRSDL(blk, rlcmac.CS1, &rlcmac.GPRSDLHeader{TFI: 3, BSN: 5, FBI: true, E: true, USF: 2}, unit)
	if err != nil {
		panic(err)
	}
	fmt.Printf("%d octets, header %x\n", n, blk[:3])
	// Output:
	// 23 octets, header 02070b
}
