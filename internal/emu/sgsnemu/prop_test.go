package sgsnemu

import (
	"testing"
	"time"

	"github.com/gopcu/gopcu/bssgp/ns/nse"
	"pgregory.net/rapid"
)

// lossyPump delivers the queued datagrams with drops, duplicates and
// reordering decided by rapid.
func (b *bench) lossyPump(t *rapid.T) {
	for n := 0; len(b.q) > 0 && n < 1000; n++ {
		i := 0
		if len(b.q) > 1 && rapid.Bool().Draw(t, "reorder") {
			i = rapid.IntRange(0, len(b.q)-1).Draw(t, "pick")
		}
		p := b.q[i]
		b.q = append(b.q[:i], b.q[i+1:]...)
		switch rapid.IntRange(0, 9).Draw(t, "fate") {
		case 0, 1: // dropped
			continue
		case 2: // duplicated
			b.q = append(b.q, p)
		}
		if p.toSGSN {
			b.sg.Input(b.bss, p.b, b.now)
		} else {
			b.gb.Input(0, b.sgsn, p.b, b.now)
		}
	}
	b.q = b.q[:0]
}

// TestPropertyConvergence: whatever happens on a lossy, duplicating,
// reordering link and whatever the SGSN does (BVC reset, NS reset, restart
// with lost state), once the link is healthy again NS and the BVC are back
// up on both sides within two tns-reset + one T2 period, and user data flows.
func TestPropertyConvergence(t *testing.T) {
	rapid.Check(t, func(rt *rapid.T) {
		dialect := nse.DialectClassic
		if rapid.Bool().Draw(rt, "ipsns") {
			dialect = nse.DialectIPSNS
		}
		b := newBench(&testing.T{}, dialect)
		b.gb.Start(0)
		steps := rapid.IntRange(1, 40).Draw(rt, "steps")
		for i := 0; i < steps; i++ {
			b.now += time.Duration(rapid.IntRange(1, 5000).Draw(rt, "ms")) * time.Millisecond
			b.gb.Tick(b.now)
			b.sg.Tick(b.now)
			switch rapid.IntRange(0, 19).Draw(rt, "sgsn-action") {
			case 0:
				b.sg.ResetBVC(1800, b.now)
			case 1:
				b.sg.ResetNSVC(b.now)
			case 2: // SGSN restart: all state lost
				b.sg = New(b.sg.cfg, b.sg.tx, b.sg.cb)
			case 3:
				b.gb.SendULUnitdata(0xc0000001, []byte{1}, b.now)
			}
			b.lossyPump(rt)
		}
		// Heal the link.
		b.advance(b.now + 2*time.Minute)
		if !b.gb.Unblocked() || !b.sg.NSUp() || b.sg.BVC(1800) == nil || !b.sg.BVC(1800).Unblocked {
			rt.Fatalf("not converged: gb=%v ns=%v sgsn-nsup=%v bvc=%+v", b.gb.Unblocked(), b.gb.NSE().Available(),
				b.sg.NSUp(), b.sg.BVC(1800))
		}
		n := len(b.ul)
		if err := b.gb.SendULUnitdata(0xc0000001, []byte("x"), b.now); err != nil {
			rt.Fatal(err)
		}
		b.pump()
		if len(b.ul) != n+1 {
			rt.Fatal("UL-UNITDATA lost after convergence")
		}
	})
}
