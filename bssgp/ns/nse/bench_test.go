package nse

import (
	"net/netip"
	"testing"
	"time"
)

type nopTx struct{}

func (nopTx) Send(int, netip.AddrPort, []byte) error { return nil }

type nopH struct{}

func (nopH) NSUnitdata(uint16, []byte, time.Duration) {}
func (nopH) NSAvailable(bool, time.Duration)          {}

// benchNSE is a classic NSE brought up (NS-RESET, NS-UNBLOCK, NS-ALIVE
// acknowledged) that sends into nothing.
func benchNSE(b *testing.B) *NSE {
	n, err := NewNSE(Config{NSEI: 101, Endpoints: []Endpoint{{Bind: 0, NSVCI: 101, Remote: sgsn}}}, nopTx{}, nopH{}, nil)
	if err != nil {
		b.Fatal(err)
	}
	n.Start(0)
	for _, h := range []string{hResetAck, hUnblkAck, hAliveAck} {
		in(n, h, time.Millisecond)
	}
	if !n.Available() {
		b.Fatal("not available")
	}
	return n
}

// BenchmarkInputUnitdata: an NS-UNITDATA with a 1500-octet SDU from the
// SGSN, decoded and handed to the handler.
func BenchmarkInputUnitdata(b *testing.B) {
	n := benchNSE(b)
	pkt := append([]byte{0, 0, 0x07, 0x08}, make([]byte, 1500)...)
	b.ReportAllocs()
	for b.Loop() {
		n.Input(0, sgsn, pkt, time.Second)
	}
}

// BenchmarkInputAlive: an NS-ALIVE from the SGSN and the NS-ALIVE-ACK
// that answers it.
func BenchmarkInputAlive(b *testing.B) {
	n := benchNSE(b)
	pkt := []byte{0x0a}
	b.ReportAllocs()
	for b.Loop() {
		n.Input(0, sgsn, pkt, time.Second)
	}
}

// BenchmarkSendUnitdata: a 1500-octet SDU sent as NS-UNITDATA.
func BenchmarkSendUnitdata(b *testing.B) {
	n := benchNSE(b)
	sdu := make([]byte, 1500)
	b.ReportAllocs()
	for b.Loop() {
		if err := n.SendUnitdata(1800, 1, sdu); err != nil {
			b.Fatal(err)
		}
	}
}
