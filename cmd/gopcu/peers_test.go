package main

import (
	"context"
	"io"
	"net/netip"
	"path/filepath"
	"sync"
	"testing"

	"github.com/gopcu/gopcu/internal/app"
	"github.com/gopcu/gopcu/internal/emu/btsemu"
	"github.com/gopcu/gopcu/internal/emu/sgsnemu"
	"github.com/gopcu/gopcu/internal/logx"
	"github.com/gopcu/gopcu/internal/ratectr"
	"github.com/gopcu/gopcu/internal/testutil/btstest"
)

// The peers and the daemon gopcu's tests run: a BTS emulator on a PCU
// socket, an SGSN emulator, and the daemon in the test process.

// startBTSAt starts the BTS emulator (PCU interface v12, PDCHs on TS 4-7)
// on the socket sock with its NSE 101's NS-VC towards sgsn; it is closed
// at the test's cleanup.
func startBTSAt(t *testing.T, sock string, sgsn netip.AddrPort) *btsemu.BTS {
	t.Helper()
	return btstest.ListenV12(t, sock, uint16(freePort(t)), sgsn)
}

// startBTS starts the BTS emulator on dir/pcu_bts with NS towards an
// unused loopback port and returns the socket's path.
func startBTS(t *testing.T, dir string) string {
	t.Helper()
	sock := filepath.Join(dir, "pcu_bts")
	startBTSAt(t, sock, netip.AddrPortFrom(netip.MustParseAddr("127.0.0.1"), uint16(freePort(t))))
	return sock
}

// startSGSN starts the SGSN emulator on a loopback port; it is closed at
// the test's cleanup.
func startSGSN(t *testing.T, cfg sgsnemu.Config, cb sgsnemu.Callbacks) *sgsnemu.Server {
	t.Helper()
	sg, err := sgsnemu.Listen(netip.MustParseAddrPort("127.0.0.1:0"), cfg, cb)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { sg.Close() })
	return sg
}

// startPeers starts the SGSN emulator (startSGSN) and the BTS emulator on
// dir/pcu_bts with NS towards it (startBTSAt); it returns the SGSN and the
// socket's path.
func startPeers(t *testing.T, dir string, cfg sgsnemu.Config, cb sgsnemu.Callbacks) (*sgsnemu.Server, string) {
	t.Helper()
	sg := startSGSN(t, cfg, cb)
	sock := filepath.Join(dir, "pcu_bts")
	startBTSAt(t, sock, sg.Addr())
	return sg, sock
}

// testDaemon parses the command line args and builds the daemon with its
// logs (nil: discarded) and stderr output; an error fails the test.
func testDaemon(t *testing.T, args []string, logs *logx.Registry, stderr io.Writer) *app.Daemon {
	t.Helper()
	s, err := parseSettings(args, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	if logs == nil {
		logs = logx.Discard()
	}
	d, err := newDaemon(s, logs, nil, &ratectr.Registry{}, stderr)
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// goRun runs the daemon in a goroutine; stop cancels it and returns what
// Run returned (again on a second call).
func goRun(d *app.Daemon) (stop func() error) {
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- d.Run(ctx) }()
	return sync.OnceValue(func() error { cancel(); return <-done })
}
