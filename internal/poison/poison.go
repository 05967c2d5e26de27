// Package poison is a test hook against use after release of pooled
// buffers (LLC frames in llc.Shared, NS datagrams in bssgp/ns/nsudp).
// Once a test binary calls Enable, every buffer given back to its pool is
// filled with 0xAA first, so code that still reads it after the release
// sees garbage instead of the bytes it expects and the test checking those
// bytes fails, even when the buffer is not reused before the read.
// Production binaries never enable it.
package poison

import "sync/atomic"

var on atomic.Bool

// Byte is what a released buffer is filled with.
const Byte = 0xAA

// Enable turns poisoning on for the whole process (tests only).
func Enable() { on.Store(true) }

// Disable turns it off again (benchmarks that measure the pools).
func Disable() { on.Store(false) }

// Enabled reports whether Enable was called.
func Enabled() bool { return on.Load() }

// Fill overwrites b[:cap(b)] with Byte when poisoning is on.
func Fill(b []byte) {
	if on.Load() && cap(b) > 0 {
		b = b[:cap(b)]
		b[0] = Byte
		for n := 1; n < len(b); n *= 2 {
			copy(b[n:], b[:n])
		}
	}
}
