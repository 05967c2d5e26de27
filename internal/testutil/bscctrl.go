package testutil

import (
	"bufio"
	"net"
	"strings"
	"testing"

	"github.com/gopcu/gopcu/internal/ipa"
)

// FakeBSCCtrl is osmo-bsc's neighbour resolution CTRL service (osmo-bsc
// neighbor_ident_ctrl.c) on a loopback port, closed at the test's
// cleanup: IPA-framed (internal/ipa) "GET <id>
// neighbor_resolve_cgi_ps_from_lac_ci.<lac>.<ci>.<arfcn>.<bsic>" is
// answered for ARFCN 880 BSIC 10 with "GET_REPLY <id> <variable>
// 901-70-2-3-7000" (<mcc>-<mnc>-<lac>-<rac>-<ci>), for any other cell
// with "ERROR <id> No target CGI PS found"; a GET for ARFCN 999 (or a
// message that is no GET) makes it hang up. It takes any number of
// connections and reports every message it reads on cmds.
func FakeBSCCtrl(t testing.TB) (addr string, port int, cmds chan string) {
	t.Helper()
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
			go serveBSCCtrl(c, cmds)
		}
	}()
	a := ln.Addr().(*net.TCPAddr)
	return a.IP.String(), a.Port, cmds
}

func serveBSCCtrl(c net.Conn, cmds chan<- string) {
	defer c.Close()
	r := bufio.NewReader(c)
	for {
		cmd, err := ipa.ReadCtrl(r)
		if err != nil {
			return
		}
		cmds <- cmd
		f := strings.Fields(cmd)
		if len(f) != 3 || f[0] != "GET" || strings.HasSuffix(f[2], ".999.10") {
			return
		}
		reply := "ERROR " + f[1] + " No target CGI PS found"
		if strings.HasSuffix(f[2], ".880.10") {
			reply = "GET_REPLY " + f[1] + " " + f[2] + " 901-70-2-3-7000"
		}
		if _, err := c.Write(ipa.CtrlFrame(reply)); err != nil {
			return
		}
	}
}
