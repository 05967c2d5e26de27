//go:build linux

package driver

import (
	"strings"
	"testing"
	"time"

	"github.com/gopcu/gopcu/bssgp"
	"github.com/gopcu/gopcu/internal/testutil"
	"github.com/gopcu/gopcu/pcu"
)

// TestCtrlResolution: with `neighbor resolution ADDR PORT` the engine
// resolves a neighbour through the driver's CTRL client (osmo-pcu 1.1.0's
// command and id ARFCN*100+BSIC); an ERROR reply and a connection the BSC
// closes fail the resolution, and the next one dials again.
func TestCtrlResolution(t *testing.T) {
	addr, port, cmds := testutil.FakeBSCCtrl(t)
	p := pcu.DefaultParams()
	p.NACC.NeighCtrlAddr, p.NACC.NeighCtrlPort = addr, port
	_, e, _ := startSockStub(t, 0x0f, pcu.Config{Params: &p})
	type result struct {
		cgi bssgp.CellID
		ok  bool
	}
	resolve := func(arfcn uint16) result {
		t.Helper()
		got := make(chan result, 1)
		var err error
		if cerr := e.Call(func() {
			err = e.ResolveNeighbour(0, arfcn, 10, func(cgi bssgp.CellID, ok bool) { got <- result{cgi, ok} })
		}); cerr != nil || err != nil {
			t.Fatalf("ResolveNeighbour: %v %v", cerr, err)
		}
		select {
		case r := <-got:
			return r
		case <-time.After(5 * time.Second):
			t.Fatalf("no answer for ARFCN %d", arfcn)
			return result{}
		}
	}
	want := bssgp.CellID{RAI: bssgp.RAI{MCC: 901, MNC: 70, LAC: 2, RAC: 3}, CI: 7000}
	if r := resolve(880); !r.ok || r.cgi != want {
		t.Fatalf("ARFCN 880: %+v", r)
	}
	if cmd := <-cmds; cmd != "GET 88010 neighbor_resolve_cgi_ps_from_lac_ci.0.0.880.10" {
		t.Fatalf("command %q", cmd)
	}
	if r := resolve(881); r.ok {
		t.Fatalf("ARFCN 881 (ERROR reply) resolved: %+v", r)
	}
	<-cmds
	if r := resolve(999); r.ok {
		t.Fatalf("ARFCN 999 (connection closed) resolved: %+v", r)
	}
	<-cmds
	// a new connection for the next one (the cache answers 880 now: ask 882)
	if r := resolve(882); r.ok {
		t.Fatalf("ARFCN 882 resolved: %+v", r)
	}
	if cmd := <-cmds; !strings.HasPrefix(cmd, "GET 88210 ") {
		t.Fatalf("command after the reconnect %q", cmd)
	}
}
