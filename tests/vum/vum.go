// Package vum is the MS side of osmo-bts-virtual's virtual Um: GSMTAP v2
// over UDP multicast (osmo-bts src/osmo-bts-virtual, virtual_um.c and
// l1_if.c virt_um_rcv_cb). The BTS sends every downlink MAC block to the
// MS group (default 239.193.23.1:4729) in the frame it transmits it, and
// reads the uplink from the BTS group (239.193.23.2:4729): a GSMTAP header
// with the uplink flag, the ARFCN of its TRX, the timeslot, the FN and the
// channel type, followed by the RA octet (RACH) or the RLC/MAC block.
//
// Um implements msemu.RealTimeAir, so internal/emu/msemu's MSs run over it
// unchanged: the MS follows the BTS's frame numbers from the downlink,
// reads AGCH/PCH on TS 0 and the PDCH blocks of each radio block, and its
// uplink blocks go out in their frame (the BTS passes the GSMTAP FN to the
// PCU as the DATA_IND FN, so a block sent for the wrong frame answers the
// wrong poll or USF).
package vum

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"net"
	"net/netip"
	"os"
	"sort"
	"sync"
	"syscall"
	"time"

	"github.com/gopcu/gopcu/gsmtap"
	"github.com/gopcu/gopcu/internal/emu/btsemu"
	"github.com/gopcu/gopcu/pcu/pcuif"
)

// Config of a virtual Um attachment. Zero fields take osmo-bts-virtual's
// defaults (its VTY "virtual-um ms-multicast-group" and
// "bts-multicast-group", port 4729) and the lab's cell (ARFCN 871, PDCHs
// on TS 4-7).
type Config struct {
	DLGroup, ULGroup netip.AddrPort
	// Interface address for the multicast membership and sends (lo).
	IfAddr netip.Addr
	ARFCN  uint16
	// PDCHMask: the timeslots that carry PDCHs (the BTS's TRX 0).
	PDCHMask uint8
	// SignalDBm is put in uplink headers: osmo-bts-virtual reports
	// 10*signal_dbm as the link quality (cB) and drops a RACH below its
	// min-qual-rach (the lab's 50 cB). Default 63.
	SignalDBm int8
	// Lead is how many frames before its FN an uplink block is sent
	// (default 1): the BTS forwards it at once with the header's FN.
	Lead int
	// Fill sends an empty PDTCH block on every PDCH for each uplink
	// radio block no MS sent in (FillDelay frames after its first frame),
	// as a BTS's PHY reports every uplink block: osmo-bts passes a block
	// it could not decode on as an empty DATA.ind (l1sap.c
	// l1sap_ph_data_ind), while osmo-bts-virtual passes on only the
	// frames that arrive. osmo-pcu 1.1.0 relies on one DATA.ind per block
	// (pcu_l1_if.cpp pcu_rx_time_ind: it ignores TIME.ind): its clock and
	// the expiry of its polls and USFs (pdch_ulc_expire_fn) advance only
	// with them.
	Fill bool
	// FillDelay: frames after the block's first frame (default 2; an MS's
	// own block goes out Lead frames before it).
	FillDelay int
}

func (c *Config) defaults() {
	if !c.DLGroup.IsValid() {
		c.DLGroup = netip.MustParseAddrPort("239.193.23.1:4729")
	}
	if !c.ULGroup.IsValid() {
		c.ULGroup = netip.MustParseAddrPort("239.193.23.2:4729")
	}
	if !c.IfAddr.IsValid() {
		c.IfAddr = netip.MustParseAddr("127.0.0.1")
	}
	c.ARFCN = cmp.Or(c.ARFCN, 871)
	c.PDCHMask = cmp.Or(c.PDCHMask, 0xf0)
	c.SignalDBm = cmp.Or(c.SignalDBm, 63)
	c.Lead = cmp.Or(c.Lead, 1)
	c.FillDelay = cmp.Or(c.FillDelay, 2)
}

