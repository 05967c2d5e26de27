package vty

import (
	"errors"
	"math/bits"
	"slices"
	"strings"
	"testing"

	"golang.org/x/sys/unix"
)

// The tests never change the test process's scheduling: every VTY made
// here acts on a fake system (cpusched_linux_test.go tests the real one
// in a child process).
func init() { defaultSched = &fakeSched{cpus: 2} }

type fakeCall struct {
	what string
	arg  int
	mask string
}

type fakeSched struct {
	cpus  int
	fail  error
	calls []fakeCall
}

func (f *fakeSched) PID() int  { return 4242 }
func (f *fakeSched) CPUs() int { return f.cpus }
func (f *fakeSched) SetRR(prio int) error {
	f.calls = append(f.calls, fakeCall{"rr", prio, ""})
	return f.fail
}
func (f *fakeSched) SetAffinity(tid int, mask []uint64) error {
	f.calls = append(f.calls, fakeCall{"affinity", tid, formatCPUMask(mask)})
	return f.fail
}
func (f *fakeSched) Threads() ([]ThreadInfo, error) {
	return []ThreadInfo{{TID: 4242, Name: "gopcu", Affinity: []uint64{3}}, {TID: 4243, Name: "gopcu", Affinity: []uint64{1}},
		{TID: 4250, Name: "worker"}}, nil
}

// TestCPUSchedNode: libosmocore's cpu_sched_vty.c commands, messages and
// write-back, applied through the system interface.
func TestCPUSchedNode(t *testing.T) {
	f := &fakeSched{cpus: 2}
	v := testTree()
	v.CPUSched.sys = f
	s := v.NewSession(nil)
	s.Exec("enable")
	s.Exec("configure terminal")
	s.Exec("cpu-sched")
	for _, tc := range []struct{ cmd, out string }{
		{"policy rr 20", ""},
		{"cpu-affinity all 3", ""},
		{"cpu-affinity self 0x1", ""},
		{"cpu-affinity 4243 2", ""}, // a TID: applied, not written back
		{"cpu-affinity worker 0x2", ""},
		{"cpu-affinity later 1 delay", ""}, // a name to come: kept, not applied
		{"cpu-affinity 4243 2 delay", "% It makes no sense to delay applying cpu-affinity on tid 4243\n"},
		{"cpu-affinity all 2 delay", "% It makes no sense to delay applying cpu-affinity on all threads\n"},
		{"cpu-affinity 99 1", "% Failed parsing target thread 99\n"},
		{"cpu-affinity nosuchthread 1", "% Failed parsing target thread nosuchthread\n"},
		{"cpu-affinity averyverylongname 1 delay", "% Failed parsing target thread averyverylongname\n"},
		{"cpu-affinity all 0xg", "% Failed parsing CPU Affinity Mask 0xg\n"},
		{"cpu-affinity all 0x300000000000000003", ""}, // beyond the CPUs' 64-bit words: dropped
		{"cpu-affinity self 0x1", ""}, // replaces the earlier self line
	} {
		if got := s.Exec(tc.cmd); got != tc.out {
			t.Errorf("%s: got %q, want %q", tc.cmd, got, tc.out)
		}
	}
	want := []fakeCall{{"rr", 20, ""}, {"affinity", 0, "0x3"}, {"affinity", 0, "0x1"}, {"affinity", 4243, "0x2"},
		{"affinity", 4250, "0x2"}, {"affinity", 0, "0x3"}, {"affinity", 0, "0x1"}}
	if !slices.Equal(f.calls, want) {
		t.Errorf("system calls\n got %v\nwant %v", f.calls, want)
	}
	rc := v.RunningConfig()
	// a thread's new line replaces its old one at the end (libosmocore)
	wantRC := "cpu-sched\n policy rr 20\n cpu-affinity worker 0x2\n cpu-affinity later 0x1 delay\n cpu-affinity all 0x3\n cpu-affinity self 0x1\n"
	if !strings.Contains(rc, wantRC) {
		t.Errorf("running config lacks\n%s\nin\n%s", wantRC, rc)
	}
	// the system refuses (no CAP_SYS_NICE): libosmocore's warnings
	f.fail = unix.EPERM
	if got, w := s.Exec("policy rr 3"), "% Failed setting SCHED_RR priority 3\n"; got != w {
		t.Errorf("got %q, want %q", got, w)
	}
	if got, w := s.Exec("cpu-affinity all 1"), "% Failed setting sched CPU Affinity Mask 1: Operation not permitted\n"; got != w {
		t.Errorf("got %q, want %q", got, w)
	}
	s.Exec("end")
	want2 := "Thread list for PID 4242:\n TID: 4242, NAME: 'gopcu', cpu-affinity: 0x3\n TID: 4243, NAME: 'gopcu', cpu-affinity: 0x1\n TID: 4250, NAME: 'worker', cpu-affinity: \n"
	if got := s.Exec("show cpu-sched threads"); got != want2 {
		t.Errorf("show cpu-sched threads:\n got %q\nwant %q", got, want2)
	}
}

// TestCPUSchedConfigFile: a config file whose `policy rr` the system
// refuses does not load (osmo-pcu exits on it).
func TestCPUSchedConfigFile(t *testing.T) {
	v := testTree()
	v.CPUSched.sys = &fakeSched{cpus: 2, fail: unix.EPERM}
	err := v.ReadConfig(strings.NewReader("cpu-sched\n policy rr 1\n"), "rr.cfg")
	if err == nil {
		t.Fatal("config with a refused policy rr loaded")
	}
	v = testTree()
	f := &fakeSched{cpus: 2}
	v.CPUSched.sys = f
	if err := v.ReadConfig(strings.NewReader("cpu-sched\n policy rr 1\n cpu-affinity all 0x1\n"), "rr.cfg"); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(f.calls, []fakeCall{{"rr", 1, ""}, {"affinity", 0, "0x1"}}) {
		t.Errorf("calls %v", f.calls)
	}
}

func TestCPUMask(t *testing.T) {
	for _, tc := range []struct {
		in    string
		words int
		out   string
		ok    bool
	}{
		{"0", 1, "0x0", true}, {"0x0", 1, "0x0", true}, {"f", 1, "0xf", true}, {"0xF0", 1, "0xf0", true},
		{"10000000000000001", 2, "0x10000000000000001", true}, {"10000000000000001", 1, "0x1", true},
		{"0x", 1, "0x0", true}, {"x1", 1, "", false}, {"12g", 1, "", false},
	} {
		m, ok := parseCPUMask(tc.in, tc.words)
		if ok != tc.ok || ok && formatCPUMask(m) != tc.out {
			t.Errorf("%q: %v %v, want %q %v", tc.in, m, ok, tc.out, tc.ok)
		}
	}
	if n := cpuCount([]uint64{3, 1}); n != 3 {
		t.Errorf("cpuCount %d", n)
	}
	if errText(errors.New("operation not permitted")) != "Operation not permitted" {
		t.Error("errText")
	}
}

// cpuCount is the number of CPUs set in m.
func cpuCount(m []uint64) int {
	n := 0
	for _, w := range m {
		n += bits.OnesCount64(w)
	}
	return n
}
