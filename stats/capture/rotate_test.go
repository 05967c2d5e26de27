package capture

import (
	"bytes"
	"errors"
	"io"
	"os"
	"path/filepath"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gopcu/gopcu/internal/testutil"
)

// readPcap counts the packets of a pcap file (failing on a broken one).
func readPcap(t *testing.T, path string) int {
	t.Helper()
	r := testutil.OpenPcap(t, path)
	n := 0
	for {
		_, _, err := r.ReadPacketData()
		if errors.Is(err, io.EOF) {
			return n
		}
		if err != nil {
			t.Fatalf("%s: packet %d: %v", path, n, err)
		}
		n++
	}
}

// TestRotation: a capture bounded by MaxSize rotates its file (path.1 the
// previous one) and keeps Files files of at most MaxSize, each a valid
// pcap; every packet is written or counted as dropped (issue 17 bug 4:
// the file grew 36 MB in 4 s).
func TestRotation(t *testing.T) {
	path := filepath.Join(t.TempDir(), "gb.pcap")
	c, err := Create(path, Options{MaxSize: 10000, Files: 3, Queue: 100000, QueueBytes: 1 << 30})
	if err != nil {
		t.Fatal(err)
	}
	const n = 1000
	payload := bytes.Repeat([]byte{0x0e}, 100) // 144 octets a record
	for i := 0; i < n; i++ {
		c.UDP(t0, pcuAddr, sgsnAddr, payload)
	}
	if err := c.Close(); err != nil {
		t.Fatal(err)
	}
	if c.Written()+c.Dropped() != n || c.Rotations() < 10 {
		t.Fatalf("written %d + dropped %d, want %d; rotations %d", c.Written(), c.Dropped(), n, c.Rotations())
	}
	total := 0
	for _, p := range []string{path, path + ".1", path + ".2"} {
		fi, err := os.Stat(p)
		if err != nil {
			t.Fatal(err)
		}
		if fi.Size() > 10000 {
			t.Fatalf("%s: %d octets > MaxSize", p, fi.Size())
		}
		total += readPcap(t, p)
	}
	if _, err := os.Stat(path + ".3"); err == nil {
		t.Fatal("a fourth file is kept")
	}
	if per := (10000 - 24) / 144; total < 2*per || total > 3*per {
		t.Fatalf("%d packets in the 3 files (%d a full file)", total, per)
	}
}

// TestSizeLimitOnWriter: into a caller's writer the capture stops at
// MaxSize and counts the rest as dropped; the queue is bounded in octets.
func TestSizeLimitOnWriter(t *testing.T) {
	var buf bytes.Buffer
	c, err := New(&buf, Options{MaxSize: 5000, Queue: 100000, QueueBytes: 1 << 30})
	if err != nil {
		t.Fatal(err)
	}
	payload := bytes.Repeat([]byte{0x0e}, 100)
	for i := 0; i < 200; i++ {
		c.UDP(t0, pcuAddr, sgsnAddr, payload)
	}
	c.Close()
	if buf.Len() > 5000 || c.Written() != uint64((5000-24)/144) || c.Written()+c.Dropped() != 200 {
		t.Fatalf("%d octets, written %d, dropped %d", buf.Len(), c.Written(), c.Dropped())
	}
	// octet bound of the queue: with the writer stalled, 10 x 100 octets
	// fit in QueueBytes 1000, the rest is dropped at once
	// (one packet first, and the writer stuck in its flush of it: the
	// writer buffers what it takes, so only a stuck writer shows the bound)
	bw := &blockWriter{release: make(chan struct{}), entered: make(chan struct{}, 1)}
	c2, err := New(bw, Options{QueueBytes: 1000, Queue: 100000})
	if err != nil {
		t.Fatal(err)
	}
	bw.block.Store(true)
	c2.UDP(t0, pcuAddr, sgsnAddr, payload)
	select {
	case <-bw.entered:
	case <-time.After(10 * time.Second):
		t.Fatal("the writer never wrote")
	}
	ok := 0
	for i := 0; i < 100; i++ {
		if c2.UDP(t0, pcuAddr, sgsnAddr, payload) {
			ok++
		}
	}
	close(bw.release)
	c2.Close()
	if ok != 10 || c2.Dropped() != 90 {
		t.Fatalf("queued %d of 100 with 1000 octets of queue, dropped %d", ok, c2.Dropped())
	}
}

// blockWriter blocks every write once block is set, until release; entered
// tells that a write is blocked.
type blockWriter struct {
	block   atomic.Bool
	release chan struct{}
	entered chan struct{}
}

func (w *blockWriter) Write(p []byte) (int, error) {
	if w.block.Load() {
		select {
		case w.entered <- struct{}{}:
		default:
		}
		<-w.release
	}
	return len(p), nil
}
