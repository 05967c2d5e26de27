package app

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"log/slog"
	"net/netip"
	"os"
	"sync"
	"testing"
	"time"

	"github.com/gopcu/gopcu/internal/emu/btsemu"
	"github.com/gopcu/gopcu/internal/emu/sgsnemu"
	"github.com/gopcu/gopcu/internal/logx"
	"github.com/gopcu/gopcu/internal/testutil"
	"github.com/gopcu/gopcu/internal/testutil/btstest"
)

// The peers and the daemon the daemon's tests run: a BTS emulator on a
// PCU socket, an SGSN emulator, and the daemon in the test process (as
// cmd/gopcu's tests, whose peers_test.go has the same peers).

// startBTSAt starts the BTS emulator (PCU interface v12, PDCHs on TS 4-7)
// on the socket sock with its NSE 101's NS-VC towards sgsn; it is closed
// at the test's cleanup.
func startBTSAt(t *testing.T, sock string, sgsn netip.AddrPort) *btsemu.BTS {
	t.Helper()
	return btstest.ListenV12(t, sock, uint16(freePort(t)), sgsn)
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

// testDaemon builds the daemon of s with its logs (nil: discarded) and
// stderr output; an error fails the test.
func testDaemon(t *testing.T, s Settings, logs *logx.Registry, stderr io.Writer) *Daemon {
	t.Helper()
	d, err := New(s, Options{Logs: logs, Stderr: stderr})
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// fanDaemon is the daemon of s logging through a fan-out (the log
// targets of the config) whose default output, osmo-pcu's stderr target,
// is the returned buffer.
func fanDaemon(t *testing.T, s Settings) (*Daemon, *testutil.SyncBuffer) {
	t.Helper()
	stderr := &testutil.SyncBuffer{}
	fan := logx.NewFanout(slog.NewTextHandler(stderr, logx.HandlerOptions()))
	d, err := New(s, Options{Logs: logx.New(fan), LogOutput: fan, Stderr: stderr})
	if err != nil {
		t.Fatal(err)
	}
	return d, stderr
}

// goRun runs the daemon in a goroutine; stop cancels it and returns what
// Run returned (again on a second call).
func goRun(d *Daemon) (stop func() error) {
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- d.Run(ctx) }()
	return sync.OnceValue(func() error { cancel(); return <-done })
}

// pollFile waits up to 10 s until the file contains want and returns
// it; a failure shows the file and what else is given (a stderr).
func pollFile(t *testing.T, path, want string, more ...fmt.Stringer) string {
	t.Helper()
	var got []byte
	if !testutil.Poll(10*time.Second, func() bool {
		got, _ = os.ReadFile(path)
		return bytes.Contains(got, []byte(want))
	}) {
		t.Fatalf("%s never contained %q:\n%s\n%v", path, want, got, more)
	}
	return string(got)
}
