package pcu

import (
	"fmt"

	"github.com/gopcu/gopcu/gsmtap"
)

// GSMTAPSink takes the engine's GSMTAP datagrams (osmo-pcu's
// `gsmtap-remote-host` and `gsmtap-category`: copies of radio blocks,
// osmo-pcu pcu_l1_if.cpp). The composition layer opens it
// (gsmtap/gsmtapudp DialUDP); Send must not block.
type GSMTAPSink interface {
	Send(b []byte) error
}

// gsmtapTap encodes radio blocks for Config.GSMTAP.
type gsmtapTap struct {
	sink GSMTAPSink
	buf  [gsmtap.HdrLen + 180]byte
	sent uint64
}

// GSMTAPSent is the number of GSMTAP datagrams the sink took. Engine
// goroutine only.
func (e *Engine) GSMTAPSent() uint64 { return e.tap.sent }

// tapBlock sends one block if its category is enabled.
func (e *Engine) tapBlock(cat gsmtap.Category, uplink bool, arfcn uint16, ts uint8, channel uint8, fn uint32, rssi, snr int8, payload []byte) {
	t := &e.tap
	if t.sink == nil || !gsmtap.Mask(e.params.GSMTAPCategories).Has(cat) {
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
		c.GSMTAPDatagram(t.buf[:n])
	}
	if err := t.sink.Send(t.buf[:n]); err != nil {
		// e.g. ICMP port unreachable from an earlier datagram: nobody
		// listens at gsmtap-remote-host
		e.l1ctr.Inc(L1GSMTAPDropped)
		e.opDrop(e.l1log, dropGSMTAPNotSent, func() string { return fmt.Sprintf("GSMTAP copy of a %s block dropped: %v", cat, err) })
		return
	}
	t.sent++
}
