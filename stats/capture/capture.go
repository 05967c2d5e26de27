// Package capture writes one pcap file of everything a gopcu process
// exchanges: Gb (NS/BSSGP datagrams over UDP, with the real addresses and
// ports) and the radio side (radio blocks as GSMTAP over UDP, port 4729),
// so that Wireshark shows a whole session in one file.
//
// Packets are raw IP (LINKTYPE_RAW, IPv4 or IPv6 per packet) carrying UDP
// with valid checksums (RFC 791, RFC 768, RFC 8200 §8.1). Open Gb on a
// non-standard port with `tshark -d udp.port==23000,gprs-ns`.
//
// Callers never block: each packet is copied into a bounded queue (in
// packets and in octets) and written by the capture's own goroutine; when
// the queue is full the packet is dropped and counted (Dropped). Any
// goroutine may call the methods concurrently.
//
// The file is bounded too (Options.MaxSize): a file made by Create is then
// rotated as logrotate does (path.1 is the previous file, up to Files
// files in all); a capture into a caller's writer stops writing and counts
// the rest as dropped.
package capture

import (
	"bufio"
	"encoding/binary"
	"io"
	"net/netip"
	"os"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/gopcu/gopcu/bssgp/ns/nse"
	"github.com/gopcu/gopcu/bssgp/ns/nsudp"
	"github.com/gopcu/gopcu/gsmtap"
)

// Options tune a capture.
type Options struct {
	// Queue is the number of packets that may wait for the writer
	// (default 4096); beyond it packets are dropped.
	Queue int
	// GSMTAPSrc and GSMTAPDst are the addresses GSMTAP packets are shown
	// with (default 127.0.0.1:4729 -> 127.0.0.1:4729; the engine's tap
	// socket and `gsmtap-remote-host` are the natural choice).
	GSMTAPSrc, GSMTAPDst netip.AddrPort
	// Snaplen is written to the file header (default 65535).
	Snaplen uint32
	// QueueBytes bounds the octets waiting for the writer (default 4 MiB).
	QueueBytes int64
	// MaxSize is the size at which a file is complete (default
	// DefaultMaxSize; negative: no limit).
	MaxSize int64
	// Files is how many files a rotating capture keeps, the current one
	// included (default DefaultFiles; 1: the file starts over when full).
	Files int
}

// Defaults of Options.
const (
	DefaultMaxSize = 64 << 20
	DefaultFiles   = 4
)

type record struct {
	ts       time.Time
	src, dst netip.AddrPort
	data     []byte
}

// Capture is an open pcap capture.
type Capture struct {
	opts Options
	bw   *bufio.Writer
	file *os.File // nil when writing to a caller's io.Writer
	path string
	size int64 // octets in the current file
	full bool  // caller's writer at MaxSize
	rot  atomic.Uint64
	qlen atomic.Int64 // octets queued

	mu     sync.RWMutex // guards closed and the send on ch against Close
	closed bool
	ch     chan record
	done   chan struct{}

	dropped atomic.Uint64
	written atomic.Uint64
	err     atomic.Pointer[error]
}

// Create creates (truncates) the file at path and starts a capture into
// it, rotated at Options.MaxSize.
func Create(path string, opts Options) (*Capture, error) {
	f, err := os.Create(path)
	if err != nil {
		return nil, err
	}
	c, err := newCapture(f, opts, f, path)
	if err != nil {
		f.Close()
		return nil, err
	}
	return c, nil
}

// New writes the pcap file header to w and starts the writer goroutine.
// Close flushes but does not close w.
func New(w io.Writer, opts Options) (*Capture, error) {
	return newCapture(w, opts, nil, "")
}

