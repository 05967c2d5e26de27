package gsmtap

import (
	"bytes"
	"encoding/hex"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gopcu/gopcu/internal/testutil"
)

// Golden header: UL PDTCH on ARFCN 871 TS 6, FN 0x0102ABCD, RSSI -70, C/I 12.
func TestHeaderGolden(t *testing.T) {
	h := Header{Type: TypeUM, Timeslot: 6, ARFCN: 871, Uplink: true, SignalDBm: -70, SNRdB: 12,
		FrameNumber: 0x0102ABCD, SubType: ChannelPDTCH}
	var b [16]byte
	if n, err := h.MarshalTo(b[:]); n != 16 || err != nil {
		t.Fatal(n, err)
	}
	if got := hex.EncodeToString(b[:]); got != "020401064367ba0c0102abcd0d000000" {
		t.Fatalf("header %s", got)
	}
	var h2 Header
	off, err := h2.Unmarshal(b[:])
	if err != nil || off != 16 || h2 != h {
		t.Fatalf("%+v %d %v", h2, off, err)
	}
	if _, err := h2.Unmarshal(b[:10]); err == nil {
		t.Fatal("short header accepted")
	}
	b[0] = 3
	if _, err := h2.Unmarshal(b[:]); err == nil {
		t.Fatal("version 3 accepted")
	}
}

func TestRACHPayload(t *testing.T) {
	if got := RACHPayload(0x78, false); !bytes.Equal(got, []byte{0x78}) {
		t.Fatalf("%x", got)
	}
	// 11 bits 0x67C left-aligned: 1100 1111 100x xxxx.
	if got := RACHPayload(0x67C, true); !bytes.Equal(got, []byte{0xCF, 0x80}) {
		t.Fatalf("%x", got)
	}
}

// tshark reads our pcap: the dummy block from the lab capture decodes as a
// Packet Downlink Dummy Control Block on PACCH.
func TestPcapTshark(t *testing.T) {
	tshark := testutil.NeedBinary(t, "tshark")
	f := filepath.Join(t.TempDir(), "x.pcap")
	var buf bytes.Buffer
	w, err := NewPcapWriter(&buf)
	if err != nil {
		t.Fatal(err)
	}
	blk, _ := hex.DecodeString("40942b2b2b2b2b2b2b2b2b2b2b2b2b2b2b2b2b2b2b2b2b")
	h := Header{Type: TypeUM, Timeslot: 6, ARFCN: 871, FrameNumber: 1234, SubType: ChannelPACCH}
	if err := w.Write(time.Unix(1700000000, 0), &h, blk); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(f, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command(tshark, "-r", f, "-V").CombinedOutput()
	if err != nil {
		t.Fatalf("tshark: %v\n%s", err, out)
	}
	s := string(out)
	for _, want := range []string{"GSM TAP Header", "ARFCN: 871", "Frame Number: 1234", "PACCH", "PACKET_DOWNLINK_DUMMY_CONTROL_BLOCK"} {
		if !strings.Contains(s, want) {
			t.Fatalf("tshark output lacks %q:\n%s", want, s)
		}
	}
	if strings.Contains(s, "Malformed") || strings.Contains(s, "Bad checksum") {
		t.Fatalf("tshark reports errors:\n%s", s)
	}
}

func TestCategories(t *testing.T) {
	for _, c := range Categories() {
		got, ok := CategoryByName(c.String())
		if !ok || got != c {
			t.Fatalf("%v", c)
		}
	}
	if c, ok := CategoryByName("ul-rach"); !ok || c != 20 {
		t.Fatal("ul-rach")
	}
	var m Mask
	m = m.With(CatDLCtrl).With(CatULRACH)
	if !m.Has(CatDLCtrl) || m.Has(CatDLDummy) || m.Without(CatDLCtrl).Has(CatDLCtrl) || m != 1<<2|1<<20 {
		t.Fatalf("%b", m)
	}
}
