package testutil

import (
	"bytes"
	"encoding/binary"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// WriteUDPPcap writes a pcap file of UDP/IPv4 packets (LINKTYPE_RAW)
// 127.0.0.1:sport -> 127.0.0.1:dport, one per payload, for tshark.
func WriteUDPPcap(path string, sport, dport uint16, payloads [][]byte) error {
	var b bytes.Buffer
	hdr := []uint32{0xa1b2c3d4, 0x00040002, 0, 0, 65535, 101}
	for i, v := range hdr {
		if i == 1 {
			binary.Write(&b, binary.LittleEndian, uint16(2))
			binary.Write(&b, binary.LittleEndian, uint16(4))
			continue
		}
		binary.Write(&b, binary.LittleEndian, v)
	}
	for i, p := range payloads {
		ip := make([]byte, 28+len(p))
		ip[0], ip[8], ip[9] = 0x45, 64, 17
		binary.BigEndian.PutUint16(ip[2:], uint16(len(ip)))
		copy(ip[12:], []byte{127, 0, 0, 1, 127, 0, 0, 1})
		var sum uint32
		for j := 0; j < 20; j += 2 {
			sum += uint32(binary.BigEndian.Uint16(ip[j:]))
		}
		for sum > 0xffff {
			sum = sum&0xffff + sum>>16
		}
		binary.BigEndian.PutUint16(ip[10:], ^uint16(sum))
		binary.BigEndian.PutUint16(ip[20:], sport)
		binary.BigEndian.PutUint16(ip[22:], dport)
		binary.BigEndian.PutUint16(ip[24:], uint16(8+len(p)))
		copy(ip[28:], p)
		binary.Write(&b, binary.LittleEndian, []uint32{uint32(i), 0, uint32(len(ip)), uint32(len(ip))})
		b.Write(ip)
	}
	return os.WriteFile(path, b.Bytes(), 0o644)
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
