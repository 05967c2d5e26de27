package driver

import (
	"bufio"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"strconv"
	"sync"
	"time"

	"github.com/gopcu/gopcu/internal/ipa"
	"github.com/gopcu/gopcu/pcu"
)

// ctrlClient is the engine's pcu.CtrlClient: the TCP connection to the
// BSC's neighbour resolution CTRL service of `neighbor resolution` (the
// protocol, ids and replies are the engine's: pcu/neighctrl.go). A
// goroutine dials (at the first command, again after a loss) and writes
// the commands in IPA framing (internal/ipa); a reader goroutine per
// connection hands each CTRL message to the engine (Engine.Do:
// HandleCtrl), a failed command as CtrlFailed, the end of the connection
// as CtrlLost.
type ctrlClient struct {
	e         *pcu.Engine
	addr      string
	port      int
	log       *slog.Logger
	reqs      chan ctrlReq
	quit      chan struct{}
	closeOnce sync.Once
	dial      func(network, addr string) (net.Conn, error)
}

type ctrlReq struct {
	id       uint32
	variable string
}

// ctrlDialTimeout bounds the TCP connect to the BSC.
const ctrlDialTimeout = time.Second

func newCtrlClient(e *pcu.Engine, addr string, port int, dial func(network, addr string) (net.Conn, error), log *slog.Logger) *ctrlClient {
	c := &ctrlClient{e: e, addr: addr, port: port, log: log, reqs: make(chan ctrlReq, 64), quit: make(chan struct{}), dial: dial}
	if c.dial == nil {
		d := net.Dialer{Timeout: ctrlDialTimeout}
		c.dial = d.Dial
	}
	go c.run()
	return c
}

var errCtrlBusy = errors.New("driver: CTRL neighbour resolution queue full")

// Get queues "GET id variable" without blocking.
func (c *ctrlClient) Get(id uint32, variable string) error {
	select {
	case c.reqs <- ctrlReq{id, variable}:
		return nil
	default:
		return errCtrlBusy
	}
}

func (c *ctrlClient) Close() { c.closeOnce.Do(func() { close(c.quit) }) }

// post runs f in the engine goroutine.
func (c *ctrlClient) post(f func()) {
	// dropped: Do fails only once the engine has stopped; the reply has
	// nobody left to go to (no counter outlives the engine)
	_ = c.e.Do(f)
}

func (c *ctrlClient) fail(id uint32) {
	c.post(func() { c.e.CtrlFailed(c, id) })
}

func (c *ctrlClient) run() {
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
		case <-c.e.Done():
			return
		case bad := <-lost:
			if bad == conn {
				conn.Close()
				conn = nil
			}
		case r := <-c.reqs:
			if conn == nil {
				nc, err := c.dial("tcp", net.JoinHostPort(c.addr, strconv.Itoa(c.port)))
				if err != nil {
					c.log.Error("failed to establish CTRL (neighbor resolution) connection to BSC", "addr", c.addr, "port", c.port, "err", err)
					c.fail(r.id)
					continue
				}
				conn = nc
				go c.read(nc, lost)
			}
			if _, err := conn.Write(ipa.CtrlFrame(fmt.Sprintf("GET %d %s", r.id, r.variable))); err != nil {
				c.log.Error("CTRL msg sent failed", "err", err)
				conn.Close()
				conn = nil
				c.fail(r.id)
			}
		}
	}
}

// read hands the connection's CTRL messages to the engine; at its end
// every resolution still pending failed (Engine.CtrlLost).
func (c *ctrlClient) read(conn net.Conn, lost chan<- net.Conn) {
	r := bufio.NewReader(conn)
	for {
		s, err := ipa.ReadCtrl(r)
		if err != nil {
			select {
			case lost <- conn:
			default:
			}
			c.post(func() { c.e.CtrlLost(c) })
			return
		}
		c.post(func() { c.e.HandleCtrl(c, s) })
	}
}
