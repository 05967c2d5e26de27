package llc

import (
	"math"
	"time"
)

// codel is the state of one CoDel instance (one per user-data flow in the
// rfc variant, one per priority class in the osmo variant). Both automata
// share it; "unset" markers are explicit booleans instead of the zero
// timestamps of the C code, because our clock may legitimately be 0.
type codel struct {
	firstAbove time.Duration // RFC 8289 first_above_time
	dropNext   time.Duration // drop_next
	count      uint32
	lastCount  uint32
	faSet      bool // first_above_time != 0
	dnSet      bool // drop_next ever set (osmo: timespecisset(drop_next))
	dropping   bool
}

func (c *codel) reset() { *c = codel{} }

// okToDrop is RFC 8289 §5.3 dodequeue's estimator for one dequeued packet:
// sojourn ≥ TARGET and more than MAXPACKET octets left in the CoDel queue,
// sustained for INTERVAL.
func (c *codel) okToDrop(now, sojourn time.Duration, remaining int, p *Params) bool {
	if sojourn < p.Target || remaining <= p.MaxPacket {
		c.faSet = false
		return false
	}
	if !c.faSet {
		c.firstAbove = now + p.Interval
		c.faSet = true
		return false
	}
	return now >= c.firstAbove
}

// controlLaw is RFC 8289 §5.5: t + INTERVAL/√count, exact (float64 square
// root, truncated to the nanosecond), without osmo's table cap.
func controlLaw(t time.Duration, count uint32, interval time.Duration) time.Duration {
	if count <= 1 {
		return t + interval
	}
	return t + time.Duration(float64(interval)/math.Sqrt(float64(count)))
}

// enter is the RFC 8289 §5.4 "not dropping and ok_to_drop" branch after the
// drop: enter dropping state with the Linux re-entry rule (count − lastcount
// if > 1 and the last drop_next is less than 16 intervals ago).
func (c *codel) enter(now time.Duration, p *Params) {
	c.dropping = true
	delta := c.count - c.lastCount
	c.count = 1
	if delta > 1 && c.dnSet && now-c.dropNext < 16*p.Interval {
		c.count = delta
	}
	c.dropNext = controlLaw(now, c.count, p.Interval)
	c.dnSet = true
	c.lastCount = c.count
}

// osmoInvSqrt is 256/√n limited to 255 (osmo-pcu gprs_codel.c control_law()
// table): ⌊256/√n⌋ for n = 2..226, 255 for n ≤ 1; beyond the
// table the factor is 16. The values are recomputed, not copied: entry n is
// the largest integer x with x² · n ≤ 65536 (checked in the tests against
// the published drop list).
var osmoInvSqrt = func() [227]uint8 {
	var t [227]uint8
	t[0], t[1] = 255, 255
	for n := 2; n < len(t); n++ {
		x := 255
		for x*x*n > 65536 {
			x--
		}
		t[n] = uint8(x)
	}
	return t
}()

// osmoControl is osmo-pcu's gprs_codel_control() decision for one frame,
// called once per frame taken from the class queue with the same now for
// every frame of one dequeue call. remaining is the MS's queued octets after
// removing the frame (all classes). canDrop false evaluates a protected
// frame: everything up to the drop decision happens, the drop itself (and
// its count/drop_next update) does not.
func (c *codel) osmoControl(now, sojourn time.Duration, remaining int, p *Params, canDrop bool) bool {
	if sojourn < p.Target || remaining <= p.MaxPacket {
		c.faSet = false
		c.dropping = false
		return false
	}
	if !c.faSet {
		c.firstAbove = now + p.Interval
		c.faSet = true
		c.dropping = false
		return false
	}
	if now < c.firstAbove {
		c.dropping = false
		return false
	}
	if !c.dropping {
		inCycle := c.dnSet && now-c.dropNext < p.Interval
		if !inCycle && now-c.firstAbove < p.Interval {
			return false // the ACM 2 × interval rule (aqm.md D1)
		}
		if !canDrop {
			return false
		}
		c.dropping = true
		if inCycle && c.count > 2 {
			c.count -= 2
		} else {
			c.count = 1
		}
		c.dropNext = now
		c.dnSet = true
	} else {
		if now < c.dropNext {
			return false
		}
		if !canDrop {
			return false
		}
		c.count++
	}
	c.dropNext += osmoDelta(c.count, p.Interval)
	return true
}

// osmoDelta is interval · T[count] / 256 in whole microseconds.
func osmoDelta(count uint32, interval time.Duration) time.Duration {
	f := uint64(16)
	if count < uint32(len(osmoInvSqrt)) {
		f = uint64(osmoInvSqrt[count])
	}
	us := uint64(interval/time.Microsecond) * f / 256
	return time.Duration(us) * time.Microsecond
}

// cold reports whether forgetting this state cannot change any future
// decision, so the queue may return its working storage to the pool.
func (c *codel) cold(now time.Duration, v Variant, p *Params) bool {
	if c.dropping || c.faSet {
		return false
	}
	if !c.dnSet {
		return true
	}
	if v == VariantOsmo {
		return now-c.dropNext >= p.Interval
	}
	return c.count-c.lastCount <= 1 || now-c.dropNext >= 16*p.Interval
}

// CoDelState is the visible state of one CoDel instance.
type CoDelState struct {
	Dropping    bool
	Count       uint32
	LastCount   uint32
	DropNext    time.Duration // valid if DropNextSet
	FirstAbove  time.Duration // valid if Above
	DropNextSet bool
	Above       bool // sojourn has been above target since FirstAbove − Interval
}

func (c *codel) state() CoDelState {
	return CoDelState{Dropping: c.dropping, Count: c.count, LastCount: c.lastCount,
		DropNext: c.dropNext, FirstAbove: c.firstAbove, DropNextSet: c.dnSet, Above: c.faSet}
}
