package pcu

import "github.com/gopcu/gopcu/llc"

// Memory bound of a gopcu process (docs/reliability.md). Everything a peer
// can make the engine hold is bounded: LLC frames by the queue limits, MS
// objects by `ms-max`, TBFs by the TFIs, pages by the per-PDCH paging
// queue, NS datagrams in flight by the driver's read batch (pcu/driver:
// each handled and its buffer given back before the next is read), NS-VCs
// by the SNS limit, VTY sessions by their maximum, the pcap queue
// by its octet bound. MemoryBound adds them up.
const (
	// BaseMemory covers the Go runtime, code, the PCU socket buffers,
	// the NS datagrams being read (one recvmmsg batch per socket) and the
	// free datagram buffers of the NS sockets (256 of the largest NS
	// datagram of the UDP transport, MaxDatagram, each),
	// the free LLC frame buffers of llc.Shared (< 2.5 MiB), the pcap
	// queue (4 MiB) and the VTY sessions, with room to spare (measured
	// idle: docs/reliability.md).
	BaseMemory = 48 << 20
	// PerMSMemory is what one MS object costs beyond its queued frames
	// (MS, counter group, queue, indexes; measured 2.1 KiB).
	PerMSMemory = 4 << 10
	// QueueMemoryFactor is the heap per octet charged to the LLC queues:
	// a frame is charged its length + llc.FrameOverhead, and costs its
	// pooled buffer (llc's size classes, steps of at most 1.5x) + its
	// entry slot with slab slack (compacted to at most 2x); measured 1.0
	// to 1.6 (llc TestPooledMemoryFactor, 4 to 1543 octets).
	QueueMemoryFactor = 2
)

// MemoryBound is the most memory the process needs with parameters p
// under any load: BaseMemory + QueueMemoryFactor x the global LLC queue
// limit + ms-max x PerMSMemory.

func MemoryBound(p Params) int64 {
	g := p.LLC.GlobalLimit
	if g == 0 {
		g = llc.DefaultGlobalLimit
	}
	ms := p.MSMax
	if ms <= 0 {
		ms = DefaultMSMax * 10 // no limit set: assume a large cell
	}
	return BaseMemory + QueueMemoryFactor*g + int64(ms)*PerMSMemory
}

// SoftMemoryLimit is what the daemon gives the Go runtime as its soft
// memory limit (debug.SetMemoryLimit): 3/4 of MemoryBound, so that garbage
// is collected well before the heap grows past the bound (with GOGC's
// default the heap may reach twice the live data), and memory the runtime
// has freed but not yet returned to the system stays within it.
func SoftMemoryLimit(p Params) int64 { return MemoryBound(p) / 4 * 3 }
