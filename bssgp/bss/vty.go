package bss

import (
	"fmt"
	"github.com/gopcu/gopcu/bssgp"
	"io"
)

// WriteVTY writes the BVCs as libosmogb's "show bssgp" prints them:
//
//	NSEI   101, BVCI  1800, RA-ID: 901-70-1-0, CID: 6969, STATE: UNBLOCKED
//	NSEI   101, BVCI     0, RA-ID: 000-00-0-0, CID: 0, STATE: UNBLOCKED
func (g *Gb) WriteVTY(w io.Writer) {
	st := func(up bool) string {
		if up {
			return "UNBLOCKED"
		}
		return "BLOCKED"
	}
	nsei := g.cfg.NS.NSEI
	fmt.Fprintf(w, "NSEI %5d, BVCI %5d, RA-ID: %s, CID: %d, STATE: %s\r\n", nsei, g.cfg.BVCI, g.cfg.CellID.RAI,
		g.cfg.CellID.CI, st(g.unblocked))
	fmt.Fprintf(w, "NSEI %5d, BVCI %5d, RA-ID: %s, CID: %d, STATE: %s\r\n", nsei, 0, bssgp.RAI{}, 0, st(g.sigReset))
}
