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

// Enabled reports whether Enable was called.
func Enabled() bool { return on.Load() }

// Fill overwrites b[:cap(b)] with Byte when poisoning is on.
func Fill(b []byte) {
	if on.Load() {
		b = b[:cap(b)]
		for i := range b {
			b[i] = Byte
		}
	}
}
