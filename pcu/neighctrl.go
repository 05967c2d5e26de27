package pcu

import (
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/gopcu/gopcu/bssgp"
	"github.com/gopcu/gopcu/pcu/nacc"
)

// neighCtrl resolves neighbours over the BSC's CTRL interface, as osmo-pcu
// 1.1.0 does with `neighbor resolution A.B.C.D [PORT]` (osmo-pcu 1.1.0
// nacc_fsm.c send_neigh_addr_req_ctrl_iface; removed in 1.3.0): a TCP
// connection to osmo-bsc's neighbour resolution CTRL service (osmo-bsc
// `neighbor-resolution bind`, port 4248), IPA framing with the Osmocom CTRL
// extension, one
//
//	GET <arfcn*100+bsic> neighbor_resolve_cgi_ps_from_lac_ci.<lac>.<ci>.<arfcn>.<bsic>
//
// per resolution, answered by
//
//	GET_REPLY <id> <variable> <mcc>-<mnc>-<lac>-<rac>-<ci>
//
// or "ERROR <id> <reason>". This is the protocol, in the engine goroutine;
// the connection (TCP, IPA framing, its goroutines) is the driver's
// CtrlClient (pcu/driver ctrl.go), whose outcomes come back as HandleCtrl,
// CtrlFailed and CtrlLost. One connection serves all MSs (osmo-pcu opens
// one per NACC state machine).
type neighCtrl struct {
	addr    string
	port    int
	c       CtrlClient
	pending map[uint32]nacc.Key // CTRL id -> key (ids are arfcn*100+bsic)
}

func ctrlID(k nacc.Key) uint32 { return uint32(k.ARFCN)*100 + uint32(k.BSIC) }

var errNoCtrl = errors.New("pcu: no CTRL client attached")

// ctrlFor is the CTRL client for the current `neighbor resolution`
// address, made (and an older one closed) when it changed.
func (e *Engine) ctrlFor(addr string, port int) (*neighCtrl, error) {
	n := e.naccState()
	if n.ctrl != nil && n.ctrl.addr == addr && n.ctrl.port == port {
		return n.ctrl, nil
	}
	if n.ctrl != nil {
		n.ctrl.c.Close()
		n.ctrl = nil
	}
	if e.newCtrl == nil {
		return nil, errNoCtrl
	}
	n.ctrl = &neighCtrl{addr: addr, port: port, c: e.newCtrl(addr, port), pending: map[uint32]nacc.Key{}}
	return n.ctrl, nil
}

// request sends a resolution; the answer comes as Engine.naccResolved.
func (c *neighCtrl) request(k nacc.Key) error {
	id := ctrlID(k)
	v := fmt.Sprintf("neighbor_resolve_cgi_ps_from_lac_ci.%d.%d.%d.%d", k.LocalLAC, k.LocalCI, k.ARFCN, k.BSIC)
	if err := c.c.Get(id, v); err != nil {
		return err
	}
	c.pending[id] = k
	return nil
}

// ctrlOf is the engine's side of client c, nil when c is not the current
// client (closed since: `neighbor resolution` changed).
func (e *Engine) ctrlOf(c CtrlClient) *neighCtrl {
	if n := e.nacc; n != nil && n.ctrl != nil && n.ctrl.c == c {
		return n.ctrl
	}
	return nil
}

// CtrlFailed reports that client from's CTRL command id could not be sent (no
// connection, write error): its resolution failed. Engine goroutine only.
func (e *Engine) CtrlFailed(from CtrlClient, id uint32) {
	c := e.ctrlOf(from)
	if c == nil {
		return
	}
	if k, ok := c.pending[id]; ok {
		delete(c.pending, id)
		e.naccResolved(k, nil)
	}
}

// CtrlLost reports that client from's CTRL connection ended: every resolution still
// pending on it failed. Engine goroutine only.
func (e *Engine) CtrlLost(from CtrlClient) {
	c := e.ctrlOf(from)
	if c == nil {
		return
	}
	for id, k := range c.pending {
		delete(c.pending, id)
		e.naccResolved(k, nil)
	}
}

// HandleCtrl handles one CTRL message from the BSC that client from got (osmo-pcu
// nacc_fsm_ctrl_reply_cb). Engine goroutine only.
func (e *Engine) HandleCtrl(from CtrlClient, s string) {
	n := e.naccState()
	c := e.ctrlOf(from)
	if c == nil {
		return
	}
	f := strings.SplitN(s, " ", 4)
	if len(f) < 2 {
		return
	}
	id64, err := strconv.ParseUint(f[1], 10, 32)
	if err != nil {
		return
	}
	id := uint32(id64)
	k, ok := c.pending[id]
	delete(c.pending, id)
	if !ok {
		n.log.Info("CTRL reply with unexpected id, ignoring", "id", id)
		return
	}
	n.log.Info("Received CTRL message", "msg", s)
	if f[0] != "GET_REPLY" || len(f) < 4 {
		e.naccResolved(k, nil)
		return
	}
	cgi, ok := parseCGIPS(f[3])
	if !ok {
		e.naccResolved(k, nil)
		return
	}
	n.neigh.Add(k, cgi, e.now)
	e.naccResolved(k, &cgi)
}

// parseCGIPS parses osmo_cgi_ps_name's MCC-MNC-LAC-RAC-CI; a three-digit
// MNC string sets the 3-digit flag (osmo-pcu after 1.1.0).
func parseCGIPS(s string) (bssgp.CellID, bool) {
	p := strings.Split(strings.TrimSpace(s), "-")
	if len(p) != 5 {
		return bssgp.CellID{}, false
	}
	var v [5]uint64
	for i, x := range p {
		n, err := strconv.ParseUint(x, 10, 16)
		if err != nil {
			return bssgp.CellID{}, false
		}
		v[i] = n
	}
	if v[3] > 255 {
		return bssgp.CellID{}, false
	}
	return bssgp.CellID{RAI: bssgp.RAI{MCC: uint16(v[0]), MNC: uint16(v[1]), MNC3Digits: len(p[1]) > 2, LAC: uint16(v[2]),
		RAC: uint8(v[3])}, CI: uint16(v[4])}, true
}
