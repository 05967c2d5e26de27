package bssgp

import "time"

// EngineAdapter gives a Gb the method set the engine calls towards the SGSN
// (pcu.Gb: ULUnitdata, LLCDiscarded). The BTS number is ignored: like
// osmo-pcu, gopcu runs one PTP BVC per PCU. Send errors (BVC not unblocked)
// drop the frame and are counted by the Gb/NS counters. Call only from the
// goroutine that owns the Gb.
type EngineAdapter struct {
	Gb  *Gb
	Now func() time.Duration // the engine clock (pcu.Clock.Now)
}

// ULUnitdata sends one complete UL LLC frame.
func (a EngineAdapter) ULUnitdata(bts uint8, tlli uint32, llc []byte) {
	_ = a.Gb.SendULUnitdata(tlli, llc, a.Now())
}

// LLCDiscarded reports frames dropped from an MS's DL queue.
func (a EngineAdapter) LLCDiscarded(bts uint8, tlli uint32, frames uint8, octets uint32) {
	_ = a.Gb.SendLLCDiscarded(tlli, int(frames), int(octets), a.Now())
}

// SendSignalling sends a PDU on the signalling BVC (RIM, STATUS).
func (a EngineAdapter) SendSignalling(p PDU) error {
	return a.Gb.SendPDU(BVCISignalling, 0, p)
}
