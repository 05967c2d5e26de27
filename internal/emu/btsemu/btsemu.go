// Package btsemu is a BTS emulator for the PCU socket: it listens on a unix
// SOCK_SEQPACKET path like OsmoBTS, speaks PCUIF v10, v11 or v12, sends an
// INFO_IND built from a small configuration, runs the GSM frame clock
// (in real time or in virtual time, as fast as the PCU answers), records
// every DATA_REQ and lets tests inject RACH_IND and DATA_IND.
//
// It is the test peer of gopcu's system tests and part of the demo.
package btsemu

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"math/bits"
	"net"
	"net/netip"
	"os"
	"sync"
	"time"

	"github.com/gopcu/gopcu/pcu/pcuif"
)

// Config describes the emulated BTS.
type Config struct {
	Path    string        // socket path to listen on
	Version pcuif.Version // PCUIF version to speak (default v12)
	Info    *pcuif.InfoInd
	Log     *slog.Logger
}

// DefaultInfo is an INFO_IND like the lab's (osmo-bsc + osmo-bts-virtual):
// one TRX on ARFCN 871 with PDCHs on TS 4-7, CS-1..4, NSEI/NSVCI 101,
// BVCI 1800, the SGSN at 127.0.0.1:23000 and the PCU's NS port 23001.
func DefaultInfo(v pcuif.Version) *pcuif.InfoInd {
	ii := &pcuif.InfoInd{Version: v, Flags: pcuif.FlagActive | pcuif.FlagCS(1) | pcuif.FlagCS(2) | pcuif.FlagCS(3) | pcuif.FlagCS(4),
		BSIC: 63, MCC: 901, MNC: 70, LAC: 1, RAC: 0, NSEI: 101,
		NSETimer: [7]uint8{3, 3, 3, 3, 30, 3, 10}, CellTimer: [11]uint8{3, 3, 3, 3, 3, 10, 3, 10, 3, 10, 3},
		CellID: 6969, RepeatTime: 250, RepeatCount: 3, BVCI: 1800,
		T3142: 20, T3169: 5, T3191: 5, T3193x10ms: 160, T3195: 5, N3101: 10, N3103: 4, N3105: 8, CVCountdown: 15,
		DLTBFExt: 2500, ULTBFExt: 2500, InitialCS: 2, InitialMCS: 6}
	if v >= pcuif.V12 {
		ii.BTSModel = pcuif.BTSModelTRX
	}
	ii.TRX[0].ARFCN = 871
	ii.TRX[0].PDCHMask = 0xf0
	for ts := range ii.TRX[0].TS {
		ii.TRX[0].TS[ts].TSC = 7
	}
	ii.SetRemote(0, 101, 23001, netip.MustParseAddrPort("127.0.0.1:23000"))
	return ii
}

// BTS is a running emulator.
type BTS struct {
	cfg Config
	ln  *net.UnixListener
	log *slog.Logger

	mu       sync.Mutex
	conn     *net.UnixConn
	gen      int
	connCh   chan struct{} // closed and replaced on every (dis)connection
	active   map[[2]uint8]bool
	txt      []string
	pending  map[key]chan pcuif.Data
	dataReqs []pcuif.Data // CCCH and unsolicited DATA_REQs
	stats    Stats
	onData   func(pcuif.Data)
	onCont   func(pcuif.Container) pcuif.Message
	onLat    func(time.Duration) // RTS_REQ -> DATA_REQ latency observer
	sentAt   map[key]time.Time   // when each outstanding RTS_REQ went out (onLat set)

	fn uint32 // next block's first FN
	wg sync.WaitGroup

	// A group (ListenGroup): several BTSs on one socket, as PCUIF
	// addresses a BTS by the header's bts_nr. nr is this one's; group
	// is every member (nil: a BTS alone); the first member owns the
	// listener and the reader.
	nr    uint8
	group []*BTS
}

type key struct {
	sapi    pcuif.SAPI
	fn      uint32
	trx, ts uint8
}

// Stats counts what the emulator saw.
type Stats struct {
	Connections int
	RTSSent     int
	Answered    int // DATA_REQs matching an outstanding RTS
	Mismatched  int // DATA_REQs for no outstanding RTS (wrong FN/TRX/TS)
	Unanswered  int // RTSs without an answer within the step timeout
	ActReqs     int
	BadMessages int
}

// Listen starts an emulator listening on cfg.Path (an old socket file there
// is removed). It accepts one PCU at a time, as OsmoBTS does.
func Listen(cfg Config) (*BTS, error) {
	ln, err := listen(&cfg)
	if err != nil {
		return nil, err
	}
	if cfg.Info == nil {
		cfg.Info = DefaultInfo(cfg.Version)
	}
	b := newBTS(cfg, ln, 0)
	b.wg.Add(1)
	go b.acceptLoop()
	return b, nil
}

