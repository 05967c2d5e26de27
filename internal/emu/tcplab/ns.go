package tcplab

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"

	"github.com/gopcu/gopcu/internal/emu/netns"
)

// The lab's namespaces are named gopcu-lab<pid>-<role>; a lab that was
// killed before it could clean up leaves namespaces whose PID is gone, and
// CleanStale removes them.
const nsPrefix = "gopcu-lab"

// namespace is one network namespace the lab created (nothing but lo and
// the lab's TUN device inside, so no packet can leave it another way).
type namespace struct {
	netns.NS
}

func newNamespace(role string) (*namespace, error) {
	n := &namespace{netns.NS{Name: fmt.Sprintf("%s%d-%s", nsPrefix, os.Getpid(), role)}}
	if err := netns.IP("netns", "add", n.Name); err != nil {
		return nil, err
	}
	if err := netns.IP("-n", n.Name, "link", "set", "lo", "up"); err != nil {
		n.delete()
		return nil, err
	}
	if err := n.DisableIPv6(); err != nil {
		n.delete()
		return nil, err
	}
	return n, nil
}

func (n *namespace) delete() { exec.Command("ip", "netns", "delete", n.Name).Run() }

// sysctl sets a kernel parameter inside the namespace.
func (n *namespace) sysctl(kv string) error {
	if out, err := n.Output("sysctl", "-qw", kv); err != nil {
		return fmt.Errorf("sysctl %s in %s: %v: %s", kv, n.Name, err, out)
	}
	return nil
}

// command prepares a program to run inside the namespace; it is killed
// when the lab dies (and CleanStale catches the rest).
func (n *namespace) command(args ...string) *exec.Cmd {
	c := exec.Command("ip", append([]string{"netns", "exec", n.Name}, args...)...)
	c.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	return c
}

// CleanStale deletes lab namespaces left behind by lab processes that no
// longer run (killed with SIGKILL, say). It returns the names removed.
func CleanStale() []string {
	out, err := exec.Command("ip", "netns", "list").Output()
	if err != nil {
		return nil
	}
	var gone []string
	for _, line := range strings.Split(string(out), "\n") {
		name, _, _ := strings.Cut(strings.TrimSpace(line), " ")
		rest, ok := strings.CutPrefix(name, nsPrefix)
		if !ok {
			continue
		}
		pidStr, _, ok := strings.Cut(rest, "-")
		pid, err := strconv.Atoi(pidStr)
		if !ok || err != nil || pid == os.Getpid() {
			continue
		}
		if err := syscall.Kill(pid, 0); err == nil || errors.Is(err, syscall.EPERM) {
			continue // still running
		}
		// the dead lab's curl and ping may still run inside
		if pids, err := exec.Command("ip", "netns", "pids", name).Output(); err == nil {
			for _, f := range strings.Fields(string(pids)) {
				if pid, err := strconv.Atoi(f); err == nil {
					syscall.Kill(pid, syscall.SIGKILL)
				}
			}
		}
		if exec.Command("ip", "netns", "delete", name).Run() == nil {
			gone = append(gone, name)
		}
	}
	return gone
}
