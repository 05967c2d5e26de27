package main

import (
	"os"
	"syscall"

	"golang.org/x/sys/unix"
)

// sigName is the signal's SIGxxx name, as gopcu logs it.
func sigName(s os.Signal) string { return unix.SignalName(s.(syscall.Signal)) }
