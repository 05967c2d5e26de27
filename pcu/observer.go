package pcu

import "time"

// Observer receives per-frame queue measurements on the engine goroutine
// (the Prometheus exporter's sojourn histograms). Methods must not block.
type Observer interface {
	// Sojourn is called for every LLC frame handed to RLC/MAC: how long it
	// waited in the MS's queue.
	Sojourn(tlli uint32, d time.Duration)
	// MSGone is called when an MS is freed.
	MSGone(tlli uint32)
}