// listen fills in cfg's defaults and opens its socket (an old socket file
// there is removed).
func listen(cfg *Config) (*net.UnixListener, error) {
	if cfg.Version == 0 {
		cfg.Version = pcuif.V12
	}
	if cfg.Log == nil {
		cfg.Log = slog.New(slog.DiscardHandler)
	}
	os.Remove(cfg.Path)
	ln, err := net.ListenUnix("unixpacket", &net.UnixAddr{Name: cfg.Path, Net: "unixpacket"})
	if err != nil {
		return nil, fmt.Errorf("btsemu: listen %s: %w", cfg.Path, err)
	}
	return ln, nil
}

// newBTS is the emulator of cfg (Info set) with bts_nr nr on ln.
func newBTS(cfg Config, ln *net.UnixListener, nr uint8) *BTS {
	cfg.Info.Version = cfg.Version
	cfg.Info.BTSNr = nr
	return &BTS{cfg: cfg, ln: ln, log: cfg.Log, connCh: make(chan struct{}), active: map[[2]uint8]bool{},
		pending: map[key]chan pcuif.Data{}, nr: nr}
}

// ListenGroup starts n BTSs on one socket (cfg.Path): BTS k has bts_nr k
// and the INFO_IND info(k) (its BTSNr set to k), all sent when the PCU
// connects. Each member is stepped, sent to and read like a BTS alone;
// the PCU's messages go to the member its bts_nr names. Close the first
// member to close them all.
func ListenGroup(cfg Config, n int, info func(k int) *pcuif.InfoInd) ([]*BTS, error) {
	if n < 1 || n > 256 {
		return nil, fmt.Errorf("btsemu: %d BTSs in a group", n)
	}
	ln, err := listen(&cfg)
	if err != nil {
		return nil, err
	}
	group := make([]*BTS, n)
	for k := range group {
		c := cfg
		c.Info = info(k)
		group[k] = newBTS(c, ln, uint8(k))
	}
	for _, b := range group {
		b.group = group
	}
	group[0].wg.Add(1)
	go group[0].acceptLoop()
	return group, nil
}

// members are the BTSs on b's socket: its group, or b alone.
func (b *BTS) members() []*BTS {
	if b.group != nil {
		return b.group
	}
	return []*BTS{b}
}

// Close stops listening, drops the PCU connection and removes the socket:
// to the PCU it looks like the BTS process died.
func (b *BTS) Close() {
	if b.group != nil && b != b.group[0] {
		return // the first member owns the socket
	}
	b.ln.Close()
	b.mu.Lock()
	if b.conn != nil {
		b.conn.Close()
	}
	b.mu.Unlock()
	b.wg.Wait()
	os.Remove(b.cfg.Path)
}

// OnDataReq sets a function called (from the emulator's reader goroutine)
// for every DATA_REQ received, answers to RTS included.
func (b *BTS) OnDataReq(f func(pcuif.Data)) {
	b.mu.Lock()
	b.onData = f
	b.mu.Unlock()
}

// OnContainer sets a function answering the PCU's CONTAINER messages
// (NEIGH_ADDR_REQ, relayed to the BSC by a real BTS); a non-nil result is
// sent back. It runs in the reader goroutine and must not call the BTS.
func (b *BTS) OnContainer(f func(pcuif.Container) pcuif.Message) {
	b.mu.Lock()
	b.onCont = f
	b.mu.Unlock()
}

// OnRTSLatency sets a function called (from the reader goroutine) with
// the time from each RTS_REQ sent to the DATA_REQ answering it: from
// just before the RTS_REQ's write to the kernel's stamp of the DATA_REQ's
// send (rxstamp.go), so that the emulator's own delay in reading the
// answer is not counted.
func (b *BTS) OnRTSLatency(f func(time.Duration)) {
	b.mu.Lock()
	b.onLat = f
	b.sentAt = map[key]time.Time{}
	if b.conn != nil {
		b.enableStamps(b.conn)
	}
	b.mu.Unlock()
}

// enableStamps turns on kernel send stamps on c (b.mu held).
func (b *BTS) enableStamps(c *net.UnixConn) {
	if err := EnableRxStamps(c); err != nil {
		b.log.Warn("no kernel receive timestamps: latencies include the emulator's read delay", "err", err)
	}
}