// Frame is one GSMTAP frame seen on the air (either direction).
type Frame struct {
	Hdr     gsmtap.Header
	Payload []byte
	At      time.Time
}

type ulFrame struct {
	fn  uint32
	pkt []byte
	hdr gsmtap.Header
	pl  []byte
}

// Stats counts what crossed the air.
type Stats struct {
	DLFrames, ULFrames int
	RACHs              int
	Late               int // PDCH blocks that arrived after their radio block was handed on
	ULLate             int // uplink blocks sent after their frame had passed
	Fill               int // empty uplink blocks sent (Config.Fill)
}

// Um is an attachment to a virtual Um; open it inside the BTS's network
// namespace.
type Um struct {
	cfg  Config
	rx   *net.UDPConn
	tx   *net.UDPConn
	info pcuif.InfoInd

	frames chan Frame
	done   chan struct{}
	wg     sync.WaitGroup

	mu    sync.Mutex
	maxFN uint32
	maxAt time.Time
	clock bool
	stats Stats
	ul    []ulFrame
	wake  chan struct{}
	// Fill state: the next uplink block to fill, and per timeslot the FN
	// of the last PDTCH block sent.
	fillFN   uint32
	fillOn   bool
	lastSent [8]uint32
	sentAny  [8]bool
	// Tap, when set before Open returns, sees every downlink frame and
	// every uplink frame sent (for a GSMTAP pcap).
	tap func(f Frame)

	// Step state (one caller).
	started bool
	next    uint32
	held    *Frame
	ccch    []pcuif.Data
}

// Open joins the downlink group and prepares the uplink socket. tap (may
// be nil) sees every frame.
func Open(cfg Config, tap func(Frame)) (*Um, error) {
	cfg.defaults()
	u := &Um{cfg: cfg, frames: make(chan Frame, 4096), done: make(chan struct{}), wake: make(chan struct{}, 1), tap: tap}
	u.info.TRX[0].ARFCN = cfg.ARFCN
	u.info.TRX[0].PDCHMask = cfg.PDCHMask
	var err error
	if u.rx, err = listenGroup(cfg.DLGroup, cfg.IfAddr); err != nil {
		return nil, err
	}
	if u.tx, err = dialGroup(cfg.ULGroup, cfg.IfAddr); err != nil {
		u.rx.Close()
		return nil, err
	}
	u.wg.Add(2)
	go u.readLoop()
	go u.sendLoop()
	return u, nil
}

// Close leaves the air.
func (u *Um) Close() {
	select {
	case <-u.done:
		return
	default:
	}
	close(u.done)
	u.rx.Close()
	u.tx.Close()
	u.wg.Wait()
}

// Stats returns the counters.
func (u *Um) Stats() Stats {
	u.mu.Lock()
	defer u.mu.Unlock()
	return u.stats
}

func setsockopt(c syscall.RawConn, f func(fd int) error) error {
	var serr error
	if err := c.Control(func(fd uintptr) { serr = f(int(fd)) }); err != nil {
		return err
	}
	return serr
}

// listenGroup binds the group address itself (so the socket sees only that
// group, not the uplink the BTS listens to on the same port) with
// SO_REUSEADDR/SO_REUSEPORT, so several MS processes can listen at once,
// and joins the group on the interface with ifAddr.
func listenGroup(g netip.AddrPort, ifAddr netip.Addr) (*net.UDPConn, error) {
	fd, err := syscall.Socket(syscall.AF_INET, syscall.SOCK_DGRAM|syscall.SOCK_CLOEXEC, 0)
	if err != nil {
		return nil, err
	}
	f := func() error {
		if err := syscall.SetsockoptInt(fd, syscall.SOL_SOCKET, syscall.SO_REUSEADDR, 1); err != nil {
			return err
		}
		if err := syscall.SetsockoptInt(fd, syscall.SOL_SOCKET, 0xf /* SO_REUSEPORT */, 1); err != nil {
			return err
		}
		if err := syscall.SetsockoptInt(fd, syscall.SOL_SOCKET, syscall.SO_RCVBUF, 1<<20); err != nil {
			return err
		}
		if err := syscall.Bind(fd, &syscall.SockaddrInet4{Port: int(g.Port()), Addr: g.Addr().As4()}); err != nil {
			return fmt.Errorf("bind %v: %w", g, err)
		}
		mr := &syscall.IPMreq{Multiaddr: g.Addr().As4(), Interface: ifAddr.As4()}
		if err := syscall.SetsockoptIPMreq(fd, syscall.IPPROTO_IP, syscall.IP_ADD_MEMBERSHIP, mr); err != nil {
			return fmt.Errorf("join %v: %w", g.Addr(), err)
		}
		return nil
	}
	if err := f(); err != nil {
		syscall.Close(fd)
		return nil, err
	}
	return fileConn(fd, "vum-rx")
}

