package nse

import "net/netip"

// INFO_IND address types (pcuif_proto.h PCU_IF_ADDR_TYPE_*).
const (
	InfoAddrUnused = 0x00
	InfoAddrIPv4   = 0x04
	InfoAddrIPv6   = 0x29
)

// InfoIndNSVC is one of the two NS-VC entries of a PCUIF INFO_IND
// (nsvci[i], local_port[i], remote_port[i], address_type[i], remote_ip[i]).
type InfoIndNSVC struct {
	NSVCI      uint16
	LocalPort  uint16
	RemotePort uint16
	AddrType   uint8
	RemoteIP   [16]byte // IPv4 in the first 4 octets
}

// EndpointsFromInfoInd maps the INFO_IND NS-VC entries to endpoints, one per
// valid entry, as osmo-pcu does. Entries sharing a local port and address
// family share a bind (socket). Local holds the wildcard address and the
// local port, as osmo-pcu binds them; for IP-SNS the NSE announces the
// source address towards the SGSN in place of the wildcard (as libosmogb).
func EndpointsFromInfoInd(e []InfoIndNSVC) []Endpoint {
	var eps []Endpoint
	type key struct {
		port uint16
		v6   bool
	}
	binds := map[key]int{}
	for _, x := range e {
		var remote netip.Addr
		switch x.AddrType {
		case InfoAddrIPv4:
			remote = netip.AddrFrom4([4]byte(x.RemoteIP[:4]))
		case InfoAddrIPv6:
			remote = netip.AddrFrom16(x.RemoteIP)
		default:
			continue
		}
		k := key{x.LocalPort, x.AddrType == InfoAddrIPv6}
		b, ok := binds[k]
		if !ok {
			b = len(binds)
			binds[k] = b
		}
		local := netip.IPv4Unspecified()
		if k.v6 {
			local = netip.IPv6Unspecified()
		}
		eps = append(eps, Endpoint{Bind: b, NSVCI: x.NSVCI, Local: netip.AddrPortFrom(local, x.LocalPort),
			Remote: netip.AddrPortFrom(remote, x.RemotePort)})
	}
	return eps
}

// BindAddrs returns the local address of each bind of eps, indexed by
// Endpoint.Bind, for ListenUDP.
func BindAddrs(eps []Endpoint) []netip.AddrPort {
	var out []netip.AddrPort
	for _, ep := range eps {
		for len(out) <= ep.Bind {
			out = append(out, netip.AddrPort{})
		}
		out[ep.Bind] = ep.Local
	}
	return out
}

// ResolveLocal replaces unspecified local addresses by the source address
// resolve gives towards the endpoint's remote (the transport's answer, e.g.
// nsudp.SourceAddrTowards: the kernel's choice). The NSE needs no such
// help: for the IP-SNS endpoint list (TS 48.016 §10.3.2c) it resolves the
// wildcard address itself through Config.SourceAddr, towards the SGSN
// endpoint it signals to.
func ResolveLocal(eps []Endpoint, resolve func(remote netip.AddrPort) (netip.Addr, error)) ([]Endpoint, error) {
	out := append([]Endpoint(nil), eps...)
	for i, ep := range out {
		if ep.Local.Addr().IsUnspecified() {
			a, err := resolve(ep.Remote)
			if err != nil {
				return nil, err
			}
			out[i].Local = netip.AddrPortFrom(a, ep.Local.Port())
		}
	}
	return out, nil
}
