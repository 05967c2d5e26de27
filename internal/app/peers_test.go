package app

import (
	"context"
	"io"
	"log/slog"
	"net/http"
	"sync"
	"testing"

	"github.com/gopcu/gopcu/internal/logx"
	"github.com/gopcu/gopcu/internal/testutil"
)

// The daemon the daemon's tests run in the test process; its peers, a
// BTS emulator on a PCU socket and an SGSN emulator, are
// internal/testutil/peertest's (as for cmd/gopcu's tests).

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

// scrape is the body of the daemon's Prometheus page at metrics
// (host:port): the error of the GET, a body cut short read as far as it
// came.
func scrape(metrics string) (string, error) {
	resp, err := http.Get("http://" + metrics + "/metrics")
	if err != nil {
		return "", err
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return string(b), nil
}
