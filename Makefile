# gopcu: the two commands of the README, and a few helpers.
.PHONY: demo test build bench lab clean

# The main job: gopcu with its built-in emulators, no BTS/SGSN/root needed.
demo:
	go run ./cmd/demo

# Every test: installs the real peers (Debian packages, as root), gofmt,
# go vet, staticcheck, go test -race ./..., fuzzers.
test:
	./scripts/test.sh

build:
	go build -o bin/ ./cmd/...

bench:
	go test -run '^$$' -bench . -benchmem ./...

clean:
	rm -rf bin .cache
