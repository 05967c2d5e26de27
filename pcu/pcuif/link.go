package pcuif

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"sync"
	"sync/atomic"
	"time"
)

// BufSize is the size of the link's receive and transmit buffers: the
// largest message (v12 union, 1007 octets) with room to spare so that a
// longer message is seen as such (ErrLong) instead of being truncated.
const BufSize = 2048

// Buf is a pooled message buffer.
type Buf struct {
	B [BufSize]byte
	N int
}

// Bytes returns the message.
func (b *Buf) Bytes() []byte { return b.B[:b.N] }

// EventKind says what a link event is.
type EventKind int

// Link events.
const (
	EvConnected EventKind = iota + 1
	EvMessage
	EvDisconnected
)

// Event is what the link hands to its owner. For EvMessage the owner must
// give Buf back with Link.Release once it is done with it.
type Event struct {
	Kind EventKind
	Gen  uint64 // connection generation; messages of an older one are stale
	Buf  *Buf
	Err  error // why the connection ended (EvDisconnected)
}

// Link is the PCU's client side of the PCU socket: it connects to the BTS
// (SOCK_SEQPACKET), reconnects with backoff when the BTS goes away, and
// moves whole messages between the socket and its owner. It knows nothing
// of their content.
type Link struct {
	Path       string
	MinBackoff time.Duration // first retry delay after a failure or loss (default 1 s)
	MaxBackoff time.Duration // cap of the doubling delay (default 10 s)
	TxQueue    int           // messages queued for the writer (default 512)
	Log        *slog.Logger

	rxFree chan *Buf
	txFree chan *Buf

	mu   sync.Mutex
	cur  *conn
	gen  atomic.Uint64
	drop atomic.Uint64
	sent atomic.Uint64
}

type conn struct {
	gen uint64
	c   *net.UnixConn
	tx  chan *Buf
}

// ErrNotConnected is returned by Send when no BTS connection exists (or the
// message belongs to an older connection).
var ErrNotConnected = errors.New("pcuif: not connected")

// ErrTxFull is returned by Send when the writer cannot keep up.
var ErrTxFull = errors.New("pcuif: transmit queue full")

func (l *Link) init() {
	if l.MinBackoff == 0 {
		l.MinBackoff = time.Second
	}
	if l.MaxBackoff == 0 {
		l.MaxBackoff = 10 * time.Second
	}
	if l.TxQueue == 0 {
		l.TxQueue = 512
	}
	if l.Log == nil {
		l.Log = slog.New(slog.DiscardHandler)
	}
	l.rxFree = make(chan *Buf, 256)
	l.txFree = make(chan *Buf, l.TxQueue+8)
}

// Run connects and keeps connecting until ctx ends, delivering events on
// out. It returns when ctx is done and every goroutine it started has ended.
func (l *Link) Run(ctx context.Context, out chan<- Event) {
	l.init()
	backoff := l.MinBackoff
	for {
		c, err := net.DialUnix("unixpacket", nil, &net.UnixAddr{Name: l.Path, Net: "unixpacket"})
		if err != nil {
			// osmo-pcu 1.1.0 osmobts_sock.c pcu_l1if_open(): the same line,
			// at every retry; the reason at debug
			l.Log.Error(fmt.Sprintf("Failed to connect to the BTS (%s). Retrying...", l.Path))
			l.Log.Debug("cannot connect to BTS", "path", l.Path, "err", err, "retry_in", backoff)
			if !sleep(ctx, backoff) {
				return
			}
			backoff = min(2*backoff, l.MaxBackoff)
			continue
		}
		backoff = l.MinBackoff
		err = l.serve(ctx, c, out)
		if ctx.Err() != nil {
			return
		}
		l.Log.Info("BTS connection lost, reconnecting", "path", l.Path, "err", err, "retry_in", backoff)
		if !sleep(ctx, backoff) {
			return
		}
		backoff = min(2*backoff, l.MaxBackoff)
	}
}

func sleep(ctx context.Context, d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return false
	case <-t.C:
		return true
	}
}

// serve runs one connection: a reader (this goroutine) and a writer.
func (l *Link) serve(ctx context.Context, uc *net.UnixConn, out chan<- Event) error {
	cn := &conn{gen: l.gen.Add(1), c: uc, tx: make(chan *Buf, l.TxQueue)}
	l.mu.Lock()
	l.cur = cn
	l.mu.Unlock()
	l.Log.Info("connected to BTS", "path", l.Path, "gen", cn.gen)

	stop := context.AfterFunc(ctx, func() { uc.Close() })
	defer stop()
	wdone := make(chan struct{})
	go func() {
		defer close(wdone)
		for b := range cn.tx {
			if _, err := uc.Write(b.Bytes()); err != nil {
				uc.Close() // makes the reader end
				l.putTx(b)
				for b := range cn.tx {
					l.putTx(b)
				}
				return
			}
			l.sent.Add(1)
			l.putTx(b)
		}
	}()

	deliver := func(ev Event) bool {
		select {
		case out <- ev:
			return true
		case <-ctx.Done():
			return false
		}
	}
	var rerr error
	if deliver(Event{Kind: EvConnected, Gen: cn.gen}) {
		for {
			b := l.getRx()
			n, err := uc.Read(b.B[:])
			if err != nil {
				l.Release(b)
				rerr = err
				break
			}
			if n == 0 { // SEQPACKET: zero-length read is the peer's orderly close
				l.Release(b)
				rerr = errors.New("BTS closed the connection")
				break
			}
			b.N = n
			if !deliver(Event{Kind: EvMessage, Gen: cn.gen, Buf: b}) {
				l.Release(b)
				break
			}
		}
	}
	l.mu.Lock()
	l.cur = nil
	close(cn.tx) // Send holds mu while sending on tx, so this cannot race
	l.mu.Unlock()
	uc.Close()
	<-wdone
	deliver(Event{Kind: EvDisconnected, Gen: cn.gen, Err: rerr})
	return rerr
}

func (l *Link) getRx() *Buf {
	select {
	case b := <-l.rxFree:
		return b
	default:
		return new(Buf)
	}
}

// Release gives a received buffer back.
func (l *Link) Release(b *Buf) {
	select {
	case l.rxFree <- b:
	default:
	}
}

// TxBuf returns a buffer to encode an outgoing message into.
func (l *Link) TxBuf() *Buf {
	select {
	case b := <-l.txFree:
		return b
	default:
		return new(Buf)
	}
}

func (l *Link) putTx(b *Buf) {
	select {
	case l.txFree <- b:
	default:
	}
}

// Send queues b (b.N octets) for connection gen. The buffer belongs to the
// link afterwards, also on error. It never blocks: when the writer is
// behind, the message is dropped and ErrTxFull returned.
func (l *Link) Send(gen uint64, b *Buf) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.cur == nil || l.cur.gen != gen {
		l.putTx(b)
		return ErrNotConnected
	}
	select {
	case l.cur.tx <- b:
		return nil
	default:
		l.drop.Add(1)
		l.putTx(b)
		return ErrTxFull
	}
}

// Dropped is the number of messages dropped because the writer was behind.
func (l *Link) Dropped() uint64 { return l.drop.Load() }

// Sent is the number of messages written to the socket.
func (l *Link) Sent() uint64 { return l.sent.Load() }
