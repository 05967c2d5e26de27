package rlcmac

import (
	"reflect"
	"testing"
)

// Every sample message decodes back to the struct it was encoded from
// (the descriptions are symmetric).
func TestSampleMessagesRoundTrip(t *testing.T) {
	for _, c := range sampleMessages(t) {
		t.Run(c.name, func(t *testing.T) {
			var m, m2 Message
			if c.uplink {
				_, d, err := DecodeUL(c.block)
				if err != nil {
					t.Fatal(err)
				}
				m2 = d
				m = newULMessage(d.MsgType())
			} else {
				_, d, err := DecodeDL(c.block)
				if err != nil {
					t.Fatal(err)
				}
				m2 = d
				m = newDLMessage(d.MsgType())
			}
			// Re-encode the decoded message and decode again into a fresh value.
			out := make([]byte, ControlBlockLen)
			var err error
			if c.uplink {
				_, err = EncodeUL(out, &ULCtrlHeader{}, m2)
				if err == nil {
					var h ULCtrlHeader
					err = DecodeULInto(out, &h, m)
				}
			} else {
				h0, _, _ := DecodeDL(c.block)
				_, err = EncodeDL(out, &h0, m2)
				if err == nil {
					var h DLCtrlHeader
					err = DecodeDLInto(out, &h, m)
				}
			}
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(m, m2) {
				t.Fatalf("round trip differs:\n%+v\n%+v", m, m2)
			}
			if string(out) != string(c.block) {
				t.Fatalf("re-encoding differs:\n%x\n%x", out, c.block)
			}
		})
	}
}

// Encoding the sample structs and decoding them gives the same values for
// the fields the test set (spot checks on the trickier descriptions).
func TestSampleMessagesDecodeFields(t *testing.T) {
	cases := sampleMessages(t)
	find := func(name string) []byte {
		for _, c := range cases {
			if c.name == name {
				return c.block
			}
		}
		t.Fatalf("no case %s", name)
		return nil
	}
	_, m, err := DecodeUL(find("PRR"))
	if err != nil {
		t.Fatal(err)
	}
	prr := m.(*PacketResourceRequest)
	if prr.RAC.N != 2 || prr.RAC.Values[1].AccessTech != AccessTechGSMOther || prr.RAC.Values[1].NAdd != 1 ||
		prr.RAC.Values[1].Add[0].Tech != AccessTechGSM1800 || prr.RAC.Values[0].A5 != 0x40 || prr.ChanReq.RLCOctetCount != 1200 {
		t.Fatalf("%+v", prr)
	}
	_, m, err = DecodeDL(find("PUAN EGPRS"))
	if err != nil {
		t.Fatal(err)
	}
	puan := m.(*PacketUplinkAckNack)
	if !puan.EGPRS || puan.EGPRSAckNack.SSN != 4 || !puan.EGPRSAckNack.BOW || puan.ContentionTLLI != 0xC0FFEE01 {
		t.Fatalf("%+v", puan)
	}
	_, m, err = DecodeDL(find("Packet Paging"))
	if err != nil {
		t.Fatal(err)
	}
	pp := m.(*PacketPagingRequest)
	if pp.N != 2 || pp.Pages[0].TMSI != 0x11223344 || pp.Pages[1].MILen != 8 {
		t.Fatalf("%+v", pp)
	}
}
