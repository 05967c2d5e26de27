package system

import (
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/gopcu/gopcu/internal/emu/sgsnemu"
	"github.com/gopcu/gopcu/internal/testutil"
	"github.com/gopcu/gopcu/pcu/pcuif"
)

// TestNSVTY: `show ns ...` print libosmogb 1.7's output (as osmo-pcu 1.1.0
// does in the lab) and `nsvc <nsvci> block|unblock|reset` act on the
// NS-VC: the SGSN sees it blocked, unblocked and reset (before, the show
// commands printed nothing and nsvc did nothing).
func TestNSVTY(t *testing.T) {
	g := startGb(t, pcuif.V12)
	run := g.vtySession() // gopcu's own VTY
	up := `\d+d \d+h \d+m \d+s`
	vcLine := `   NSVCI 00101: UNBLOCKED DYNAMIC udp\)\[0\.0\.0\.0\]:\d+<101>\[127\.0\.0\.1\]:\d+ ALIVE since ` + up + "\r\n"
	entity := `NSEI 00101: UDP, ALIVE since ` + up + "\r\n  1 NS-VC:\r\n" + vcLine
	bind := `UDP bind: 0\.0\.0\.0:\d+ DSCP: 0 Priority: 0\r\n  IP-SNS signalling weight: 1 data weight: 1\r\n  1 NS-VC:\r\n` + vcLine
	// the NS-VC is reported ALIVE once the first NS-ALIVE-ACK came back,
	// which on a loaded machine may follow the BVC's unblocking
	testutil.Eventually(t, 10*time.Second, func() bool {
		return regexp.MustCompile("^" + vcLine + "$").MatchString(run("show ns nsvc 101"))
	}, "the NS-VC never shows as UNBLOCKED and ALIVE: %q", run("show ns nsvc 101"))
	for cmd, re := range map[string]string{
		"show ns":            "^" + entity + bind + "$",
		"show ns entities":   "^" + entity + "$",
		"show ns binds":      "^" + bind + "$",
		"show ns nsei 101":   "^" + entity + "$",
		"show ns nsvc 101":   "^" + vcLine + "$",
		"show ns persistent": "^$",
		"show ns nsei 7":     "^$",
		"show ns nsvc 7":     "^No such NS Entity\r\n$",
		"show ns nsvc 101 stats": "^" + vcLine + `    NSVC Peer Statistics:\r\n     Packets at NS Level  \( In\): +\d+ \(\d+/s \d+/m \d+/h \d+/d\)\r\n(?s:.*)` +
			`     RESET ACK missing count   : +0 \(0/s 0/m 0/h 0/d\)\r\n    NSVC Peer Statistics:\r\n     ALIVE response time        : +\d+ ms\r\n$`,
		"show ns binds stats": `  NS Bind Statistics:\r\n   Transmit backlog length:        0 packets\r\n$`,
	} {
		if out := run(cmd); !regexp.MustCompile(re).MatchString(out) {
			t.Errorf("%s:\n%q\nwant %q", cmd, out, re)
		}
	}
	nsUp := func() bool {
		var up bool
		g.sgsn.Do(func(sg *sgsnemu.SGSN, now time.Duration) { up = sg.NSUp() })
		return up
	}
	wait := func(what string, want bool) {
		t.Helper()
		testutil.Eventually(t, 10*time.Second, func() bool { return nsUp() == want }, "%s: the SGSN's NS-VC up = %v", what, !want)
	}
	run("enable")
	for _, step := range []struct{ cmd, out string }{
		{"nsvc 7 block", "Could not find NSVCI 00007\r\n"},
		{"nsvc 101 unblock", "The NS-VC 00101 is already unblocked.\r\n"},
		{"nsvc 101 block", "The NS-VC 00101 will be blocked.\r\n"},
		{"nsvc 101 block", "The NS-VC 00101 is already blocked.\r\n"},
	} {
		if out := run(step.cmd); out != step.out {
			t.Fatalf("%s: %q, want %q", step.cmd, out, step.out)
		}
	}
	wait("after nsvc block", false)
	if out := run("show ns nsvc 101"); !strings.Contains(out, ": BLOCKED DYNAMIC ") || !strings.Contains(out, " DEAD since ") {
		t.Fatalf("blocked NS-VC: %q", out)
	}
	if out := run("nsvc 101 unblock"); out != "The NS-VC 00101 will be unblocked.\r\n" {
		t.Fatalf("unblock: %q", out)
	}
	wait("after nsvc unblock", true)
	if out := run("show ns nsvc 101"); !regexp.MustCompile("^" + vcLine + "$").MatchString(out) {
		t.Fatalf("after unblock: %q", out)
	}
	if out := run("nsvc 101 reset"); out != "The NS-VC 00101 has been resetted.\r\n" {
		t.Fatalf("reset: %q", out)
	}
	wait("after nsvc reset", true)
	testutil.Eventually(t, 10*time.Second, func() bool { return strings.Contains(run("show ns nsvc 101"), "UNBLOCKED") },
		"NS-VC not unblocked again after the reset")
}
