package app

import (
	"context"
	"io"
	"os"
	"syscall"
	"testing"
	"time"

	"github.com/gopcu/gopcu/internal/logx"
)

// TestShutdownBounded: when the shutdown after SIGTERM hangs, the daemon
// calls stuck after shutdownGrace (cmd/gopcu exits with exit code 3).
func TestShutdownBounded(t *testing.T) {
	old := shutdownGrace
	shutdownGrace = 50 * time.Millisecond
	defer func() { shutdownGrace = old }()
	d := &Daemon{logs: logx.Discard(), stderr: io.Discard}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	ch := make(chan os.Signal, 1)
	stuck := make(chan time.Duration, 1)
	ch <- syscall.SIGTERM // as signal.Notify delivers it
	start := time.Now()
	go d.signalLoop(ctx, ch, cancel, func() { stuck <- time.Since(start) })
	select {
	case <-ctx.Done():
	case <-time.After(5 * time.Second):
		t.Fatal("SIGTERM did not cancel")
	}
	select {
	case after := <-stuck:
		if after < shutdownGrace {
			t.Fatalf("stuck after %v, before the grace time %v", after, shutdownGrace)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("no forced exit")
	}
}
