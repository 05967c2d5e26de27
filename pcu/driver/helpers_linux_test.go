//go:build linux

package driver

import (
	"bytes"
	"net/netip"
	"runtime"
	"strconv"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gopcu/gopcu/pcu"
	"github.com/gopcu/gopcu/pcu/pcuif"
)

// nullCapture is a PacketCapture that only counts.
type nullCapture struct{ n atomic.Int64 }

func (c *nullCapture) UDP(time.Time, netip.AddrPort, netip.AddrPort, []byte) bool {
	c.n.Add(1)
	return true
}
func (c *nullCapture) GSMTAPDatagram([]byte) bool { return true }

// feedInfo hands the engine an INFO_IND as if the BTS sent it (in the
// engine goroutine: the driver runs).
func feedInfo(t *testing.T, e *pcu.Engine, ii *pcuif.InfoInd) {
	t.Helper()
	b, err := pcuif.Marshal(ii, pcuif.V12)
	if err != nil {
		t.Fatal(err)
	}
	if err := e.Call(func() { e.HandlePCUIF(b) }); err != nil {
		t.Fatal(err)
	}
}

// goid is the running goroutine's id (tests only).
func goid() uint64 {
	var b [64]byte
	s := b[:runtime.Stack(b[:], false)]
	s = bytes.TrimPrefix(s, []byte("goroutine "))
	if i := bytes.IndexByte(s, ' '); i > 0 {
		s = s[:i]
	}
	id, _ := strconv.ParseUint(string(s), 10, 64)
	return id
}
