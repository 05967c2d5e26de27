package main

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/gopcu/gopcu/internal/logx"
	"github.com/gopcu/gopcu/internal/ratectr"
)

// loadConfig reads a config file the way gopcu -c does and returns the
// running config.
func loadConfig(t *testing.T, path string) string {
	t.Helper()
	s, err := parseSettings([]string{"-c", path}, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	d, err := newDaemon(s, logx.Discard(), &ratectr.Registry{}, io.Discard, io.Discard)
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return d.v.RunningConfig()
}

// commentedCommand matches the conffile's commented-out commands: '!'
// then the command with its indentation (prose comments start otherwise).
var commentedCommand = regexp.MustCompile(`^( ?)!( ?)((log|logging|stats|remote-ip|remote-port|level|enable|line|bind|pcu-socket|queue|gsmtap-remote-host|gsmtap-category) .*|enable|line vty)$`)

// TestPackagedConfigs: the conffile (/etc/osmocom/gopcu.cfg) and every
// example config load, also with every commented-out command of the
// conffile switched on; the osmo-pcu drop-in example is Debian's
// osmo-pcu.cfg.
func TestPackagedConfigs(t *testing.T) {
	files, _ := filepath.Glob("../../packaging/examples/*.cfg")
	files = append(files, "../../packaging/gopcu.cfg")
	if len(files) < 3 {
		t.Fatalf("configs: %v", files)
	}
	for _, f := range files {
		rc := loadConfig(t, f)
		if !strings.Contains(rc, "\npcu\n flow-control-interval 10\n cs 2\n") {
			t.Errorf("%s: running config:\n%s", f, rc)
		}
	}
	raw, err := os.ReadFile("../../packaging/gopcu.cfg")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	var on strings.Builder
	n := 0
	for _, l := range strings.Split(string(raw), "\n") {
		if m := commentedCommand.FindStringSubmatch(l); m != nil {
			l = m[1] + m[2] + m[3]
			n++
		}
		on.WriteString(strings.ReplaceAll(l, "/var/log/osmocom/", dir+"/") + "\n")
	}
	all := filepath.Join(dir, "all.cfg")
	if err := os.WriteFile(all, []byte(on.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	rc := loadConfig(t, all)
	for _, want := range []string{"log file " + dir + "/gopcu.log\n", "stats reporter statsd\n", " remote-port 8125\n",
		"line vty\n", " queue lifetime 500\n", " queue codel\n", " queue limit ms 1048576\n",
		" queue limit global 268435456\n", " gsmtap-remote-host 127.0.0.1\n", " gsmtap-category dl-data-gprs\n", " gsmtap-category ul-rach\n"} {
		if !strings.Contains(rc, want) {
			t.Errorf("conffile with its %d commented commands on: running config lacks %q:\n%s", n, want, rc)
		}
	}
	drop, _ := os.ReadFile("../../packaging/examples/osmo-pcu.cfg")
	if deb, err := os.ReadFile("/usr/share/doc/osmo-pcu/examples/osmo-pcu/osmo-pcu.cfg"); err == nil {
		t.Log("comparing with Debian's installed osmo-pcu example")
		if !bytes.Equal(deb, drop) {
			t.Errorf("examples/osmo-pcu.cfg differs from Debian's:\n%s", deb)
		}
	}
}
