package testutil

import (
	"bytes"
	"net/netip"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/google/gopacket/pcapgo"

	"github.com/gopcu/gopcu/internal/pcapw"
)

// WriteUDPPcap writes a pcap file of UDP/IPv4 packets (LINKTYPE_RAW,
// internal/pcapw) 127.0.0.1:sport -> 127.0.0.1:dport, one per payload,
// packet i time-stamped i seconds after the epoch, for tshark.
func WriteUDPPcap(path string, sport, dport uint16, payloads [][]byte) error {
	var b bytes.Buffer
	w, err := pcapw.NewWriter(&b, 0)
	if err != nil {
		return err
	}
	lo := netip.AddrFrom4([4]byte{127, 0, 0, 1})
	src, dst := netip.AddrPortFrom(lo, sport), netip.AddrPortFrom(lo, dport)
	for i, p := range payloads {
		if err := w.WriteUDP(time.Unix(int64(i), 0), src, dst, p); err != nil {
			return err
		}
	}
	return os.WriteFile(path, b.Bytes(), 0o644)
}

// OpenPcap opens the pcap file at path for reading (pcapgo), failing the
// test on a missing or broken file; the file is closed at the test's
// cleanup.
func OpenPcap(t testing.TB, path string) *pcapgo.Reader {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	r, err := pcapgo.NewReader(f)
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return r
}

// Tshark writes pcap (a capture file's octets) into a file and returns
// what tshark prints for it on standard output, run with args and
// "-r file"; tshark failing fails the test. The caller skips without
// tshark (NeedBinaries).
func Tshark(t testing.TB, pcap []byte, args ...string) string {
	t.Helper()
	f := filepath.Join(t.TempDir(), "capture.pcap")
	if err := os.WriteFile(f, pcap, 0o644); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command("tshark", append(args, "-r", f)...).Output()
	if err != nil {
		if ee, ok := err.(*exec.ExitError); ok {
			t.Fatalf("tshark: %v\n%s%s", err, out, ee.Stderr)
		}
		t.Fatalf("tshark: %v", err)
	}
	return string(out)
}

// TsharkNS writes the NS datagrams pkts (BSS 127.0.0.1:23001 -> SGSN
// :23000) into a pcap file and returns tshark's verbose dissection of it
// (Gb over UDP port 23000); tshark failing fails the test. The caller
// skips without tshark (NeedBinaries).
func TsharkNS(t testing.TB, pkts [][]byte) string {
	t.Helper()
	f := filepath.Join(t.TempDir(), "gb.pcap")
	if err := WriteUDPPcap(f, 23001, 23000, pkts); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command("tshark", "-r", f, "-d", "udp.port==23000,gprs-ns", "-V").CombinedOutput()
	if err != nil {
		t.Fatalf("tshark: %v\n%s", err, out)
	}
	return string(out)
}
