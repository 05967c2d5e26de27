package pcu

import (
	"reflect"
	"testing"

	"github.com/gopcu/gopcu/pcu/pcuif"
	"github.com/gopcu/gopcu/rlcmac"
)

// TestIndicationAllocs: the indications a BTS sends all the time (TIME_IND
// every frame from osmo-bts, INTERF_IND, PTCCH access bursts as RACH_IND)
// and the periodic Packet Uplink Ack/Nack allocate nothing.
func TestIndicationAllocs(t *testing.T) {
	e, bts := fsmEngine(t, &fakeClock{}, nil)
	e.ver = pcuif.V12
	msgs := []pcuif.Message{
		&pcuif.TimeInd{FN: 1000},
		&pcuif.InterfInd{TRX: 0, FN: 1000},
		&pcuif.RACHInd{SAPI: pcuif.SAPIPTCCH, FN: 1012, TS: 7, QTA: 8},
	}
	for _, m := range msgs {
		b, err := pcuif.Marshal(m, pcuif.V12)
		if err != nil {
			t.Fatal(err)
		}
		if a := testing.AllocsPerRun(200, func() { e.handleMessage(b) }); a != 0 {
			t.Errorf("%s: %.1f allocations per message", m.Type(), a)
		}
	}
	// a Packet Downlink Ack/Nack and a Packet Control Ack nobody polled
	for _, m := range []rlcmac.Message{&rlcmac.PacketDownlinkAckNack{DownlinkTFI: 9}, &rlcmac.PacketControlAck{TLLI: 0xc0000009}} {
		var blk [23]byte
		n, err := rlcmac.EncodeUL(blk[:], &rlcmac.ULCtrlHeader{}, m)
		if err != nil {
			t.Fatal(err)
		}
		d := &pcuif.Data{SAPI: pcuif.SAPIPDTCH, FN: 1000, TS: 7, Payload: blk[:n]}
		if a := testing.AllocsPerRun(200, func() { e.decodeULCtrl(d.Payload) }); a != 0 {
			t.Errorf("%s: %.1f allocations to decode", m.Name(), a)
		}
		if _, ok := m.(*rlcmac.PacketControlAck); ok {
			continue // (handled without a poll it is logged, with its FN)
		}
		if a := testing.AllocsPerRun(200, func() { e.ulControl(bts, &bts.TRX[0].PDCH[7], d) }); a != 0 {
			t.Errorf("%s: %.1f allocations", m.Name(), a)
		}
	}
	ul := tbfIn(t, e, bts, DirUL, TBFFlow, 0xc0000001)
	var blk [64]byte
	ts := uint8(lowestSlot(ul.slots))
	if a := testing.AllocsPerRun(200, func() { e.encodePUAN(ul, &bts.TRX[0].PDCH[ts], 1000, 7, blk[:]) }); a != 0 {
		t.Errorf("Packet Uplink Ack/Nack: %.1f allocations", a)
	}
}

// TestDecodeULCtrlSameAsDecodeUL: the reused decode targets give what
// rlcmac.DecodeUL gives, also after a first message filled the target.
func TestDecodeULCtrlSameAsDecodeUL(t *testing.T) {
	e, _ := fsmEngine(t, &fakeClock{}, nil)
	msgs := []rlcmac.Message{
		&rlcmac.PacketDownlinkAckNack{DownlinkTFI: 9, HasChanReq: true},
		&rlcmac.PacketDownlinkAckNack{DownlinkTFI: 3},
		&rlcmac.PacketControlAck{TLLI: 0xc0000009, CtrlAck: 3},
		&rlcmac.PacketControlAck{TLLI: 0xc0000001},
	}
	for _, m := range msgs {
		var blk [23]byte
		n, err := rlcmac.EncodeUL(blk[:], &rlcmac.ULCtrlHeader{}, m)
		if err != nil {
			t.Fatal(err)
		}
		_, want, err1 := rlcmac.DecodeUL(blk[:n])
		got, err2 := e.decodeULCtrl(blk[:n])
		if err1 != nil || err2 != nil || !reflect.DeepEqual(got, want) {
			t.Errorf("%s: got %+v (%v), want %+v (%v)", m.Name(), got, err2, want, err1)
		}
	}
	if _, err := e.decodeULCtrl([]byte{0x40}); err == nil {
		t.Error("a block with no message type decoded")
	}
}
