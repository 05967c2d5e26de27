// Package netns gives tests a private Linux network namespace: programs run
// inside it with `ip netns exec`, and Go code can open sockets inside it
// from a locked OS thread (Do), so a test's osmo-sgsn and gopcu's NS
// sockets meet on the namespace's own loopback and never clash with the
// host or with other tests.
package netns

import (
	"bytes"
	"fmt"
	"net/netip"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/gopcu/gopcu/bssgp/ns/nsudp"
)

// NS is a network namespace created by a test; it is deleted at cleanup.
type NS struct {
	Name string
	t    *testing.T
}

var seq atomic.Int64

// New creates a namespace with lo up, or skips the test when that is not
// possible (not root, no iproute2).
func New(t *testing.T) *NS {
	t.Helper()
	if os.Getuid() != 0 {
		t.Skip("needs root (network namespaces)")
	}
	if _, err := exec.LookPath("ip"); err != nil {
		t.Skip("needs iproute2 (apt-get install iproute2)")
	}
	n := &NS{Name: fmt.Sprintf("gopcu-t%d-%d", os.Getpid(), seq.Add(1)), t: t}
	if out, err := exec.Command("ip", "netns", "add", n.Name).CombinedOutput(); err != nil {
		t.Skipf("needs network namespaces (ip netns add: %v %s)", err, bytes.TrimSpace(out))
	}
	t.Cleanup(func() { exec.Command("ip", "netns", "delete", n.Name).Run() })
	if out, err := exec.Command("ip", "-n", n.Name, "link", "set", "lo", "up").CombinedOutput(); err != nil {
		t.Fatalf("lo up: %v %s", err, out)
	}
	return n
}

// Do runs fn on an OS thread that has entered the namespace. Sockets opened
// by fn belong to the namespace for their whole life.
func (n *NS) Do(fn func() error) error {
	errc := make(chan error, 1)
	go func() {
		runtime.LockOSThread()
		self, err := os.Open("/proc/thread-self/ns/net")
		if err != nil {
			errc <- err
			return
		}
		defer self.Close()
		target, err := os.Open(filepath.Join("/var/run/netns", n.Name))
		if err != nil {
			errc <- err
			return
		}
		defer target.Close()
		if err := unix.Setns(int(target.Fd()), unix.CLONE_NEWNET); err != nil {
			errc <- err
			return
		}
		ferr := fn()
		if err := unix.Setns(int(self.Fd()), unix.CLONE_NEWNET); err != nil {
			// the thread stays locked and is discarded with the goroutine
			errc <- fmt.Errorf("netns: cannot return to the original namespace: %w", err)
			return
		}
		runtime.UnlockOSThread()
		errc <- ferr
	}()
	return <-errc
}

// Start runs a program inside the namespace with its output in dir/logName;
// it is stopped (SIGTERM, then SIGKILL, by PID) at cleanup.
func (n *NS) Start(dir, logName string, args ...string) *exec.Cmd {
	t := n.t
	t.Helper()
	lf, err := os.Create(filepath.Join(dir, logName))
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("ip", append([]string{"netns", "exec", n.Name}, args...)...)
	cmd.Stdout, cmd.Stderr, cmd.Dir = lf, lf, dir
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	go func() { cmd.Wait(); lf.Close(); close(done) }()
	t.Cleanup(func() {
		cmd.Process.Signal(syscall.SIGTERM)
		select {
		case <-done:
		case <-time.After(5 * time.Second):
			cmd.Process.Kill()
			<-done
		}
	})
	return cmd
}

// Output runs a program inside the namespace and returns its output.
func (n *NS) Output(args ...string) (string, error) {
	out, err := exec.Command("ip", append([]string{"netns", "exec", n.Name}, args...)...).CombinedOutput()
	return string(out), err
}

// ListenNS opens NS UDP sockets inside the namespace (nsudp.ListenUDP there):
// an engine's pcu.Config.ListenUDP for a namespace.
func (n *NS) ListenNS(binds []netip.AddrPort, deliver func(nsudp.Datagram)) (*nsudp.UDP, error) {
	var u *nsudp.UDP
	err := n.Do(func() (err error) { u, err = nsudp.ListenUDP(binds, deliver); return })
	return u, err
}
