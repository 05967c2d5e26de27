package pcu

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/gopcu/gopcu/bssgp"
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
// or "ERROR <id> <reason>". The connection and its goroutines are owned
// here; results go into the engine with Engine.Do. One connection serves
// all MSs (osmo-pcu opens one per NACC state machine).
type neighCtrl struct {
	e          *Engine
	addr       string
	port       int
	log        *slog.Logger
	reqs       chan neighKey
	quit       chan struct{}
	closeOnce  sync.Once
	mu         sync.Mutex
	pending    map[uint32]neighKey // CTRL id -> key (ids are arfcn*100+bsic)
	dialTimout time.Duration
	dial       func(network, addr string) (net.Conn, error)
}

// IPA framing (osmo ipaccess.h): 2-octet length, protocol 0xEE (Osmocom),
// then the extension octet 0x00 (IPAC_PROTO_EXT_CTRL).
const (
	ipaProtoOsmo = 0xee
	ipaExtCtrl   = 0x00
)

func newNeighCtrl(e *Engine, addr string, port int, dial func(network, addr string) (net.Conn, error), log *slog.Logger) *neighCtrl {
	c := &neighCtrl{e: e, addr: addr, port: port, log: log, reqs: make(chan neighKey, 64), quit: make(chan struct{}),
		pending: map[uint32]neighKey{}, dialTimout: time.Second, dial: dial}
	if c.dial == nil {
		d := net.Dialer{Timeout: c.dialTimout}
		c.dial = d.Dial
	}
	go c.run()
	return c
}

func ctrlID(k neighKey) uint32 { return uint32(k.ARFCN)*100 + uint32(k.BSIC) }

var errCtrlBusy = errors.New("pcu: CTRL neighbour resolution queue full")

// request queues a resolution; the answer comes as Engine.naccResolved.
func (c *neighCtrl) request(k neighKey) error {
	select {
	case c.reqs <- k:
		return nil
	default:
		return errCtrlBusy
	}
}

func (c *neighCtrl) close() { c.closeOnce.Do(func() { close(c.quit) }) }

// post runs f in the engine goroutine.
func (c *neighCtrl) post(f func()) { _ = c.e.Do(f) }

func (c *neighCtrl) fail(k neighKey) {
	c.post(func() { c.e.naccResolved(k, nil) })
}

func (c *neighCtrl) run() {
	var conn net.Conn
	defer func() {
		if conn != nil {
			conn.Close()
		}
	}()
	lost := make(chan net.Conn, 1)
	for {
		select {
		case <-c.quit:
			return
		case <-c.e.done:
			return
		case bad := <-lost:
			if bad == conn {
				conn.Close()
				conn = nil
			}
		case k := <-c.reqs:
			if conn == nil {
				nc, err := c.dial("tcp", net.JoinHostPort(c.addr, strconv.Itoa(c.port)))
				if err != nil {
					c.log.Error("failed to establish CTRL (neighbor resolution) connection to BSC", "addr", c.addr, "port", c.port, "err", err)
					c.fail(k)
					continue
				}
				conn = nc
				go c.read(nc, lost)
			}
			id := ctrlID(k)
			c.mu.Lock()
			c.pending[id] = k
			c.mu.Unlock()
			msg := fmt.Sprintf("GET %d neighbor_resolve_cgi_ps_from_lac_ci.%d.%d.%d.%d", id, k.LocalLAC, k.LocalCI, k.ARFCN, k.BSIC)
			if _, err := conn.Write(ipaCtrlFrame(msg)); err != nil {
				c.log.Error("CTRL msg sent failed", "err", err)
				conn.Close()
				conn = nil
				c.fail(k)
			}
		}
	}
}

// ipaCtrlFrame wraps a CTRL command in IPA framing.
func ipaCtrlFrame(s string) []byte {
	b := make([]byte, 4+len(s))
	binary.BigEndian.PutUint16(b, uint16(1+len(s)))
	b[2], b[3] = ipaProtoOsmo, ipaExtCtrl
	copy(b[4:], s)
	return b
}

// readIPACtrl reads one IPA CTRL frame; other IPA frames are skipped.
func readIPACtrl(r *bufio.Reader) (string, error) {
	for {
		var h [3]byte
		if _, err := io.ReadFull(r, h[:]); err != nil {
			return "", err
		}
		b := make([]byte, binary.BigEndian.Uint16(h[:2]))
		if _, err := io.ReadFull(r, b); err != nil {
			return "", err
		}
		if h[2] == ipaProtoOsmo && len(b) > 0 && b[0] == ipaExtCtrl {
			return string(b[1:]), nil
		}
	}
}

func (c *neighCtrl) read(conn net.Conn, lost chan<- net.Conn) {
	r := bufio.NewReader(conn)
	for {
		s, err := readIPACtrl(r)
		if err != nil {
			select {
			case lost <- conn:
			default:
			}
			// every resolution still pending on this connection failed
			c.mu.Lock()
			ks := make([]neighKey, 0, len(c.pending))
			for id, k := range c.pending {
				ks = append(ks, k)
				delete(c.pending, id)
			}
			c.mu.Unlock()
			for _, k := range ks {
				c.fail(k)
			}
			return
		}
		c.reply(s)
	}
}

// reply handles one CTRL answer (osmo-pcu nacc_fsm_ctrl_reply_cb).
func (c *neighCtrl) reply(s string) {
	f := strings.SplitN(s, " ", 4)
	if len(f) < 2 {
		return
	}
	id64, err := strconv.ParseUint(f[1], 10, 32)
	if err != nil {
		return
	}
	id := uint32(id64)
	c.mu.Lock()
	k, ok := c.pending[id]
	delete(c.pending, id)
	c.mu.Unlock()
	if !ok {
		c.log.Info("CTRL reply with unexpected id, ignoring", "id", id)
		return
	}
	c.log.Info("Received CTRL message", "msg", s)
	if f[0] != "GET_REPLY" || len(f) < 4 {
		c.fail(k)
		return
	}
	cgi, ok := parseCGIPS(f[3])
	if !ok {
		c.fail(k)
		return
	}
	c.post(func() {
		c.e.naccState().neigh.add(k, cgi, c.e.now)
		c.e.naccResolved(k, &cgi)
	})
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
