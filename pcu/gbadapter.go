package pcu

import (
	"time"

	"github.com/gopcu/gopcu/bssgp"
	"github.com/gopcu/gopcu/bssgp/bss"
)

// gbAdapter gives a bss.Gb the method set the engine calls towards the
// SGSN (gbPort: ULUnitdata, LLCDiscarded; signallingSender for NACC). The
// BTS number is ignored: like osmo-pcu, gopcu runs one PTP BVC per PCU.
// Every send returns its error (bss.ErrBVCBlocked, NS not available); the
// engine counts and logs what was not sent (gbULUnitdata, gbLLCDiscarded). Engine goroutine
// only.
type gbAdapter struct {
	gb  *bss.Gb
	now func() time.Duration // the engine clock (Clock.Now)
}

// ULUnitdata sends one complete UL LLC frame.
func (a gbAdapter) ULUnitdata(bts uint8, tlli uint32, llc []byte) error {
	return a.gb.SendULUnitdata(tlli, llc, a.now())
}

// LLCDiscarded reports frames dropped from an MS's DL queue.
func (a gbAdapter) LLCDiscarded(bts uint8, tlli uint32, frames uint8, octets uint32) error {
	return a.gb.SendLLCDiscarded(tlli, int(frames), int(octets), a.now())
}

// SendSignalling sends a PDU on the signalling BVC (RIM, STATUS).
func (a gbAdapter) SendSignalling(p bssgp.PDU) error {
	return a.gb.SendPDU(bssgp.BVCISignalling, 0, p)
}
