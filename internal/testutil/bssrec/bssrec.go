// Package bssrec is a recording BSSGP BSS handler for tests: what a
// bss.Gb delivers to its engine, kept in order. It has all of
// bss.Handler's methods but FlowControl, which each test adds with the
// values it wants (bssrec does not import bss, so that bss's own tests can
// use it).
package bssrec

import (
	"time"

	"github.com/gopcu/gopcu/bssgp"
)

// Handler records the PDUs and BVC state changes delivered to it.
type Handler struct {
	DL      []bssgp.DLUnitdata // DL-UNITDATA PDUs
	LLC     [][]byte           // their LLC PDUs, copied
	PagesPS []string           // the IMSIs of PAGING-PS
	PagesCS int                // how many PAGING-CS
	States  []bool             // BVC states, unblocked or not
	Others  []bssgp.PDUType    // the types of other PDUs
}

// DLUnitdata records p and a copy of its LLC PDU.
func (h *Handler) DLUnitdata(p *bssgp.DLUnitdata, now time.Duration) {
	h.DL = append(h.DL, *p)
	h.LLC = append(h.LLC, append([]byte(nil), p.LLC...))
}

// PagingPS records the IMSI paged.
func (h *Handler) PagingPS(p *bssgp.PagingPS, now time.Duration) {
	s, _ := bssgp.DecodeIMSI(p.IMSI)
	h.PagesPS = append(h.PagesPS, s)
}

// PagingCS counts the PAGING-CS.
func (h *Handler) PagingCS(p *bssgp.PagingCS, now time.Duration) { h.PagesCS++ }

// BVCState records up.
func (h *Handler) BVCState(up bool, now time.Duration) { h.States = append(h.States, up) }

// Other records the type of p.
func (h *Handler) Other(bvci uint16, p bssgp.PDU, now time.Duration) {
	h.Others = append(h.Others, p.Type())
}
