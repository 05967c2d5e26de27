//go:build !linux

package driver

import (
	"context"
	"errors"
	"testing"

	"github.com/gopcu/gopcu/pcu"
)

// TestRunNeedsLinux: off Linux, Run ends at once with the reason, and the
// engine takes no command afterwards.
func TestRunNeedsLinux(t *testing.T) {
	e := pcu.New(pcu.Config{})
	if err := Run(context.Background(), e, Options{}); !errors.Is(err, errNeedsLinux) {
		t.Fatalf("Run: %v, want %v", err, errNeedsLinux)
	}
	if err := e.Do(func() {}); !errors.Is(err, pcu.ErrStopped) {
		t.Fatalf("Do after Run: %v, want ErrStopped", err)
	}
}
