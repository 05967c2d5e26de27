package main

import (
	"bytes"
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gopcu/gopcu/internal/emu/msemu"
	"github.com/gopcu/gopcu/internal/testutil/enginetest"
	"github.com/gopcu/gopcu/pcu"
	"github.com/gopcu/gopcu/pcu/driver"
)

// gbRec records the engine's UL-UNITDATA.
type gbRec struct {
	mu sync.Mutex
	ul map[uint32][][]byte
}

func (g *gbRec) ULUnitdata(bts uint8, tlli uint32, llc []byte) {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.ul[tlli] = append(g.ul[tlli], append([]byte(nil), llc...))
}

func (g *gbRec) LLCDiscarded(bts uint8, tlli uint32, frames uint8, octets uint32) {}

// TestRun runs the command's emulator in virtual time against an
// in-process gopcu engine: 6 MSs on a cell of two TRX, each sending 3000
// octets uplink and receiving two frames the SGSN side sends it, at 1 %
// radio block loss. The engine's UL-UNITDATA carries every MS's frames
// intact and in order, and the table shows each MS done with its counts.
func TestRun(t *testing.T) {
	cfg := defaultConfig()
	cfg.Path = filepath.Join(t.TempDir(), "pcu_bts")
	cfg.TRX, cfg.MSs, cfg.ULBytes, cfg.FrameSize = 2, 6, 3000, 400
	cfg.Loss, cfg.Duration, cfg.Fast = 0.01, 8*time.Second, true

	gb := &gbRec{ul: map[uint32][][]byte{}}
	eng := pcu.New(pcu.Config{SocketPath: cfg.Path, MinBackoff: 20 * time.Millisecond})
	eng.SetGb(gb)
	enginetest.Run(t, eng, driver.Options{})
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()

	dl := func(i, k int) []byte {
		return msemu.UIFrame(3, uint16(k), []byte(fmt.Sprintf("to MS %d, frame %d", i, k)))
	}
	cfg.started = func(c *msemu.Cell) {
		for i, ms := range c.MSs {
			for k := 0; k < 2; k++ {
				d := &pcu.DLUnitdata{TLLI: ms.TLLI, IMSI: ms.IMSI, Lifetime: 0xffff, LLC: dl(i, k)}
				eng.Call(func() { eng.HandleDLUnitdata(0, d) })
			}
		}
	}
	var out bytes.Buffer
	if err := run(ctx, cfg, &out); err != nil {
		t.Fatalf("%v\n%s", err, out.String())
	}
	t.Logf("\n%s", out.String())

	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	var table []string
	for _, l := range lines {
		if !strings.HasPrefix(l, "msemu:") {
			table = append(table, strings.Join(strings.Fields(l), " "))
		}
	}
	if len(table) != cfg.MSs+2 || table[0] != "MS TLLI IMSI UL frames UL octets UL queued UL DL frames DL octets polls" {
		t.Fatalf("table:\n%s", strings.Join(table, "\n"))
	}
	totalDL := 0
	for i := 0; i < cfg.MSs; i++ {
		want := cfg.ulFrames(i)
		tlli := cfg.TLLI + uint32(i)
		gb.mu.Lock()
		got := gb.ul[tlli]
		gb.mu.Unlock()
		if len(got) != len(want) {
			t.Fatalf("MS %d: SGSN side got %d of %d frames", i, len(got), len(want))
		}
		for k := range want {
			if !bytes.Equal(got[k], want[k]) || !msemu.CheckFCS(got[k]) {
				t.Fatalf("MS %d: frame %d differs", i, k)
			}
		}
		octets := len(want[0])*(len(want)-1) + len(want[len(want)-1])
		f := strings.Fields(table[1+i])
		prefix := fmt.Sprintf("%d 0x%08x %s %d %d 0 done", i, tlli, imsi(i), len(want), octets)
		line := strings.Join(f, " ")
		if !strings.HasPrefix(line, prefix+" ") {
			t.Fatalf("MS %d line %q, want it to start with %q", i, line, prefix)
		}
		// Both DL frames arrive; a DL TBF assigned on CCCH and replaced on
		// PACCH when the MS's UL TBF runs puts its unacknowledged frames
		// back (llc:requeued), so one may arrive twice (an MS's LLC discards
		// the repeated N(U), TS 44.064): 2 or 3 frames of 22 octets.
		var n, o int
		fmt.Sscanf(strings.TrimPrefix(line, prefix+" "), "%d %d", &n, &o)
		if n < 2 || n > 3 || o != n*len(dl(i, 0)) {
			t.Fatalf("MS %d: %d DL frames, %d octets: %q", i, n, o, line)
		}
		totalDL += n
	}
	wantAll := fmt.Sprintf("all %d %d 0 %d/%d %d ", len(cfg.ulFrames(0))*cfg.MSs, cfg.ULBytes*cfg.MSs, cfg.MSs, cfg.MSs, totalDL)
	if !strings.HasPrefix(table[len(table)-1]+" ", wantAll) {
		t.Fatalf("total line %q, want %q...", table[len(table)-1], wantAll)
	}
}
