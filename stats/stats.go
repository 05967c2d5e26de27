// Package stats holds what gopcu's statistics exporters share: stat item
// values (libosmocore osmo_stat_item) and the group classes that a
// reporter's `level` filters on. The exporters are stats/statsd
// (libosmocore's statsd reporter), stats/prom (Prometheus /metrics) and
// stats/capture (pcap of Gb and GSMTAP).
package stats

import (
	"fmt"
	"strconv"
)

// Class is libosmocore's enum osmo_stats_class: the level of a counter or
// stat item group. A reporter sends groups whose class is at most its
// level.
type Class int

// The classes, in libosmocore order (include/osmocom/core/stats.h).
const (
	ClassUnknown Class = iota
	ClassGlobal
	ClassPeer
	ClassSubscriber
)

var classNames = [...]string{"unknown", "global", "peer", "subscriber"}

func (c Class) String() string {
	if c >= 0 && int(c) < len(classNames) {
		return classNames[c]
	}
	return "Class(" + strconv.Itoa(int(c)) + ")"
}

// ParseLevel parses a `level (global|peer|subscriber)` argument.
func ParseLevel(s string) (Class, error) {
	switch s {
	case "global", "":
		return ClassGlobal, nil
	case "peer":
		return ClassPeer, nil
	case "subscriber":
		return ClassSubscriber, nil
	}
	return ClassUnknown, fmt.Errorf("stats: unknown level %q", s)
}

// GroupClasses are the classes libosmocore and osmo-pcu 1.1.0 give their
// groups (rate_ctr_group_desc.class_id / osmo_stat_item_group_desc.class_id:
// osmo-pcu src/bts.cpp, gprs_bssgp_pcu.c, gprs_ms.c, tbf*.cpp; libosmogb
// gprs_bssgp.c, gprs_ns2.c). "pcu:l1if" is gopcu's own global group.
var GroupClasses = map[string]Class{
	"bts":           ClassGlobal,
	"pcu:l1if":      ClassGlobal,
	"pcu:sgsn":      ClassSubscriber,
	"pcu:ms":        ClassSubscriber,
	"pcu:tbf":       ClassSubscriber,
	"tbf:gprs":      ClassSubscriber,
	"tbf:egprs":     ClassSubscriber,
	"bssgp:bss_ctx": ClassPeer,
	"ns:nse":        ClassPeer,
	"ns:nsvc":       ClassPeer,
	"ns.nsvc":       ClassPeer,
	"ns.bind":       ClassPeer,
}

// ClassOf is the class of group name with index idx: GroupClasses, else
// libosmocore's rule for OSMO_STATS_CLASS_UNKNOWN (index 0 is global, any
// other index a subscriber; stats.c osmo_stats_reporter_check_config).
func ClassOf(group string, idx uint32) Class {
	if c, ok := GroupClasses[group]; ok && c != ClassUnknown {
		return c
	}
	if idx != 0 {
		return ClassSubscriber
	}
	return ClassGlobal
}

// Item is one stat item value (libosmocore osmo_stat_item) at report time.
type Item struct {
	Group string // group name prefix, e.g. "bts"
	Index uint32
	// IndexName, when set, is the group's name (osmo_stat_item_group_set_name):
	// it replaces the index in statsd names and follows it in `show stats`
	// (libosmogb names NS-VC groups "NSE00101-NSVC-UDP-0_0_0_0:23001-127_0_0_1:23000").
	IndexName string
	Name      string // e.g. "ms.present", "pdch.occupied.egprs"
	Value     int64
	Class     Class // ClassUnknown: ClassOf(Group, Index)

	// For `show stats` (WriteShowStats); the exporters do not need them.
	GroupDescription string // e.g. "BTS Statistics"
	Description      string // e.g. "MS Present           "
	Unit             string // e.g. "ms"; "" = none
}
