// Package enginetest runs gopcu's engine for a test. It is a package of
// its own because pcu/driver's tests import internal/testutil.
package enginetest

import (
	"context"
	"testing"

	"github.com/gopcu/gopcu/pcu"
	"github.com/gopcu/gopcu/pcu/config"
	"github.com/gopcu/gopcu/pcu/daemon"
	"github.com/gopcu/gopcu/pcu/driver"
	"github.com/gopcu/gopcu/vty"
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

// VTY starts a session on a VTY with the engine's commands (config.New,
// daemon.InstallVTY) whose commands run on the engine's goroutine; with
// setParams, each command then sets the engine's parameters from the
// configuration, with mod (if not nil) applied to them. The caller
// releases the session.
func VTY(eng *pcu.Engine, setParams bool, mod func(*pcu.Params)) *vty.Session {
	v, cfg := config.New(pcu.Version)
	daemon.InstallVTY(eng, v)
	s := v.NewSession(vty.ExecutorFunc(func(f func()) {
		eng.Call(func() {
			f()
			if !setParams {
				return
			}
			p := daemon.ParamsFromConfig(cfg)
			if mod != nil {
				mod(&p)
			}
			eng.SetParams(p)
		})
	}).Do)
	s.Start()
	return s
}