// rtsSent notes when the RTS_REQ of k went out (b.mu held).
func (b *BTS) rtsSent(k key) {
	if b.onLat != nil {
		b.sentAt[k] = time.Now()
	}
}

func (b *BTS) acceptLoop() {
	defer b.wg.Done()
	for {
		c, err := b.ln.AcceptUnix()
		if err != nil {
			return
		}
		b.mu.Lock()
		busy := b.conn != nil
		b.mu.Unlock()
		if busy { // one PCU at a time
			c.Close()
			continue
		}
		for _, m := range b.members() {
			m.mu.Lock()
			m.conn = c
			m.gen++
			m.stats.Connections++
			m.active = map[[2]uint8]bool{}
			close(m.connCh)
			m.connCh = make(chan struct{})
			m.mu.Unlock()
		}
		b.wg.Add(1)
		go b.readLoop(c)
		// OsmoBTS sends INFO_IND as soon as it accepts the connection. A
		// group's go one after the other, each once its PDCHs are active
		// (or after a second): the PCU answers each with an ACT_REQ per
		// PDCH, and 32 BTSs' at once would overflow its send queue.
		for _, m := range b.members() {
			if err := m.Send(m.cfg.Info); err != nil {
				b.log.Error("cannot send INFO_IND", "err", err)
			}
			if b.group != nil {
				ctx, cancel := context.WithTimeout(context.Background(), time.Second)
				m.WaitActive(ctx, InfoPDCHs(m.cfg.Info))
				cancel()
			}
		}
	}
}

func (b *BTS) readLoop(c *net.UnixConn) {
	defer b.wg.Done()
	buf := make([]byte, pcuif.BufSize)
	// each message's kernel send stamp, when latencies are observed:
	// they are the PCU's, not this reader's (rxstamp.go). Off otherwise:
	// the stamp costs the PCU's send a clock read.
	b.mu.Lock()
	if b.onLat != nil {
		b.enableStamps(c)
	}
	b.mu.Unlock()
	rd := NewStampedReader()
	for {
		n, at, err := rd.Read(c, buf)
		if err != nil || n == 0 {
			break
		}
		to := b
		if b.group != nil {
			if _, nr, err := pcuif.PeekHeader(buf[:n]); err == nil && int(nr) < len(b.group) {
				to = b.group[nr]
			}
		}
		if cnf := to.handle(buf[:n], at); cnf != nil {
			to.Send(cnf)
		}
	}
	c.Close()
	for _, m := range b.members() {
		m.mu.Lock()
		if m.conn == c {
			m.conn = nil
			m.active = map[[2]uint8]bool{}
			close(m.connCh)
			m.connCh = make(chan struct{})
		}
		for k, ch := range m.pending {
			if ch != nil {
				close(ch)
			}
			delete(m.pending, k)
		}
		m.mu.Unlock()
	}
}

// handle records a message from the PCU. It returns the confirmation to
// send for CCCH messages that ask for one (OsmoBTS confirms a PCH message
// once it was transmitted: DATA_CNF in v10/v11, DATA_CNF_2 by msg_id in
// v11+). at is when the PCU sent msg.
func (b *BTS) handle(msg []byte, at time.Time) pcuif.Message {
	m, err := pcuif.Parse(msg, b.cfg.Version)
	b.mu.Lock()
	defer b.mu.Unlock()
	if err != nil {
		b.stats.BadMessages++
		b.log.Error("bad message from PCU", "err", err)
		return nil
	}
	if len(msg) != b.cfg.Version.FullSize() && m.Type() != pcuif.TypeContainer && m.Type() != pcuif.TypeTxtInd {
		b.stats.BadMessages++
		b.log.Error("PCU message not of the full union size", "type", m.Type(), "len", len(msg))
	}
	switch m := m.(type) {
	case *pcuif.Container:
		if b.onCont != nil {
			c := *m
			c.Data = append([]byte(nil), m.Data...)
			return b.onCont(c)
		}
	case *pcuif.TxtInd:
		b.txt = append(b.txt, m.Text)
	case *pcuif.ActReq:
		b.stats.ActReqs++
		b.active[[2]uint8{m.TRX, m.TS}] = m.Activate
		if !m.Activate {
			delete(b.active, [2]uint8{m.TRX, m.TS})
		}
		close(b.connCh)
		b.connCh = make(chan struct{})
	case *pcuif.Data:
		d := *m
		d.Payload = append([]byte(nil), m.Payload...)
		if b.onData != nil {
			b.onData(d)
		}
		k := key{d.SAPI, d.FN, d.TRX, d.TS}
		if ch, ok := b.pending[k]; ok && (d.SAPI == pcuif.SAPIPDTCH || d.SAPI == pcuif.SAPIPTCCH) {
			delete(b.pending, k)
			if t, ok := b.sentAt[k]; ok {
				delete(b.sentAt, k)
				b.onLat(at.Sub(t))
			}
			b.stats.Answered++
			if ch != nil {
				ch <- d
			}
			return nil
		}
		if d.SAPI == pcuif.SAPIPDTCH || d.SAPI == pcuif.SAPIPTCCH {
			b.stats.Mismatched++
			return nil
		}
		b.dataReqs = append(b.dataReqs, d)
		switch d.SAPI {
		case pcuif.SAPIPCH:
			if b.cfg.Version < pcuif.V12 {
				// OsmoBTS echoes the 23-octet MAC block, without the
				// 3 paging group digits (osmo-bts pcu_sock.c; osmo-pcu 1.1.0 pcu_l1_if.cpp pcu_rx_data_cnf()).
				mac := d.Payload
				if len(mac) == pcuif.PCHLegacyLen {
					mac = mac[3:]
				}
				c := &pcuif.Data{Kind: pcuif.TypeDataCnf, SAPI: pcuif.SAPIPCH, Payload: mac}
				c.BTSNr = d.BTSNr
				return c
			}
		case pcuif.SAPIPCH2:
			var p pcuif.PCH2
			if p.Unmarshal(d.Payload) == nil && p.Confirm {
				return &pcuif.DataCnf2{SAPI: pcuif.SAPIPCH2, MsgID: p.MsgID}
			}
		case pcuif.SAPIAGCH2:
			var a pcuif.AGCH2
			if a.Unmarshal(d.Payload) == nil && a.Confirm {
				return &pcuif.DataCnf2{SAPI: pcuif.SAPIAGCH2, MsgID: a.MsgID}
			}
		}
	}
	return nil
}

