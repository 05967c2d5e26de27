package bss

import (
	"testing"
	"time"

	"github.com/gopcu/gopcu/internal/testutil"
)

// FuzzGbInput feeds arbitrary datagrams to an unblocked Gb: it must never
// panic, and a single bad datagram never takes the BVC down unless it is a
// well-formed NS/BSSGP procedure PDU that legitimately does (RESET, BLOCK,
// STATUS...).
func FuzzGbInput(f *testing.F) {
	for _, c := range badPDUs {
		f.Add(append([]byte{0, 0, byte(c.bvci >> 8), byte(c.bvci)}, testutil.MustHex(c.pdu)...))
	}
	// the BSSGP decoder's corpus, on the PTP BVC
	for _, b := range testutil.FuzzCorpus(f, "../testdata/fuzz/FuzzParse") {
		f.Add(append([]byte{0, 0, 0x07, 0x08}, b...))
	}
	f.Add(testutil.MustHex("020081010182006504820065"))
	f.Add(testutil.MustHex("0a"))
	f.Fuzz(func(t *testing.T, b []byte) {
		g, tx, _ := up(t)
		g.Input(0, sgsnAddr, b, time.Second)
		g.Tick(90 * time.Second)
		_, _ = g.NextDeadline()
		_ = g.SendULUnitdata(1, []byte{1}, 90*time.Second)
		if len(tx.out) > 64 {
			t.Fatalf("%d PDUs sent for one input", len(tx.out))
		}
	})
}