func newCapture(w io.Writer, opts Options, file *os.File, path string) (*Capture, error) {
	if opts.Queue <= 0 {
		opts.Queue = 4096
	}
	if opts.QueueBytes <= 0 {
		opts.QueueBytes = 4 << 20
	}
	if opts.MaxSize == 0 {
		opts.MaxSize = DefaultMaxSize
	}
	if opts.Files <= 0 {
		opts.Files = DefaultFiles
	}
	lo := netip.AddrFrom4([4]byte{127, 0, 0, 1})
	if !opts.GSMTAPSrc.IsValid() {
		opts.GSMTAPSrc = netip.AddrPortFrom(lo, gsmtap.UDPPort)
	}
	if !opts.GSMTAPDst.IsValid() {
		opts.GSMTAPDst = netip.AddrPortFrom(lo, gsmtap.UDPPort)
	}
	if opts.Snaplen == 0 {
		opts.Snaplen = 65535
	}
	bw := bufio.NewWriterSize(w, 64<<10)
	if err := writeFileHeader(bw, opts.Snaplen); err != nil {
		return nil, err
	}
	if err := bw.Flush(); err != nil {
		return nil, err
	}
	c := &Capture{opts: opts, bw: bw, file: file, path: path, size: pcapHeaderLen,
		ch: make(chan record, opts.Queue), done: make(chan struct{})}
	go c.run()
	return c, nil
}

// pcapHeaderLen and pcapRecordLen are the pcap file and record headers.
const (
	pcapHeaderLen = 24
	pcapRecordLen = 16
)

// Rotations counts the files completed (rotated away or started over).
func (c *Capture) Rotations() uint64 { return c.rot.Load() }

// rotate completes the current file: path.N-2 -> path.N-1, ..., path ->
// path.1, and a new path with its header. Writer goroutine only.
func (c *Capture) rotate() error {
	if err := c.bw.Flush(); err != nil {
		return err
	}
	if err := c.file.Close(); err != nil {
		return err
	}
	for i := c.opts.Files - 1; i >= 1; i-- {
		from := c.path
		if i > 1 {
			from = c.path + "." + strconv.Itoa(i-1)
		}
		if err := os.Rename(from, c.path+"."+strconv.Itoa(i)); err != nil && !os.IsNotExist(err) {
			return err
		}
	}
	f, err := os.Create(c.path)
	if err != nil {
		c.file = nil
		return err
	}
	c.file = f
	c.bw.Reset(f)
	if err := writeFileHeader(c.bw, c.opts.Snaplen); err != nil {
		return err
	}
	c.size = pcapHeaderLen
	c.rot.Add(1)
	return nil
}

// UDP records one UDP datagram from src to dst. It copies payload and
// returns false when the packet was dropped (queue full or closed).
func (c *Capture) UDP(ts time.Time, src, dst netip.AddrPort, payload []byte) bool {
	return c.enqueue(record{ts: ts, src: src, dst: dst, data: append([]byte(nil), payload...)})
}

// GSMTAP records one radio block as a GSMTAP datagram (header h, then
// payload).
func (c *Capture) GSMTAP(ts time.Time, h *gsmtap.Header, payload []byte) bool {
	b := h.Append(make([]byte, 0, gsmtap.HdrLen+len(payload)), payload)
	return c.enqueue(record{ts: ts, src: c.opts.GSMTAPSrc, dst: c.opts.GSMTAPDst, data: b})
}

// GSMTAPDatagram records an already encoded GSMTAP datagram (what the
// engine's tap sends to `gsmtap-remote-host`).
func (c *Capture) GSMTAPDatagram(ts time.Time, b []byte) bool {
	return c.UDP(ts, c.opts.GSMTAPSrc, c.opts.GSMTAPDst, b)
}

func (c *Capture) enqueue(r record) bool {
	c.mu.RLock()
	defer c.mu.RUnlock()
	n := int64(len(r.data))
	if c.closed || c.qlen.Load()+n > c.opts.QueueBytes {
		c.dropped.Add(1)
		return false
	}
	select {
	case c.ch <- r:
		c.qlen.Add(n)
		return true
	default:
		c.dropped.Add(1)
		return false
	}
}

