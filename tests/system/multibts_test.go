package system

import (
	"context"
	"fmt"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/gopcu/gopcu/internal/emu/btsemu"
	"github.com/gopcu/gopcu/internal/emu/msemu"
	"github.com/gopcu/gopcu/pcu"
	"github.com/gopcu/gopcu/pcu/pcuif"
)

// btsGb records UL-UNITDATA by the BTS it came from.
type btsGb struct {
	mu sync.Mutex
	ul map[[2]uint32][][]byte // (bts, TLLI)
}

func (g *btsGb) ULUnitdata(bts uint8, tlli uint32, llc []byte) {
	g.mu.Lock()
	defer g.mu.Unlock()
	k := [2]uint32{uint32(bts), tlli}
	g.ul[k] = append(g.ul[k], append([]byte(nil), llc...))
}

func (g *btsGb) LLCDiscarded(uint8, uint32, uint8, uint32) {}

func (g *btsGb) frames(bts uint8, tlli uint32) [][]byte {
	g.mu.Lock()
	defer g.mu.Unlock()
	return append([][]byte(nil), g.ul[[2]uint32{uint32(bts), tlli}]...)
}

// TestMultiBTSOneSocket: PCUIF addresses a BTS by the header's bts_nr, so
// one PCU socket can carry several BTSs (a BSC-co-located PCU does). Three
// BTSs on one socket, each with its INFO_IND (1 TRX, 4 PDCHs, its own
// ARFCN), get all their PDCHs activated; an MS in each, with the same
// TLLI in all three (the BTSs are separate cells), sends 20 kB uplink, and
// every frame reaches the Gb side from its own BTS, intact and in order.
func TestMultiBTSOneSocket(t *testing.T) {
	const nbts = 3
	path := filepath.Join(t.TempDir(), "pcu_bts")
	group, err := btsemu.ListenGroup(btsemu.Config{Path: path, Version: pcuif.V12}, nbts, func(k int) *pcuif.InfoInd {
		ii := btsemu.DefaultInfo(pcuif.V12)
		ii.TRX[0].ARFCN = uint16(871 + 10*k)
		ii.BVCI = uint16(1800 + k)
		return ii
	})
	if err != nil {
		t.Fatal(err)
	}
	gb := &btsGb{ul: map[[2]uint32][][]byte{}}
	r := newRig(t, group[0], pcu.Config{SocketPath: path, MinBackoff: 20 * time.Millisecond})
	r.eng.SetGb(gb)
	r.run()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	for k, b := range group {
		if err := b.WaitActive(ctx, 4); err != nil {
			t.Fatalf("BTS %d: %v", k, err)
		}
	}
	const tlli = 0xc0000040
	want := frames(20000, 500)
	var cells []*msemu.Cell
	for k, b := range group {
		c := msemu.NewCell(b, int64(k+1))
		ms := c.AddMS(tlli, "901700000000040", 12)
		for _, f := range want {
			ms.SendLLC(f)
		}
		cells = append(cells, c)
	}
	done := func() bool {
		for k := range group {
			if len(gb.frames(uint8(k), tlli)) < len(want) {
				return false
			}
		}
		return true
	}
	steps := 0
	for ; steps < 20000 && !done(); steps++ {
		for k, c := range cells {
			if err := c.Step(ctx); err != nil {
				t.Fatalf("BTS %d, block %d: %v", k, steps, err)
			}
		}
	}
	for k, b := range group {
		checkFrames(t, gb.frames(uint8(k), tlli), want, fmt.Sprintf("BTS %d after %d blocks", k, steps))
		if st := b.Stats(); st.Mismatched != 0 || st.BadMessages != 0 || st.Unanswered != 0 {
			t.Fatalf("BTS %d: %+v", k, st)
		}
	}
	t.Logf("%d BTSs, 20 kB each: %d blocks", nbts, steps)
}
