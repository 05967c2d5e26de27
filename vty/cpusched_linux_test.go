//go:build linux

package vty

import (
	"os"
	"os/exec"
	"runtime"
	"strings"
	"sync"
	"testing"

	"golang.org/x/sys/unix"

	"github.com/gopcu/gopcu/internal/testutil"
)

// TestCPUSchedOS applies `policy rr` and `cpu-affinity all` for real, in
// a child process (the test binary again) so that the test process keeps
// its scheduling: every thread is on SCHED_RR afterwards, and so is a
// thread the runtime starts later.
func TestCPUSchedOS(t *testing.T) {
	if os.Getenv("GOPCU_CPUSCHED_CHILD") == "1" {
		cpuSchedChild(t)
		return
	}
	testutil.NeedRoot(t, "CAP_SYS_NICE, to set SCHED_RR")
	cmd := exec.Command(os.Args[0], "-test.run=^TestCPUSchedOS$", "-test.v")
	cmd.Env = append(os.Environ(), "GOPCU_CPUSCHED_CHILD=1")
	out, err := cmd.CombinedOutput()
	if err != nil || !strings.Contains(string(out), "--- PASS: TestCPUSchedOS") {
		t.Fatalf("child: %v\n%s", err, out)
	}
}

func cpuSchedChild(t *testing.T) {
	// a few threads of our own before the change
	var wg sync.WaitGroup
	stop := make(chan struct{})
	for i := 0; i < 3; i++ {
		wg.Go(func() {
			runtime.LockOSThread()
			<-stop
		})
	}
	defer func() { close(stop); wg.Wait() }()
	s := osSched{}
	if err := s.SetRR(1); err != nil {
		t.Fatalf("SetRR: %v", err)
	}
	ts, err := s.Threads()
	if err != nil || len(ts) < 2 {
		t.Fatalf("threads %v, %v", ts, err)
	}
	for _, th := range ts {
		a, err := unix.SchedGetAttr(th.TID, 0)
		if err != nil {
			t.Fatalf("tid %d: %v", th.TID, err)
		}
		if a.Policy != unix.SCHED_RR || a.Priority != 1 {
			t.Errorf("tid %d (%s): policy %d priority %d, want SCHED_RR 1", th.TID, th.Name, a.Policy, a.Priority)
		}
		if th.Name == "" || cpuCount(th.Affinity) == 0 {
			t.Errorf("tid %d: name %q affinity %v", th.TID, th.Name, th.Affinity)
		}
	}
	// a thread started afterwards inherits the policy
	tid := make(chan int)
	for i := 0; i < len(ts)+2; i++ { // more locked goroutines than threads: new ones
		wg.Go(func() {
			runtime.LockOSThread()
			tid <- unix.Gettid()
			<-stop
		})
	}
	for i := 0; i < len(ts)+2; i++ {
		n := <-tid
		if a, err := unix.SchedGetAttr(n, 0); err != nil || a.Policy != unix.SCHED_RR {
			t.Errorf("later thread %d: %+v %v, want SCHED_RR", n, a, err)
		}
	}
	// every thread's affinity: the CPUs it may use now
	var cur unix.CPUSet
	if err := unix.SchedGetaffinity(0, &cur); err != nil {
		t.Fatal(err)
	}
	m := make([]uint64, maskWords(s.CPUs()))
	for c := 0; c < 64*len(m); c++ {
		if cur.IsSet(c) {
			m[c/64] |= 1 << (c % 64)
		}
	}
	if err := s.SetAffinity(0, m); err != nil {
		t.Fatalf("SetAffinity all: %v", err)
	}
	if err := s.SetAffinity(ts[0].TID, m); err != nil {
		t.Fatalf("SetAffinity one: %v", err)
	}
	if err := s.SetAffinity(0, make([]uint64, len(m))); err == nil {
		t.Error("an empty mask was accepted")
	}
}
