//go:build linux

package vty

import (
	"os"
	"sort"
	"strconv"
	"strings"
	"unsafe"

	"golang.org/x/sys/unix"
)

// osSched is the cpu-sched node's system on Linux: sched_setattr(2) and
// sched_setaffinity(2) on the threads listed in /proc/self/task.
type osSched struct{}

func (osSched) PID() int { return os.Getpid() }

// tids lists the process's threads.
func tids() ([]int, error) {
	ents, err := os.ReadDir("/proc/self/task")
	if err != nil {
		return nil, err
	}
	var ts []int
	for _, e := range ents {
		if n, err := strconv.Atoi(e.Name()); err == nil {
			ts = append(ts, n)
		}
	}
	sort.Ints(ts)
	return ts, nil
}

// forEachThread runs f on every thread; a thread that exited meanwhile
// (ESRCH) is skipped. Threads the runtime starts while it runs inherit
// the setting from the thread that creates them once every thread has
// it; a second pass catches threads created from a thread not yet set.
func forEachThread(f func(tid int) error) error {
	done := map[int]bool{}
	for pass := 0; pass < 2; pass++ {
		ts, err := tids()
		if err != nil {
			return err
		}
		for _, t := range ts {
			if done[t] {
				continue
			}
			if err := f(t); err != nil && err != unix.ESRCH {
				return err
			}
			done[t] = true
		}
	}
	return nil
}

func (osSched) SetRR(prio int) error {
	return forEachThread(func(tid int) error {
		return unix.SchedSetAttr(tid, &unix.SchedAttr{Size: unix.SizeofSchedAttr, Policy: unix.SCHED_RR, Priority: uint32(prio)}, 0)
	})
}

func (osSched) SetAffinity(tid int, mask []uint64) error {
	set := func(t int) error {
		// the kernel takes any length of mask (a multiple of longs)
		_, _, e := unix.RawSyscall(unix.SYS_SCHED_SETAFFINITY, uintptr(t), uintptr(len(mask)*8), uintptr(unsafe.Pointer(&mask[0])))
		if e != 0 {
			return e
		}
		return nil
	}
	if tid != 0 {
		return set(tid)
	}
	return forEachThread(set)
}

func (osSched) Threads() ([]ThreadInfo, error) {
	ts, err := tids()
	if err != nil {
		return nil, err
	}
	out := make([]ThreadInfo, 0, len(ts))
	words := maskWords(osSched{}.CPUs())
	for _, t := range ts {
		ti := ThreadInfo{TID: t}
		if b, err := os.ReadFile("/proc/self/task/" + strconv.Itoa(t) + "/comm"); err == nil {
			ti.Name = strings.TrimSuffix(string(b), "\n")
		}
		m := make([]uint64, words)
		if _, _, e := unix.RawSyscall(unix.SYS_SCHED_GETAFFINITY, uintptr(t), uintptr(len(m)*8), uintptr(unsafe.Pointer(&m[0]))); e == 0 {
			ti.Affinity = m
		}
		out = append(out, ti)
	}
	return out, nil
}

// CPUs counts /sys/devices/system/cpu/cpuN (glibc's _SC_NPROCESSORS_CONF
// reads the same), at least the CPUs this process may use.
func (osSched) CPUs() int {
	n := 0
	if ents, err := os.ReadDir("/sys/devices/system/cpu"); err == nil {
		for _, e := range ents {
			if rest, ok := strings.CutPrefix(e.Name(), "cpu"); ok {
				if _, err := strconv.Atoi(rest); err == nil {
					n++
				}
			}
		}
	}
	var set unix.CPUSet
	if unix.SchedGetaffinity(0, &set) == nil {
		n = max(n, set.Count())
	}
	return max(n, 1)
}
