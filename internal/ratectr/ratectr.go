// Package ratectr implements Osmocom-style rate counters (libosmocore
// rate_ctr semantics): named counter groups with an index, each counter
// keeping its total and its rate over the last second, minute, hour and day.
//
// Writes: a group is written by one goroutine, its owner (the engine loop);
// Inc and Add are then a plain load and store, which costs about a
// nanosecond. Reads (VTY, statsd, Prometheus) may come from any goroutine:
// all values are accessed atomically.
package ratectr

import (
	"fmt"
	"io"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/gopcu/gopcu/stats/counter"
)

// Desc names one counter of a group, e.g. "rach:requests", "RACH
// requests" (the public counter.Desc).
type Desc = counter.Desc

// Interval is one of the rate intervals.
type Interval int

// The rate intervals, as libosmocore's RATE_CTR_INTV_*.
const (
	PerSecond Interval = iota
	PerMinute
	PerHour
	PerDay
	numIntervals
)

type intv struct {
	last atomic.Uint64
	rate atomic.Uint64
}

// Counter is one rate counter.
type Counter struct {
	cur  atomic.Uint64
	intv [numIntervals]intv
}

// Inc adds one. Owner goroutine only.
func (c *Counter) Inc() { c.cur.Store(c.cur.Load() + 1) }

// Add adds n. Owner goroutine only.
func (c *Counter) Add(n uint64) { c.cur.Store(c.cur.Load() + n) }

// Value is the counter's total.
func (c *Counter) Value() uint64 { return c.cur.Load() }

// Rate is the rate over the last completed interval.
func (c *Counter) Rate(i Interval) uint64 { return c.intv[i].rate.Load() }

func (c *Counter) expire(i Interval) {
	cur := c.cur.Load()
	r := cur - c.intv[i].last.Load()
	c.intv[i].rate.Store(r)
	c.intv[i].last.Store(cur)
}

func (c *Counter) reset() {
	c.cur.Store(0)
	for i := range c.intv {
		c.intv[i].last.Store(0)
		c.intv[i].rate.Store(0)
	}
}

// Group is a set of counters sharing a name and an index, e.g. "bts" 0.
type Group struct {
	Name        string // e.g. "bts"
	Description string // e.g. "BTS Statistics"
	Index       uint32
	// IndexName, when set, names the group instance in place of Index
	// (libosmocore rate_ctr_group_set_name): statsd and Prometheus use it
	// as the index, the VTY prints it after the index ("ns:nsvc" groups
	// are named after their NS-VC).
	IndexName string
	Descs     []Desc
	ctrs      []Counter
}

// NewGroup makes a group of len(descs) counters, all zero.
func NewGroup(name, description string, index uint32, descs []Desc) *Group {
	g := &Group{Name: name, Description: description, Index: index, Descs: descs, ctrs: make([]Counter, len(descs))}
	tracked.Lock()
	if tracked.on {
		tracked.groups = append(tracked.groups, g)
	}
	tracked.Unlock()
	return g
}

// tracked holds every group made since Track (for tests).
var tracked struct {
	sync.Mutex
	on     bool
	groups []*Group
}

// Track makes the package remember every group made from now on, for
// tests that check which counters their scenarios move (Moved). The
// groups are kept for the life of the process.
func Track() {
	tracked.Lock()
	tracked.on = true
	tracked.Unlock()
}

// Moved returns, per group name, the names of the counters that are not
// zero in some group made since Track.
func Moved() map[string]map[string]bool {
	tracked.Lock()
	defer tracked.Unlock()
	out := map[string]map[string]bool{}
	for _, g := range tracked.groups {
		m := out[g.Name]
		if m == nil {
			m = map[string]bool{}
			out[g.Name] = m
		}
		for i := range g.ctrs {
			if g.ctrs[i].Value() != 0 {
				m[g.Descs[i].Name] = true
			}
		}
	}
	return out
}

// Ctr returns counter i (the index into Descs).
func (g *Group) Ctr(i int) *Counter { return &g.ctrs[i] }

// Inc increments counter i. Owner goroutine only.
func (g *Group) Inc(i int) { g.ctrs[i].Inc() }

