package nacc

import (
	"time"

	"github.com/gopcu/gopcu/bssgp"
)

// Key is what an MS reports of its target cell, with the serving cell
// it reports from (osmo-pcu neigh_cache.h neigh_cache_entry_key): the key
// of the neighbour cache and the content of NEIGH_ADDR_REQ.
type Key struct {
	LocalLAC, LocalCI uint16
	ARFCN             uint16
	BSIC              uint8
}

// SI is the system information of a cell as NACC sends it: SI (21
// octets each, from the message type on) or PSI (22 octets each), one after
// the other (osmo-pcu si_cache_value).
type SI struct {
	PSI bool
	Buf []byte
}

// NeighCache maps (ARFCN, BSIC) seen from a serving cell to the target's
// CGI-PS; entries live X10 (osmo-pcu neigh_cache.c). The keep-time is read
// at lookup, so a `timer X10` change applies to existing entries too.
type NeighCache struct {
	m map[Key]neighEntry
}

type neighEntry struct {
	cgi   bssgp.CellID
	added time.Duration
}

func (c *NeighCache) Add(k Key, cgi bssgp.CellID, now time.Duration) {
	if c.m == nil {
		c.m = map[Key]neighEntry{}
	}
	c.m[k] = neighEntry{cgi, now}
}

func (c *NeighCache) Lookup(k Key, now, keep time.Duration) (bssgp.CellID, bool) {
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

// Len is the number of entries.
func (c *NeighCache) Len() int { return len(c.m) }

// Expire drops entries older than keep.
func (c *NeighCache) Expire(now, keep time.Duration) {
	for k, e := range c.m {
		if now-e.added >= keep {
			delete(c.m, k)
		}
	}
}

// SICache maps a CGI-PS to the SI/PSI a RAN-INFORMATION brought; entries
// live X11 (osmo-pcu neigh_cache.c si_cache).
type SICache struct {
	m map[cgiKey]siEntry
}

type siEntry struct {
	si    SI
	added time.Duration
}

// cgiKey normalises a CGI-PS for map keys (osmo_cgi_ps_cmp: an MNC above 99
// is three digits).
type cgiKey bssgp.CellID

func keyOf(c bssgp.CellID) cgiKey {
	c.RAI.MNC3Digits = c.RAI.MNC3Digits || c.RAI.MNC > 99
	return cgiKey(c)
}

func (c *SICache) Add(cgi bssgp.CellID, si SI, now time.Duration) {
	if c.m == nil {
		c.m = map[cgiKey]siEntry{}
	}
	c.m[keyOf(cgi)] = siEntry{SI{si.PSI, append([]byte(nil), si.Buf...)}, now}
}

func (c *SICache) Lookup(cgi bssgp.CellID, now, keep time.Duration) (SI, bool) {
	k := keyOf(cgi)
	e, ok := c.m[k]
	if !ok {
		return SI{}, false
	}
	if now-e.added >= keep {
		delete(c.m, k)
		return SI{}, false
	}
	return e.si, true
}

// Len is the number of entries.
func (c *SICache) Len() int { return len(c.m) }

func (c *SICache) Expire(now, keep time.Duration) {
	for k, e := range c.m {
		if now-e.added >= keep {
			delete(c.m, k)
		}
	}
}
