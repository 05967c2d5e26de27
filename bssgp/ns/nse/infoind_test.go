package nse

import (
	"net/netip"
	"testing"
)

func TestEndpointsFromInfoInd(t *testing.T) {
	var v6 [16]byte
	copy(v6[:], netip.MustParseAddr("fd00::5").AsSlice())
	eps := EndpointsFromInfoInd([]InfoIndNSVC{
		{NSVCI: 101, LocalPort: 23001, RemotePort: 23000, AddrType: InfoAddrIPv4, RemoteIP: [16]byte{127, 0, 0, 1}},
		{NSVCI: 102, LocalPort: 23001, RemotePort: 23000, AddrType: InfoAddrIPv6, RemoteIP: v6},
		{NSVCI: 103, AddrType: InfoAddrUnused},
	})
	if len(eps) != 2 {
		t.Fatal(eps)
	}
	if eps[0] != (Endpoint{Bind: 0, NSVCI: 101, Local: netip.MustParseAddrPort("0.0.0.0:23001"),
		Remote: netip.MustParseAddrPort("127.0.0.1:23000")}) {
		t.Fatalf("%+v", eps[0])
	}
	if eps[1].Bind != 1 || eps[1].Remote != netip.MustParseAddrPort("[fd00::5]:23000") || eps[1].Local.Addr() != netip.IPv6Unspecified() {
		t.Fatalf("%+v", eps[1])
	}
	b := BindAddrs(eps)
	if len(b) != 2 || b[0].String() != "0.0.0.0:23001" || b[1].String() != "[::]:23001" {
		t.Fatal(b)
	}
	kernel := func(remote netip.AddrPort) (netip.Addr, error) { return netip.MustParseAddr("127.0.0.1"), nil }
	r, err := ResolveLocal(eps[:1], kernel)
	if err != nil || r[0].Local != netip.MustParseAddrPort("127.0.0.1:23001") {
		t.Fatal(r, err)
	}
}
