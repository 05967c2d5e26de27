package app

import (
	"context"
	"net/netip"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gopcu/gopcu/bssgp/ns/nsudp"
	"github.com/gopcu/gopcu/internal/emu/btsemu"
	"github.com/gopcu/gopcu/internal/testutil"
	"github.com/gopcu/gopcu/internal/testutil/peertest"
	"github.com/gopcu/gopcu/pcu"
	"github.com/gopcu/gopcu/pcu/pcuif"
)

// TestOptions: the version the program gives is the one `show version`
// and the TXT_IND to the BTS name ("" is pcu.Version); the NS sockets
// are opened through Options.ListenUDP for the binds of the BTS's
// INFO_IND; nil logs, counters and stderr are allowed.
func TestOptions(t *testing.T) {
	d, err := New(DefaultSettings(), Options{})
	if err != nil {
		t.Fatal(err)
	}
	if out := showVersion(d); !strings.Contains(out, "OsmoPCU "+pcu.Version+" (OsmoPCU).") {
		t.Errorf("default version: show version %q", out)
	}

	dir := t.TempDir()
	sock := filepath.Join(dir, "pcu_bts")
	local := uint16(testutil.FreePort(t))
	info := btsemu.DefaultInfo(pcuif.V12)
	info.SetRemote(0, 101, local, peertest.Silent(t))
	bts, err := btsemu.Listen(btsemu.Config{Path: sock, Version: pcuif.V12, Info: info})
	if err != nil {
		t.Fatal(err)
	}
	defer bts.Close()
	var mu sync.Mutex
	var opened [][]netip.AddrPort
	listen := func(binds []netip.AddrPort, deliver func(nsudp.Datagram)) (*nsudp.UDP, error) {
		mu.Lock()
		opened = append(opened, slices.Clone(binds))
		mu.Unlock()
		return nsudp.ListenUDP(binds, deliver)
	}
	d, err = New(testSettings("", sock, 0), Options{Version: "9.8.7+test", ListenUDP: listen})
	if err != nil {
		t.Fatal(err)
	}
	if out := showVersion(d); !strings.Contains(out, "OsmoPCU 9.8.7+test (OsmoPCU).") {
		t.Errorf("show version %q", out)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- d.Run(ctx) }()
	defer func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("Run: %v", err)
		}
	}()
	testutil.Eventually(t, 10*time.Second, func() bool {
		mu.Lock()
		defer mu.Unlock()
		return len(bts.TxtInds()) > 0 && len(opened) > 0
	}, "no TXT_IND or no NS socket")
	if txt := bts.TxtInds(); txt[0] != "9.8.7+test" {
		t.Errorf("TXT_IND %q", txt)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(opened[0]) != 1 || opened[0][0].Port() != local {
		t.Errorf("NS sockets opened for %v, want the BTS's local port %d", opened, local)
	}
}

// showVersion is the daemon's `show version` (before Run: on the
// caller's goroutine).
func showVersion(d *Daemon) string {
	s := d.VTY().NewSession(nil)
	defer s.Release()
	s.Start()
	return s.Exec("show version")
}
