// Package netnstest gives a test a private Linux network namespace
// (internal/emu/netns) that is deleted at the test's cleanup, and starts
// programs inside it that are stopped at cleanup. It skips the test where
// namespaces cannot be created (not root, no iproute2).
package netnstest

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"sync/atomic"
	"testing"

	"github.com/gopcu/gopcu/internal/emu/netns"
)

// NS is a namespace created for one test; Do, Output, ListenNS and Name
// are netns.NS's.
type NS struct {
	*netns.NS
	t testing.TB
}

var seq atomic.Int64

// New creates a namespace gopcu-t<pid>-<n> with lo up, deleted at cleanup,
// or skips the test when that is not possible.
func New(t testing.TB) *NS {
	t.Helper()
	n, err := netns.Add(fmt.Sprintf("gopcu-t%d-%d", os.Getpid(), seq.Add(1)))
	var u *netns.UnavailableError
	if errors.As(err, &u) {
		t.Skip(u.Reason)
	}
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { n.Delete() })
	return &NS{NS: n, t: t}
}

// Start runs a program inside the namespace with its output in dir/logName
// (netns.NS.Start); it is stopped (SIGTERM, then SIGKILL, by PID) at
// cleanup. A program that cannot start fails the test.
func (n *NS) Start(dir, logName string, args ...string) *exec.Cmd {
	n.t.Helper()
	cmd, stop, err := n.NS.Start(dir, logName, args...)
	if err != nil {
		n.t.Fatal(err)
	}
	n.t.Cleanup(stop)
	return cmd
}