// Add adds n to counter i. Owner goroutine only.
func (g *Group) Add(i int, n uint64) { g.ctrs[i].Add(n) }

// Value reads counter i.
func (g *Group) Value(i int) uint64 { return g.ctrs[i].Value() }

// Lookup finds a counter by name.
func (g *Group) Lookup(name string) (*Counter, bool) {
	for i, d := range g.Descs {
		if d.Name == name {
			return &g.ctrs[i], true
		}
	}
	return nil, false
}

// Reset zeroes every counter of the group ("stats reset").
func (g *Group) Reset() {
	for i := range g.ctrs {
		g.ctrs[i].reset()
	}
}

// WriteVTY prints the group as libosmocore's vty_out_rate_ctr_group does:
// a title line, then one line per counter with the rates.
func (g *Group) WriteVTY(w io.Writer, prefix string, skipZero bool) {
	fmt.Fprintf(w, "%s%s:\n", prefix, g.Description)
	for i, d := range g.Descs {
		c := &g.ctrs[i]
		if skipZero && c.Value() == 0 {
			continue
		}
		fmt.Fprintf(w, "%s %s: %8d (%d/s %d/m %d/h %d/d)\n", prefix, d.Description, c.Value(),
			c.Rate(PerSecond), c.Rate(PerMinute), c.Rate(PerHour), c.Rate(PerDay))
	}
}

// StatName is the statsd/rate-counter name of counter i: "bts.0.rach.requests"
// (the IndexName in place of the index when set, ':' turned into '.').
func (g *Group) StatName(i int) string {
	idx := g.IndexName
	if idx == "" {
		idx = strconv.FormatUint(uint64(g.Index), 10)
	}
	return strings.ReplaceAll(g.Name+"."+idx+"."+g.Descs[i].Name, ":", ".")
}

// Registry holds every group of a process and drives the rate timer.
type Registry struct {
	mu     sync.Mutex
	groups []*Group
	ticks  uint64
}

// Register adds a group.
func (r *Registry) Register(g *Group) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.groups = append(r.groups, g)
}

// NewGroup makes a group as s describes and registers it: Registry is the
// counter.Registry of the Gb state machines (bssgp/bss, bssgp/ns/nse).
func (r *Registry) NewGroup(s counter.GroupSpec) counter.Group {
	g := NewGroup(s.Name, s.Description, s.Index, s.Descs)
	g.IndexName = s.IndexName
	r.Register(g)
	return g
}

// Free unregisters a group NewGroup made.
func (r *Registry) Free(g counter.Group) {
	if x, ok := g.(*Group); ok {
		r.Unregister(x)
	}
}

// Unregister removes a group.
func (r *Registry) Unregister(g *Group) {
	r.mu.Lock()
	defer r.mu.Unlock()
	for i, x := range r.groups {
		if x == g {
			r.groups = append(r.groups[:i], r.groups[i+1:]...)
			return
		}
	}
}

// Groups returns the registered groups ordered by name then index.
func (r *Registry) Groups() []*Group {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := append([]*Group(nil), r.groups...)
	sort.SliceStable(out, func(i, j int) bool {
		if out[i].Name != out[j].Name {
			return out[i].Name < out[j].Name
		}
		return out[i].Index < out[j].Index
	})
	return out
}

// Tick advances the rate timer by one second: every counter's per-second
// rate is recomputed, and every 60/3600/86400 ticks the larger intervals.
// Call it from the owner goroutine once per second.
func (r *Registry) Tick() {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.ticks++
	for _, g := range r.groups {
		for i := range g.ctrs {
			c := &g.ctrs[i]
			c.expire(PerSecond)
			if r.ticks%60 == 0 {
				c.expire(PerMinute)
			}
			if r.ticks%3600 == 0 {
				c.expire(PerHour)
			}
			if r.ticks%86400 == 0 {
				c.expire(PerDay)
			}
		}
	}
}

// StatItem is a gauge (libosmocore osmo_stat_item): last value wins.
type StatItem struct {
	Name        string
	Description string
	Unit        string
	v           atomic.Int64
}

// Set sets the value.
func (s *StatItem) Set(v int64) { s.v.Store(v) }

// Value reads the value.
func (s *StatItem) Value() int64 { return s.v.Load() }
