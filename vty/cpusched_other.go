//go:build !linux

package vty

import (
	"errors"
	"os"
)

// osSched off Linux: the node is accepted and written back; applying it
// fails (libosmocore built without sched_setscheduler returns -ENOTSUP).
type osSched struct{}

var errNoSched = errors.New("not supported on this system")

func (osSched) PID() int                                 { return os.Getpid() }
func (osSched) SetRR(prio int) error                     { return errNoSched }
func (osSched) SetAffinity(tid int, mask []uint64) error { return errNoSched }
func (osSched) Threads() ([]ThreadInfo, error)           { return nil, errNoSched }
func (osSched) CPUs() int                                { return 1 }