func dialGroup(g netip.AddrPort, ifAddr netip.Addr) (*net.UDPConn, error) {
	c, err := net.DialUDP("udp4", nil, net.UDPAddrFromAddrPort(g))
	if err != nil {
		return nil, err
	}
	rc, err := c.SyscallConn()
	if err == nil {
		err = setsockopt(rc, func(fd int) error {
			if err := syscall.SetsockoptInet4Addr(fd, syscall.IPPROTO_IP, syscall.IP_MULTICAST_IF, ifAddr.As4()); err != nil {
				return err
			}
			if err := syscall.SetsockoptInt(fd, syscall.IPPROTO_IP, syscall.IP_MULTICAST_LOOP, 1); err != nil {
				return err
			}
			return syscall.SetsockoptInt(fd, syscall.IPPROTO_IP, syscall.IP_MULTICAST_TTL, 0)
		})
	}
	if err != nil {
		c.Close()
		return nil, fmt.Errorf("uplink socket: %w", err)
	}
	return c, nil
}

func (u *Um) readLoop() {
	defer u.wg.Done()
	buf := make([]byte, 2048)
	for {
		n, err := u.rx.Read(buf)
		if err != nil {
			select {
			case <-u.done:
				return
			default:
			}
			if errors.Is(err, net.ErrClosed) {
				return
			}
			continue
		}
		var f Frame
		off, err := f.Hdr.Unmarshal(buf[:n])
		if err != nil || f.Hdr.Type != gsmtap.TypeUM || f.Hdr.Uplink || f.Hdr.ARFCN != u.cfg.ARFCN {
			continue
		}
		f.Payload = append([]byte(nil), buf[off:n]...)
		f.At = time.Now()
		u.mu.Lock()
		u.stats.DLFrames++
		if !u.clock || pcuif.FNDelta(f.Hdr.FrameNumber, u.maxFN) > 0 {
			u.maxFN, u.maxAt, u.clock = f.Hdr.FrameNumber, f.At, true
		}
		u.mu.Unlock()
		if u.tap != nil {
			u.tap(f)
		}
		select {
		case u.frames <- f:
		default: // the MS fell far behind: drop (counted as late by nobody)
		}
		select {
		case u.wake <- struct{}{}:
		default:
		}
	}
}

// Now estimates the BTS's current FN: the newest downlink FN plus the
// frames elapsed since it arrived.
func (u *Um) Now() (uint32, bool) {
	u.mu.Lock()
	defer u.mu.Unlock()
	return u.nowLocked()
}

func (u *Um) nowLocked() (uint32, bool) {
	if !u.clock {
		return 0, false
	}
	return (u.maxFN + uint32(time.Since(u.maxAt)/btsemu.FramePeriod)) % pcuif.MaxFN, true
}

