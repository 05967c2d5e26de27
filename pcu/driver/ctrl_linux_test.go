//go:build linux

package driver

import (
	"bufio"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/gopcu/gopcu/bssgp"
	"github.com/gopcu/gopcu/pcu"
)

// fakeBSCCtrl is osmo-bsc's neighbour resolution CTRL service: it answers
// each GET for ARFCN 880 BSIC 10 with a CGI-PS, any other with ERROR,
// and hangs up on a GET for ARFCN 999. It reports the commands on cmds.
func fakeBSCCtrl(t *testing.T) (addr string, port int, cmds chan string) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	cmds = make(chan string, 16)
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go func() {
				defer c.Close()
				r := bufio.NewReader(c)
				for {
					cmd, err := readIPACtrl(r)
					if err != nil {
						return
					}
					cmds <- cmd
					f := strings.Fields(cmd)
					if strings.HasSuffix(f[2], ".999.10") {
						return
					}
					reply := "ERROR " + f[1] + " No target CGI PS found"
					if strings.HasSuffix(f[2], ".880.10") {
						reply = "GET_REPLY " + f[1] + " " + f[2] + " 901-70-2-3-7000"
					}
					if _, err := c.Write(ipaCtrlFrame(reply)); err != nil {
						return
					}
				}
			}()
		}
	}()
	a := ln.Addr().(*net.TCPAddr)
	return a.IP.String(), a.Port, cmds
}

// TestCtrlResolution: with `neighbor resolution ADDR PORT` the engine
// resolves a neighbour through the driver's CTRL client (osmo-pcu 1.1.0's
// command and id ARFCN*100+BSIC); an ERROR reply and a connection the BSC
// closes fail the resolution, and the next one dials again.
func TestCtrlResolution(t *testing.T) {
	addr, port, cmds := fakeBSCCtrl(t)
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
