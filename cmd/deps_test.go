// Package cmd holds gopcu's binaries, one main package per directory; its
// tests check what they link, and that the engine links no socket package.
package cmd

import (
	"os/exec"
	"slices"
	"strings"
	"testing"

	"github.com/gopcu/gopcu/internal/testutil"
)

const module = "github.com/gopcu/gopcu"

// forbidden says why a binary must not link the package dep, or "".
// Test code stays out of what ships: the emulators the gopcu-* binaries are
// built from live in internal/emu, tests/ holds only test suites, and the
// test helpers (internal/testutil, netnstest) take a *testing.T.
func forbidden(dep string) string {
	switch {
	case dep == "testing":
		return "the testing package"
	case strings.HasPrefix(dep, module+"/tests/"):
		return "a package under tests/"
	case dep == module+"/internal/testutil" || strings.HasPrefix(dep, module+"/internal/testutil/"):
		return "a test helper (internal/testutil)"
	}
	return ""
}

// deps runs `go list` on patterns and returns, per package, its name and
// transitive dependencies (.Deps: what `go list -deps` prints, without the
// package itself), as the default build (no test files) links them.
func deps(t *testing.T, patterns ...string) map[string][]string {
	t.Helper()
	// go test puts its own GOROOT/bin first on PATH; only a test binary
	// run by hand on a machine without Go skips here
	goBin := testutil.NeedBinary(t, "go")
	args := append([]string{"list", "-f", `{{.Name}} {{.ImportPath}} {{join .Deps " "}}`}, patterns...)
	out, err := exec.Command(goBin, args...).Output()
	if err != nil {
		var stderr []byte
		if ee, ok := err.(*exec.ExitError); ok {
			stderr = ee.Stderr
		}
		t.Fatalf("go %s: %v\n%s", strings.Join(args, " "), err, stderr)
	}
	m := map[string][]string{}
	for line := range strings.Lines(string(out)) {
		f := strings.Fields(line)
		if len(f) < 2 {
			continue
		}
		m[f[0]+" "+f[1]] = f[2:]
	}
	return m
}

// TestBinaryDeps: no main package under cmd/ (the binaries the Debian
// package ships as /usr/bin/gopcu and gopcu-*, and pcubench) links
// testing, anything under tests/ or internal/testutil.
func TestBinaryDeps(t *testing.T) {
	var mains []string
	for key, ds := range deps(t, "./...") {
		name, path, _ := strings.Cut(key, " ")
		if name != "main" {
			continue
		}
		mains = append(mains, strings.TrimPrefix(path, module+"/"))
		for _, d := range ds {
			if why := forbidden(d); why != "" {
				t.Errorf("%s links %s, %s", path, d, why)
			}
		}
	}
	slices.Sort(mains)
	t.Logf("checked %s", strings.Join(mains, ", "))
	// the binaries packaging/build-deb.sh ships: the listing found them all
	for _, c := range []string{"gopcu", "btsemu", "msemu", "sgsnemu", "demo", "tcplab"} {
		if !slices.Contains(mains, "cmd/"+c) {
			t.Errorf("go list ./... under cmd/ found no main package cmd/%s (found %q)", c, mains)
		}
	}
}

// TestBinaryDepsCheck: the check sees a package that links the testing
// package and a test helper (netnstest takes a testing.TB and wraps
// internal/emu/netns), and passes the emulator underneath it.
func TestBinaryDepsCheck(t *testing.T) {
	m := deps(t, module+"/internal/testutil/netnstest", module+"/internal/emu/netns")
	if len(m) != 2 {
		t.Fatalf("go list gave %d packages, want 2: %v", len(m), m)
	}
	var bad, clean []string
	for key, ds := range m {
		var hits []string
		for _, d := range ds {
			if forbidden(d) != "" {
				hits = append(hits, d)
			}
		}
		if strings.HasSuffix(key, "/netnstest") {
			bad = hits
		} else {
			clean = hits
		}
	}
	if !slices.Contains(bad, "testing") {
		t.Errorf("netnstest's deps flagged as %q, want testing among them", bad)
	}
	if clean != nil {
		t.Errorf("internal/emu/netns's deps flagged as %q, want none", clean)
	}
	if forbidden(module+"/tests/vum") == "" || forbidden(module+"/internal/testutil") == "" || forbidden(module+"/internal/testutil/netnstest") == "" {
		t.Error("a package under tests/ or internal/testutil passes the check")
	}
	if why := forbidden(module + "/internal/emu/btsemu"); why != "" {
		t.Errorf("internal/emu/btsemu flagged: %s", why)
	}
}

// TestEngineDeps: the engine (package pcu) and the packages it decides
// with link no socket package (issue #27: a sans-I/O core; its I/O is
// pcu/driver's, the GSMTAP and log sockets gsmtap/gsmtapudp's and
// internal/logx/netsink's), and the allocator and the NACC machine
// import nothing of the engine. The check fails on a dependency it names
// (cross-checked on pcu/driver, which opens the sockets).
func TestEngineDeps(t *testing.T) {
	sockets := []string{"net", "log/syslog", "golang.org/x/sys/unix", module + "/bssgp/ns/nsudp"}
	core := []string{"pcu", "pcu/alloc", "pcu/nacc", "pcu/fsm", "pcu/multislot"}
	var patterns []string
	for _, p := range append(core, "pcu/driver") {
		patterns = append(patterns, module+"/"+p)
	}
	m := deps(t, patterns...)
	found := map[string][]string{}
	for key, ds := range m {
		_, path, _ := strings.Cut(key, " ")
		found[strings.TrimPrefix(path, module+"/")] = ds
	}
	for _, p := range core {
		ds, ok := found[p]
		if !ok {
			t.Errorf("go list gave no %s", p)
			continue
		}
		for _, s := range sockets {
			if slices.Contains(ds, s) {
				t.Errorf("%s links %s", p, s)
			}
		}
		if p != "pcu" && slices.Contains(ds, module+"/pcu") {
			t.Errorf("%s imports the engine, package pcu", p)
		}
	}
	if ds := found["pcu/driver"]; !slices.Contains(ds, "net") || !slices.Contains(ds, module+"/bssgp/ns/nsudp") {
		t.Errorf("pcu/driver's deps have no net or nsudp: the check cannot see them")
	}
}
