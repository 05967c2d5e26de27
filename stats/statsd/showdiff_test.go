package statsd

import (
	"fmt"
	"github.com/gopcu/gopcu/internal/testutil"
	"github.com/gopcu/gopcu/pcu"
	"regexp"
	"strings"
	"testing"
)

// showCommands are compared between osmo-pcu 1.1.0 and gopcu.
var showCommands = []string{"show tbf all", "show tbf ccch", "show tbf pacch", "show ms all",
	"show ms tlli c0001001", "show ms imsi 901700000001001", "show bts pdch"}

// showScript: one MS (class 12, its Channel Quality Reports with values)
// starts a long upload (20 LLC frames of
// 1000 octets, one-phase access, UL TBF on CCCH); once its UL TBF is in
// FLOW the SGSN sends it 20 frames of 1000 octets (DL TBF on PACCH); 40
// blocks after both are in FLOW the show commands are run.
func showScript(s *radioSide) map[string]string {
	s.t.Helper()
	ms := s.cell.AddMS(0xc0001001, "901700000001001", 12)
	// a Channel Quality Report with values (C, RXQUAL, SIGN_VAR, I_LEVEL)
	q := &ms.DLQuality
	q.CValue, q.RXQual, q.SignVar = 40, 3, 10
	q.HasILev[4], q.ILevelTN[4], q.HasILev[6], q.ILevelTN[6] = true, 9, true, 5
	frame := make([]byte, 1000)
	frame[0], frame[1] = 0x03, 0xc0
	for range 20 {
		ms.SendLLC(frame)
	}
	s.stepUntil("UL TBF in FLOW", 2000, func() bool { return strings.Contains(s.show("show tbf all"), "state=FLOW") })
	for range 20 {
		if err := s.sg.SendDLUnitdata(1800, ms.TLLI, ms.IMSI, frame); err != nil {
			s.t.Fatal(err)
		}
	}
	s.stepUntil("both TBFs in FLOW", 2000, func() bool { return strings.Count(s.show("show tbf all"), "state=FLOW") == 2 })
	if err := s.cell.Run(s.ctx, 40); err != nil {
		s.t.Fatal(err)
	}
	out := map[string]string{}
	for _, c := range showCommands {
		out[c] = strings.ReplaceAll(s.show(c), "\r\n", "\n")
	}
	return out
}

// showNormalize replaces what legitimately differs between the two runs:
// creation times, window variables, counter values and rates, the LLC
// queue fill and the throughput (how far each PCU got in the 40 blocks).
var showNormalize = []struct {
	re   *regexp.Regexp
	repl string
}{
	{regexp.MustCompile(`created=\d+`), "created=T"},
	{regexp.MustCompile(`V\((A|S|Q|R)\)=\d+`), "V($1)=N"},
	{regexp.MustCompile(`nBSN=-?\d+`), "nBSN=N"},
	{regexp.MustCompile(`: +\d+ \(\d+/s \d+/m \d+/h \d+/d\)$`), ": N (rates)"},
	{regexp.MustCompile(`(LLC queue (length|octets): +)\d+$`), "${1}N"},
	{regexp.MustCompile(`(Current DL Throughput: +)\d+ Kbps $`), "${1}N Kbps "},
	// osmo-pcu 1.1.0 prints the DL TBFs' number as the UL TBFs' and the
	// other way round (checked swapped below)
	{regexp.MustCompile(`, \d+ UL TBFs, \d+ DL TBFs$`), ", N UL TBFs, N DL TBFs"},
}

func normalizeShow(s string) []string {
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		for _, n := range showNormalize {
			l = n.re.ReplaceAllString(l, n.repl)
		}
		lines[i] = l
	}
	return lines
}

var pdchLine = regexp.MustCompile(`^  TS(\d): PDCH \w+, (\d+) UL TBFs, (\d+) DL TBFs$`)

// TestShowMatchesOsmoPCU runs showScript against osmo-pcu 1.1.0 and
// gopcu's engine (each with the BTS, MS and SGSN emulators in a network
// namespace of its own) and compares the outputs of `show tbf`, `show ms`
// and `show bts pdch` line by line after showNormalize.
func TestShowMatchesOsmoPCU(t *testing.T) {
	t.Parallel() // each run has its own network namespace
	testutil.NeedBinaries(t, "osmo-pcu")
	testutil.NeedRoot(t, "network namespaces")
	var ref, got map[string]string
	t.Run("sessions", func(t *testing.T) {
		// DL CS-2 at most: the DL link adaptation may step up 1 s after
		// the MS appeared, on osmo-pcu's wall clock and on gopcu's radio
		// time (the emulated radio runs several times faster than real
		// time here), so without a cap the CS would depend on the machine
		t.Run("osmo-pcu", func(t *testing.T) { t.Parallel(); ref = showScript(osmoPCUSide(t, "cs max 2 4")) })
		t.Run("gopcu", func(t *testing.T) {
			t.Parallel()
			got = showScript(gopcuSide(t, func(p *pcu.Params) { p.CSMaxDL, p.CSMaxUL = 2, 4 }))
		})
	})
	if ref == nil || got == nil {
		t.FailNow()
	}
	compareShow(t, showCommands, ref, got)
	// show bts pdch: gopcu's numbers are osmo-pcu's, swapped back
	rl, gl := strings.Split(ref["show bts pdch"], "\n"), strings.Split(got["show bts pdch"], "\n")
	for i := range min(len(rl), len(gl)) {
		r, g := pdchLine.FindStringSubmatch(rl[i]), pdchLine.FindStringSubmatch(gl[i])
		if r != nil && g != nil && (r[2] != g[3] || r[3] != g[2]) {
			t.Errorf("TS%s: osmo-pcu %s UL (its DL) and %s DL (its UL) TBFs, gopcu %s UL and %s DL", r[1], r[2], r[3], g[2], g[3])
		}
	}
}

// compareShow compares the outputs of cmds line by line after
// showNormalize.
func compareShow(t *testing.T, cmds []string, ref, got map[string]string) {
	t.Helper()
	for _, c := range cmds {
		r, g := normalizeShow(ref[c]), normalizeShow(got[c])
		var bad []string
		for i := range max(len(r), len(g)) {
			var rl, gl string
			if i < len(r) {
				rl = r[i]
			}
			if i < len(g) {
				gl = g[i]
			}
			if rl != gl {
				bad = append(bad, fmt.Sprintf("line %d:\n  osmo-pcu %q\n  gopcu    %q", i+1, rl, gl))
			}
		}
		if len(bad) > 0 {
			t.Errorf("%s differs:\n%s\nosmo-pcu:\n%s\ngopcu:\n%s", c, strings.Join(bad, "\n"), ref[c], got[c])
		}
	}
}
