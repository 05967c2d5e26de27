package main

import (
	"context"
	"io"
	"path/filepath"
	"sync"
	"testing"

	"github.com/gopcu/gopcu/internal/app"
	"github.com/gopcu/gopcu/internal/emu/sgsnemu"
	"github.com/gopcu/gopcu/internal/logx"
	"github.com/gopcu/gopcu/internal/ratectr"
	"github.com/gopcu/gopcu/internal/testutil/peertest"
)

// The peers and the daemon gopcu's tests run: a BTS emulator on a PCU
// socket, an SGSN emulator (both internal/testutil/peertest), and the
// daemon in the test process.

// startBTS starts the BTS emulator on dir/pcu_bts with NS towards an
// unused loopback port and returns the socket's path.
func startBTS(t *testing.T, dir string) string {
	t.Helper()
	sock := filepath.Join(dir, "pcu_bts")
	peertest.BTS(t, sock, peertest.Silent(t))
	return sock
}

// startPeers starts the SGSN emulator and the BTS emulator on dir/pcu_bts
// with NS towards it; it returns the SGSN and the socket's path.
func startPeers(t *testing.T, dir string, cfg sgsnemu.Config, cb sgsnemu.Callbacks) (*sgsnemu.Server, string) {
	t.Helper()
	sg := peertest.SGSN(t, cfg, cb)
	sock := filepath.Join(dir, "pcu_bts")
	peertest.BTS(t, sock, sg.Addr())
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
