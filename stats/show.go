package stats

import (
	"fmt"
	"io"

	"github.com/gopcu/gopcu/internal/ratectr"
)

// ShowOptions select what WriteShowStats prints.
type ShowOptions struct {
	// MaxLevel hides groups of a higher class (`show stats level ...`);
	// ClassUnknown (the zero value) shows every group, as `show stats`.
	// A group's class is GroupClasses[name] or, if absent, unknown: shown
	// at every level (libosmocore compares the declared class_id only).
	MaxLevel Class
	SkipZero bool
	// GroupName, when set, names counter groups as
	// rate_ctr_group_set_name does ("" = unnamed) in place of the groups'
	// own IndexName.
	GroupName func(*ratectr.Group) string
}

// WriteShowStats prints counters and stat items as libosmocore's `show
// stats [skip-zero]` and `show stats level (global|peer|subscriber)
// [skip-zero]` do (src/vty/utils.c vty_out_statistics_partial2): the
// (always empty) ungrouped counters, then every counter group, then every
// stat item group. Groups are printed in the order given; libosmocore
// prints the most recently allocated first. Items are grouped by runs of
// equal (Group, Index, IndexName).
func WriteShowStats(w io.Writer, groups []*ratectr.Group, items []Item, o ShowOptions) {
	maxLevel := o.MaxLevel
	if maxLevel == ClassUnknown {
		maxLevel = ClassSubscriber
	}
	fmt.Fprint(w, "Ungrouped counters:\n")
	for _, g := range groups {
		if GroupClasses[g.Name] > maxLevel {
			continue
		}
		fmt.Fprintf(w, "%s (%d)", g.Description, g.Index)
		n := g.IndexName
		if o.GroupName != nil {
			n = o.GroupName(g)
		}
		if n != "" {
			fmt.Fprintf(w, "('%s')", n)
		}
		fmt.Fprint(w, ":\n")
		for i, d := range g.Descs {
			c := g.Ctr(i)
			if o.SkipZero && c.Value() == 0 {
				continue
			}
			fmt.Fprintf(w, " %s: %8d (%d/s %d/m %d/h %d/d)\n", d.Description, c.Value(),
				c.Rate(ratectr.PerSecond), c.Rate(ratectr.PerMinute), c.Rate(ratectr.PerHour), c.Rate(ratectr.PerDay))
		}
	}
	for i := 0; i < len(items); {
		j := i + 1
		for j < len(items) && items[j].Group == items[i].Group && items[j].Index == items[i].Index &&
			items[j].IndexName == items[i].IndexName {
			j++
		}
		it := items[i]
		if GroupClasses[it.Group] <= maxLevel {
			fmt.Fprintf(w, "%s (%d)", it.GroupDescription, it.Index)
			if it.IndexName != "" {
				fmt.Fprintf(w, "('%s')", it.IndexName)
			}
			fmt.Fprint(w, ":\n")
			for _, it := range items[i:j] {
				if o.SkipZero && it.Value == 0 {
					continue
				}
				fmt.Fprintf(w, " %s: %8d %s\n", it.Description, int32(it.Value), it.Unit)
			}
		}
		i = j
	}
}
