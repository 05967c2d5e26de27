// Package peertest starts the peers a daemon test runs against: the BTS
// emulator on a PCU socket and the SGSN emulator, each closed at the
// test's cleanup. It is the one copy for the tests of cmd/gopcu and
// internal/app, and of those running a PCU in a network namespace. It is a package of its own because the SGSN emulator's
// tests import btstest.
package peertest

import (
	"net/netip"
	"testing"

	"github.com/gopcu/gopcu/internal/emu/btsemu"
	"github.com/gopcu/gopcu/internal/emu/sgsnemu"
	"github.com/gopcu/gopcu/internal/testutil"
	"github.com/gopcu/gopcu/internal/testutil/btstest"
	"github.com/gopcu/gopcu/internal/testutil/netnstest"
)

// BTS starts the BTS emulator (PCU interface v12, PDCHs on TS 4-7) on the
// socket sock with its NSE 101's NS-VC from a free loopback port towards
// sgsn.
func BTS(t testing.TB, sock string, sgsn netip.AddrPort) *btsemu.BTS {
	t.Helper()
	return btstest.ListenV12(t, sock, uint16(testutil.FreePort(t)), sgsn)
}

// SGSN starts the SGSN emulator on a loopback port.
func SGSN(t testing.TB, cfg sgsnemu.Config, cb sgsnemu.Callbacks) *sgsnemu.Server {
	t.Helper()
	sg, err := sgsnemu.Listen(netip.MustParseAddrPort("127.0.0.1:0"), cfg, cb)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { sg.Close() })
	return sg
}

// SGSNIn starts the SGSN emulator inside the namespace n on
// 127.0.0.1:23000, the SGSN address of btsemu.DefaultInfo.
func SGSNIn(t testing.TB, n *netnstest.NS, cfg sgsnemu.Config, cb sgsnemu.Callbacks) *sgsnemu.Server {
	t.Helper()
	var sg *sgsnemu.Server
	if err := n.Do(func() (err error) {
		sg, err = sgsnemu.Listen(netip.MustParseAddrPort("127.0.0.1:23000"), cfg, cb)
		return err
	}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { sg.Close() })
	return sg
}

// Silent is a loopback address no SGSN answers on (a port that was free a
// moment ago), for a BTS whose NS need not come up.
func Silent(t testing.TB) netip.AddrPort {
	t.Helper()
	return netip.AddrPortFrom(netip.MustParseAddr("127.0.0.1"), uint16(testutil.FreePort(t)))
}