func (u *Um) sendLoop() {
	defer u.wg.Done()
	t := time.NewTimer(time.Hour)
	defer t.Stop()
	for {
		wait := time.Hour
		u.mu.Lock()
		now, ok := u.nowLocked()
		for ok && len(u.ul) > 0 {
			d := pcuif.FNDelta(u.ul[0].fn, now)
			if d > u.cfg.Lead {
				wait = time.Duration(d-u.cfg.Lead) * btsemu.FramePeriod
				break
			}
			f := u.ul[0]
			u.ul = u.ul[1:]
			if d < 0 {
				u.stats.ULLate++
			}
			u.stats.ULFrames++
			if f.hdr.SubType == gsmtap.ChannelPDTCH && f.hdr.Timeslot < 8 {
				u.lastSent[f.hdr.Timeslot], u.sentAny[f.hdr.Timeslot] = f.fn, true
			}
			u.mu.Unlock()
			u.tx.Write(f.pkt)
			if u.tap != nil {
				u.tap(Frame{Hdr: f.hdr, Payload: f.pl, At: time.Now()})
			}
			u.mu.Lock()
			now, ok = u.nowLocked()
		}
		if ok && u.cfg.Fill {
			if w := u.fillLocked(now); w < wait {
				wait = w
			}
		}
		u.mu.Unlock()
		if !t.Stop() {
			select {
			case <-t.C:
			default:
			}
		}
		t.Reset(wait)
		select {
		case <-u.done:
			return
		case <-t.C:
		case <-u.wake:
		}
	}
}

// fillLocked sends the empty blocks due at the BTS's FN now (Config.Fill)
// and returns the time until the next is due.
func (u *Um) fillLocked(now uint32) time.Duration {
	if !u.fillOn {
		u.fillFN, u.fillOn = btsemu.NextBlockFN(now), true
	}
	if pcuif.FNDelta(now, u.fillFN) > 52 {
		u.fillFN = btsemu.NextBlockFN(now) // the clock jumped: skip ahead
	}
	for pcuif.FNDelta(now, u.fillFN) >= u.cfg.FillDelay {
		fn := u.fillFN
		for ts := range uint8(8) {
			if u.cfg.PDCHMask&(1<<ts) == 0 || u.sentAny[ts] && u.lastSent[ts] == fn || u.queuedLocked(fn, ts) {
				continue
			}
			h := gsmtap.Header{Type: gsmtap.TypeUM, ARFCN: u.cfg.ARFCN, Uplink: true, Timeslot: ts, FrameNumber: fn,
				SubType: gsmtap.ChannelPDTCH, SignalDBm: u.cfg.SignalDBm, SNRdB: 63}
			u.tx.Write(h.Append(nil, nil))
			u.stats.Fill++
		}
		u.fillFN = btsemu.NextBlockFN(fn)
	}
	return time.Duration(pcuif.FNDelta(u.fillFN, now)+u.cfg.FillDelay) * btsemu.FramePeriod
}

// queuedLocked reports whether an uplink PDTCH block for (fn, ts) waits.
func (u *Um) queuedLocked(fn uint32, ts uint8) bool {
	for i := range u.ul {
		if f := &u.ul[i]; f.fn == fn && f.hdr.Timeslot == ts && f.hdr.SubType == gsmtap.ChannelPDTCH {
			return true
		}
	}
	return false
}

func (u *Um) queue(h gsmtap.Header, payload []byte, now bool) {
	h.Type = gsmtap.TypeUM
	h.ARFCN = u.cfg.ARFCN
	h.Uplink = true
	h.SignalDBm, h.SNRdB = u.cfg.SignalDBm, 63
	pkt := h.Append(nil, payload)
	u.mu.Lock()
	if now {
		u.stats.ULFrames++
		if h.SubType == gsmtap.ChannelRACH {
			u.stats.RACHs++
		}
		u.mu.Unlock()
		u.tx.Write(pkt)
		// the empty clock primer stays out of the capture: Wireshark
		// takes an empty PDTCH frame for a malformed access burst
		if u.tap != nil && len(payload) > 0 {
			u.tap(Frame{Hdr: h, Payload: payload, At: time.Now()})
		}
		return
	}
	f := ulFrame{fn: h.FrameNumber, pkt: pkt, hdr: h, pl: payload}
	i := sort.Search(len(u.ul), func(i int) bool { return pcuif.FNDelta(u.ul[i].fn, f.fn) > 0 })
	u.ul = append(u.ul, ulFrame{})
	copy(u.ul[i+1:], u.ul[i:])
	u.ul[i] = f
	u.mu.Unlock()
	select {
	case u.wake <- struct{}{}:
	default:
	}
}

