#!/bin/sh
# Prints the -ldflags that stamp gopcu with the commit it is built from
# (cmd/gopcu/version.go): its -V, `show version`, start-up log line,
# TXT_IND to the BTS and the Debian package version then all say
# "0.1.0+git<commits>.<hash>" ("…​.dirty" with uncommitted changes).
# Outside a git checkout it prints nothing (the release alone).
#
#   go build -ldflags "$(scripts/ldflags.sh)" ./cmd/gopcu
cd "$(dirname "$0")/.." || exit 1
commit="$(git rev-parse --short=7 HEAD 2>/dev/null)" || exit 0
[ -n "$commit" ] || exit 0
count="$(git rev-list --count HEAD)"
if ! git diff --quiet HEAD -- 2>/dev/null; then
	commit="$commit.dirty"
fi
printf -- '-X main.gitCount=%s -X main.gitCommit=%s\n' "$count" "$commit"
