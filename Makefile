# gopcu: the two commands of the README, and a few helpers.
.PHONY: demo test build bench bench-compare bench-lab lab clean vty-ref deb lab-net lab-net-down lab-net-measure

# The main job: gopcu with its built-in emulators, no BTS/SGSN/root needed.
demo:
	go run ./cmd/demo

# Every test: installs the real peers (Debian packages, as root), gofmt,
# go vet, staticcheck, go test -race ./..., fuzzers.
test:
	./scripts/test.sh

# CGO_ENABLED=0: static binaries. A dynamically linked gopcu maps libc and
# ld.so (~1.3 MB more resident memory; docs/performance.md "Max RSS").
# scripts/ldflags.sh stamps the commit: gopcu -V says 0.1.0+git<n>.<hash>.
LDFLAGS = $(shell scripts/ldflags.sh)
build:
	CGO_ENABLED=0 go build -ldflags "$(LDFLAGS)" -o bin/ ./cmd/...

# The Debian package (dpkg-deb; packaging/build-deb.sh): dist/gopcu_*.deb.
deb:
	./packaging/build-deb.sh dist

# docs/vty-reference.md from `gopcu --vty-ref-mode expert --vty-ref-xml`
# (cmd/gopcu TestVTYReferenceDocCurrent fails when it is stale).
vty-ref:
	go run ./cmd/gopcu --vty-ref-mode expert --vty-ref-xml > docs/vty-reference.xml.tmp
	go run ./scripts/vtyrefmd < docs/vty-reference.xml.tmp > docs/vty-reference.md.tmp
	rm docs/vty-reference.xml.tmp
	mv docs/vty-reference.md.tmp docs/vty-reference.md

# The whole Osmocom GPRS network on one machine (root; Debian's osmo-bts,
# osmo-bsc, osmo-sgsn, osmo-ggsn): emulated MSs on osmo-bts-virtual's
# virtual Um, gopcu (or PCU_CMD=...), osmo-sgsn and osmo-ggsn. Exits once
# every MS (MS_COUNT, default 1) has a PDP context; prints MS_NETNS=... and
# SERVER_ADDR=... (tests/labnet/up.sh has the knobs). lab-net-measure runs
# ping and a 200 kB curl from every MS; lab-net-down removes it all.
lab-net:
	./tests/labnet/up.sh

lab-net-measure:
	./tests/labnet/measure.sh

lab-net-down:
	./tests/labnet/down.sh

bench:
	go test -run '^$$' -bench . -benchmem ./...

# gopcu against Debian's osmo-pcu (/usr/bin/osmo-pcu) on the same workloads,
# interleaved: CPU per 1000 radio blocks, ratio, max RSS, latency, GC
# (cmd/pcubench; docs/performance.md). BENCH_FLAGS="-reps 5 -w idle-4".
bench-compare:
	CGO_ENABLED=0 go build -ldflags "$(LDFLAGS)" -o bin/gopcu ./cmd/gopcu
	go run ./cmd/pcubench -gopcu bin/gopcu $(BENCH_FLAGS)

# The real lab's idle cell (osmo-bts-virtual, osmo-bsc, osmo-sgsn; root):
# osmo-pcu and gopcu alternating, CPU over 30 s, 3 runs each.
bench-lab:
	CGO_ENABLED=0 go build -ldflags "$(LDFLAGS)" -o bin/gopcu ./cmd/gopcu
	cd tests/lab && tools/pcu-cpu.sh $(CURDIR)/bin/gopcu 30 3

clean:
	rm -rf bin .cache dist
