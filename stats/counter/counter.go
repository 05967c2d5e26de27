// Package counter is the small interface through which gopcu's protocol
// state machines (bssgp/bss, bssgp/ns/nse) count what happens, so that a
// program using them keeps the counts where it likes, or nowhere. A
// state machine asks its Registry for a Group when a counted object comes
// to life (an NSE, an NS-VC, a BVC) and frees it when the object goes, as
// libosmocore's rate_ctr_group_alloc and rate_ctr_group_free.
//
// gopcu passes its rate counter registry (internal/ratectr), which
// implements Registry; a nil Registry turns the counters off.
package counter

// Desc names one counter of a group (libosmocore struct rate_ctr_desc).
type Desc struct {
	Name        string // e.g. "packets:in"
	Description string // e.g. "Packets at NS Level  ( In)"
}

// GroupSpec describes a group instance (libosmocore struct
// rate_ctr_group_desc plus the index and name of the instance).
type GroupSpec struct {
	Name        string // e.g. "ns:nse"
	Description string // e.g. "NSE Peer Statistics"
	Index       uint32
	IndexName   string // names the instance in place of Index; "" = none
	Descs       []Desc // the counters, numbered from 0
}

// Group is one group of counters, numbered as the Descs it was made with.
// Only the owner of the counted object calls it.
type Group interface {
	Inc(i int)
	Add(i int, n uint64)
}

// Registry makes and frees groups.
type Registry interface {
	NewGroup(s GroupSpec) Group
	Free(g Group)
}

// New makes a group in r; with r nil, a group that counts nothing.
func New(r Registry, s GroupSpec) Group {
	if r == nil {
		return discard{}
	}
	return r.NewGroup(s)
}

// Free frees g in r (nothing with r or g nil).
func Free(r Registry, g Group) {
	if r != nil && g != nil {
		r.Free(g)
	}
}

type discard struct{}

func (discard) Inc(int)         {}
func (discard) Add(int, uint64) {}
