package llc_test

import (
	"fmt"
	"time"

	"github.com/gopcu/gopcu/llc"
)

// ui builds an LLC UI frame (TS 44.064 §6.3.3) of SAPI sapi carrying text;
// the FCS is left out, as the queue does not look at it.
func ui(sapi uint8, text string) []byte {
	return append([]byte{sapi, 0xc0, 0x01}, text...)
}

// Example inspects an LLC frame and runs a per-MS downlink queue: GMM
// (SAPI 1) goes before user data (SAPI 3) whatever the arrival order, and a
// frame whose PDU lifetime ran out is dropped and reported for
// LLC-DISCARDED.
func Example() {
	h, err := llc.Inspect(ui(3, "user data"))
	if err != nil {
		panic(err)
	}
	fmt.Printf("SAPI %d %v, class %v\n", h.SAPI, h.Format, llc.ClassOf(h.SAPI))

	shared, err := llc.NewShared(llc.DefaultConfig())
	if err != nil {
		panic(err)
	}
	q := shared.NewQueue(nil)
	q.Enqueue(0, ui(3, "old data"), 10) // lifetime 10 cs = 100 ms
	q.Enqueue(0, ui(3, "data"), llc.LifetimeInfinite)
	q.Enqueue(0, ui(1, "attach accept"), llc.LifetimeInfinite)
	now := 200 * time.Millisecond
	for {
		fr, ok, d := q.Dequeue(now)
		if d.Frames > 0 {
			fmt.Printf("discarded %d frame(s), %d octets (lifetime)\n", d.Lifetime, d.Octets)
		}
		if !ok {
			break
		}
		fmt.Printf("%v: %s\n", fr.Class, fr.Data[3:])
	}
	// Output:
	// SAPI 3 UI, class data
	// GMM: attach accept
	// discarded 1 frame(s), 11 octets (lifetime)
	// data: data
}
