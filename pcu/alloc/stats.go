package alloc

import "time"

// pdch:all_allocated: how long every PDCH of a BTS was occupied (osmo-pcu
// bts.cpp, its time-counter of the same name).

// timeCC counts the time a condition holds in whole granules, as
// libosmocore's osmo_time_cc (time_cc.c) does for osmo-pcu's
// pdch:all_allocated with its defaults X16 = 1 s granularity, X17 = 0
// (an increment once half a granule has accumulated, ahead of time) and
// X18 = 60 s (remainders forgotten after that long without the condition).
type timeCC struct {
	started       bool
	flag          bool
	last          time.Duration // time counted up to
	sum, reported time.Duration
}

const (
	ccGranule = time.Second
	ccRound   = ccGranule / 2
	ccForget  = 60 * time.Second
)

// sample records the condition at now and returns the counter increment.
func (c *timeCC) sample(flag bool, now time.Duration) uint64 {
	if !c.started {
		c.started, c.last = true, now
	}
	if c.flag {
		c.sum += now - c.last
	} else if c.sum > 0 && now >= c.last+ccForget {
		c.sum, c.reported = 0, 0
	}
	c.last = now
	var n uint64
	if c.reported <= c.sum {
		d := c.sum - c.reported
		n = uint64(d / ccGranule)
		if d%ccGranule >= ccRound {
			n++
		}
		c.reported += time.Duration(n) * ccGranule
	}
	c.flag = flag
	return n
}

// AllAllocated reports whether no enabled PDCH of the BTS can take
// another TBF: each has no free UL or DL TFI or no free USF (osmo-pcu
// bts_all_pdch_allocated, pdch_is_full; true without enabled PDCHs, as
// there).
func (c *Cell) AllAllocated() bool {
	for t := range c.TRX {
		trx := &c.TRX[t]
		for ts := range trx.PDCH {
			p := &trx.PDCH[ts]
			if p.Enabled && p.HasUSF && trx.ULTFI != allTFIs && trx.DLTFI != allTFIs {
				return false
			}
		}
	}
	return true
}

// SampleAllAllocated samples AllAllocated at now and returns how many
// seconds to add to pdch:all_allocated, the seconds during which every
// enabled PDCH of the BTS was allocated. The engine samples every second,
// as osmo-pcu's update_stats_timer does (gprs_pcu.c).
func (c *Cell) SampleAllAllocated(now time.Duration) uint64 {
	return c.allAlloc.sample(c.AllAllocated(), now)
}