// Dropped counts packets not captured because the queue was full or the
// capture closed.
func (c *Capture) Dropped() uint64 { return c.dropped.Load() }

// Written counts packets written to the file.
func (c *Capture) Written() uint64 { return c.written.Load() }

// Err is the first write error (the writer stops writing after it).
func (c *Capture) Err() error {
	if p := c.err.Load(); p != nil {
		return *p
	}
	return nil
}

// Close writes what is queued, flushes, closes the file made by Create,
// and returns the first error. Later calls to the recording methods drop.
func (c *Capture) Close() error {
	c.mu.Lock()
	if c.closed {
		c.mu.Unlock()
		<-c.done
		return c.Err()
	}
	c.closed = true
	close(c.ch)
	c.mu.Unlock()
	<-c.done
	err := c.Err()
	if c.file != nil {
		if cerr := c.file.Close(); err == nil {
			err = cerr
		}
	}
	return err
}

func (c *Capture) fail(err error) {
	c.err.CompareAndSwap(nil, &err)
}

func (c *Capture) run() {
	defer close(c.done)
	var buf []byte
	for r := range c.ch {
		c.qlen.Add(-int64(len(r.data)))
		if c.Err() != nil {
			c.dropped.Add(1)
			continue
		}
		buf = AppendIPUDP(buf[:0], r.src, r.dst, r.data)
		rl := int64(pcapRecordLen + min(len(buf), int(c.opts.Snaplen)))
		if c.opts.MaxSize > 0 && c.size+rl > c.opts.MaxSize && c.size > pcapHeaderLen {
			if c.file == nil || c.path == "" {
				if !c.full {
					c.full = true
					if err := c.bw.Flush(); err != nil {
						c.fail(err)
					}
				}
				c.dropped.Add(1) // a caller's writer is not rotated
				continue
			}
			if err := c.rotate(); err != nil {
				c.fail(err)
				c.dropped.Add(1)
				continue
			}
		}
		if err := writeRecord(c.bw, r.ts, buf, int(c.opts.Snaplen)); err != nil {
			c.fail(err)
			continue
		}
		c.size += rl
		c.written.Add(1)
		if len(c.ch) == 0 { // idle: make the file readable as it grows
			if err := c.bw.Flush(); err != nil {
				c.fail(err)
			}
		}
	}
	if c.Err() == nil {
		if err := c.bw.Flush(); err != nil {
			c.fail(err)
		}
	}
}

// AppendIPUDP appends an IPv4 (both ends IPv4 or IPv4-mapped) or IPv6
// packet carrying one UDP datagram with payload, checksums filled in.
// Mixed families are shown as IPv6 with IPv4-mapped addresses.
func AppendIPUDP(b []byte, src, dst netip.AddrPort, payload []byte) []byte {
	sa, da := src.Addr().Unmap(), dst.Addr().Unmap()
	udpLen := 8 + len(payload)
	var pseudo uint32
	if sa.Is4() && da.Is4() {
		// RFC 791 §3.1 header, no options.
		total := 20 + udpLen
		off := len(b)
		b = append(b, make([]byte, 20)...)
		ip := b[off:]
		ip[0] = 0x45
		binary.BigEndian.PutUint16(ip[2:], uint16(total))
		ip[6] = 0x40 // DF
		ip[8] = 64   // TTL
		ip[9] = 17   // UDP
		s4, d4 := sa.As4(), da.As4()
		copy(ip[12:16], s4[:])
		copy(ip[16:20], d4[:])
		binary.BigEndian.PutUint16(ip[10:], fold(sum(0, ip[:20])))
		pseudo = sum(sum(0, s4[:]), d4[:]) + 17 + uint32(udpLen)
	} else {
		// RFC 8200 §3 header; the UDP checksum is mandatory (§8.1).
		off := len(b)
		b = append(b, make([]byte, 40)...)
		ip := b[off:]
		ip[0] = 0x60
		binary.BigEndian.PutUint16(ip[4:], uint16(udpLen))
		ip[6] = 17
		ip[7] = 64
		s16, d16 := sa.As16(), da.As16()
		copy(ip[8:24], s16[:])
		copy(ip[24:40], d16[:])
		pseudo = sum(sum(0, s16[:]), d16[:]) + 17 + uint32(udpLen)
	}
	off := len(b)
	b = binary.BigEndian.AppendUint16(b, src.Port())
	b = binary.BigEndian.AppendUint16(b, dst.Port())
	b = binary.BigEndian.AppendUint16(b, uint16(udpLen))
	b = append(b, 0, 0)
	b = append(b, payload...)
	ck := fold(sum(pseudo, b[off:]))
	if ck == 0 {
		ck = 0xffff // RFC 768: a computed zero is sent as all ones
	}
	binary.BigEndian.PutUint16(b[off+6:], ck)
	return b
}

