package vty

import (
	"fmt"
	"strconv"
	"strings"
)

// The `cpu-sched` node (libosmocore src/vty/cpu_sched_vty.c), applied to
// the process.
//
// `policy rr <1-32>` puts the process on SCHED_RR at that priority
// (sched(7)), as osmo-pcu does and as the systemd units of both PCUs do
// with CPUSchedulingPolicy=rr. libosmocore sets it on the calling thread,
// which in single-threaded osmo-pcu is the whole process; Go runs its
// goroutines on a pool of threads, so gopcu sets it on every thread of
// the process, and threads made later inherit it (clone(2)).
//
// `cpu-affinity (self|all|TID|THREADNAME) MASK [delay]` sets a CPU
// affinity mask (sched_setaffinity(2); hex, right-most bit CPU 0, an
// optional 0x). "all" is every thread; "self", libosmocore's thread that
// runs the VTY, is every thread as well in gopcu (the VTY runs on any of
// the pool's threads); a TID is that thread of the process; a THREADNAME
// the first thread with that name (/proc/self/task/TID/comm). With
// "delay" the mask is kept for the application to apply later, as
// libosmocore does; osmo-pcu never applies it, and neither does gopcu.
// Errors print libosmocore's messages and fail the command (a config
// file with a failing `policy rr`, e.g. without CAP_SYS_NICE, is refused,
// as osmo-pcu refuses it).

// schedSystem is what the node does to the process (the OS; a fake in
// tests).
type schedSystem interface {
	// SetRR puts every thread of the process on SCHED_RR at prio.
	SetRR(prio int) error
	// SetAffinity sets mask on thread tid, or on every thread (tid 0).
	SetAffinity(tid int, mask []uint64) error
	// Threads lists the process's threads.
	Threads() ([]ThreadInfo, error)
	// CPUs is the number of configured CPUs (sysconf _SC_NPROCESSORS_CONF).
	CPUs() int
	// PID is the process's.
	PID() int
}

// ThreadInfo is one thread of the process for `show cpu-sched threads`.
type ThreadInfo struct {
	TID      int
	Name     string
	Affinity []uint64 // nil: unknown
}

// defaultSched is the system a new VTY's cpu-sched node acts on.
var defaultSched schedSystem = osSched{}

// affinityEntry is a `cpu-affinity` line kept for write-back.
type affinityEntry struct {
	who   string
	mask  []uint64
	delay bool
}

// maskWords is the size of a CPU mask in 64-bit words for n CPUs
// (CPU_ALLOC_SIZE rounds up to whole longs).
func maskWords(n int) int { return max((n+63)/64, 1) }

// parseCPUMask parses a hex CPU mask (right-most digit CPUs 0-3, an
// optional 0x) into words 64-bit words; CPUs beyond them are dropped, as
// CPU_SET_S drops them (libosmocore parse_cpu_hex_mask).
func parseCPUMask(s string, words int) ([]uint64, bool) {
	s = strings.TrimPrefix(s, "0x")
	m := make([]uint64, words)
	cpu := 0
	for i := len(s) - 1; i >= 0; i-- {
		v, err := strconv.ParseUint(s[i:i+1], 16, 8)
		if err != nil {
			return nil, false
		}
		for b := 0; b < 4; b++ {
			if v&(1<<b) != 0 && cpu+b < 64*words {
				m[(cpu+b)/64] |= 1 << ((cpu + b) % 64)
			}
		}
		cpu += 4
	}
	return m, true
}

// formatCPUMask writes a mask as libosmocore's generate_cpu_hex_mask: 0x
// and the hex digits without leading zeros ("0x0" for none).
func formatCPUMask(m []uint64) string {
	var b strings.Builder
	b.WriteString("0x")
	started := false
	for i := len(m) - 1; i >= 0; i-- {
		if !started {
			if m[i] == 0 {
				continue
			}
			fmt.Fprintf(&b, "%x", m[i])
			started = true
			continue
		}
		fmt.Fprintf(&b, "%016x", m[i])
	}
	if !started {
		b.WriteByte('0')
	}
	return b.String()
}

