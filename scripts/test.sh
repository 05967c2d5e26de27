#!/usr/bin/env bash
# gopcu's whole test suite: installs the real peers the tests use (Debian
# packages, when root), then gofmt, go vet, staticcheck, go test -race on
# every package, and every fuzzer for a while.
#
#   FUZZTIME   time per fuzz target (default 5s, pcu/pcuif's 15s: the CI
#              budget; the seed corpora also run in every go test; a longer
#              campaign: FUZZTIME=10m)
#   SKIP_FUZZ=1  skip the fuzzing step
#   SKIP_DEB=1   skip the Debian package step (build, install, run, purge)
set -euo pipefail
cd "$(dirname "$0")/.."
rm -f .cache/skipped.txt # a previous run's
export PATH="$PATH:/usr/local/go/bin:$(go env GOPATH 2>/dev/null || echo "$HOME/go")/bin"
export GOFLAGS="${GOFLAGS:--buildvcs=false}"

# The steps, in order. When one fails, the closing summary names it and
# every step after it, which did not run: a failed step never looks like
# the end of a complete run.
steps=("Osmocom peers (apt-get)" "gofmt" "go vet" "staticcheck" "go test -race ./..."
	"Debian package (packaging/test-deb.sh)" "fuzzing")
cur=0
# step N MESSAGE: step N (an index into steps) starts.
step() {
	cur=$1
	shift
	printf '\n=== %s\n' "$*"
}
finish() {
	rc=$?
	if [ -e .cache/skipped.txt ]; then
		printf '\n=== skipped in this run:\n'
		if [ -s .cache/skipped.txt ]; then cat .cache/skipped.txt; else echo "  nothing"; fi
	fi
	if [ "$rc" != 0 ]; then
		printf '\n=== FAILED in step "%s" (exit code %d); not run:\n' "${steps[$cur]}" "$rc"
		for ((i = cur + 1; i < ${#steps[@]}; i++)); do echo "  ${steps[$i]}"; done
		[ $((cur + 1)) -lt ${#steps[@]} ] || echo "  nothing (it was the last step)"
	fi
}
trap finish EXIT
# apt-get and dpkg wait up to 10 minutes for the dpkg lock (an unattended
# upgrade, another apt-get) instead of failing at once
apt_get() { apt-get -o DPkg::Lock::Timeout=600 "$@"; }

# --- 1. real peers: Osmocom programs from Debian, tshark, lab tools ------------------------
pkgs=(osmo-bts osmo-bsc osmo-sgsn osmo-ggsn osmo-hlr osmo-pcu tshark iproute2 gcc python3 bc iputils-ping curl)
missing=()
for p in "${pkgs[@]}"; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
	if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
		step 0 "installing ${missing[*]}"
		export DEBIAN_FRONTEND=noninteractive
		apt_get update -q >/dev/null
		apt_get install -y -q --no-install-recommends "${missing[@]}" >/dev/null
	else
		echo "not root: cannot install ${missing[*]}; the tests that need them will skip"
	fi
fi

# --- 2. static checks ------------------------------------------------------------------------
step 1 "gofmt"
bad=$(gofmt -l $(git ls-files '*.go' 2>/dev/null || find . -name '*.go'))
if [ -n "$bad" ]; then echo "gofmt needed:"; echo "$bad"; exit 1; fi
step 2 "go vet"
go vet ./...
step 3 "staticcheck"
SC_BIN="$PWD/.cache/bin"
if [ ! -x "$SC_BIN/staticcheck" ]; then
	GOBIN="$SC_BIN" go install honnef.co/go/tools/cmd/staticcheck@v0.8.2
fi
"$SC_BIN/staticcheck" ./...

# --- 3. tests (unit, system against emulators, interop against real peers) -------------------
step 4 "go test -race ./..."
# -json through scripts/testreport: a line per package, the output of
# failing tests, and the skipped tests with their reasons; the skips are
# printed again at the very end (finish), so a partial run never looks
# complete
mkdir -p .cache
go build -o .cache/testreport ./scripts/testreport
: >.cache/skipped.txt
set +e
go test -race -count=1 -timeout 20m -json ./... 2>&1 | .cache/testreport | tee .cache/test-report.txt
rc=${PIPESTATUS[1]}
set -e
sed -n '/^=== .* skipped (this run is partial):$/,$p' .cache/test-report.txt | sed 1d >>.cache/skipped.txt
[ "$rc" = 0 ] || { echo "go test failed"; exit 1; }

# --- 4. the Debian package: build; as root install, check, run, purge -------------------------
if [ "${SKIP_DEB:-0}" != 1 ]; then
	step 5 "Debian package (packaging/test-deb.sh)"
	./packaging/test-deb.sh | tee .cache/test-deb.txt
	grep -h "install test skipped" .cache/test-deb.txt | sed 's/^/  /' >>.cache/skipped.txt || true
else
	echo "  the Debian package step (SKIP_DEB=1)" >>.cache/skipped.txt
fi

# --- 5. fuzzers ------------------------------------------------------------------------------
if [ "${SKIP_FUZZ:-0}" = 1 ]; then
	echo "  every fuzzer (SKIP_FUZZ=1)" >>.cache/skipped.txt
else
	step 6 "fuzzing"
	for f in $(grep -rl --include='*_test.go' '^func Fuzz' . | sort); do
		pkg="./$(dirname "${f#./}")"
		for name in $(grep -o '^func Fuzz[A-Za-z0-9_]*' "$f" | sed 's/^func //'); do
			t="${FUZZTIME:-5s}"
			[ "$pkg" = ./pcu/pcuif ] && t="${FUZZTIME:-15s}"
			echo "--- $pkg $name ($t)"
			out=$(mktemp)
			if ! go test -run '^$' -fuzz "^${name}\$" -fuzztime "$t" "$pkg" >"$out" 2>&1; then
				tail -40 "$out"
				# A failing input is written to testdata/fuzz/<name>: that is a bug.
				# Without one, the fuzzing engine itself failed (e.g. a worker
				# starved on a loaded machine): say so and run the target again.
				if [ -n "$(git status --porcelain -- "$pkg/testdata/fuzz/$name" 2>/dev/null)" ]; then
					echo "$name found a failing input (see above and $pkg/testdata/fuzz/$name)"
					exit 1
				fi
				echo "no failing input recorded: running $name once more"
				go test -run '^$' -fuzz "^${name}\$" -fuzztime "$t" "$pkg" >"$out" 2>&1 || { tail -40 "$out"; exit 1; }
			fi
			tail -1 "$out"
			rm -f "$out"
		done
	done
fi
printf '\n=== all tests passed\n'
