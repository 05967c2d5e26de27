package system

import (
	"flag"
	"fmt"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/gopcu/gopcu/internal/ratectr"
	"github.com/gopcu/gopcu/pcu"
)

// neverMoved are the counters of osmo-pcu's groups that no scenario moves,
// each with the reason. Only two kinds belong here: counters osmo-pcu
// 1.1.0 declares but never increments either (checked in its source), and
// counters of procedures gopcu does not have (NACC, docs/features.md).
var neverMoved = map[string]string{}

// unitTested are counters whose event needs a state a radio scenario
// hardly reaches; the named test of package pcu provokes it and asserts
// the counter.
var unitTested = map[string]string{
	"bts/tbf:alloc:failed:no_slot_avail": "pcu.TestAllocFailureCauses (the MS's control TS switched off)",
	"bts/tbf:alloc:failed:no_slot_combi": "pcu.TestAllocFailureCauses (UL slot on a PDCH of another TSC)",
	"bts/pch:requests:already":           "pcu.TestT3113PCHPaging (a PS paging while T3113 runs for the IMSI)",
	"bts/pch:requests:timeout":           "pcu.TestT3113PCHPaging (T3113 expires)",
	"bts/pkt:access_reject":              "pcu.TestPacketAccessRejectWaitIndication (no USF free)",
	"bts/pkt:ul_ack_nack_failed":         "pcu.TestNCountersFromInfoInd (N3103 final-ack polls unanswered)",
	"bts/rlc:rel:timedout":               "pcu.TestT3191OnMonotonicClock (T3191 expires)",
	"bts/ul:assignment_failed":           "pcu.TestAssignmentPollFailed",
	// Since an UL TBF's PACCH repeats an unanswered Packet Downlink
	// Assignment until X2001 (osmo-pcu counts N3105 only for a DL sender),
	// no radio scenario ends an assignment by N3105 or aborts an UL TBF.
	"bts/dl:assignment_failed": "pcu.TestAssignmentPollFailed (a DL TBF's own Packet Downlink Assignment polls unanswered)",
	"bts/rlc:ass:failed":       "pcu.TestAssignmentPollFailed",
	"bts/tbf:ul:aborted":       "pcu.TestT3141ContentionResolution (T3141 passes)",
}

// mayMove are unit-tested counters that a radio scenario with random
// block loss moves in some runs and not in others: neither outcome fails.
var mayMove = map[string]string{
	// a lost Control Ack of the final Packet Uplink Ack/Nack (the lossy
	// scenarios; since a DL Ack/Nack's uplink request ends such a TBF at
	// once, whether its poll times out first depends on the loss pattern)
	"bts/pkt:ul_ack_nack_timeout": "pcu.TestNCountersFromInfoInd (final-ack polls unanswered)",
}

// pendingCounters are counters whose increment is still missing; they are
// reported, not failed, until then.
var pendingCounters = map[string]string{}

// TestMain runs the package's scenarios and, when all of them ran (no
// -run, not -short), fails if a counter of osmo-pcu's groups ("bts",
// "pcu:sgsn") never moved and is not explained in neverMoved, unitTested
// or pendingCounters: every declared counter must count its event
// somewhere (issue 14 item 17).
func TestMain(m *testing.M) {
	ratectr.Track()
	code := m.Run()
	if code == 0 && flag.Lookup("test.run").Value.String() == "" && !testing.Short() {
		if msg := unmovedCounters(); msg != "" {
			fmt.Fprint(os.Stderr, msg)
			code = 1
		}
	}
	os.Exit(code)
}

func unmovedCounters() string {
	moved := ratectr.Moved()
	var missing, pending []string
	for _, g := range []struct {
		name  string
		descs []ratectr.Desc
	}{{"bts", pcu.BTSCounterDescs}, {"pcu:sgsn", pcu.SGSNCounterDescs}} {
		for _, d := range g.descs {
			k := g.name + "/" + d.Name
			switch {
			case moved[g.name][d.Name]:
				for list, m := range map[string]map[string]string{"neverMoved": neverMoved, "unitTested": unitTested, "pendingCounters": pendingCounters} {
					if why, ok := m[k]; ok {
						missing = append(missing, fmt.Sprintf("%s moved: take it out of %s (%s)", k, list, why))
					}
				}
			case neverMoved[k] != "", unitTested[k] != "", mayMove[k] != "":
			case pendingCounters[k] != "":
				pending = append(pending, k+" ("+pendingCounters[k]+")")
			default:
				missing = append(missing, k)
			}
		}
	}
	if len(pending) > 0 {
		slices.Sort(pending)
		fmt.Fprintf(os.Stderr, "counters without an increment yet:\n  %s\n", strings.Join(pending, "\n  "))
	}
	if len(missing) == 0 {
		return ""
	}
	slices.Sort(missing)
	return fmt.Sprintf("FAIL: counters no scenario of tests/system moves:\n  %s\n", strings.Join(missing, "\n  "))
}
