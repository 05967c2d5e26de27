package main

import (
	"runtime/debug"

	"github.com/gopcu/gopcu/pcu"
)

// The commit gopcu was built from, set at build time by
// scripts/ldflags.sh (make build, packaging/build-deb.sh):
//
//	go build -ldflags "-X main.gitCount=571 -X main.gitCommit=c1a22f4" ./cmd/gopcu
//
// gitCount is `git rev-list --count HEAD`, gitCommit the abbreviated
// hash, with ".dirty" when the tree had uncommitted changes.
var gitCount, gitCommit string

// fullVersion is the release and the commit it was built from, as -V,
// `show version`, the start-up log line and the TXT_IND to the BTS name
// it, and as the Debian package's upstream version
// (packaging/build-deb.sh takes it from -V): "0.1.0+git571.c1a22f4".
// Without the build-time values it comes from the Go toolchain's VCS
// stamp (a plain `go build` in a git checkout: "0.1.0+g" and 12 hex
// digits, ".dirty" when modified), else it is the release alone (go run,
// -buildvcs=false).
func fullVersion() string {
	if gitCommit != "" {
		if gitCount != "" {
			return pcu.Version + "+git" + gitCount + "." + gitCommit
		}
		return pcu.Version + "+" + gitCommit
	}
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return pcu.Version
	}
	return versionFromBuildInfo(bi.Settings)
}

// versionFromBuildInfo is fullVersion from the build settings alone.
func versionFromBuildInfo(settings []debug.BuildSetting) string {
	rev, dirty := "", false
	for _, s := range settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.modified":
			dirty = s.Value == "true"
		}
	}
	if rev == "" {
		return pcu.Version
	}
	v := pcu.Version + "+g" + rev[:min(12, len(rev))]
	if dirty {
		v += ".dirty"
	}
	return v
}