// Send sends any message to the PCU in the emulator's version (with this
// BTS's bts_nr).
func (b *BTS) Send(m pcuif.Message) error {
	out, err := pcuif.Marshal(m, b.cfg.Version)
	if err != nil {
		return err
	}
	out[1] = b.nr // the header's bts_nr
	return b.SendRaw(out)
}

// SendRaw sends bytes as one message (for malformed-input tests).
func (b *BTS) SendRaw(msg []byte) error {
	b.mu.Lock()
	c := b.conn
	b.mu.Unlock()
	if c == nil {
		return errors.New("btsemu: no PCU connected")
	}
	_, err := c.Write(msg)
	return err
}

// Info is the INFO_IND the emulator sends (not to be modified).
func (b *BTS) Info() *pcuif.InfoInd { return b.cfg.Info }

// Stats returns a copy of the counters.
func (b *BTS) Stats() Stats {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.stats
}

// TxtInds returns the TXT_IND texts received.
func (b *BTS) TxtInds() []string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return append([]string(nil), b.txt...)
}

// CCCH returns and forgets the DATA_REQs that were not answers to an RTS
// (AGCH, PCH and their v11+ variants).
func (b *BTS) CCCH() []pcuif.Data {
	b.mu.Lock()
	defer b.mu.Unlock()
	d := b.dataReqs
	b.dataReqs = nil
	return d
}

// ActivePDCHs lists the (TRX, TS) pairs the PCU has activated.
func (b *BTS) ActivePDCHs() [][2]uint8 {
	b.mu.Lock()
	defer b.mu.Unlock()
	var out [][2]uint8
	for t := uint8(0); t < pcuif.NumTRX; t++ {
		for s := uint8(0); s < pcuif.NumTS; s++ {
			if b.active[[2]uint8{t, s}] {
				out = append(out, [2]uint8{t, s})
			}
		}
	}
	return out
}

// Connected reports whether a PCU is connected.
func (b *BTS) Connected() bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.conn != nil
}

// WaitActive waits until a PCU is connected and has activated n PDCHs.
func (b *BTS) WaitActive(ctx context.Context, n int) error {
	for {
		b.mu.Lock()
		ok := b.conn != nil && len(b.active) == n
		ch := b.connCh
		b.mu.Unlock()
		if ok {
			return nil
		}
		select {
		case <-ch:
		case <-ctx.Done():
			return fmt.Errorf("btsemu: waiting for %d active PDCHs: %w", n, ctx.Err())
		}
	}
}

// InfoPDCHs counts the PDCHs an INFO_IND configures (what WaitActive
// waits for once the PCU has it).
func InfoPDCHs(ii *pcuif.InfoInd) int {
	n := 0
	for t := range ii.TRX {
		n += bits.OnesCount8(ii.TRX[t].PDCHMask)
	}
	return n
}
