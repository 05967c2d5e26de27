package nsudp

import (
	"net/netip"
	"testing"
	"time"

	"github.com/gopcu/gopcu/internal/poison"
)

// Two NSEs-worth of sockets on loopback, IPv4 and IPv6.
func TestUDPLoopback(t *testing.T) {
	for _, addr := range []string{"127.0.0.1:0", "[::1]:0"} {
		ch := make(chan Datagram, 4)
		u, err := ListenUDP([]netip.AddrPort{netip.MustParseAddrPort(addr), netip.MustParseAddrPort(addr)},
			func(d Datagram) { ch <- d })
		if err != nil {
			t.Skipf("needs %s on this host: %v", addr, err)
		}
		if err := u.Send(0, u.LocalAddr(1), []byte{0x0a}); err != nil {
			t.Fatal(err)
		}
		select {
		case d := <-ch:
			if d.Bind != 1 || d.From != u.LocalAddr(0) || len(d.Data) != 1 || d.Data[0] != 0x0a {
				t.Fatalf("%+v", d)
			}
		case <-time.After(2 * time.Second):
			t.Fatal("nothing received")
		}
		if a, err := SourceAddrTowards(u.LocalAddr(0)); err != nil || !a.IsLoopback() {
			t.Fatal(a, err)
		}
		if err := u.Close(); err != nil {
			t.Fatal(err)
		}
	}
}

func TestUDPDualWildcard(t *testing.T) {
	u, err := ListenUDP([]netip.AddrPort{netip.MustParseAddrPort("0.0.0.0:0")}, func(Datagram) {})
	if err != nil {
		t.Fatal(err)
	}
	defer u.Close()
	port := u.LocalAddr(0).Port()
	u2, err := ListenUDP([]netip.AddrPort{netip.AddrPortFrom(netip.IPv6Unspecified(), port)}, func(Datagram) {})
	if err != nil {
		t.Skipf("needs IPv6: %v", err)
	}
	u2.Close()
}

// loopbackUDP is a UDP of one bind on 127.0.0.1, closed at the test's
// cleanup, whose readers deliver to the returned channel.
func loopbackUDP(t *testing.T) (*UDP, chan Datagram) {
	t.Helper()
	ch := make(chan Datagram, 4)
	u, err := ListenUDP([]netip.AddrPort{netip.MustParseAddrPort("127.0.0.1:0")}, func(d Datagram) { ch <- d })
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { u.Close() })
	return u, ch
}

// TestUDPOversized: a datagram longer than any NS PDU is dropped and
// counted, the next one passes, and LocalAddr of a bind that does not
// exist is the zero address instead of a panic.
func TestUDPOversized(t *testing.T) {
	u, ch := loopbackUDP(t)
	if err := u.Send(0, u.LocalAddr(0), make([]byte, MaxDatagram+1)); err != nil {
		t.Fatal(err)
	}
	if err := u.Send(0, u.LocalAddr(0), []byte{0x0a}); err != nil {
		t.Fatal(err)
	}
	select {
	case d := <-ch:
		if len(d.Data) != 1 || d.Local != u.LocalAddr(0) {
			t.Fatalf("got %d octets, local %v", len(d.Data), d.Local)
		}
	case <-time.After(2 * time.Second):
		t.Fatal("nothing received")
	}
	if u.Oversized() != 1 {
		t.Fatalf("oversized %d, want 1", u.Oversized())
	}
	if a := u.LocalAddr(5); a.IsValid() {
		t.Fatalf("LocalAddr(5) = %v", a)
	}
}

// TestUDPReleaseReuses: a released datagram's buffer carries the next
// datagram (no allocation per datagram), and a datagram not released
// keeps its octets while later ones arrive in other buffers.
func TestUDPReleaseReuses(t *testing.T) {
	u, ch := loopbackUDP(t)
	recv := func(payload string) Datagram {
		t.Helper()
		if err := u.Send(0, u.LocalAddr(0), []byte(payload)); err != nil {
			t.Fatal(err)
		}
		select {
		case d := <-ch:
			if string(d.Data) != payload {
				t.Fatalf("got %q, want %q", d.Data, payload)
			}
			return d
		case <-time.After(2 * time.Second):
			t.Fatal("nothing received")
		}
		return Datagram{}
	}
	kept := recv("kept")
	d := recv("first")
	first := &d.Data[0]
	d.Release()
	d = recv("second")
	if &d.Data[0] != first {
		t.Fatal("released buffer not reused")
	}
	if string(kept.Data) != "kept" {
		t.Fatalf("a datagram not released changed: %q", kept.Data)
	}
	d.Release()
	Datagram{Data: []byte("mine")}.Release() // not from a reader: left alone
}

// TestPoolPoisons: with the test hook on, a buffer is poisoned when it is
// given back; the pool keeps at most poolSize buffers and only its own.
func TestPoolPoisons(t *testing.T) {
	poison.Enable()
	p := &pool{free: make(chan []byte, poolSize)}
	b := p.get()[:3]
	copy(b, "abc")
	p.put(b)
	if b[0] != poison.Byte || b[:cap(b)][MaxDatagram-1] != poison.Byte {
		t.Fatal("released buffer not poisoned")
	}
	if c := p.get(); &c[0] != &b[0] || len(c) != MaxDatagram {
		t.Fatal("buffer not reused")
	}
	p.put(make([]byte, 10))
	if len(p.free) != 0 {
		t.Fatal("a foreign buffer was pooled")
	}
	for range poolSize + 5 {
		p.put(make([]byte, MaxDatagram))
	}
	if len(p.free) != poolSize {
		t.Fatalf("%d buffers kept, want %d", len(p.free), poolSize)
	}
}
