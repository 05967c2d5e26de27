//go:build !linux

package pcu

import (
	"context"
	"errors"
	"testing"
)

// TestRunNeedsLinux: off Linux, Run ends at once with the reason, and the
// engine takes no command afterwards.
func TestRunNeedsLinux(t *testing.T) {
	e := New(Config{})
	if err := e.Run(context.Background()); !errors.Is(err, errNeedsLinux) {
		t.Fatalf("Run: %v, want %v", err, errNeedsLinux)
	}
	if err := e.Do(func() {}); !errors.Is(err, ErrStopped) {
		t.Fatalf("Do after Run: %v, want ErrStopped", err)
	}
}
