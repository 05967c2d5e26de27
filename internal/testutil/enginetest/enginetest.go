// Package enginetest runs gopcu's engine for a test. It is a package of
// its own because pcu/driver's tests import internal/testutil.
package enginetest

import (
	"context"
	"testing"

	"github.com/gopcu/gopcu/pcu"
	"github.com/gopcu/gopcu/pcu/driver"
)

// Run runs eng under its driver (driver.Run with o) until the test ends:
// the test's cleanup stops the driver and waits for it to return.
func Run(t testing.TB, eng *pcu.Engine, o driver.Options) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { driver.Run(ctx, eng, o); close(done) }()
	t.Cleanup(func() { cancel(); <-done })
}