// Send implements msemu.Air: a RACH_IND goes out at once as an access
// burst on TS 0 (8-bit RA only: osmo-bts-virtual 1.5 reads one octet); an
// uplink DATA_IND is sent in its frame on its timeslot.
func (u *Um) Send(m pcuif.Message) error {
	switch x := m.(type) {
	case *pcuif.RACHInd:
		if x.Is11Bit {
			return errors.New("vum: osmo-bts-virtual takes 8-bit RACH only")
		}
		u.queue(gsmtap.Header{Timeslot: 0, FrameNumber: x.FN, SubType: gsmtap.ChannelRACH}, []byte{byte(x.RA)}, true)
	case *pcuif.Data:
		ch := uint8(gsmtap.ChannelPDTCH)
		if x.SAPI == pcuif.SAPIPTCCH {
			ch = gsmtap.ChannelPTCCH
		}
		u.queue(gsmtap.Header{Timeslot: x.TS, FrameNumber: x.FN, SubType: ch}, append([]byte(nil), x.Payload...), false)
	default:
		return fmt.Errorf("vum: cannot send %T", m)
	}
	return nil
}

// Info implements msemu.Air: the cell's TRX 0 (ARFCN, PDCH timeslots).
func (u *Um) Info() *pcuif.InfoInd { return &u.info }

// RealTime marks Um as an msemu.RealTimeAir.
func (u *Um) RealTime() {}

// FN implements msemu.Air: the first FN of the radio block Step returns
// next (before the first Step: the current frame).
func (u *Um) FN() uint32 {
	if !u.started {
		u.start(10 * time.Second)
	}
	return u.next
}

// start waits for the first downlink frame (at most timeout) and takes the
// radio block at or after it as the first one to step.
func (u *Um) start(timeout time.Duration) bool {
	select {
	case f := <-u.frames:
		u.started = true
		u.next = blockAtOrAfter(f.Hdr.FrameNumber)
		u.held = &f
		// osmo-bts-virtual passes an empty uplink block on as an empty
		// DATA_IND: it gives the PCU the current FN before the first
		// RACH. osmo-pcu 1.1.0 learns its FN only from DATA_IND (it
		// ignores TIME_IND) and maps the RACH's FN to a full FN with it
		// (bts_rfn_to_fn); without one it answers with a wrong Request
		// Reference.
		for ts := uint8(0); ts < 8; ts++ {
			if u.cfg.PDCHMask&(1<<ts) != 0 {
				// at a block start (the BTS derives the DATA_IND
				// block_nr from the FN)
				fn := f.Hdr.FrameNumber
				for btsemu.BlockNr(fn) < 0 {
					fn = (fn + pcuif.MaxFN - 1) % pcuif.MaxFN
				}
				u.queue(gsmtap.Header{Timeslot: ts, FrameNumber: fn, SubType: gsmtap.ChannelPDTCH}, nil, true)
				break
			}
		}
		return true
	case <-time.After(timeout):
		return false
	case <-u.done:
		return false
	}
}

// CCCH implements msemu.Air: the AGCH/PCH blocks on TS 0 received since
// the last call, as AGCH MAC blocks (osmo-bts-virtual labels CCCH blocks
// PCH or AGCH by block number, not by content).
func (u *Um) CCCH() []pcuif.Data {
	c := u.ccch
	u.ccch = nil
	return c
}

