package pcu

import (
	"net"
	"net/netip"
	"time"

	"github.com/gopcu/gopcu/gsmtap"
)

// gsmtapTap sends copies of radio blocks as GSMTAP over UDP (osmo-pcu's
// `gsmtap-remote-host` and `gsmtap-category`, osmo-pcu pcu_main.cpp gsmtap_source_init(), port 4729). It is
// opened once at start; sending never blocks (an unconnected UDP socket;
// the kernel drops what it cannot queue).
type gsmtapTap struct {
	conn *net.UDPConn
	dst  netip.AddrPort
	mask gsmtap.Mask
	buf  [gsmtap.HdrLen + 180]byte
	sent uint64
	errs uint64
}

func (e *Engine) openGSMTAP() {
	host := e.params.GSMTAPHost
	if host == "" {
		return
	}
	addrs, err := net.LookupHost(host)
	if err != nil || len(addrs) == 0 {
		e.log.Error("GSMTAP host not found", "host", host, "err", err)
		return
	}
	ip, err := netip.ParseAddr(addrs[0])
	if err != nil {
		e.log.Error("GSMTAP host address", "host", host, "err", err)
		return
	}
	network := "udp4"
	if ip.Is6() && !ip.Is4In6() {
		network = "udp6"
	}
	c, err := net.ListenUDP(network, nil)
	if err != nil {
		e.log.Error("cannot open the GSMTAP socket", "err", err)
		return
	}
	e.tap = &gsmtapTap{conn: c, dst: netip.AddrPortFrom(ip.Unmap(), gsmtap.UDPPort), mask: gsmtap.Mask(e.params.GSMTAPCategories)}
}

func (e *Engine) closeGSMTAP() {
	if e.tap != nil {
		e.tap.conn.Close()
		e.tap = nil
	}
}

// tapBlock sends one block if its category is enabled.
func (e *Engine) tapBlock(cat gsmtap.Category, uplink bool, arfcn uint16, ts uint8, channel uint8, fn uint32, rssi, snr int8, payload []byte) {
	t := e.tap
	if t == nil || !t.mask.Has(cat) {
		return
	}
	h := gsmtap.Header{Type: gsmtap.TypeUM, Timeslot: ts, ARFCN: arfcn, Uplink: uplink, SignalDBm: rssi, SNRdB: snr,
		FrameNumber: fn, SubType: channel}
	n, err := h.MarshalTo(t.buf[:])
	if err != nil {
		return
	}
	n += copy(t.buf[n:], payload)
	if c := e.cfg.Capture; c != nil {
		c.GSMTAPDatagram(time.Now(), t.buf[:n])
	}
	if _, err := t.conn.WriteToUDPAddrPort(t.buf[:n], t.dst); err != nil {
		t.errs++ // e.g. ICMP port unreachable from an earlier datagram
		return
	}
	t.sent++
}
