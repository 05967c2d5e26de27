package config

import (
	"strings"
	"testing"
)

// TestLoginAsOsmoPCU replays a login session recorded from osmo-pcu 1.1.0
// (password, enable password, `line vty` / `login`).
func TestLoginAsOsmoPCU(t *testing.T) {
	const cfgText = "password secret\nenable password boss\nline vty\n login\npcu\n pcu-socket /tmp/gopcu-vtyref-pcu_bts\n"
	banner := "Welcome to the OsmoPCU VTY interface\r\n\r\nCopyright (C) 2012 by Ivan Kluchnikov <kluchnikovi@gmail.com> and \r\n" +
		"                      Andreas Eversberg <jolly@eversberg.eu>\r\nLicense GNU GPL version 2 or later\r\n" +
		"This is free software: you are free to change and redistribute it.\r\nThere is NO WARRANTY, to the extent permitted by law.\r\n"
	run := func(steps [][2]string) {
		t.Helper()
		v, _ := New("1.1.0")
		if err := v.ReadConfig(strings.NewReader(cfgText), "login.cfg"); err != nil {
			t.Fatal(err)
		}
		s := v.NewSession(nil)
		if got, want := string(s.Start()), banner+"\r\nUser Access Verification\r\n\r\n\xff\xfb\x01\xff\xfb\x03\xff\xfe\"\xff\xfd\x1fPassword: "; got != want {
			t.Fatalf("start %q", got)
		}
		for _, st := range steps {
			got := string(s.Feed([]byte(st[0])))
			if s.Closed() {
				got = "<EOF>"
			}
			if got != st[1] && !(strings.HasPrefix(st[1], "...") && strings.HasPrefix(got, st[1][3:])) {
				t.Errorf("%q: got %q want %q", st[0], got, st[1])
			}
		}
	}
	run([][2]string{
		{"x?\t\r", "\r\nPassword: "},
		{"secret\r", "\r\nOsmoPCU> "},
		{"enable\r", "enable\r\nPassword: "},
		{"bad\r", "\r\nPassword: "},
		{"bad2\r", "\r\nPassword: "},
		{"bad3\r", "\r\n% Bad enable passwords, too many failures!\r\nOsmoPCU> "},
		{"enable\r", "enable\r\nPassword: "},
		{"boss\r", "\r\nOsmoPCU# "},
		{"show running-config\r", "...show running-config\r\n\r\nCurrent configuration:\r\n!\r\npassword secret\r\nenable password boss\r\n!\r\nlog stderr blocking-io\r\n"},
		{"exit\r", "<EOF>"},
	})
	run([][2]string{{"a\r", "\r\nPassword: "}, {"b\r", "\r\nPassword: "}, {"c\r", "<EOF>"}})
}
