package gsmtap_test

import (
	"bytes"
	"fmt"
	"time"

	"github.com/gopcu/gopcu/gsmtap"
)

// Example wraps a downlink RLC/MAC block in GSMTAP as a PCU taps it
// (PACCH on ARFCN 871, timeslot 7) and decodes the header again.
func Example() {
	dummy := []byte{0x47, 0x94, 0x2b}
	h := gsmtap.Header{Type: gsmtap.TypeUM, Timeslot: 7, ARFCN: 871, FrameNumber: 2715600, SubType: gsmtap.ChannelPACCH}
	pkt := h.Append(nil, dummy)
	fmt.Printf("% x\n", pkt[:gsmtap.HdrLen])

	var back gsmtap.Header
	off, err := back.Unmarshal(pkt)
	if err != nil {
		panic(err)
	}
	fmt.Printf("ARFCN %d TS %d FN %d sub_type %#x uplink %v payload %x\n",
		back.ARFCN, back.Timeslot, back.FrameNumber, back.SubType, back.Uplink, pkt[off:])
	// Output:
	// 02 04 01 07 03 67 00 00 00 29 6f d0 0b 00 00 00
	// ARFCN 871 TS 7 FN 2715600 sub_type 0xb uplink false payload 47942b
}

// ExamplePcapWriter writes GSMTAP packets into a pcap file Wireshark opens
// (GSMTAP over UDP/IPv4 to port 4729, LINKTYPE_RAW): the 24-octet file header, then per
// packet a 16-octet record header, IPv4 and UDP headers, GSMTAP, payload.
func ExamplePcapWriter() {
	var file bytes.Buffer
	w, err := gsmtap.NewPcapWriter(&file)
	if err != nil {
		panic(err)
	}
	h := gsmtap.Header{Type: gsmtap.TypeUM, ARFCN: 871, SubType: gsmtap.ChannelAGCH}
	if err := w.Write(time.Unix(0, 0), &h, make([]byte, 23)); err != nil {
		panic(err)
	}
	fmt.Printf("magic %x, %d octets\n", file.Bytes()[:4], file.Len())
	// Output:
	// magic d4c3b2a1, 107 octets
}
