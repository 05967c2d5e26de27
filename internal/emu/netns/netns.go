// Package netns runs programs and opens sockets in private Linux network
// namespaces: programs run inside one with `ip netns exec`, and Go code can
// open sockets inside it from a locked OS thread (Do), so a lab's
// osmo-sgsn and gopcu's NS sockets meet on the namespace's own loopback and
// never clash with the host or with other labs. It does not import
// testing (the shipped cmd/tcplab links it); tests create and clean up
// their namespaces through internal/testutil/netnstest.
package netns

import (
	"bytes"
	"fmt"
	"net/netip"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"time"

	"golang.org/x/sys/unix"

	"github.com/gopcu/gopcu/bssgp/ns/nsudp"
)

// NS is a network namespace by name (/var/run/netns/<Name>).
type NS struct {
	Name string
}

// UnavailableError says why no namespace can be created on this machine
// (not root, no iproute2, `ip netns add` refused): a test skips on it.
type UnavailableError struct{ Reason string }

func (e *UnavailableError) Error() string { return e.Reason }

// Add creates the namespace name with lo up. When namespaces cannot be
// created here the error is an *UnavailableError; when lo cannot be
// brought up the namespace is deleted again.
func Add(name string) (*NS, error) {
	if os.Getuid() != 0 {
		return nil, &UnavailableError{"needs root (network namespaces)"}
	}
	if _, err := exec.LookPath("ip"); err != nil {
		return nil, &UnavailableError{"needs iproute2 (apt-get install iproute2)"}
	}
	if out, err := exec.Command("ip", "netns", "add", name).CombinedOutput(); err != nil {
		return nil, &UnavailableError{fmt.Sprintf("needs network namespaces (ip netns add: %v %s)", err, bytes.TrimSpace(out))}
	}
	n := &NS{Name: name}
	if out, err := exec.Command("ip", "-n", name, "link", "set", "lo", "up").CombinedOutput(); err != nil {
		n.Delete()
		return nil, fmt.Errorf("lo up: %v %s", err, out)
	}
	return n, nil
}

// Delete removes the namespace (`ip netns delete`).
func (n *NS) Delete() error { return exec.Command("ip", "netns", "delete", n.Name).Run() }

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

// Start runs a program inside the namespace with its output in
// dir/logName. stop ends it (SIGTERM, then SIGKILL by PID after 5 s) and
// returns once it has exited; it may be called more than once.
func (n *NS) Start(dir, logName string, args ...string) (cmd *exec.Cmd, stop func(), err error) {
	lf, err := os.Create(filepath.Join(dir, logName))
	if err != nil {
		return nil, nil, err
	}
	cmd = exec.Command("ip", append([]string{"netns", "exec", n.Name}, args...)...)
	cmd.Stdout, cmd.Stderr, cmd.Dir = lf, lf, dir
	if err := cmd.Start(); err != nil {
		lf.Close()
		return nil, nil, err
	}
	done := make(chan struct{})
	go func() { cmd.Wait(); lf.Close(); close(done) }()
	stop = func() {
		cmd.Process.Signal(syscall.SIGTERM)
		select {
		case <-done:
		case <-time.After(5 * time.Second):
			cmd.Process.Kill()
			<-done
		}
	}
	return cmd, stop, nil
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

// IP runs `ip args...`; its error says the command and ip's output.
func IP(args ...string) error {
	out, err := exec.Command("ip", args...).CombinedOutput()
	if err != nil {
		return fmt.Errorf("ip %s: %v: %s", strings.Join(args, " "), err, strings.TrimSpace(string(out)))
	}
	return nil
}

// DisableIPv6 turns IPv6 off inside the namespace, so that a TUN device
// in it sends no router solicitations.
func (n *NS) DisableIPv6() error {
	if out, err := n.Output("sysctl", "-qw", "net.ipv6.conf.all.disable_ipv6=1", "net.ipv6.conf.default.disable_ipv6=1"); err != nil {
		return fmt.Errorf("sysctl in %s: %v: %s", n.Name, err, out)
	}
	return nil
}

// OpenTUN creates the TUN device ifname inside the namespace (IFF_TUN,
// IFF_NO_PI: reads and writes are bare IP packets), gives it addr/32, a
// route to route ("default": all) and the MTU, and brings it up. The file
// is non-blocking (served by the runtime poller) and usable from any
// thread; closing it removes the device.
func (n *NS) OpenTUN(ifname, addr, route string, mtu int) (*os.File, error) {
	var f *os.File
	err := n.Do(func() error {
		fd, err := unix.Open("/dev/net/tun", unix.O_RDWR|unix.O_CLOEXEC|unix.O_NONBLOCK, 0)
		if err != nil {
			return fmt.Errorf("open /dev/net/tun: %w", err)
		}
		ifr, err := unix.NewIfreq(ifname)
		if err != nil {
			unix.Close(fd)
			return err
		}
		ifr.SetUint16(unix.IFF_TUN | unix.IFF_NO_PI)
		if err := unix.IoctlIfreq(fd, unix.TUNSETIFF, ifr); err != nil {
			unix.Close(fd)
			return fmt.Errorf("TUNSETIFF: %w", err)
		}
		f = os.NewFile(uintptr(fd), n.Name+"/"+ifname)
		return nil
	})
	if err != nil {
		return nil, err
	}
	for _, args := range [][]string{
		{"link", "set", ifname, "mtu", strconv.Itoa(mtu), "up"},
		{"addr", "add", addr + "/32", "dev", ifname},
		{"route", "add", route, "dev", ifname},
	} {
		if err := IP(append([]string{"-n", n.Name}, args...)...); err != nil {
			f.Close()
			return nil, err
		}
	}
	return f, nil
}
