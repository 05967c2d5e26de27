package rlcmac

import "testing"

func BenchmarkEncodePacketUplinkAckNack(b *testing.B) {
	var rx ReceiveWindow
	rx.Reset(false, 0)
	for i := 0; i < 60; i++ {
		if i != 7 {
			rx.Receive(i)
		}
	}
	m := PacketUplinkAckNack{UplinkTFI: 3, ChannelCoding: 1, HasContentionTLLI: true, ContentionTLLI: 0xC0FFEE01,
		HasTA: true, TA: PacketTimingAdvance{HasValue: true, Value: 3}, HasR99: true, TBFEst: true}
	h := DLCtrlHeader{USF: 7}
	var blk [ControlBlockLen]byte
	b.ReportAllocs()
	for b.Loop() {
		m.AckNack = rx.GPRSAckNack(false)
		if _, err := EncodeDL(blk[:], &h, &m); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkEncodeEGPRSPacketUplinkAckNack(b *testing.B) {
	rx := lossyWindow(384, 300, 50, 7)
	m := PacketUplinkAckNack{UplinkTFI: 3, ChannelCoding: 5, HasContentionTLLI: true, ContentionTLLI: 0xC0FFEE01, TBFEst: true}
	h := DLCtrlHeader{USF: 7}
	var blk [ControlBlockLen]byte
	b.ReportAllocs()
	for b.Loop() {
		if err := m.FillEGPRSAckNack(rx, false); err != nil {
			b.Fatal(err)
		}
		if _, err := EncodeDL(blk[:], &h, &m); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkDecodePacketDownlinkAckNack(b *testing.B) {
	var blk [ControlBlockLen]byte
	src := PacketDownlinkAckNack{DownlinkTFI: 5, AckNack: AckNackDescription{SSN: 70, RBB: 0xfffffffffffffeff},
		HasChanReq: true, ChanReq: ChannelRequestDescription{RLCOctetCount: 500}, Quality: ChannelQualityReport{CValue: 40}}
	if _, err := EncodeUL(blk[:], &ULCtrlHeader{}, &src); err != nil {
		b.Fatal(err)
	}
	var m PacketDownlinkAckNack
	var h ULCtrlHeader
	b.ReportAllocs()
	for b.Loop() {
		if err := DecodeULInto(blk[:], &h, &m); err != nil {
			b.Fatal(err)
		}
	}
	if m.AckNack.SSN != 70 {
		b.Fatal("decode")
	}
}

// Segment a 1500-octet LLC frame into CS-4 blocks (50 data octets each),
// header included; reports per-block cost.
func BenchmarkSegmentLLC1500CS4(b *testing.B) {
	llc := frame(1500, 1)
	var blk [54]byte
	var u DLUnit
	b.ReportAllocs()
	blocks := 0
	for b.Loop() {
		rest := llc
		bsn := uint8(0)
		for {
			u.Reset(blk[GPRSHeaderLen:GPRSHeaderLen+CS4.DataLen()], false)
			n, r := u.Append(rest, true)
			rest = rest[n:]
			h := GPRSDLHeader{TFI: 1, BSN: bsn, E: u.E(), FBI: r != NeedMoreBlocks}
			if _, err := EncodeGPRSDL(blk[:], CS4, &h, nil); err != nil {
				b.Fatal(err)
			}
			bsn = (bsn + 1) & 127
			blocks++
			if r != NeedMoreBlocks {
				break
			}
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(blocks), "ns/block")
}

// BenchmarkEGPRSAckNackCompressed1024: the receive bitmap of a full
// 1024-block EGPRS window (runs of received and missing blocks) in a
// compressed (CRBB) Ack/Nack description (issue 10 target: <= 5 us).
func BenchmarkEGPRSAckNackCompressed1024(b *testing.B) {
	var rx ReceiveWindow
	rx.Reset(true, 1024)
	for i := 0; i < 1024; i++ {
		if i == 0 || (i/37)%3 != 0 { // V(Q) stays at 0: the whole window is reported
			if i != 0 {
				rx.Receive(i)
			}
		}
	}
	b.ReportAllocs()
	var d EGPRSAckNack
	for b.Loop() {
		d = rx.EGPRSAckNack(false, 160)
	}
	if !d.HasCRBB {
		b.Fatal("no compressed bitmap")
	}
}
