package pcu

import (
	"time"

	"github.com/gopcu/gopcu/bssgp"
)

// neighKey is what an MS reports of its target cell, with the serving cell
// it reports from (osmo-pcu neigh_cache.h neigh_cache_entry_key): the key
// of the neighbour cache and the content of NEIGH_ADDR_REQ.
type neighKey struct {
	LocalLAC, LocalCI uint16
	ARFCN             uint16
	BSIC              uint8
}

// siInfo is the system information of a cell as NACC sends it: SI (21
// octets each, from the message type on) or PSI (22 octets each), one after
// the other (osmo-pcu si_cache_value).
type siInfo struct {
	psi bool
	buf []byte
}

// neighCache maps (ARFCN, BSIC) seen from a serving cell to the target's
// CGI-PS; entries live X10 (osmo-pcu neigh_cache.c). The keep-time is read
// at lookup, so a `timer X10` change applies to existing entries too.
type neighCache struct {
	m map[neighKey]neighEntry
}

type neighEntry struct {
	cgi   bssgp.CellID
	added time.Duration
}

func (c *neighCache) add(k neighKey, cgi bssgp.CellID, now time.Duration) {
	if c.m == nil {
		c.m = map[neighKey]neighEntry{}
	}
	c.m[k] = neighEntry{cgi, now}
}

func (c *neighCache) lookup(k neighKey, now, keep time.Duration) (bssgp.CellID, bool) {
	e, ok := c.m[k]
	if !ok {
		return bssgp.CellID{}, false
	}
	if now-e.added >= keep {
		delete(c.m, k)
		return bssgp.CellID{}, false
	}
	return e.cgi, true
}

// expire drops entries older than keep.
func (c *neighCache) expire(now, keep time.Duration) {
	for k, e := range c.m {
		if now-e.added >= keep {
			delete(c.m, k)
		}
	}
}

// siCache maps a CGI-PS to the SI/PSI a RAN-INFORMATION brought; entries
// live X11 (osmo-pcu neigh_cache.c si_cache).
type siCache struct {
	m map[cgiKey]siEntry
}

type siEntry struct {
	si    siInfo
	added time.Duration
}

// cgiKey normalises a CGI-PS for map keys (osmo_cgi_ps_cmp: an MNC above 99
// is three digits).
type cgiKey bssgp.CellID

func keyOf(c bssgp.CellID) cgiKey {
	c.RAI.MNC3Digits = c.RAI.MNC3Digits || c.RAI.MNC > 99
	return cgiKey(c)
}

func (c *siCache) add(cgi bssgp.CellID, si siInfo, now time.Duration) {
	if c.m == nil {
		c.m = map[cgiKey]siEntry{}
	}
	c.m[keyOf(cgi)] = siEntry{siInfo{si.psi, append([]byte(nil), si.buf...)}, now}
}

func (c *siCache) lookup(cgi bssgp.CellID, now, keep time.Duration) (siInfo, bool) {
	k := keyOf(cgi)
	e, ok := c.m[k]
	if !ok {
		return siInfo{}, false
	}
	if now-e.added >= keep {
		delete(c.m, k)
		return siInfo{}, false
	}
	return e.si, true
}

func (c *siCache) expire(now, keep time.Duration) {
	for k, e := range c.m {
		if now-e.added >= keep {
			delete(c.m, k)
		}
	}
}
