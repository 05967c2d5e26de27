package bssgp

import (
	"fmt"
	"io"
)

// String formats the RAI as osmo_rai_name ("901-70-1-0").
func (r RAI) String() string {
	if r.MNC3Digits {
		return fmt.Sprintf("%03d-%03d-%d-%d", r.MCC, r.MNC, r.LAC, r.RAC)
	}
	return fmt.Sprintf("%03d-%02d-%d-%d", r.MCC, r.MNC, r.LAC, r.RAC)
}

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
	fmt.Fprintf(w, "NSEI %5d, BVCI %5d, RA-ID: %s, CID: %d, STATE: %s\r\n", nsei, 0, RAI{}, 0, st(g.sigReset))
}
