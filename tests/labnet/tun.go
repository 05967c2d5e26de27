package labnet

import (
	"context"
	"fmt"
	"net/netip"
	"os"
	"os/exec"
	"strconv"
	"strings"

	"github.com/gopcu/gopcu/internal/emu/netns"
	"golang.org/x/sys/unix"
)

func ipCmd(args ...string) error {
	out, err := exec.Command("ip", args...).CombinedOutput()
	if err != nil {
		return fmt.Errorf("ip %s: %v: %s", strings.Join(args, " "), err, strings.TrimSpace(string(out)))
	}
	return nil
}

// AddNamespace creates a network namespace with lo up and IPv6 off (so a
// TUN device in it sends no router solicitations).
func AddNamespace(name string) error {
	if err := ipCmd("netns", "add", name); err != nil {
		return err
	}
	if err := ipCmd("-n", name, "link", "set", "lo", "up"); err != nil {
		return err
	}
	out, err := exec.Command("ip", "netns", "exec", name, "sysctl", "-qw",
		"net.ipv6.conf.all.disable_ipv6=1", "net.ipv6.conf.default.disable_ipv6=1").CombinedOutput()
	if err != nil {
		return fmt.Errorf("sysctl in %s: %v: %s", name, err, out)
	}
	return nil
}

// DeleteNamespace removes a namespace (its TUN devices go with it).
func DeleteNamespace(name string) { exec.Command("ip", "netns", "delete", name).Run() }

// OpenTUN creates the TUN device ifname (IFF_TUN|IFF_NO_PI: bare IP
// packets) inside namespace ns, gives it addr/32, a default route and the
// MTU, and brings it up. Closing the file removes the device.
func OpenTUN(ns, ifname string, addr netip.Addr, mtu int) (*os.File, error) {
	var f *os.File
	n := &netns.NS{Name: ns}
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
		f = os.NewFile(uintptr(fd), ns+"/"+ifname)
		return nil
	})
	if err != nil {
		return nil, err
	}
	for _, args := range [][]string{
		{"link", "set", ifname, "mtu", strconv.Itoa(mtu), "up"},
		{"addr", "add", addr.String() + "/32", "dev", ifname},
		{"route", "add", "default", "dev", ifname},
	} {
		if err := ipCmd(append([]string{"-n", ns}, args...)...); err != nil {
			f.Close()
			return nil, err
		}
	}
	return f, nil
}

// MaxULQueue is how many LLC frames an MS holds for the uplink before it
// drops IP packets from its TUN (a phone's buffer is finite too).
const MaxULQueue = 256

// ConnectTUN carries the phone's PDP context through a TUN device: packets
// Linux sends on it go up in SNDCP, packets from the network are written to
// it. It returns when ctx ends or the device fails.
func (r *Radio) ConnectTUN(ctx context.Context, p *Phone, tun *os.File) error {
	r.Post(func() {
		p.Stack.OnIP = func(pkt []byte) { tun.Write(pkt) }
	})
	go func() { <-ctx.Done(); tun.Close() }()
	buf := make([]byte, 65536)
	for {
		n, err := tun.Read(buf)
		if err != nil {
			if ctx.Err() != nil {
				return nil
			}
			return err
		}
		pkt := append([]byte(nil), buf[:n]...)
		r.Post(func() {
			if p.MS.ULPending() >= MaxULQueue {
				p.Dropped++
				return
			}
			p.Stack.SendIP(pkt)
		})
	}
}