func sum(s uint32, b []byte) uint32 {
	for len(b) >= 2 {
		s += uint32(b[0])<<8 | uint32(b[1])
		b = b[2:]
	}
	if len(b) == 1 {
		s += uint32(b[0]) << 8
	}
	return s
}

func fold(s uint32) uint16 {
	for s>>16 != 0 {
		s = s&0xffff + s>>16
	}
	return ^uint16(s)
}

// Transport wraps an NS transport so that every datagram sent is captured
// with the bind's local address (local(bind); resolve wildcard binds with
// nsudp.SourceAddrTowards) and the peer's.
func (c *Capture) Transport(t nse.Transport, local func(bind int) netip.AddrPort, now func() time.Time) nse.Transport {
	return nse.TransportFunc(func(bind int, to netip.AddrPort, b []byte) error {
		c.UDP(now(), local(bind), to, b)
		return t.Send(bind, to, b)
	})
}

// Deliver wraps the NS receive callback (nsudp.ListenUDP's deliver) so that
// every datagram received is captured before it is handed on.
func (c *Capture) Deliver(deliver func(nsudp.Datagram), local func(bind int) netip.AddrPort, now func() time.Time) func(nsudp.Datagram) {
	return func(d nsudp.Datagram) {
		c.UDP(now(), d.From, local(d.Bind), d.Data)
		deliver(d)
	}
}

// The classic pcap file format (the tcpdump/libpcap "pcap-savefile"
// format, little-endian, microsecond time stamps) with LINKTYPE_RAW (101,
// raw IPv4/IPv6), written by hand: gopacket's pcapgo drags in
// gopacket/layers, whose initialisation costs about 9 MB of resident
// memory in every gopcu process (docs/performance.md).
const linkTypeRaw = 101

func writeFileHeader(w io.Writer, snaplen uint32) error {
	var h [24]byte
	binary.LittleEndian.PutUint32(h[0:], 0xa1b2c3d4)
	binary.LittleEndian.PutUint16(h[4:], 2) // version 2.4
	binary.LittleEndian.PutUint16(h[6:], 4)
	binary.LittleEndian.PutUint32(h[16:], snaplen)
	binary.LittleEndian.PutUint32(h[20:], linkTypeRaw)
	_, err := w.Write(h[:])
	return err
}

// writeRecord writes one packet, cut to snaplen octets.
func writeRecord(w io.Writer, ts time.Time, pkt []byte, snaplen int) error {
	n := min(len(pkt), snaplen)
	var h [16]byte
	binary.LittleEndian.PutUint32(h[0:], uint32(ts.Unix()))
	binary.LittleEndian.PutUint32(h[4:], uint32(ts.Nanosecond()/1000))
	binary.LittleEndian.PutUint32(h[8:], uint32(n))
	binary.LittleEndian.PutUint32(h[12:], uint32(len(pkt)))
	if _, err := w.Write(h[:]); err != nil {
		return err
	}
	_, err := w.Write(pkt[:n])
	return err
}
