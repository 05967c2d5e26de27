package testutil

import (
	"bytes"
	"net/netip"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/gopcu/gopcu/internal/pcapw"
)

// TestWriteUDPPcap: the file is the one pcap writer's (internal/pcapw)
// output for the datagrams, packet i at i seconds.
func TestWriteUDPPcap(t *testing.T) {
	f := filepath.Join(t.TempDir(), "x.pcap")
	pl := [][]byte{{0x0a}, {0x0b, 0x0c}}
	if err := WriteUDPPcap(f, 23001, 23000, pl); err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile(f)
	if err != nil {
		t.Fatal(err)
	}
	want := pcapw.AppendFileHeader(nil, pcapw.DefaultSnaplen)
	src, dst := netip.MustParseAddrPort("127.0.0.1:23001"), netip.MustParseAddrPort("127.0.0.1:23000")
	for i, p := range pl {
		pkt := pcapw.AppendIPUDP(nil, src, dst, p)
		want = pcapw.AppendRecordHeader(want, time.Unix(int64(i), 0), len(pkt), len(pkt))
		want = append(want, pkt...)
	}
	if !bytes.Equal(got, want) {
		t.Fatalf("got  % x\nwant % x", got, want)
	}
}

// TestTshark: tshark reads the capture handed over as octets (two UDP
// datagrams to port 23000, one a line with -T fields).
func TestTshark(t *testing.T) {
	NeedBinaries(t, "tshark")
	f := filepath.Join(t.TempDir(), "x.pcap")
	if err := WriteUDPPcap(f, 23001, 23000, [][]byte{{0x0a}, {0x0b, 0x0c}}); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(f)
	if err != nil {
		t.Fatal(err)
	}
	if out := Tshark(t, b, "-T", "fields", "-e", "udp.dstport"); out != "23000\n23000\n" {
		t.Fatalf("tshark: %q", out)
	}
}
