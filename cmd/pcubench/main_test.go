package main

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/gopcu/gopcu/internal/testutil"
	"github.com/gopcu/gopcu/pcu"
	"github.com/gopcu/gopcu/pcu/driver"
	"github.com/gopcu/gopcu/pcu/pcuif"
)

// TestMain lets the test binary play gopcu (the engine on the socket of
// the config file's pcu-socket line) when PCUBENCH_CHILD is set, so that
// the smoke test needs no build of cmd/gopcu.
func TestMain(m *testing.M) { testutil.RunTestsOr(m, "PCUBENCH_CHILD", child) }

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
	driver.Run(ctx, pcu.New(pcu.Config{SocketPath: sock, MinBackoff: 10 * time.Millisecond}), driver.Options{})
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

// TestOsmoBTSFrame: over a 52-multiframe, osmo-bts-virtual sends 12
// TIME_INDs (the block starts, frames 0 4 8 of every 13), 12 bursts of
// PDTCH RTS_REQs and 2 of PTCCH RTS_REQs, each 5 frames ahead.
func TestOsmoBTSFrame(t *testing.T) {
	var ti, pdtch, ptcch []uint32
	base := uint32(52 * 1000)
	for fn := base; fn < base+52; fn++ {
		f := osmoBTSFrame(fn)
		if f.rtsFN != fn+5 {
			t.Errorf("frame %d: RTS_REQs for %d, want %d", fn, f.rtsFN, fn+5)
		}
		if f.timeInd {
			ti = append(ti, fn-base)
		}
		if f.pdtch {
			pdtch = append(pdtch, f.rtsFN-base)
		}
		if f.ptcch {
			ptcch = append(ptcch, f.rtsFN-base)
		}
		if f.pdtch && f.ptcch {
			t.Errorf("frame %d: both PDTCH and PTCCH RTS_REQs", fn)
		}
	}
	blocks := []uint32{0, 4, 8, 13, 17, 21, 26, 30, 34, 39, 43, 47}
	if fmt.Sprint(ti) != fmt.Sprint(blocks) {
		t.Errorf("TIME_IND in frames %v, want %v", ti, blocks)
	}
	// the RTS_REQs of the next multiframe's blocks 0 and 4 go in frames 47 and 51
	wantPDTCH := []uint32{8, 13, 17, 21, 26, 30, 34, 39, 43, 47, 52, 56}
	if fmt.Sprint(pdtch) != fmt.Sprint(wantPDTCH) {
		t.Errorf("PDTCH RTS_REQs for frames %v, want %v", pdtch, wantPDTCH)
	}
	if fmt.Sprint(ptcch) != fmt.Sprint([]uint32{12, 38}) {
		t.Errorf("PTCCH RTS_REQs for frames %v, want [12 38]", ptcch)
	}
	if f := osmoBTSFrame(pcuif.MaxFN - 1); f.rtsFN != 4 || !f.pdtch {
		t.Errorf("frame MaxFN-1: %+v, want the RTS_REQs of block 1 at frame 4 after the wrap", f)
	}
}