// Step implements msemu.Air: it waits until the BTS has sent the radio
// block at FN() on every timeslot (a later frame arrived, or the clock is
// two frames past the block) and returns its PDTCH/PACCH/PTCCH blocks.
func (u *Um) Step(ctx context.Context, timeout time.Duration) (btsemu.Block, error) {
	if !u.started && !u.start(timeout) {
		return btsemu.Block{}, errors.New("vum: no downlink from the BTS")
	}
	b := u.next
	nb := btsemu.NextBlockFN(b)
	blk := btsemu.Block{FN: b, BlockNr: btsemu.BlockNr(b)}
	done := false
	if h := u.held; h != nil {
		u.held = nil
		done = u.take(*h, b, nb, &blk)
	}
	deadline := time.Now().Add(timeout)
	for !done {
		now, _ := u.Now()
		wait := time.Duration(pcuif.FNDelta(nb, now)+2) * btsemu.FramePeriod
		if wait <= 0 {
			break
		}
		if time.Now().Add(wait).After(deadline) {
			wait = time.Until(deadline)
		}
		if wait <= 0 {
			return blk, errors.New("vum: the BTS's clock stopped")
		}
		t := time.NewTimer(wait)
		select {
		case f := <-u.frames:
			done = u.take(f, b, nb, &blk)
		case <-t.C:
		case <-ctx.Done():
			t.Stop()
			return blk, ctx.Err()
		}
		t.Stop()
	}
	u.next = nb
	return blk, nil
}

// take files a frame under the block [b, nb); it reports whether the frame
// belongs to a later block (the block is complete).
func (u *Um) take(f Frame, b, nb uint32, blk *btsemu.Block) bool {
	later := pcuif.FNDelta(f.Hdr.FrameNumber, nb) >= 0
	switch f.Hdr.SubType &^ gsmtap.ChannelACCH {
	case gsmtap.ChannelAGCH, gsmtap.ChannelPCH, gsmtap.ChannelCCCH:
		if len(f.Payload) == 23 {
			u.ccch = append(u.ccch, pcuif.Data{SAPI: pcuif.SAPIAGCH, FN: f.Hdr.FrameNumber, TS: f.Hdr.Timeslot, ARFCN: u.cfg.ARFCN, Payload: f.Payload})
		}
	case gsmtap.ChannelPDTCH, gsmtap.ChannelPACCH, gsmtap.ChannelPTCCH:
		if later {
			u.held = &f
			return true
		}
		if pcuif.FNDelta(f.Hdr.FrameNumber, b) < 0 {
			u.mu.Lock()
			u.stats.Late++
			u.mu.Unlock()
			return false
		}
		// osmo-bts-virtual 1.5 labels PTCCH/D blocks PDTCH too: they are
		// the ones in the idle frames 12 and 38 of the 52-multiframe
		// (TS 45.002 §6.3.2.2).
		sapi := pcuif.SAPIPDTCH
		if m := f.Hdr.FrameNumber % 52; f.Hdr.SubType == gsmtap.ChannelPTCCH || m == 12 || m == 38 {
			sapi = pcuif.SAPIPTCCH
		}
		blk.Answers = append(blk.Answers, pcuif.Data{Kind: pcuif.TypeDataReq, SAPI: sapi, FN: f.Hdr.FrameNumber,
			TS: f.Hdr.Timeslot, ARFCN: u.cfg.ARFCN, BlockNr: uint8(max(blk.BlockNr, 0)), Payload: f.Payload})
	}
	return later
}

func blockAtOrAfter(fn uint32) uint32 {
	if btsemu.BlockNr(fn) >= 0 {
		return fn
	}
	return btsemu.NextBlockFN(fn)
}

func fileConn(fd int, name string) (*net.UDPConn, error) {
	f := os.NewFile(uintptr(fd), name)
	defer f.Close()
	c, err := net.FilePacketConn(f)
	if err != nil {
		return nil, err
	}
	uc, ok := c.(*net.UDPConn)
	if !ok {
		c.Close()
		return nil, errors.New("vum: not a UDP socket")
	}
	return uc, nil
}
