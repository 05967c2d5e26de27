package demo

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"strconv"
	"syscall"
)

// Main is the frame of the commands that run the scenarios (cmd/demo,
// cmd/tcplab): run gets a context that SIGINT, SIGTERM and the further
// signals cancel, and a scratch directory removed when run returns. An
// error of run is printed as "name: error" and ends the program with
// status 1.
func Main(name string, run func(ctx context.Context, dir string) error, signals ...os.Signal) {
	if err := runInScratch(name, run, signals); err != nil {
		fmt.Fprintf(os.Stderr, "%s: %v\n", name, err)
		os.Exit(1)
	}
}

func runInScratch(name string, run func(ctx context.Context, dir string) error, signals []os.Signal) error {
	ctx, stop := signal.NotifyContext(context.Background(), append([]os.Signal{os.Interrupt, syscall.SIGTERM}, signals...)...)
	defer stop()
	dir, err := os.MkdirTemp("", "gopcu-"+name)
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	return run(ctx, dir)
}

// CellFlags registers on fs what cmd/demo and cmd/tcplab both let set,
// with the values in place as the defaults: -ms, -cs, -slots and -size
// (the download per MS, given in kB, stored in octets in fileBytes).
func CellFlags(fs *flag.FlagSet, mss, cs, slots, fileBytes *int) {
	fs.IntVar(mss, "ms", *mss, "number of MSs (each with a download and a ping)")
	fs.IntVar(cs, "cs", *cs, "GPRS coding scheme (1..4)")
	fs.IntVar(slots, "slots", *slots, "PDCHs (timeslots, 1..8)")
	fs.Var((*kBytes)(fileBytes), "size", "download size per MS in `kB`")
}

// kBytes is a flag.Value of octets written in kB.
type kBytes int

func (k *kBytes) String() string {
	if k == nil {
		return "0"
	}
	return strconv.Itoa(int(*k) >> 10)
}

func (k *kBytes) Set(s string) error {
	v, err := strconv.ParseInt(s, 0, strconv.IntSize)
	if err != nil {
		return err
	}
	*k = kBytes(v << 10)
	return nil
}
