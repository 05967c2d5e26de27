// Package capture writes one pcap file of everything a gopcu process
// exchanges: Gb (NS/BSSGP datagrams over UDP, with the real addresses and
// ports) and the radio side (radio blocks as GSMTAP over UDP, port 4729),
// so that Wireshark shows a whole session in one file.
//
// Packets are raw IP (LINKTYPE_RAW, IPv4 or IPv6 per packet) carrying UDP
// with valid checksums (RFC 791, RFC 768, RFC 8200 §8.1), written by the
// module's one pcap writer (internal/pcapw: by hand, not gopacket's
// pcapgo, which would cost every gopcu process about 9 MB of resident
// memory, docs/performance.md). Open Gb on a
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
	"cmp"
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
	"github.com/gopcu/gopcu/internal/pcapw"
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
	pw   *pcapw.Writer // writes into bw
	file *os.File      // nil when writing to a caller's io.Writer
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
	opts.MaxSize = cmp.Or(opts.MaxSize, DefaultMaxSize)
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
	opts.Snaplen = cmp.Or(opts.Snaplen, 65535)
	bw := bufio.NewWriterSize(w, 64<<10)
	pw, err := pcapw.NewWriter(bw, opts.Snaplen)
	if err != nil {
		return nil, err
	}
	if err := bw.Flush(); err != nil {
		return nil, err
	}
	c := &Capture{opts: opts, bw: bw, pw: pw, file: file, path: path, size: pcapw.FileHeaderLen,
		ch: make(chan record, opts.Queue), done: make(chan struct{})}
	go c.run()
	return c, nil
}

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
	pw, err := pcapw.NewWriter(c.bw, c.opts.Snaplen)
	if err != nil {
		return err
	}
	c.pw = pw
	c.size = pcapw.FileHeaderLen
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
// engine's tap sends to `gsmtap-remote-host`), stamped now.
func (c *Capture) GSMTAPDatagram(b []byte) bool {
	return c.UDP(time.Now(), c.opts.GSMTAPSrc, c.opts.GSMTAPDst, b)
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
		rl := int64(c.pw.RecordLen(len(buf)))
		if c.opts.MaxSize > 0 && c.size+rl > c.opts.MaxSize && c.size > pcapw.FileHeaderLen {
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
		if err := c.pw.WritePacket(r.ts, buf); err != nil {
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

// AppendIPUDP appends an IPv4 or IPv6 packet carrying one UDP datagram
// (pcapw.AppendIPUDP, the framing of every packet in the file).
func AppendIPUDP(b []byte, src, dst netip.AddrPort, payload []byte) []byte {
	return pcapw.AppendIPUDP(b, src, dst, payload)
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
