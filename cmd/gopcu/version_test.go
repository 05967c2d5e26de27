package main

import (
	"bytes"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime/debug"
	"strings"
	"testing"
	"time"

	"github.com/gopcu/gopcu/internal/logx"
	"github.com/gopcu/gopcu/internal/ratectr"
	"github.com/gopcu/gopcu/internal/testutil"
	"github.com/gopcu/gopcu/internal/testutil/peertest"
	"github.com/gopcu/gopcu/pcu"
)

// TestFullVersion: the release plus the commit from the build-time
// values, else from the Go toolchain's VCS stamp, else the release.
func TestFullVersion(t *testing.T) {
	oc, on := gitCommit, gitCount
	defer func() { gitCommit, gitCount = oc, on }()
	gitCommit, gitCount = "c1a22f4", "571"
	if got, want := fullVersion(), pcu.Version+"+git571.c1a22f4"; got != want {
		t.Errorf("stamped: %q, want %q", got, want)
	}
	gitCommit, gitCount = "", ""
	for _, c := range []struct {
		s    []debug.BuildSetting
		want string
	}{
		{nil, pcu.Version},
		{[]debug.BuildSetting{{Key: "vcs.revision", Value: "c1a22f4e9b2d7a6b5c4d3e2f1a0b9c8d7e6f5a4b"}, {Key: "vcs.modified", Value: "false"}}, pcu.Version + "+gc1a22f4e9b2d"},
		{[]debug.BuildSetting{{Key: "vcs.revision", Value: "c1a22f4e9b2d7a6b5c4d3e2f1a0b9c8d7e6f5a4b"}, {Key: "vcs.modified", Value: "true"}}, pcu.Version + "+gc1a22f4e9b2d.dirty"},
	} {
		if got := versionFromBuildInfo(c.s); got != c.want {
			t.Errorf("%v: %q, want %q", c.s, got, c.want)
		}
	}
}

// TestVersionEverywhere: -V, `show version`, the start-up log line and
// the TXT_IND PCU_VERSION to the BTS name the same version.
func TestVersionEverywhere(t *testing.T) {
	oc, on := gitCommit, gitCount
	defer func() { gitCommit, gitCount = oc, on }()
	gitCommit, gitCount = "c1a22f4", "571"
	want := pcu.Version + "+git571.c1a22f4"
	var out bytes.Buffer
	if rc := run([]string{"-V"}, &out, io.Discard); rc != exitOK || out.String() != "gopcu version "+want+"\n" {
		t.Fatalf("-V: %d %q", rc, out.String())
	}
	dir := t.TempDir()
	sock := filepath.Join(dir, "pcu_bts")
	bts := peertest.BTS(t, sock, peertest.Silent(t))
	s, err := parseSettings([]string{"-c", filepath.Join(dir, "none.cfg"), "--pcu-sock", sock, "--vty-port", "0"}, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	s.ConfigGiven = false // a missing default file: defaults
	var stderr testutil.SyncBuffer
	d, err := newDaemon(s, logx.NewText(&stderr), nil, &ratectr.Registry{}, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	sess := d.VTY().NewSession(nil)
	defer sess.Release()
	sess.Start()
	if v := string(sess.Feed([]byte("show version\r"))); !strings.Contains(v, "OsmoPCU "+want+" (OsmoPCU).\r\n") {
		t.Errorf("show version:\n%s", v)
	}
	stop := goRun(d)
	defer stop()
	testutil.Eventually(t, 10*time.Second, func() bool { return len(bts.TxtInds()) > 0 }, "no TXT_IND")
	if txt := bts.TxtInds(); txt[0] != want {
		t.Errorf("TXT_IND %q, want %q", txt, want)
	}
	stop()
	if !strings.Contains(stderr.String(), `msg="gopcu starting" version=`+want) {
		t.Errorf("log:\n%s", stderr.String())
	}
}

// TestVersionStamped: a gopcu built with scripts/ldflags.sh (as make
// build and packaging/build-deb.sh build it) says which commit it is.
func TestVersionStamped(t *testing.T) {
	if testing.Short() {
		t.Skip("builds gopcu")
	}
	count, err1 := exec.Command("git", "rev-list", "--count", "HEAD").Output()
	hash, err2 := exec.Command("git", "rev-parse", "--short=7", "HEAD").Output()
	if err1 != nil || err2 != nil {
		t.Skip("not a git checkout")
	}
	flags, err := exec.Command("../../scripts/ldflags.sh").Output()
	if err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(t.TempDir(), "gopcu")
	cmd := exec.Command("go", "build", "-ldflags", strings.TrimSpace(string(flags)), "-o", bin, "github.com/gopcu/gopcu/cmd/gopcu")
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	out, err := exec.Command(bin, "-V").Output()
	if err != nil {
		t.Fatal(err)
	}
	want := "gopcu version " + pcu.Version + "+git" + strings.TrimSpace(string(count)) + "." + strings.TrimSpace(string(hash))
	if got := strings.TrimSpace(string(out)); got != want && got != want+".dirty" {
		t.Errorf("-V: %q, want %q", got, want)
	}
}
