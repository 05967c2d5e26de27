// Package btstest starts the BTS emulator (internal/emu/btsemu) for a
// test. It is a package of its own because btsemu imports pcu/pcuif, whose
// tests import internal/testutil.
package btstest

import (
	"context"
	"net/netip"
	"testing"
	"time"

	"github.com/gopcu/gopcu/internal/emu/btsemu"
	"github.com/gopcu/gopcu/pcu/pcuif"
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

// ListenV12 starts the BTS emulator (PCU interface v12, PDCHs on TS 4-7)
// on the socket sock with its NSE 101's NS-VC from UDP port localPort
// towards sgsn; it is closed at the test's cleanup.
func ListenV12(t testing.TB, sock string, localPort uint16, sgsn netip.AddrPort) *btsemu.BTS {
	t.Helper()
	info := btsemu.DefaultInfo(pcuif.V12)
	info.SetRemote(0, 101, localPort, sgsn)
	return Listen(t, btsemu.Config{Path: sock, Version: pcuif.V12, Info: info})
}

// WaitUp waits, within ctx, until the PCU has activated n PDCHs of bts
// and, when up is not nil, until up is closed (the SGSN side's BVC
// unblocked); either missing fails the test.
func WaitUp(ctx context.Context, t testing.TB, bts *btsemu.BTS, n int, up <-chan struct{}) {
	t.Helper()
	if err := bts.WaitActive(ctx, n); err != nil {
		t.Fatal(err)
	}
	if up == nil {
		return
	}
	select {
	case <-up:
	case <-ctx.Done():
		t.Fatal("BVC not unblocked")
	}
}

// Steps runs k radio blocks of bts (btsemu.Step, 2 s at most each); an
// error fails the test.
func Steps(ctx context.Context, t testing.TB, bts *btsemu.BTS, k int) {
	t.Helper()
	for range k {
		if _, err := bts.Step(ctx, 2*time.Second); err != nil {
			t.Fatal(err)
		}
	}
}