// setPolicy is `policy rr <1-32>`.
func (s *CPUSched) setPolicy(c *Context, prio int) error {
	s.RRPrio = prio // kept even when it fails, as libosmocore keeps it
	if err := s.sys.SetRR(prio); err != nil {
		return c.Warnf("%% Failed setting SCHED_RR priority %d\n", prio)
	}
	return nil
}

// setAffinity is `cpu-affinity WHO MASK [delay]`.
func (s *CPUSched) setAffinity(c *Context, who, mask string, delay bool) error {
	tid, kind := 0, who
	switch who {
	case "all", "self":
	default:
		if n, err := strconv.Atoi(who); err == nil && who[0] != '+' && who[0] != '-' {
			kind, tid = "tid", n
			if delay {
				return c.Warnf("%% It makes no sense to delay applying cpu-affinity on tid %d\n", tid)
			}
			if !s.hasThread(func(t ThreadInfo) bool { return t.TID == n }) {
				return c.Warnf("%% Failed parsing target thread %s\n", who)
			}
			break
		}
		kind = "name"
		if len(who) > 15 { // TASK_COMM_LEN 16 with the NUL
			return c.Warnf("%% Failed parsing target thread %s\n", who)
		}
		if !delay {
			found := false
			if ts, err := s.sys.Threads(); err == nil {
				for _, t := range ts {
					if t.Name == who {
						tid, found = t.TID, true
						break
					}
				}
			}
			if !found {
				return c.Warnf("%% Failed parsing target thread %s\n", who)
			}
		}
	}
	if who == "all" && delay {
		return c.Warnf("%% It makes no sense to delay applying cpu-affinity on all threads\n")
	}
	m, ok := parseCPUMask(mask, maskWords(s.sys.CPUs()))
	if !ok {
		return c.Warnf("%% Failed parsing CPU Affinity Mask %s\n", mask)
	}
	if !delay {
		if err := s.sys.SetAffinity(tid, m); err != nil {
			return c.Warnf("%% Failed setting sched CPU Affinity Mask %s: %s\n", mask, errText(err))
		}
	}
	if kind == "tid" { // a TID does not outlive the process: not written back
		return nil
	}
	e := affinityEntry{who: who, mask: m, delay: delay}
	for i, o := range s.affinity {
		if o.who == who { // the last one for a thread counts
			s.affinity = append(s.affinity[:i], s.affinity[i+1:]...)
			break
		}
	}
	s.affinity = append(s.affinity, e)
	return nil
}

func (s *CPUSched) hasThread(f func(ThreadInfo) bool) bool {
	ts, err := s.sys.Threads()
	if err != nil {
		return false
	}
	for _, t := range ts {
		if f(t) {
			return true
		}
	}
	return false
}

// writeConfig is libosmocore's config_write_sched.
func (s *CPUSched) writeConfig(c *Context) {
	if s.RRPrio != 0 || len(s.affinity) > 0 {
		c.Print("cpu-sched\n")
	}
	if s.RRPrio != 0 {
		c.Printf(" policy rr %d\n", s.RRPrio)
	}
	for _, a := range s.affinity {
		d := ""
		if a.delay {
			d = " delay"
		}
		c.Printf(" cpu-affinity %s %s%s\n", a.who, formatCPUMask(a.mask), d)
	}
}

// showThreads is `show cpu-sched threads`.
func (s *CPUSched) showThreads(c *Context) error {
	c.Printf("Thread list for PID %d:\n", s.sys.PID())
	ts, err := s.sys.Threads()
	if err != nil {
		return c.Warnf("%% Failed opening dir/proc/%d/task\n", s.sys.PID())
	}
	for _, t := range ts {
		m := ""
		if t.Affinity != nil {
			m = formatCPUMask(t.Affinity)
		}
		c.Printf(" TID: %d, NAME: '%s', cpu-affinity: %s\n", t.TID, t.Name, m)
	}
	return nil
}

// errText is strerror's text of err ("Operation not permitted").
func errText(err error) string {
	s := err.Error()
	if s != "" {
		return strings.ToUpper(s[:1]) + s[1:]
	}
	return s
}
