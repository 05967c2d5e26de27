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

// cache maps keys to values that live keep: the keep-time is read at
// lookup, so a timer change applies to existing entries too.
type cache[K comparable, V any] struct {
	m map[K]entry[V]
}

type entry[V any] struct {
	v     V
	added time.Duration
}

// Add stores v for k at now.
func (c *cache[K, V]) Add(k K, v V, now time.Duration) {
	if c.m == nil {
		c.m = map[K]entry[V]{}
	}
	c.m[k] = entry[V]{v, now}
}

// Lookup returns the value of k unless it is older than keep (then it is
// dropped).
func (c *cache[K, V]) Lookup(k K, now, keep time.Duration) (V, bool) {
	e, ok := c.m[k]
	if ok && now-e.added >= keep {
		delete(c.m, k)
		ok = false
	}
	if !ok {
		var zero V
		return zero, false
	}
	return e.v, true
}

// Len is the number of entries.
func (c *cache[K, V]) Len() int { return len(c.m) }

// Expire drops entries older than keep.
func (c *cache[K, V]) Expire(now, keep time.Duration) {
	for k, e := range c.m {
		if now-e.added >= keep {
			delete(c.m, k)
		}
	}
}

// NeighCache maps (ARFCN, BSIC) seen from a serving cell to the target's
// CGI-PS; entries live X10 (osmo-pcu neigh_cache.c).
type NeighCache struct {
	cache[Key, bssgp.CellID]
}

// SICache maps a CGI-PS to the SI/PSI a RAN-INFORMATION brought; entries
// live X11 (osmo-pcu neigh_cache.c si_cache).
type SICache struct {
	c cache[cgiKey, SI]
}

// cgiKey normalises a CGI-PS for map keys (osmo_cgi_ps_cmp: an MNC above 99
// is three digits).
type cgiKey bssgp.CellID

func keyOf(c bssgp.CellID) cgiKey {
	c.RAI.MNC3Digits = c.RAI.MNC3Digits || c.RAI.MNC > 99
	return cgiKey(c)
}

// Add stores a copy of si for cgi at now.
func (c *SICache) Add(cgi bssgp.CellID, si SI, now time.Duration) {
	c.c.Add(keyOf(cgi), SI{si.PSI, append([]byte(nil), si.Buf...)}, now)
}

// Lookup returns the SI of cgi unless it is older than keep.
func (c *SICache) Lookup(cgi bssgp.CellID, now, keep time.Duration) (SI, bool) {
	return c.c.Lookup(keyOf(cgi), now, keep)
}

// Len is the number of entries.
func (c *SICache) Len() int { return c.c.Len() }

// Expire drops entries older than keep.
func (c *SICache) Expire(now, keep time.Duration) { c.c.Expire(now, keep) }
