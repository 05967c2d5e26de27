package main

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/gopcu/gopcu/llc"
)

// loadConfig reads a config file the way gopcu -c does and returns the
// running config.
func loadConfig(t *testing.T, path string) string {
	t.Helper()
	return testDaemon(t, []string{"-c", path}, nil, io.Discard).VTY().RunningConfig()
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
		checkManualAdvice(t, f, rc)
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
	checkManualAdvice(t, "gopcu.cfg with its commented commands on", rc)
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

// checkManualAdvice: a shipped config follows docs/manual.md "Tuning the
// AQM": no fixed CoDel target below the 500 ms floor (shorter ones starve
// TCP on GPRS, llc.AutoMinTarget), and the manual says so.
func checkManualAdvice(t *testing.T, name, rc string) {
	t.Helper()
	for _, l := range strings.Split(rc, "\n") {
		var us int64
		if _, err := fmt.Sscanf(l, " queue codel target %d", &us); err == nil && time.Duration(us)*time.Microsecond < llc.AutoMinTarget {
			t.Errorf("%s: %q: below the manual's %v floor", name, l, llc.AutoMinTarget)
		}
	}
	man, err := os.ReadFile("../../docs/manual.md")
	if err != nil {
		t.Fatal(err)
	}
	if floor := fmt.Sprintf("below %d (%d ms) TCP starves", llc.AutoMinTarget/time.Microsecond, llc.AutoMinTarget/time.Millisecond); !bytes.Contains(man, []byte(floor)) {
		t.Errorf("docs/manual.md does not say %q", floor)
	}
}

// gopcuBuild matches a command that builds the gopcu binary: `go build`
// of ./cmd/gopcu or ./cmd/..., or exec.Command("go", "build", ...cmd/gopcu").
var gopcuBuild = regexp.MustCompile(`(^\s*|&&\s*|\(\s*)(CGO_ENABLED=0 )?go build .*(\./cmd/gopcu\b|\./cmd/\.\.\.)|exec\.Command\("go", "build", .*cmd/gopcu"`)

// TestStaticBuilds: everywhere the project builds gopcu (Makefile,
// packaging, scripts, labs, pcubench, the tests that run the binary) it
// sets CGO_ENABLED=0: a dynamically linked gopcu maps libc and ld.so, 1.3 MB
// more resident memory (docs/performance.md "Max RSS").
func TestStaticBuilds(t *testing.T) {
	n := 0
	err := filepath.WalkDir("../..", func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if name := d.Name(); name == ".git" || name == ".cache" || name == "testdata" {
				return filepath.SkipDir
			}
			return nil
		}
		if name := d.Name(); name != "Makefile" && !strings.HasSuffix(name, ".sh") && !strings.HasSuffix(name, ".go") {
			return nil
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		lines := strings.Split(string(b), "\n")
		exported := false // a shell script's `export ... CGO_ENABLED=0`
		for i, l := range lines {
			if strings.HasPrefix(strings.TrimSpace(l), "export ") && strings.Contains(l, "CGO_ENABLED=0") {
				exported = true
			}
			if strings.Contains(l, "gopcuBuild") || !gopcuBuild.MatchString(l) {
				continue
			}
			n++
			near := strings.Join(lines[i:min(len(lines), i+3)], "\n") // a Go exec.Command sets Env below
			if !exported && !strings.Contains(near, "CGO_ENABLED=0") {
				t.Errorf("%s:%d builds gopcu without CGO_ENABLED=0: %s", path, i+1, strings.TrimSpace(l))
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if n < 5 {
		t.Errorf("found %d gopcu builds; the pattern no longer matches the build commands", n)
	}
}

// TestReadmeInstallLists: the README names every package `make test`
// installs (scripts/test.sh's pkgs), and its lab install line has them
// all, plus telnet for the VTY.
func TestReadmeInstallLists(t *testing.T) {
	sh, err := os.ReadFile("../../scripts/test.sh")
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`(?m)^pkgs=\(([^)]*)\)`).FindSubmatch(sh)
	if m == nil {
		t.Fatal("scripts/test.sh: no pkgs=(...)")
	}
	pkgs := strings.Fields(string(m[1]))
	readme, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	_, rest, _ := strings.Cut(string(readme), "`make test` runs `scripts/test.sh`: installs ")
	list, _, _ := strings.Cut(rest, " when missing")
	list = strings.NewReplacer(",", " ", " and ", " ", "\n", " ").Replace(list)
	named := map[string]bool{}
	for _, p := range strings.Fields(list) {
		named[p] = true
	}
	for _, p := range pkgs {
		if !named[p] {
			t.Errorf("README: `make test` installs %s, the README does not say so (it says: %s)", p, list)
		}
	}
	if len(named) != len(pkgs) {
		t.Errorf("README names %d packages for `make test`, scripts/test.sh installs %d: %q", len(named), len(pkgs), pkgs)
	}
	lab := regexp.MustCompile(`(?m)^apt-get install (.*)$`).FindStringSubmatch(string(readme))
	if lab == nil {
		t.Fatal("README: no lab `apt-get install` line")
	}
	have := map[string]bool{}
	for _, p := range strings.Fields(lab[1]) {
		have[p] = true
	}
	for _, p := range append(pkgs, "telnet") {
		if !have[p] {
			t.Errorf("README's lab install line lacks %s: %s", p, lab[0])
		}
	}
}

// TestAptWaitsForLock: every apt-get that `make test` runs (scripts/test.sh,
// .ci/run, packaging/test-deb.sh) waits for the dpkg lock instead of
// failing when an unattended upgrade holds it.
func TestAptWaitsForLock(t *testing.T) {
	n := 0
	for _, f := range []string{"../../scripts/test.sh", "../../.ci/run", "../../packaging/test-deb.sh"} {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for i, l := range strings.Split(string(b), "\n") {
			l = strings.TrimSpace(l)
			if strings.HasPrefix(l, "#") || !regexp.MustCompile(`(^|[;{(|&]\s*)apt-get\s`).MatchString(l) {
				continue
			}
			n++
			if !strings.Contains(l, "-o DPkg::Lock::Timeout=") {
				t.Errorf("%s:%d: apt-get without -o DPkg::Lock::Timeout: %s", f, i+1, l)
			}
		}
	}
	if n < 4 {
		t.Errorf("found %d apt-get commands; the pattern no longer matches them", n)
	}
}

// TestTestSummaryNamesStepsNotRun: when a step of scripts/test.sh fails,
// its closing summary names that step and every later one (here gofmt
// fails: a stub reports a file; dpkg-query says every peer is installed,
// so nothing is installed).
func TestTestSummaryNamesStepsNotRun(t *testing.T) {
	stub := t.TempDir()
	for name, body := range map[string]string{
		"gofmt":      "#!/bin/sh\necho fake.go\n",
		"dpkg-query": "#!/bin/sh\necho 'install ok installed'\n",
	} {
		if err := os.WriteFile(filepath.Join(stub, name), []byte(body), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	cmd := exec.Command("bash", "../../scripts/test.sh")
	cmd.Env = append(os.Environ(), "PATH="+stub+":"+os.Getenv("PATH"))
	out, err := cmd.CombinedOutput()
	if err == nil {
		t.Fatalf("scripts/test.sh passed with a failing gofmt:\n%s", out)
	}
	want := "=== FAILED in step \"gofmt\" (exit code 1); not run:\n  go vet\n  staticcheck\n  go test -race ./...\n" +
		"  Debian package (packaging/test-deb.sh)\n  fuzzing\n"
	if !strings.HasSuffix(string(out), want) {
		t.Errorf("scripts/test.sh output:\n%s\nwant it to end in:\n%s", out, want)
	}
}
