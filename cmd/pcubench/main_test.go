package main

import (
	"bytes"
	"context"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/gopcu/gopcu/pcu"
)

// TestMain lets the test binary play gopcu (the engine on the socket of
// the config file's pcu-socket line) when PCUBENCH_CHILD is set, so that
// the smoke test needs no build of cmd/gopcu.
func TestMain(m *testing.M) {
	if os.Getenv("PCUBENCH_CHILD") == "1" {
		child()
		return
	}
	os.Exit(m.Run())
}

func child() {
	var sock string
	for i, a := range os.Args {
		if a == "-c" && i+1 < len(os.Args) {
			b, err := os.ReadFile(os.Args[i+1])
			if err != nil {
				os.Exit(1)
			}
			for _, l := range strings.Split(string(b), "\n") {
				if v, ok := strings.CutPrefix(strings.TrimSpace(l), "pcu-socket "); ok {
					sock = v
				}
			}
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	pcu.New(pcu.Config{SocketPath: sock, MinBackoff: 10 * time.Millisecond}).Run(ctx)
}

// TestSmoke runs a short idle and a short loaded workload on the engine
// (the test binary as the PCU) and checks the table's rows.
func TestSmoke(t *testing.T) {
	ws := []workload{
		{name: "idle-4", trx: 1, mask: 0xf0, stub: true, rts: 400},
		{name: "ul-bulk", trx: 1, mask: 0xf0, ms: 2, class: 12, ulBytes: 2000, duration: time.Second},
	}
	k := pcuKind{name: "gopcu", bin: os.Args[0], env: []string{"PCUBENCH_CHILD=1"}}
	var out bytes.Buffer
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	if err := bench(ctx, &out, []pcuKind{k}, ws, 1); err != nil {
		t.Fatal(err)
	}
	for _, row := range []string{"| idle-4 | gopcu | 400 |", "| ul-bulk | gopcu |"} {
		if !strings.Contains(out.String(), row) {
			t.Errorf("no row %q in\n%s", row, out.String())
		}
	}
}
