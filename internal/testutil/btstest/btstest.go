// Package btstest starts the BTS emulator (internal/emu/btsemu) for a
// test. It is a package of its own because btsemu imports pcu/pcuif, whose
// tests import internal/testutil.
package btstest

import (
	"testing"

	"github.com/gopcu/gopcu/internal/emu/btsemu"
)

// Listen starts the BTS emulator with cfg (btsemu.Listen), failing the
// test when it cannot; the emulator is closed at the test's cleanup.
func Listen(t testing.TB, cfg btsemu.Config) *btsemu.BTS {
	t.Helper()
	bts, err := btsemu.Listen(cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(bts.Close)
	return bts
}
